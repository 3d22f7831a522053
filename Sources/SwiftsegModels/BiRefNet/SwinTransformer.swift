import SwiftsegRuntime

/// Swin Transformer v1 (Liu et al. 2021), BiRefNet's backbone, as its `swin_v1.py`: a 4×4 patch embedding, four
/// stages of blocks with windowed attention (every second block on the map shifted by half a window), patch
/// merging between stages, and a LayerNorm on each stage's output, handed on as a channels-first map. Widths,
/// depths, heads and window come from the file (``SwinShape``): Swin-T for `BiRefNet-general-bb_swin_v1_tiny`,
/// Swin-L for the others and RMBG-2.0.
struct SwinTransformer: Sendable {
    let shape: SwinShape
    let patchEmbed: PatchEmbed
    let layers: [BasicLayer]

    init(_ w: inout WeightLoader, _ path: String, shape: SwinShape) throws {
        self.shape = shape
        patchEmbed = try PatchEmbed(&w, "\(path).patch_embed", dim: shape.dim)
        layers = try (0..<4).map { i in
            try BasicLayer(&w, path, index: i, dim: shape.width(i), depth: shape.depths[i], heads: shape.heads[i],
                           window: shape.window, downsample: i < 3)
        }
    }

    /// The map size of stage `i` for an input side (after the 4×4 patches and `i` mergings).
    static func stageSize(_ size: Int, _ i: Int) -> Int {
        var s = (size + 3) / 4
        for _ in 0..<i { s = PatchMerging.outputSize(s) }
        return s
    }

    /// The four stages' normalised outputs of `image` (3×H×W), written into `outputs` (`width(i)` channels at
    /// stage i's size; channel slices of larger tensors are fine).
    func callAsFunction(_ image: TensorView, into outputs: StageMaps, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        var tokens = patchEmbed(image, context: context)
        for (i, layer) in layers.enumerated() {
            tokens = layer(tokens, output: outputs[i], context: context)
        }
    }

    /// Multiply-accumulates for an input of this size.
    func macs(height: Int, width: Int) -> Int {
        var total = SwinTransformer.stageSize(height, 0) * SwinTransformer.stageSize(width, 0) * patchEmbed.proj.macs
        for (i, layer) in layers.enumerated() {
            total += layer.macs(height: SwinTransformer.stageSize(height, i), width: SwinTransformer.stageSize(width, i))
        }
        return total
    }
}

/// Four maps, one per stage, shallowest first (a value, so a pass builds no array).
struct StageMaps {
    var x1, x2, x3, x4: TensorView

    subscript(_ i: Int) -> TensorView {
        switch i {
        case 0: x1
        case 1: x2
        case 2: x3
        default: x4
        }
    }
}

/// The file's Swin: embedding width, blocks and heads per stage, window.
public struct SwinShape: Sendable, Equatable {
    public let dim: Int
    public let depths: [Int]
    public let heads: [Int]
    public let window: Int

    public init(dim: Int, depths: [Int], heads: [Int], window: Int) {
        self.dim = dim
        self.depths = depths
        self.heads = heads
        self.window = window
    }

    /// Stage `i`'s width: the embedding's, doubled by each merging.
    public func width(_ i: Int) -> Int { dim << i }
}

/// `patch_embed`: a 4×4 stride-4 convolution (the input padded at its right and bottom to whole patches), then
/// LayerNorm over the embedding. The patches do not overlap, so the convolution is a linear layer over each
/// patch's 48 values (``TokenLayout/patches(from:size:into:context:)``), and its output is tokens already.
struct PatchEmbed: Sendable {
    let proj: TokenLinear
    let norm: LayerNorm
    static let patch = 4

    init(_ w: inout WeightLoader, _ path: String, dim: Int) throws {
        let p = PatchEmbed.patch
        proj = TokenLinear(outFeatures: dim, inFeatures: 3 * p * p,
                           weight: try w.tensor("\(path).proj.weight", shape: [dim, 3, p, p]),
                           bias: try w.tensor("\(path).proj.bias", shape: [dim]))
        norm = try LayerNorm(&w, "\(path).norm", features: dim)
    }

    /// The normalised tokens, in the arena.
    func callAsFunction(_ image: TensorView, context: ExecutionContext) -> TokenView {
        let p = PatchEmbed.patch
        let height = (image.height + p - 1) / p, width = (image.width + p - 1) / p
        let tokens = context.arena.tokens(height: height, width: width, features: proj.outFeatures)
        let mark = context.arena.mark()
        let patches = context.arena.tokens(height: height, width: width, features: proj.inFeatures)
        TokenLayout.patches(from: image, size: p, into: patches, context: context)
        proj.forward(patches, into: tokens, context: context)
        context.arena.release(to: mark)
        norm.forward(tokens, into: tokens, context: context)
        return tokens
    }
}

/// One stage (`layers.i`): its blocks, the stage's output norm (`norm{i}`), then patch merging for the next.
struct BasicLayer: Sendable {
    let blocks: [SwinTransformerBlock]
    let norm: LayerNorm
    let downsample: PatchMerging?

