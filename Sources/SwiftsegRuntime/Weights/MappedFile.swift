#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read-only bytes: a file mapped with `mmap` (pages are loaded on demand and shared, never copied), or memory
/// linked into the binary (the embedded default weights).
public final class MappedFile: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer
    private let unmapOnDeinit: Bool

    /// Maps `path` read-only. Throws ``RuntimeError/io(_:)`` naming the file when it cannot be opened or mapped.
    public init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw RuntimeError.io("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw RuntimeError.io("\(path): cannot stat") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw RuntimeError.io("\(path): not a regular file") }
        let size = Int(st.st_size)
        guard size > 0 else { throw RuntimeError.invalidWeights("\(path): file is empty") }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw RuntimeError.io("\(path): mmap failed: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: p, count: size)
        unmapOnDeinit = true
    }

    /// Wraps memory that lives as long as the process (e.g. data linked into the binary).
    public init(staticBytes: UnsafeRawBufferPointer) {
        bytes = staticBytes
        unmapOnDeinit = false
    }

    /// Drops the mapping's resident pages (file mappings only): after the Winograd weights are built, the
    /// original 3×3 weights are rarely read again, and a page that is needed is simply read back from the file.
    public func releaseResidentPages() {
        guard unmapOnDeinit, let base = bytes.baseAddress else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), bytes.count, Int32(MADV_DONTNEED))
    }

    deinit {
        if unmapOnDeinit, let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
