import Synchronization
import SwiftsegKernelTypes

/// Weights copied at load into the order a kernel reads them (a fully connected layer's columns, a dilated
/// conv's taps, a depthwise conv's channel blocks), owned for the layer's life: zeroed, filled once by the
/// layout's maker (next to the op that reads it), read-only afterwards, so layers sharing it across threads
/// stay `Sendable`. Buffers of 2 MiB or more on huge pages (``LargeBuffer``).
///
/// ```swift
/// let columns = RearrangedWeights(count: o * i) { w in
///     for r in 0..<o { for c in 0..<i { w[c * o + r] = weight[r * i + c] } }
/// }
/// ```
public final class RearrangedWeights: @unchecked Sendable {
    /// The rearranged floats.
    let floats: UnsafeMutablePointer<Float>

    init(count: Int, fill: (UnsafeMutablePointer<Float>) -> Void) {
        floats = LargeBuffer.allocate(byteCount: max(count, 1) * 4).bindMemory(to: Float.self, capacity: max(count, 1))
        floats.initialize(repeating: 0, count: count)
        fill(floats)
    }

    deinit { floats.deallocate() }
}

/// A layer's packings of its weights made on first use, by key (another kernel build's row block, the
/// channel-blocked layout), each made once and kept for the layer's life. Made outside the lock, so one
/// layer's first pass does not hold up another's; when two threads race, the first packing is kept and the
/// other freed.
///
/// ```swift
/// let p = packings.packing(rowBlock) { pack(weight, rowBlock: rowBlock) }
/// ```
final class PackingsOnFirstUse: Sendable {
    /// Addresses, by key: a pointer into the lock's state cannot be `sending`.
    private let made = Mutex<[Int: UInt]>([:])

    init() {}

    /// The packing for `key`, made by `make` (memory it allocated, freed here) the first time.
    func packing(_ key: Int, make: () -> UnsafeMutablePointer<Float>) -> UnsafePointer<Float> {
        if let address = made.withLock({ $0[key] }) { return UnsafePointer(bitPattern: address)! }
        let new = UInt(bitPattern: make())
        let kept = made.withLock { packings in
            if let earlier = packings[key] { return earlier }   // another thread was first
            packings[key] = new
            return new
        }
        if kept != new { UnsafeMutablePointer<Float>(bitPattern: new)!.deallocate() }
        return UnsafePointer(bitPattern: kept)!
    }

    deinit { made.withLock { $0.values.forEach { UnsafeMutablePointer<Float>(bitPattern: $0)!.deallocate() } } }
}
