import SwiftsegRuntime

/// BiRefNet (Zheng et al. 2024, "Bilateral Reference for High-Resolution Dichotomous Image Segmentation"), the
/// network of rembg's `birefnet-*` models and of BRIA's RMBG-2.0 (`bria-rmbg`, rembg's default), as the
/// original `birefnet.py` runs it at inference:
///
/// - the Swin backbone (``SwinTransformer``) on the image and on the image at half size, each stage's features
///   concatenated with the half-size ones resized onto them (`mul_scl_ipt = 'cat'`);
/// - the three shallower features resized onto the deepest and concatenated with it (`cxt`), squeezed by one
///   ``BasicDecBlk``;
/// - the ``Decoder``, then a sigmoid: the map at the input's size, 0…1.
///
/// ```swift
/// let net = try BiRefNet(weights: SafeTensorsFile(path: "birefnet-general.safetensors"))
/// net.forward(input.view, into: map.view, context: ExecutionContext(threads: 2))   // 1×1024×1024
/// ```
///
/// rembg feeds it 1024×1024, divided by the image's maximum, with ImageNet's mean and std (the file's metadata,
/// as Tools/convert_birefnet.py writes it), and min-max normalises the map. The input's sides must be multiples
/// of 32 (the decoder cuts the image into patches of the deepest features' size).
public final class BiRefNet: Network {
    public let shape: SwinShape
    public let preprocessing: ModelPreprocessing
    public let weights: SafeTensorsFile
    public let name: String
    let backbone: SwinTransformer
    let squeeze: BasicDecBlk
    let decoder: Decoder

    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        guard file.metadata["architecture"] == "birefnet" else {
            throw RuntimeError.invalidWeights(
                "\(file.name): metadata architecture is \(file.metadata["architecture"].map { "'\($0)'" } ?? "missing"), expected 'birefnet' (convert with Tools/convert_birefnet.py)")
        }
        let shape = try SwinShape(declaredBy: file)
        self.shape = shape
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .sigmoid)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        backbone = try SwinTransformer(&w, "bb", shape: shape)
        let channels = (0..<4).reversed().map { 2 * shape.width($0) }
        squeeze = try BasicDecBlk(&w, "squeeze_module.0", inChannels: channels.reduce(0, +), outChannels: channels[0])
        decoder = try Decoder(&w, "decoder", channels: channels)
        name = file.metadata["variant"] ?? "birefnet"
        try w.checkAllUsed(expecting: name)
        weights = file
        file.releaseResidentPages()
    }

    /// The map is one channel at the input's size.
    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (1, height, width) }

    /// The decoder cuts the image into patches of the deepest features' size, 1/32 of the input's.
    public func inputProblem(height: Int, width: Int) -> String? {
        height % 32 == 0 && width % 32 == 0 && height > 0 && width > 0 ? nil
            : "\(name) needs an input whose sides are multiples of 32, not \(height)×\(width)"
    }

    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        precondition(input.channels == 3 && inputProblem(height: input.height, width: input.width) == nil,
                     "BiRefNet takes a 3×H×W input with H and W multiples of 32, got \(input.shapeDescription)")
        precondition(output.channels == 1 && output.height == input.height && output.width == input.width,
                     "BiRefNet's map is 1×\(input.height)×\(input.width), not \(output.shapeDescription)")
        let arena = context.arena
        arena.reset()
        func size(_ i: Int) -> (Int, Int) { (SwinTransformer.stageSize(input.height, i), SwinTransformer.stageSize(input.width, i)) }
        // x1…x3 and, as the last slice of the context tensor, x4: each the stage's features, then the half-size
        // input's resized onto them.
        func features(_ i: Int) -> TensorView {
            arena.tensor(channels: 2 * shape.width(i), height: size(i).0, width: size(i).1)
        }
        let x1 = features(0), x2 = features(1), x3 = features(2)
        let context4 = arena.tensor(channels: (0..<4).reduce(0) { $0 + 2 * shape.width($1) },
                                    height: size(3).0, width: size(3).1)
        let stages = StageMaps(x1: x1, x2: x2, x3: x3,
                               x4: context4.channels(context4.channels - 2 * shape.width(3)..<context4.channels))
        func firstHalf(_ i: Int) -> TensorView { stages[i].channels(0..<shape.width(i)) }
        context.time("backbone") {
            backbone(input, into: StageMaps(x1: firstHalf(0), x2: firstHalf(1), x3: firstHalf(2), x4: firstHalf(3)),
                     context: context)
        }
        context.time("backbone, half size") {
            let mark = arena.mark()
            let half = arena.tensor(channels: 3, height: input.height / 2, width: input.width / 2)
            ResizeBilinear.forward(input, into: half, coordinates: .alignCorners, context: context)
            func stage(_ i: Int) -> TensorView {
                arena.tensor(channels: shape.width(i), height: SwinTransformer.stageSize(half.height, i),
                             width: SwinTransformer.stageSize(half.width, i))
            }
            let halves = StageMaps(x1: stage(0), x2: stage(1), x3: stage(2), x4: stage(3))
            backbone(half, into: halves, context: context)
            for i in 0..<4 {
                ResizeBilinear.forward(halves[i], into: stages[i].channels(shape.width(i)..<2 * shape.width(i)),
                                       coordinates: .alignCorners, context: context)
            }
            arena.release(to: mark)
        }
        let squeezed = arena.tensor(channels: squeeze.outChannels, height: size(3).0, width: size(3).1)
        context.time("context + squeeze") {
            var offset = 0
            for i in 0..<3 {
                let stage = stages[i]
                ResizeBilinear.forward(stage, into: context4.channels(offset..<offset + stage.channels),
                                       coordinates: .alignCorners, context: context)
                offset += stage.channels
            }
            squeeze(context4, into: squeezed, context: context)
        }
        context.time("decoder") {
            decoder(image: input, x1, x2, x3, squeezed, into: output, context: context)
            Sigmoid.forwardInPlace(output)
        }
        arena.reset()
    }

    /// Multiply-accumulates of the convolutions, linear layers and attention products.
    public func convMACs(height: Int, width: Int) -> Int {
        backbone.macs(height: height, width: width) + backbone.macs(height: height / 2, width: width / 2)
            + squeeze.macs(height: height / 32, width: width / 32) + decoder.macs(height: height, width: width)
    }
}

