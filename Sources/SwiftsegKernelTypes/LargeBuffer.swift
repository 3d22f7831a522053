#if canImport(Glibc)
import Glibc
#endif

/// Allocation for big buffers: the runtime's long-lived ones (the arena's block, per-worker scratch, transformed
/// weights) and the image library's large copies (a 12 MP photo's for the rectangle detector). On Linux, buffers
/// of 2 MiB or more are 2 MiB-aligned and marked for transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`; the system default is often `madvise`, i.e. huge pages only when asked): fewer TLB
/// misses, and the same physical layout from run to run instead of whatever 4 KiB pages the kernel hands out.
/// Free with `deallocate()` as usual.
///
/// ```swift
/// let block = LargeBuffer.allocate(byteCount: 64 << 20)
/// defer { block.deallocate() }
/// ```
public enum LargeBuffer {
    static let hugePage = 2 << 20

    public static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        guard byteCount >= hugePage else { return UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64) }
        let rounded = (byteCount + hugePage - 1) / hugePage * hugePage
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: hugePage)
        #if os(Linux)
        _ = madvise(pointer, rounded, 14)  // MADV_HUGEPAGE (not exported to Swift by Glibc's module); advisory
        #endif
        return pointer
    }
}
