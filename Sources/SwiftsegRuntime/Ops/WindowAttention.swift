#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Multi-head self-attention within square windows, with a learned relative position bias, optionally on the
/// map cyclically shifted by `shift` with pairs from different sides of the wrap masked out (Swin's W-MSA and
/// SW-MSA). The map is padded at its bottom and right to whole windows; a padded token is a zero row after the
/// block's norm, so its query, key and value are the qkv layer's bias, and it takes part like any other (as the
/// PyTorch code computes it). Its output is dropped.
///
/// In: the block's normalised tokens; out: the projection of the attended tokens, plus the residual (the block's
/// shortcut) when given.
///
/// ```swift
/// let attention = WindowAttention(features: 96, heads: 3, windowSize: 7, shift: 3, qkvWeight: …, qkvBias: …,
///                                 projectionWeight: …, projectionBias: …, biasTable: …)
/// attention.forward(normalised, into: tokens, residual: tokens, context: context)   // tokens += attention
/// ```
public struct WindowAttention: @unchecked Sendable {
    public let features: Int
    public let heads: Int
    public let windowSize: Int
    /// 0 (W-MSA) or the cyclic shift, less than the window (SW-MSA; Swin's is half the window).
    public let shift: Int
    /// features → 3·features: the queries, keys and values side by side, head by head within each.
    public let qkv: TokenLinear
    public let projection: TokenLinear
    /// PyTorch's `relative_position_bias_table`: (2·window − 1)² offsets × heads.
    public let biasTable: UnsafePointer<Float>
    /// The table spread over each head's window × window pairs, `heads × n × n` for n = window².
    let pairBias: RearrangedWeights

    public init(features: Int, heads: Int, windowSize: Int, shift: Int,
                qkvWeight: UnsafePointer<Float>, qkvBias: UnsafePointer<Float>?,
                projectionWeight: UnsafePointer<Float>, projectionBias: UnsafePointer<Float>?,
                biasTable: UnsafePointer<Float>) {
        precondition(heads >= 1 && features % heads == 0, "\(features) features do not split into \(heads) heads")
        precondition(windowSize >= 1 && shift >= 0 && shift < windowSize, "a shift of \(shift) in windows of \(windowSize)")
        self.features = features
        self.heads = heads
        self.windowSize = windowSize
        self.shift = shift
        qkv = TokenLinear(outFeatures: 3 * features, inFeatures: features, weight: qkvWeight, bias: qkvBias)
        projection = TokenLinear(outFeatures: features, inFeatures: features, weight: projectionWeight,
                                 bias: projectionBias)
        self.biasTable = biasTable
        let n = windowSize * windowSize
        pairBias = RearrangedWeights(count: heads * n * n) { out in
            for h in 0..<heads {
                for i in 0..<n {
                    for j in 0..<n {
                        out[(h * n + i) * n + j] = biasTable[WindowAttention.offset(i, j, windowSize) * heads + h]
                    }
                }
            }
        }
    }

    /// Tokens per window.
    public var windowTokens: Int { windowSize * windowSize }
    /// Features per head.
    public var headFeatures: Int { features / heads }
    /// 1/√(head features), applied to the queries.
    var scale: Float { 1 / Float(headFeatures).squareRoot() }

    /// The row of the bias table for tokens `i` and `j` of a window (row-major within it).
    static func offset(_ i: Int, _ j: Int, _ window: Int) -> Int {
        (i / window - j / window + window - 1) * (2 * window - 1) + (i % window - j % window + window - 1)
    }

    /// Which of the three bands of a padded side of `padded` a position lies in, for the shifted windows' mask:
    /// the part no window wraps over, then the last window's part before the shift, then the wrapped part.
    func band(_ p: Int, _ padded: Int) -> Int {
        p < padded - windowSize ? 0 : (p < padded - shift ? 1 : 2)
    }

    /// Whether window tokens `i` and `j` (in the shifted frame) come from different sides of the wrap.
    func masked(_ fy0: Int, _ fx0: Int, _ i: Int, _ j: Int, paddedHeight: Int, paddedWidth: Int) -> Bool {
        guard shift > 0 else { return false }
        let w = windowSize
        return band(fy0 + i / w, paddedHeight) != band(fy0 + j / w, paddedHeight)
            || band(fx0 + i % w, paddedWidth) != band(fx0 + j % w, paddedWidth)
    }