extension SwinShape {
    /// The Swin a file's tensors give: the embedding width from the patch embedding, each stage's blocks by
    /// counting them, its heads from the bias table's columns, the window from its rows ((2w − 1)²).
    init(declaredBy file: SafeTensorsFile) throws {
        func shape(_ name: String) throws -> [Int] {
            guard let t = file.tensors[name] else {
                throw RuntimeError.invalidWeights("\(file.name): no \(name) — not a BiRefNet file with a Swin backbone")
            }
            return t.shape
        }
        let dim = try shape("bb.patch_embed.proj.weight")[0]
        var depths: [Int] = [], heads: [Int] = []
        for i in 0..<4 {
            var blocks = 0
            while file.tensors["bb.layers.\(i).blocks.\(blocks).norm1.weight"] != nil { blocks += 1 }
            guard blocks > 0 else { throw RuntimeError.invalidWeights("\(file.name): Swin stage \(i) has no blocks") }
            depths.append(blocks)
            heads.append(try shape("bb.layers.\(i).blocks.0.attn.relative_position_bias_table").last ?? 0)
        }
        let rows = try shape("bb.layers.0.blocks.0.attn.relative_position_bias_table")[0]
        var window = 1
        while (2 * window - 1) * (2 * window - 1) < rows { window += 1 }
        guard (2 * window - 1) * (2 * window - 1) == rows, dim > 0, heads.allSatisfy({ $0 > 0 }),
              (0..<4).allSatisfy({ (dim << $0) % heads[$0] == 0 }) else {
            throw RuntimeError.invalidWeights("\(file.name): a Swin backbone of width \(dim), heads \(heads) and a \(rows)-row bias table is not one this runtime knows")
        }
        self.init(dim: dim, depths: depths, heads: heads, window: window)
    }
}
