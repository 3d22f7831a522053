/// A transformer's tokens: the positions of a `height × width` map in row-major order, each a row of `features`
/// floats (channels last; PyTorch's B×L×C with B = 1 and L = H·W), seen through a pointer it does not own.
///
/// Convolutional ops read and write ``TensorView``s (channels first); the transformer ops (``LayerNorm``,
/// ``TokenLinear``, ``WindowAttention``, ``PatchMerging``) read and write token views, and ``TokenLayout``
/// converts between the two.
///
/// ```swift
/// let tokens = context.arena.tokens(height: 256, width: 256, features: 96)
/// let first = tokens.row(0)   // token (0, 0)'s 96 features
/// ```
public struct TokenView: @unchecked Sendable {
    public let height: Int
    public let width: Int
    public let features: Int
    public let data: UnsafeMutablePointer<Float>

    public init(height: Int, width: Int, features: Int, data: UnsafeMutablePointer<Float>) {
        precondition(height > 0 && width > 0 && features > 0, "token map dimensions must be positive")
        self.height = height
        self.width = width
        self.features = features
        self.data = data
    }

    /// Tokens in the map.
    @inlinable public var tokens: Int { height * width }
    /// Floats in the view.
    @inlinable public var count: Int { tokens * features }

    /// The features of token `t` (row-major position).
    @inlinable public func row(_ t: Int) -> UnsafeMutablePointer<Float> { data + t * features }

    @inlinable public subscript(y: Int, x: Int, f: Int) -> Float {
        get { data[(y * width + x) * features + f] }
        nonmutating set { data[(y * width + x) * features + f] = newValue }
    }

    /// The view's floats as a buffer.
    public var buffer: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: data, count: count) }

    public var shapeDescription: String { "\(height)×\(width)×\(features)" }

    func sameShape(as other: TokenView) -> Bool {
        height == other.height && width == other.width && features == other.features
    }
}

extension Arena {
    /// A token map in the arena (contents undefined).
    public func tokens(height: Int, width: Int, features: Int) -> TokenView {
        TokenView(height: height, width: width, features: features,
                  data: allocate(floats: height * width * features))
    }
}

extension Tensor {
    /// This tensor's floats seen as a token map of the same size.
    public func tokens(height: Int, width: Int, features: Int) -> TokenView {
        precondition(height * width * features == count, "\(height)×\(width)×\(features) tokens ≠ tensor of \(count)")
        return TokenView(height: height, width: width, features: features, data: data)
    }
}
