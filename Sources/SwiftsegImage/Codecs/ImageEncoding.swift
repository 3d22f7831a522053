import Foundation

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
    /// WebP quality 0…100 for lossy WebP; nil (the default) writes lossless WebP, the same pixels back.
    public var webpQuality: Int? = nil
    public init(pngCompression: PNGCompression = .fast, jpegQuality: Int = 90, webpQuality: Int? = nil) {
        self.pngCompression = pngCompression
        self.jpegQuality = jpegQuality
        self.webpQuality = webpQuality
    }
}

extension Image {
    /// The image as PNG bytes (gray, RGB or RGBA, 8-bit; its profile in an iCCP chunk); `parts`: threads to share the work with (the same
    /// bytes either way).
    public func pngData(compression: PNGCompression = .fast, parts: ParallelParts = .serial) throws -> [UInt8] {
        try PNGEncoder.encode(width: width, height: height, channels: channels, bitDepth: 8,
                              rows: pixels, compression: compression, parts: parts, iccProfile: fittingProfile)
    }

    /// The image as JPEG bytes. JPEG has no alpha channel, so RGBA images are refused.
    public func jpegData(quality: Int = 90) throws -> [UInt8] { try JPEGCodec.encode(self, quality: quality) }

    /// The image as WebP bytes: lossless with `quality` nil (the same pixels back), else lossy at `quality`
    /// 0…100; alpha kept either way.
    public func webpData(quality: Int? = nil) throws -> [UInt8] { try WebPCodec.encode(self, quality: quality) }

    /// The image encoded as `format`; `parts`: threads to share PNG encoding with (the same bytes either way).
    public func encoded(as format: ImageFormat, options: EncodingOptions = EncodingOptions(),
                        parts: ParallelParts = .serial) throws -> [UInt8] {
        try format.codec.encode(self, options: options, parts: parts)
    }
}
