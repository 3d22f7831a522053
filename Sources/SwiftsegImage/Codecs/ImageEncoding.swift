import Foundation
import _CPNG
import _CTurboJPEG

/// Encoded file formats swiftseg writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg

    /// The format a path's extension names (.png, .jpg, .jpeg; case-insensitive), or nil.
    public init?(path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }
}

/// How PNG data is compressed (the pixels come back the same either way).
///
/// ```swift
/// let quick = try cutout.pngData()                              // .fast
/// let small = try cutout.pngData(compression: .level(9))
/// ```
public enum PNGCompression: Sendable, Hashable, CustomStringConvertible {
    /// Run-length deflate (matches at distance one only, as zlib's run-length strategy; ``RunLengthDeflate``). On
    /// the filtered rows of photo cutouts it takes about a seventh of zlib level 6's time for files as small on
    /// colour photos (after the row filters their bytes repeat little beyond runs). Grayscale photos stored in
    /// colour repeat four bytes apart, beyond a run, so for those (every pixel R = G = B) it uses zlib level 1
    /// instead, about as fast. The default.
    case fast
    /// A zlib level, 0 (stored, fastest) … 9 (smallest); 6 is libpng's and Pillow's default.
    case level(Int)

    /// Parses the `--png-compression` spelling: `fast`, or a level 0…9 (nil otherwise).
    ///
    /// ```swift
    /// PNGCompression("fast")   // .fast
    /// PNGCompression("9")      // .level(9)
    /// ```
    public init?(_ text: String) {
        if text == "fast" { self = .fast; return }
        guard let level = Int(text), (0...9).contains(level) else { return nil }
        self = .level(level)
    }

    /// `fast`, or a level clamped to 0…9, as the `--png-compression` option spells it.
    public var description: String {
        switch self {
        case .fast: "fast"
        case .level(let n): "\(min(max(n, 0), 9))"
        }
    }
}

/// Encoder settings.
public struct EncodingOptions: Sendable, Equatable {
    /// How PNG output is compressed. Default `.fast`.
    public var pngCompression = PNGCompression.fast
    /// JPEG quality 1…100. Default 90.
    public var jpegQuality = 90
    public init(pngCompression: PNGCompression = .fast, jpegQuality: Int = 90) {
        self.pngCompression = pngCompression
        self.jpegQuality = jpegQuality
    }
}

extension Image {
    /// The image as PNG bytes (gray, RGB or RGBA, 8-bit); `parts`: threads to share the work with (the same
    /// bytes either way).
    public func pngData(compression: PNGCompression = .fast, parts: ParallelParts = .serial) throws -> [UInt8] {
        try PNGEncoder.encode(width: width, height: height, channels: channels, bitDepth: 8,
                              rows: pixels, compression: compression, parts: parts)
    }

    /// The image as JPEG bytes. JPEG has no alpha channel, so RGBA images are refused.
    public func jpegData(quality: Int = 90) throws -> [UInt8] {
        guard channels != 4 else {
            throw ImageError(.unsupportedOutput, "JPEG has no alpha channel: write a .png, or give the cutout a --background")
        }
        guard let handle = tjInitCompress() else { throw ImageError(.codecFailure, "cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let format = channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        let sampling = channels == 1 ? Int32(TJSAMP_GRAY.rawValue) : Int32(TJSAMP_420.rawValue)
        let status = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), 0, Int32(height), format, &buffer, &size,
                        sampling, Int32(min(max(quality, 1), 100)), 0)
        }
        defer { tjFree(buffer) }
        guard status == 0, let buffer else { throw ImageError(.codecFailure, "cannot encode JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// The image encoded as `format`; `parts`: threads to share PNG encoding with (the same bytes either way).
    public func encoded(as format: ImageFormat, options: EncodingOptions = EncodingOptions(),
                        parts: ParallelParts = .serial) throws -> [UInt8] {
        switch format {
        case .png: try pngData(compression: options.pngCompression, parts: parts)
        case .jpeg: try jpegData(quality: options.jpegQuality)
        }
    }
}
