/// A linear layer on tokens, y = x·Wᵀ + b for every token, then an activation or a residual add (PyTorch's
/// `nn.Linear` on B×L×C tokens, which exports as MatMul + Add): a Swin block's attention projections and MLP,
/// and patch merging's reduction.
///
/// ```swift
/// let fc1 = TokenLinear(outFeatures: 384, inFeatures: 96, weight: w1, bias: b1)
/// fc1.forward(normalised, into: hidden, activation: .gelu, context: context)
/// fc2.forward(hidden, into: tokens, residual: tokens, context: context)   // tokens += fc2(hidden)
/// ```
public struct TokenLinear: @unchecked Sendable {
    public enum Activation: Sendable { case none, gelu }

    public let outFeatures: Int
    public let inFeatures: Int
    /// Row-major `outFeatures × inFeatures` (PyTorch's layout), read by the reference.
    public let weight: UnsafePointer<Float>
    /// `outFeatures` floats, or none (patch merging's reduction has no bias).
    public let bias: UnsafePointer<Float>?

    public init(outFeatures: Int, inFeatures: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?) {
        precondition(outFeatures >= 1 && inFeatures >= 1, "a linear layer needs features")
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
        self.weight = weight
        self.bias = bias
    }

    /// Dot products in Double: the reference. A `residual` is added after the activation; it may be `y` itself.
    public func referenceForward(_ x: TokenView, into y: TokenView, activation: Activation = .none,
                                 residual: TokenView? = nil) {
        checkShapes(x, y, residual)
        var sums = [Double](repeating: 0, count: outFeatures)
        for t in 0..<x.tokens {
            let row = x.row(t)
            for o in 0..<outFeatures {
                var sum = bias.map { Double($0[o]) } ?? 0
                for i in 0..<inFeatures { sum += Double(weight[o * inFeatures + i]) * Double(row[i]) }
                sums[o] = sum
            }
            let out = y.row(t), skip = residual?.row(t)
            for o in 0..<outFeatures {
                var v = Float(sums[o])
                if activation == .gelu { v = GELU.reference(v) }
                out[o] = v + (skip.map { $0[o] } ?? 0)
            }
        }
    }

    /// `BLAS.sgemm` on runs of ``run`` tokens split between the workers, the weights read where they are mapped
    /// (as the transposed B: no copy at load), each run's epilogue while its rows are
    /// in cache (the kernel build's `TransformerKernels.addBiasGELU` / `addBias`). A `residual` that is `y`
    /// itself is accumulated into by the product (y += x·Wᵀ + b). Every run has the same shape whatever the
    /// threads, so the bytes do not depend on them.
    public func forward(_ x: TokenView, into y: TokenView, activation: Activation = .none, residual: TokenView? = nil,
                        context: ExecutionContext) {
        checkShapes(x, y, residual)
        precondition(x.data != y.data, "a token linear layer cannot write over its input")
        let runs = (x.tokens + TokenLinear.run - 1) / TokenLinear.run
        context.parallelFor(count: runs, Runs(layer: self, x: x.data, y: y.data, tokens: x.tokens,
                                              activation: activation, residual: residual?.data,
                                              kernels: context.kernels))
    }

    /// `rows` rows of `inFeatures` floats at `x` into `rows` rows at `y` (a caller's own gathered rows).
    func multiply(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, rows: Int, activation: Activation,
                  residual: UnsafePointer<Float>?, kernels: Kernels) {
        let accumulate = residual == UnsafePointer(y)
        precondition(!accumulate || activation == .none, "a residual in place is added before any activation")
        BLAS.sgemm(m: rows, n: outFeatures, k: inFeatures, a: x, lda: inFeatures, b: weight, ldb: inFeatures,
                   c: y, ldc: outFeatures, accumulate: accumulate, transposedB: true)
        for r in 0..<rows {
            let out = y + r * outFeatures
            switch activation {
            case .none: kernels.biasRow(out, outFeatures, bias, accumulate ? nil : residual.map { $0 + r * outFeatures })
            case .gelu:
                kernels.biasGELURow(out, outFeatures, bias)
                if let residual, !accumulate { kernels.biasRow(out, outFeatures, nil, residual + r * outFeatures) }
            }
        }
    }

    /// Tokens per task: large enough for the GEMM to run at speed, small enough to balance two to sixteen workers
    /// on a 64×64 map.
    static let run = 128

    struct Runs: ParallelTasks {
        let layer: TokenLinear
        let x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, tokens: Int
        let activation: Activation
        let residual: UnsafeMutablePointer<Float>?
        let kernels: Kernels

        func run(_ task: Int, worker: Int) {
            let first = task * TokenLinear.run, rows = min(TokenLinear.run, tokens - first)
            layer.multiply(x + first * layer.inFeatures, into: y + first * layer.outFeatures, rows: rows,
                           activation: activation, residual: residual.map { UnsafePointer($0 + first * layer.outFeatures) },
                           kernels: kernels)
        }
    }

    /// Multiply-accumulates per token.
    public var macs: Int { outFeatures * inFeatures }

    func checkShapes(_ x: TokenView, _ y: TokenView, _ residual: TokenView?) {
        precondition(x.features == inFeatures, "linear layer takes \(inFeatures) features, got \(x.features)")
        precondition(y.features == outFeatures && y.tokens == x.tokens,
                     "linear layer gives \(x.tokens) tokens of \(outFeatures), not \(y.shapeDescription)")
        if let r = residual { precondition(r.features == outFeatures && r.tokens == x.tokens, "residual \(r.shapeDescription) ≠ output") }
    }
}
