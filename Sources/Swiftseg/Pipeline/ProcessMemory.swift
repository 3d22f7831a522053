#if canImport(Glibc)
import Glibc
#endif

/// Process-wide memory settings for long batches and servers.
///
/// glibc's malloc raises its mmap threshold every time a large block is freed (up to 32 MiB), after which
/// photo-sized buffers (decoded pixels, masks, cutouts, encoded files) are carved from the heap and the
/// per-thread arenas instead of mappings of their own, and freed room there is kept rather than returned: a
/// long batch then holds ~50–90 MB more than it uses (PERF.md, "Batches"). Fixing the threshold keeps every
/// block of `bytes` or more in its own mapping, returned to the system when freed. The cost is a page fault
/// per 4 KiB on each new buffer: 2 MiB (the default) keeps the many small per-photo buffers on the heap, which
/// measured 2 % more photos/s than 256 KiB on small photos for 4–5 MB more RSS. A fixed mmap threshold also
/// stops glibc raising its trim threshold (128 KiB): every arena would give back any free top over that, and
/// the next photo fault it in again (~80 page faults a photo on a folder of 0.3-megapixel photos, ~3 % of a
/// classification batch's CPU time zeroing and mapping pages), so the trim threshold is set to twice `bytes`: at most that
/// much kept free per arena. It changes the whole process, so the library never calls it on its own:
/// `swiftseg infer`, `classify` and `serve` call it for batches and `swiftseg-bench --soak` for its runs.
///
/// ```swift
/// ProcessMemory.returnLargeBlocksToSystem()   // once, at start-up of a batch tool or a service
/// ```
public enum ProcessMemory {
    /// Fixes malloc's mmap threshold at `bytes` (default 2 MiB) and its trim threshold at twice that. Returns
    /// false where the C library has no such setting (anything but glibc), which leaves the process unchanged.
    @discardableResult
    public static func returnLargeBlocksToSystem(bytes: Int = 2 << 20) -> Bool {
        #if canImport(Glibc)
        // <malloc.h> is not part of Swift's Glibc module: look the function up (M_MMAP_THRESHOLD is -3,
        // M_TRIM_THRESHOLD -1).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        return mallopt(-3, Int32(clamping: bytes)) == 1 && mallopt(-1, Int32(clamping: 2 * bytes)) == 1
        #else
        return false
        #endif
    }

    /// The process's resident set size now, in bytes (Linux: /proc/self/statm), or nil where unknown.
    public static func residentBytes() -> Int? {
        #if os(Linux)
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        // "size resident shared …", in pages
        let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }
}