    /// Everything in Double, straight from the definition: pad, shift, partition, attend head by head, merge,
    /// shift back, crop, project. The reference.
    public func referenceForward(_ x: TokenView, into y: TokenView, residual: TokenView? = nil) {
        checkShapes(x, y, residual)
        let c = features, d = headFeatures, n = windowTokens, w = windowSize
        let paddedHeight = (x.height + w - 1) / w * w, paddedWidth = (x.width + w - 1) / w * w
        let qkvBias = qkv.bias
        func projected(_ sy: Int, _ sx: Int) -> [Double] {
            (0..<3 * c).map { o in
                var sum = qkvBias.map { Double($0[o]) } ?? 0
                if sy < x.height && sx < x.width {
                    let row = x.row(sy * x.width + sx)
                    for i in 0..<c { sum += Double(qkv.weight[o * c + i]) * Double(row[i]) }
                }
                return sum
            }
        }
        var attended = [Double](repeating: 0, count: x.tokens * c)
        for fy0 in stride(from: 0, to: paddedHeight, by: w) {
            for fx0 in stride(from: 0, to: paddedWidth, by: w) {
                let sources = (0..<n).map { i in
                    ((fy0 + i / w + shift) % paddedHeight, (fx0 + i % w + shift) % paddedWidth)
                }
                let rows = sources.map { projected($0.0, $0.1) }
                var out = [[Double]](repeating: [Double](repeating: 0, count: c), count: n)
                for h in 0..<heads {
                    for i in 0..<n {
                        var scores = (0..<n).map { j -> Double in
                            if masked(fy0, fx0, i, j, paddedHeight: paddedHeight, paddedWidth: paddedWidth) {
                                return -.infinity
                            }
                            var dot = 0.0
                            for e in 0..<d { dot += rows[i][h * d + e] * rows[j][c + h * d + e] }
                            return dot / Double(d).squareRoot()
                                + Double(biasTable[WindowAttention.offset(i, j, w) * heads + h])
                        }
                        let peak = scores.max()!
                        scores = scores.map { exp($0 - peak) }
                        let total = scores.reduce(0, +)
                        for e in 0..<d {
                            var sum = 0.0
                            for j in 0..<n { sum += scores[j] / total * rows[j][2 * c + h * d + e] }
                            out[i][h * d + e] = sum
                        }
                    }
                }
                for (i, (sy, sx)) in sources.enumerated() where sy < x.height && sx < x.width {
                    for f in 0..<c { attended[(sy * x.width + sx) * c + f] = out[i][f] }
                }
            }
        }
        for t in 0..<x.tokens {
            let result = y.row(t), skip = residual?.row(t)
            let values = (0..<c).map { o -> Float in
                var sum = projection.bias.map { Double($0[o]) } ?? 0
                for i in 0..<c { sum += Double(projection.weight[o * c + i]) * attended[t * c + i] }
                return Float(sum)
            }
            for o in 0..<c { result[o] = values[o] + (skip.map { $0[o] } ?? 0) }
        }
    }

    /// The queries, keys and values of every token by one ``TokenLinear`` (BLAS), then one task per window: its
    /// tokens gathered from the shifted, padded frame (the keys transposed), per head the scores by `BLAS.sgemm`,
    /// the pair bias and mask added, the kernel build's softmax, the values weighted by `BLAS.sgemm`, the result
    /// scattered back to the tokens it came from; then the projection with the residual. Temporaries in the
    /// arena and the workers' scratch; every window's work is the same whichever worker runs it.
    public func forward(_ x: TokenView, into y: TokenView, residual: TokenView? = nil, context: ExecutionContext) {
        checkShapes(x, y, residual)
        let mark = context.arena.mark()
        defer { context.arena.release(to: mark) }
        let projected = context.arena.tokens(height: x.height, width: x.width, features: 3 * features)
        qkv.forward(x, into: projected, context: context)
        let attended = context.arena.tokens(height: x.height, width: x.width, features: features)
        let w = windowSize
        let across = (x.width + w - 1) / w, down = (x.height + w - 1) / w
        let scratch = context.scratch(floats: scratchFloats)
        context.parallelFor(count: across * down,
                            Windows(attention: self, projected: projected, attended: attended, across: across,
                                    paddedHeight: down * w, paddedWidth: across * w, scratch: scratch,
                                    softmax: context.kernels.softmaxRow))
        projection.forward(attended, into: y, residual: residual, context: context)
    }

