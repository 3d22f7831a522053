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
    /// zlib's run-length strategy (matches at distance one only). On the filtered rows of photo cutouts it takes
    /// about a sixth of level 6's time for files as small on colour photos (after the row filters their bytes
    /// repeat little beyond runs). Grayscale photos stored in colour repeat four bytes apart, beyond a run, so
    /// for those (every pixel R = G = B) it uses zlib level 1 instead, as fast. The default.
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
    /// The image as PNG bytes (gray, RGB or RGBA, 8-bit).
    public func pngData(compression: PNGCompression = .fast) throws -> [UInt8] {
        try PNGEncoder.encode(width: width, height: height, channels: channels, bitDepth: 8,
                              rows: pixels, compression: compression)
    }

    /// The image as JPEG bytes. JPEG has no alpha channel, so RGBA images are refused.
    public func jpegData(quality: Int = 90) throws -> [UInt8] {
        guard channels != 4 else {
            throw ImageError("JPEG has no alpha channel: write a .png, or give the cutout a --background")
        }
        guard let handle = tjInitCompress() else { throw ImageError("cannot start the JPEG encoder") }
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
        guard status == 0, let buffer else { throw ImageError("cannot encode JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// The image encoded as `format`.
    public func encoded(as format: ImageFormat, options: EncodingOptions = EncodingOptions()) throws -> [UInt8] {
        switch format {
        case .png: try pngData(compression: options.pngCompression)
        case .jpeg: try jpegData(quality: options.jpegQuality)
        }
    }
}

extension InstanceMask {
    /// The label map as a gray PNG: 8-bit when N ≤ 255, else 16-bit; each pixel's value is its label.
    public func pngData(compression: PNGCompression = .fast) throws -> [UInt8] {
        switch storage {
        case .uint8(let labels):
            return try PNGEncoder.encode(width: width, height: height, channels: 1, bitDepth: 8, rows: labels,
                                         compression: compression)
        case .uint16(let labels):
            let bigEndian = labels.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            return try PNGEncoder.encode(width: width, height: height, channels: 1, bitDepth: 16, rows: bigEndian,
                                         compression: compression)
        }
    }
}

/// Writes files so that a failure or a kill never leaves a partial file or clobbers a good one: the bytes go
/// to a temporary file in the destination's folder, which is then renamed over the destination.
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically; `-` writes to standard output.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        try checkWritable(path)
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let temp = "\(dir)/.\(url.lastPathComponent).\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: Data(bytes)) else {
            throw ImageError("\(path): cannot write (permission denied or disk full?)")
        }
        if rename(temp, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw ImageError("\(path): cannot write: \(reason)")
        }
    }

    /// Writes several files as one step: all are checked and written to temporary files first, and only when
    /// every one succeeded are they renamed into place, so an error leaves none of them behind.
    public static func write(_ files: [(path: String, bytes: [UInt8])]) throws {
        var temps: [(temp: String, path: String)] = []
        defer { for t in temps { unlink(t.temp) } }
        for f in files { try checkWritable(f.path) }
        for f in files where f.path != "-" {
            let url = URL(fileURLWithPath: f.path)
            let temp = "\(url.deletingLastPathComponent().path)/.\(url.lastPathComponent).\(getpid()).tmp"
            guard FileManager.default.createFile(atPath: temp, contents: Data(f.bytes)) else {
                throw ImageError("\(f.path): cannot write (permission denied or disk full?)")
            }
            temps.append((temp, f.path))
        }
        for f in files where f.path == "-" { try write(f.bytes, to: "-") }
        while let t = temps.first {
            if rename(t.temp, t.path) != 0 {
                throw ImageError("\(t.path): cannot write: \(String(cString: strerror(errno)))")
            }
            temps.removeFirst()
        }
    }
}

extension AtomicFile {
    /// Throws unless `path` (or `-`) can be written: its folder exists and is writable, and it is not a folder.
    /// Lets a command fail before doing any work.
    public static func checkWritable(_ path: String) throws {
        if path == "-" { return }
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw ImageError("\(path): folder \(dir) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw ImageError("\(path): is a directory")
        }
        guard access(dir, W_OK) == 0 else { throw ImageError("\(path): folder \(dir) is not writable") }
    }
}
