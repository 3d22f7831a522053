import SwiftsegKernelTypes

/// A stack allocator for the activations of one forward pass: the memory plan.
///
/// Blocks allocate their outputs before their temporaries and release temporaries on return (`mark` /
/// `release`), so the live set is always a stack. The first pass at a new input size learns the peak; the
/// arena then holds one block of exactly that size and later passes allocate nothing. Allocations past the
/// block's end during a learning pass are served separately and freed on release.
public final class Arena {
    public struct Mark { let top: Int; let overflowCount: Int }

    private var block: UnsafeMutableRawPointer?
    private var capacity = 0          // bytes in `block`
    private var top = 0               // logical bytes in use (may exceed capacity while learning)
    private var overflow: [UnsafeMutableRawPointer] = []
    /// The largest `top` seen since the arena last grew: the plan's size in bytes.
    public private(set) var peakBytes = 0

    public init() {}
    deinit {
        block?.deallocate()
        overflow.forEach { $0.deallocate() }
    }

    /// Bytes held in the arena's block.
    public var capacityBytes: Int { capacity }

    /// Starts a pass: everything is released; if the last pass went past the block, the block grows to the peak.
    public func reset() {
        release(to: Mark(top: 0, overflowCount: 0))
        if peakBytes > capacity {
            block?.deallocate()
            block = LargeBuffer.allocate(byteCount: peakBytes)
            capacity = peakBytes
        }
    }

    public func mark() -> Mark { Mark(top: top, overflowCount: overflow.count) }

    public func release(to mark: Mark) {
        while overflow.count > mark.overflowCount { overflow.removeLast().deallocate() }
        top = mark.top
    }

    /// Uninitialised room for `count` floats, 64-byte aligned.
    public func allocate(floats count: Int) -> UnsafeMutablePointer<Float> {
        let bytes = (count * MemoryLayout<Float>.size + 63) & ~63
        defer { top += bytes; peakBytes = max(peakBytes, top) }
        if let block, top + bytes <= capacity {
            return (block + top).bindMemory(to: Float.self, capacity: count)
        }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        overflow.append(raw)
        return raw.bindMemory(to: Float.self, capacity: count)
    }

    /// A C×H×W tensor in the arena (contents undefined).
    public func tensor(channels: Int, height: Int, width: Int) -> TensorView {
        TensorView(channels: channels, height: height, width: width,
                   data: allocate(floats: channels * height * width))
    }

    /// Whether the last pass needed memory beyond the block (true only while learning a new size).
    public var usedOverflow: Bool { peakBytes > capacity }
}