    /// Per worker: a window's queries, transposed keys, values and outputs (n × features each) and one head's
    /// scores (n × n).
    var scratchFloats: Int { 4 * windowTokens * features + windowTokens * windowTokens }

    struct Windows: ParallelTasks {
        let attention: WindowAttention
        let projected: TokenView, attended: TokenView
        let across: Int, paddedHeight: Int, paddedWidth: Int
        let scratch: [UnsafeMutablePointer<Float>]
        let softmax: Kernels.SoftmaxRow

        func run(_ task: Int, worker: Int) {
            let a = attention, c = a.features, d = a.headFeatures, n = a.windowTokens, w = a.windowSize
            let fy0 = task / across * w, fx0 = task % across * w
            let queries = scratch[worker], keys = queries + n * c, values = keys + n * c, outputs = values + n * c
            let scores = outputs + n * c
            let scale = a.scale, width = projected.width
            // Gather: token i of the window comes from the unshifted position `shift` further on, wrapping.
            for i in 0..<n {
                let sy = (fy0 + i / w + a.shift) % paddedHeight, sx = (fx0 + i % w + a.shift) % paddedWidth
                let q = queries + i * c, v = values + i * c
                if sy < projected.height && sx < width {
                    let row = projected.row(sy * width + sx)
                    for f in 0..<c { q[f] = row[f] * scale; keys[f * n + i] = row[c + f]; v[f] = row[2 * c + f] }
                } else if let bias = a.qkv.bias {
                    for f in 0..<c { q[f] = bias[f] * scale; keys[f * n + i] = bias[c + f]; v[f] = bias[2 * c + f] }
                } else {
                    for f in 0..<c { q[f] = 0; keys[f * n + i] = 0; v[f] = 0 }
                }
            }
            let wraps = a.shift > 0 && (fy0 + w == paddedHeight || fx0 + w == paddedWidth)
            for h in 0..<a.heads {
                BLAS.sgemm(m: n, n: n, k: d, a: queries + h * d, lda: c, b: keys + h * d * n, ldb: n, c: scores, ldc: n)
                let bias = UnsafePointer(a.pairBias.floats) + h * n * n
                for i in 0..<n {
                    let row = scores + i * n, rowBias = bias + i * n
                    for j in 0..<n { row[j] += rowBias[j] }
                    if wraps {
                        for j in 0..<n where a.masked(fy0, fx0, i, j, paddedHeight: paddedHeight, paddedWidth: paddedWidth) {
                            row[j] = -.infinity
                        }
                    }
                    softmax(row, n)
                }
                BLAS.sgemm(m: n, n: d, k: n, a: scores, lda: n, b: values + h * d, ldb: c, c: outputs + h * d, ldc: c)
            }
            for i in 0..<n {
                let sy = (fy0 + i / w + a.shift) % paddedHeight, sx = (fx0 + i % w + a.shift) % paddedWidth
                guard sy < attended.height && sx < attended.width else { continue }
                let out = attended.row(sy * attended.width + sx), o = outputs + i * c
                for f in 0..<c { out[f] = o[f] }
            }
        }
    }

    func checkShapes(_ x: TokenView, _ y: TokenView, _ residual: TokenView?) {
        precondition(x.features == features, "attention over \(features) features given tokens of \(x.features)")
        precondition(x.sameShape(as: y), "attention keeps the shape: \(x.shapeDescription) → \(y.shapeDescription)")
        if let r = residual { precondition(r.sameShape(as: y), "residual \(r.shapeDescription) ≠ output") }
    }
}
