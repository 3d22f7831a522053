/// Layer normalisation over each token's features, y = (x − mean) / √(variance + ε) · weight + bias (PyTorch's
/// `nn.LayerNorm(features)` on channels-last tokens; ONNX's LayerNormalization on the last axis): the Swin
/// backbone's norms before attention and MLP, after patch embedding and merging, and on each stage's output.
///
/// ```swift
/// let norm = LayerNorm(features: 96, weight: w, bias: b)
/// norm.forward(tokens, into: normalised, context: context)   // `into` may be `tokens` itself
/// ```
public struct LayerNorm: @unchecked Sendable {
    public let features: Int
    public let epsilon: Float
    /// `features` floats each.
    public let weight: UnsafePointer<Float>
    public let bias: UnsafePointer<Float>

    public init(features: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, epsilon: Float = 1e-5) {
        precondition(features >= 1, "a layer norm needs features")
        self.features = features
        self.weight = weight
        self.bias = bias
        self.epsilon = epsilon
    }

    /// Mean and variance in Double: the reference.
    public func referenceForward(_ x: TokenView, into y: TokenView) {
        checkShapes(x, y)
        for t in 0..<x.tokens {
            let row = x.row(t), out = y.row(t)
            var sum = 0.0
            for f in 0..<features { sum += Double(row[f]) }
            let mean = sum / Double(features)
            var squares = 0.0
            for f in 0..<features { squares += (Double(row[f]) - mean) * (Double(row[f]) - mean) }
            let scale = 1 / (squares / Double(features) + Double(epsilon)).squareRoot()
            for f in 0..<features {
                out[f] = Float((Double(row[f]) - mean) * scale * Double(weight[f]) + Double(bias[f]))
            }
        }
    }

    /// A token at a time in float (the kernel build's `TransformerKernels.layerNorm`), tokens split between the
    /// workers in fixed runs: within float rounding of the reference, the same bytes however many threads run.
    public func forward(_ x: TokenView, into y: TokenView, context: ExecutionContext) {
        checkShapes(x, y)
        let runs = (x.tokens + LayerNorm.run - 1) / LayerNorm.run
        context.parallelFor(count: runs, Runs(norm: self, x: x, y: y, kernel: context.kernels.layerNormRow))
    }

    /// Normalises `rows` rows of `features` floats at `x` into `y` (a caller's own gathered rows).
    func normalise(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, rows: Int, kernel: Kernels.LayerNormRow) {
        for r in 0..<rows { kernel(x + r * features, y + r * features, features, weight, bias, epsilon) }
    }

    /// Tokens per task.
    static let run = 64

    struct Runs: ParallelTasks {
        let norm: LayerNorm, x: TokenView, y: TokenView
        let kernel: Kernels.LayerNormRow

        func run(_ task: Int, worker: Int) {
            let first = task * LayerNorm.run, count = min(LayerNorm.run, x.tokens - first)
            norm.normalise(x.row(first), into: y.row(first), rows: count, kernel: kernel)
        }
    }

    func checkShapes(_ x: TokenView, _ y: TokenView) {
        precondition(x.features == features, "layer norm of \(features) features given tokens of \(x.features)")
        precondition(x.sameShape(as: y), "layer norm keeps the shape: \(x.shapeDescription) → \(y.shapeDescription)")
    }
}
