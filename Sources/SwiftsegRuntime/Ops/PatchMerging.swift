/// Swin's patch merging: each 2×2 block of tokens side by side (top-left, bottom-left, top-right,
/// bottom-right, as PyTorch's `torch.cat([x0, x1, x2, x3], -1)` orders them; an odd map padded with zero tokens),
/// layer-normalised over the 4·C features, reduced to 2·C by a linear layer without bias: half the map's height
/// and width, twice its features.
///
/// ```swift
/// let merge = PatchMerging(features: 96, normWeight: …, normBias: …, reductionWeight: …)
/// merge.forward(stage1, into: context.arena.tokens(height: 128, width: 128, features: 192), context: context)
/// ```
public struct PatchMerging: @unchecked Sendable {
    /// The input's features (C); the output has 2·C.
    public let features: Int
    public let norm: LayerNorm
    public let reduction: TokenLinear

    public init(features: Int, normWeight: UnsafePointer<Float>, normBias: UnsafePointer<Float>,
                reductionWeight: UnsafePointer<Float>) {
        self.features = features
        norm = LayerNorm(features: 4 * features, weight: normWeight, bias: normBias)
        reduction = TokenLinear(outFeatures: 2 * features, inFeatures: 4 * features, weight: reductionWeight, bias: nil)
    }

    /// The merged map's height or width for an input's.
    public static func outputSize(_ size: Int) -> Int { (size + 1) / 2 }

    /// Gathers the 2×2 blocks, then the norm's and the reduction's references: the reference.
    public func referenceForward(_ x: TokenView, into y: TokenView) {
        checkShapes(x, y)
        let gathered = Tensor(shape: [y.tokens * 4 * features])
        withExtendedLifetime(gathered) {
            let merged = gathered.tokens(height: y.height, width: y.width, features: 4 * features)
            for t in 0..<y.tokens { gather(x, token: t, outWidth: y.width, into: merged.row(t)) }
            norm.referenceForward(merged, into: merged)
            reduction.referenceForward(merged, into: y)
        }
    }

    /// Runs of ``TokenLinear/run`` output tokens, each gathered into the worker's scratch, normalised there and
    /// reduced by `BLAS.sgemm` into the output.
    public func forward(_ x: TokenView, into y: TokenView, context: ExecutionContext) {
        checkShapes(x, y)
        let runs = (y.tokens + TokenLinear.run - 1) / TokenLinear.run
        let scratch = context.scratch(floats: TokenLinear.run * 4 * features)
        context.parallelFor(count: runs, Runs(merging: self, x: x, y: y, scratch: scratch, kernels: context.kernels))
    }

    /// The 4·C features of output token `t`.
    func gather(_ x: TokenView, token t: Int, outWidth: Int, into out: UnsafeMutablePointer<Float>) {
        let oy = t / outWidth, ox = t % outWidth, c = features
        for (k, (dy, dx)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() {
            let sy = 2 * oy + dy, sx = 2 * ox + dx, dst = out + k * c
            if sy < x.height && sx < x.width {
                let src = x.row(sy * x.width + sx)
                for f in 0..<c { dst[f] = src[f] }
            } else {
                for f in 0..<c { dst[f] = 0 }
            }
        }
    }

    struct Runs: ParallelTasks {
        let merging: PatchMerging, x: TokenView, y: TokenView
        let scratch: [UnsafeMutablePointer<Float>]
        let kernels: Kernels

        func run(_ task: Int, worker: Int) {
            let first = task * TokenLinear.run, rows = min(TokenLinear.run, y.tokens - first)
            let block = scratch[worker], stride = 4 * merging.features
            for r in 0..<rows { merging.gather(x, token: first + r, outWidth: y.width, into: block + r * stride) }
            merging.norm.normalise(block, into: block, rows: rows, kernel: kernels.layerNormRow)
            merging.reduction.multiply(block, into: y.row(first), rows: rows, activation: .none, residual: nil,
                                       kernels: kernels)
        }
    }

    func checkShapes(_ x: TokenView, _ y: TokenView) {
        precondition(x.features == features, "patch merging of \(features) features given tokens of \(x.features)")
        precondition(y.height == PatchMerging.outputSize(x.height) && y.width == PatchMerging.outputSize(x.width)
                     && y.features == 2 * features,
                     "patch merging gives \(PatchMerging.outputSize(x.height))×\(PatchMerging.outputSize(x.width))×\(2 * features), not \(y.shapeDescription)")
    }
}
