import Foundation
import _CPNG

extension Image {
    /// The image as PNG bytes (gray, RGB or RGBA, 8-bit).
    public func pngData() throws -> [UInt8] {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = channels == 1 ? PNGFormat.gray : channels == 3 ? PNGFormat.rgb : PNGFormat.rgba
        defer { png_image_free(&png) }
        var size = 0
        let rowStride = Int32(width * channels)
        _ = pixels.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, rowStride, nil) }
        guard size > 0 else { throw ImageError("cannot encode PNG (\(width)×\(height))") }
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { dst in
            pixels.withUnsafeBytes { png_image_write_to_memory(&png, dst.baseAddress, &size, 0, $0.baseAddress, rowStride, nil) }
        }
        guard ok != 0 else { throw ImageError("cannot encode PNG (\(width)×\(height))") }
        return Array(out.prefix(size))
    }
}

extension InstanceMask {
    /// The label map as a gray PNG: 8-bit when N ≤ 255, else 16-bit; each pixel's value is its label.
    public func pngData() throws -> [UInt8] {
        switch storage {
        case .uint8(let labels):
            return try Image(width: width, height: height, channels: 1, pixels: labels).pngData()
        case .uint16(let labels):
            var png = png_image()
            png.version = UInt32(PNG_IMAGE_VERSION)
            png.width = UInt32(width)
            png.height = UInt32(height)
            png.format = PNGFormat.linearFlag  // 16-bit gray; values are written as they are
            defer { png_image_free(&png) }
            var size = 0
            let stride = Int32(width)  // in components
            _ = labels.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, stride, nil) }
            var out = [UInt8](repeating: 0, count: size)
            let ok = out.withUnsafeMutableBytes { dst in
                labels.withUnsafeBytes { png_image_write_to_memory(&png, dst.baseAddress, &size, 0, $0.baseAddress, stride, nil) }
            }
            guard ok != 0, size > 0 else { throw ImageError("cannot encode the 16-bit instance map") }
            return Array(out.prefix(size))
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
