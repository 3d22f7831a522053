import Foundation

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
            throw ImageError(.fileSystem, "\(path): cannot write (permission denied or disk full?)")
        }
        if rename(temp, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw ImageError(.fileSystem, "\(path): cannot write: \(reason)")
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
                throw ImageError(.fileSystem, "\(f.path): cannot write (permission denied or disk full?)")
            }
            temps.append((temp, f.path))
        }
        for f in files where f.path == "-" { try write(f.bytes, to: "-") }
        while let t = temps.first {
            if rename(t.temp, t.path) != 0 {
                throw ImageError(.fileSystem, "\(t.path): cannot write: \(String(cString: strerror(errno)))")
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
            throw ImageError(.fileSystem, "\(path): folder \(dir) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw ImageError(.fileSystem, "\(path): is a directory")
        }
        guard access(dir, W_OK) == 0 else { throw ImageError(.fileSystem, "\(path): folder \(dir) is not writable") }
    }
}
