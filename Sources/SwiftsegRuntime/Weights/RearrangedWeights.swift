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
    public let count: Int

    init(count: Int, fill: (UnsafeMutablePointer<Float>) -> Void) {
        self.count = count
        floats = LargeBuffer.allocate(byteCount: max(count, 1) * 4).bindMemory(to: Float.self, capacity: max(count, 1))
        floats.initialize(repeating: 0, count: count)
        fill(floats)
    }

    deinit { floats.deallocate() }
}