    init(_ w: inout WeightLoader, _ path: String, index i: Int, dim: Int, depth: Int, heads: Int, window: Int,
         downsample merges: Bool) throws {
        blocks = try (0..<depth).map { j in
            try SwinTransformerBlock(&w, "\(path).layers.\(i).blocks.\(j)", dim: dim, heads: heads, window: window,
                                     shift: j % 2 == 0 ? 0 : window / 2)
        }
        norm = try LayerNorm(&w, "\(path).norm\(i)", features: dim)
        downsample = merges ? try PatchMerging(&w, "\(path).layers.\(i).downsample", dim: dim) : nil
    }

    /// Runs the blocks on `tokens` in place, writes the normalised result into `output` as a map, and returns
    /// the merged tokens for the next stage (allocated in the arena before this stage's temporaries).
    func callAsFunction(_ tokens: TokenView, output: TensorView, context: ExecutionContext) -> TokenView {
        for block in blocks { block(tokens, context: context) }
        let merged = downsample.map { d in
            context.arena.tokens(height: PatchMerging.outputSize(tokens.height),
                                 width: PatchMerging.outputSize(tokens.width), features: 2 * d.features)
        }
        let mark = context.arena.mark()
        let normed = context.arena.tokens(height: tokens.height, width: tokens.width, features: tokens.features)
        norm.forward(tokens, into: normed, context: context)
        TokenLayout.map(from: normed, into: output, context: context)
        context.arena.release(to: mark)
        if let downsample, let merged { downsample.forward(tokens, into: merged, context: context) }
        return merged ?? tokens
    }

    func macs(height: Int, width: Int) -> Int {
        let tokens = height * width
        return blocks.reduce(0) { $0 + $1.macs(height: height, width: width) }
            + (downsample.map { tokens / 4 * $0.reduction.macs } ?? 0)
    }
}

/// `blocks.j`: x += attention(norm1(x)); x += mlp(norm2(x)), the MLP fc1 → GELU → fc2.
struct SwinTransformerBlock: Sendable {
    let norm1: LayerNorm
    let attn: WindowAttention
    let norm2: LayerNorm
    let fc1: TokenLinear
    let fc2: TokenLinear

    init(_ w: inout WeightLoader, _ path: String, dim: Int, heads: Int, window: Int, shift: Int) throws {
        norm1 = try LayerNorm(&w, "\(path).norm1", features: dim)
        attn = WindowAttention(
            features: dim, heads: heads, windowSize: window, shift: shift,
            qkvWeight: try w.tensor("\(path).attn.qkv.weight", shape: [3 * dim, dim]),
            qkvBias: try w.tensor("\(path).attn.qkv.bias", shape: [3 * dim]),
            projectionWeight: try w.tensor("\(path).attn.proj.weight", shape: [dim, dim]),
            projectionBias: try w.tensor("\(path).attn.proj.bias", shape: [dim]),
            biasTable: try w.tensor("\(path).attn.relative_position_bias_table",
                                    shape: [(2 * window - 1) * (2 * window - 1), heads]))
        norm2 = try LayerNorm(&w, "\(path).norm2", features: dim)
        let hidden = try w.shape(of: "\(path).mlp.fc1.weight").first ?? 0
        fc1 = try TokenLinear(&w, "\(path).mlp.fc1", outFeatures: hidden, inFeatures: dim)
        fc2 = try TokenLinear(&w, "\(path).mlp.fc2", outFeatures: dim, inFeatures: hidden)
    }

    func callAsFunction(_ x: TokenView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let normed = arena.tokens(height: x.height, width: x.width, features: x.features)
        norm1.forward(x, into: normed, context: context)
        attn.forward(normed, into: x, residual: x, context: context)
        norm2.forward(x, into: normed, context: context)
        let hidden = arena.tokens(height: x.height, width: x.width, features: fc1.outFeatures)
        fc1.forward(normed, into: hidden, activation: .gelu, context: context)
        fc2.forward(hidden, into: x, residual: x, context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        let tokens = height * width, w = attn.windowSize
        let windows = ((height + w - 1) / w) * ((width + w - 1) / w), n = attn.windowTokens
        return tokens * (attn.qkv.macs + attn.projection.macs + fc1.macs + fc2.macs) + windows * 2 * n * n * attn.features
    }
}

extension LayerNorm {
    init(_ w: inout WeightLoader, _ path: String, features: Int) throws {
        self.init(features: features, weight: try w.tensor("\(path).weight", shape: [features]),
                  bias: try w.tensor("\(path).bias", shape: [features]))
    }
}

extension TokenLinear {
    init(_ w: inout WeightLoader, _ path: String, outFeatures: Int, inFeatures: Int, bias: Bool = true) throws {
        self.init(outFeatures: outFeatures, inFeatures: inFeatures,
                  weight: try w.tensor("\(path).weight", shape: [outFeatures, inFeatures]),
                  bias: bias ? try w.tensor("\(path).bias", shape: [outFeatures]) : nil)
    }
}

extension PatchMerging {
    init(_ w: inout WeightLoader, _ path: String, dim: Int) throws {
        self.init(features: dim, normWeight: try w.tensor("\(path).norm.weight", shape: [4 * dim]),
                  normBias: try w.tensor("\(path).norm.bias", shape: [4 * dim]),
                  reductionWeight: try w.tensor("\(path).reduction.weight", shape: [2 * dim, 4 * dim]))
    }
}
