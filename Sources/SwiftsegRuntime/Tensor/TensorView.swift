/// A float32 NCHW tensor of batch 1, seen through a pointer it does not own.
///
/// The runtime's unit of data: ops read and write views, and a view can be a channel slice of a larger tensor
/// (that is how concatenation costs nothing: each producer writes straight into its slice). Whoever created
/// the memory (an ``Arena``, a ``Tensor``) keeps it alive.
///
/// ```swift
/// let t = Tensor(channels: 4, height: 2, width: 3)
/// let lastTwo = t.view.channels(2..<4)   // shares memory with t
/// ```
public struct TensorView: @unchecked Sendable {
    public let channels: Int
    public let height: Int
    public let width: Int
    public let data: UnsafeMutablePointer<Float>

    public init(channels: Int, height: Int, width: Int, data: UnsafeMutablePointer<Float>) {
        precondition(channels > 0 && height > 0 && width > 0, "tensor dimensions must be positive")
        self.channels = channels
        self.height = height
        self.width = width
        self.data = data
    }

    /// Pixels per channel plane.
    @inlinable public var planeSize: Int { height * width }
    /// Number of floats in the view.
    @inlinable public var count: Int { channels * height * width }

    /// The channels `range` of this view, sharing its memory.
    public func channels(_ range: Range<Int>) -> TensorView {
        precondition(range.lowerBound >= 0 && range.upperBound <= channels && !range.isEmpty,
                     "channel slice \(range) out of 0..<\(channels)")
        return TensorView(channels: range.count, height: height, width: width,
                          data: data + range.lowerBound * planeSize)
    }

    /// Pointer to the first float of channel `c`.
    @inlinable public func plane(_ c: Int) -> UnsafeMutablePointer<Float> { data + c * planeSize }

    @inlinable public subscript(c: Int, y: Int, x: Int) -> Float {
        get { data[(c * height + y) * width + x] }
        nonmutating set { data[(c * height + y) * width + x] = newValue }
    }

    /// The view's floats as a buffer.
    public var buffer: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: data, count: count) }

    /// Whether two views have the same shape.
    public func sameShape(as other: TensorView) -> Bool {
        channels == other.channels && height == other.height && width == other.width
    }

    public var shapeDescription: String { "\(channels)×\(height)×\(width)" }
}

/// An owned float32 tensor with an NCHW shape (any batch), 64-byte aligned, freed on deinit.
///
/// ```swift
/// let t = Tensor(shape: [1, 3, 320, 320])
/// t.view.buffer.initialize(repeating: 0)
/// ```
public final class Tensor: @unchecked Sendable {
    public let shape: [Int]
    public let data: UnsafeMutablePointer<Float>
    public var count: Int { shape.reduce(1, *) }

    public init(shape: [Int]) {
        precondition(!shape.isEmpty && shape.allSatisfy { $0 > 0 }, "tensor shape \(shape) must be positive")
        self.shape = shape
        let count = shape.reduce(1, *)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.size, alignment: 64)
        data = raw.bindMemory(to: Float.self, capacity: count)
        data.initialize(repeating: 0, count: count)
    }

    /// A 1×C×H×W tensor.
    public convenience init(channels: Int, height: Int, width: Int) {
        self.init(shape: [1, channels, height, width])
    }

    /// A tensor holding `values` (row-major, `shape.reduce(1,*)` of them).
    public convenience init(shape: [Int], values: [Float]) {
        self.init(shape: shape)
        precondition(values.count == count, "\(values.count) values for shape \(shape)")
        values.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: count) }
    }

    deinit { data.deallocate() }

    /// The batch item `n` of a rank-4 NCHW tensor as a view.
    public func view(batch n: Int = 0) -> TensorView {
        precondition(shape.count == 4 && n < shape[0], "view(batch:) needs an NCHW tensor, shape is \(shape)")
        let plane = shape[1] * shape[2] * shape[3]
        return TensorView(channels: shape[1], height: shape[2], width: shape[3], data: data + n * plane)
    }

    /// Batch item 0 as a view.
    public var view: TensorView { view(batch: 0) }

    /// The values as an array (copies).
    public var values: [Float] { Array(UnsafeBufferPointer(start: data, count: count)) }
}
