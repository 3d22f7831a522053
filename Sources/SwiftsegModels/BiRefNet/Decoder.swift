import SwiftsegRuntime

/// BiRefNet's decoder, as its `Decoder`: from the deepest features up, each stage concatenates the image's
/// patches (the input cut into a grid of the stage's size and stacked as channels, through two convs) with the
/// features, runs a decoder block, weights the result by its gradient attention, resizes it onto the next
/// shallower features and adds their lateral 1×1 conv; at the input's size, one 1×1 conv gives the map.
/// Every resize is bilinear with `align_corners=True`. BatchNorm is folded into the convolutions.
struct Decoder: Sendable {
    let iptBlocks: [SimpleConvs]            // ipt_blk5 … ipt_blk1
    let decoderBlocks: [BasicDecBlk]        // decoder_block4 … decoder_block1
    let lateralBlocks: [Conv2D]             // lateral_block4 … lateral_block2
    let gradientConvs: [Conv2D]             // gdt_convs_4 … 2 (conv + folded BN, ReLU)
    let gradientAttention: [Conv2D]         // gdt_convs_attn_4 … 2
    let convOut: Conv2D                     // conv_out1

    /// `channels`: the encoder's four concatenated widths, deepest first (2× Swin's stage widths).
    init(_ w: inout WeightLoader, _ path: String, channels: [Int]) throws {
        let out = Array(channels[1...]) + [channels[3] / 2]
        let ipt = channels.map { $0 / 8 }
        let inter = try w.shape(of: "\(path).ipt_blk5.conv1.weight").first ?? 0
        // The image's patches at the deepest features' size down to the input's: grids of 32², 16², 8², 4², 1.
        iptBlocks = try zip(zip([5, 4, 3, 2, 1], [1024, 256, 64, 16, 1]), [ipt[0], ipt[0], ipt[1], ipt[2], ipt[3]])
            .map { block, cout in
                try SimpleConvs(&w, "\(path).ipt_blk\(block.0)", inChannels: 3 * block.1, outChannels: cout, inter: inter)
            }
        decoderBlocks = try [4, 3, 2, 1].enumerated().map { i, n in
            try BasicDecBlk(&w, "\(path).decoder_block\(n)", inChannels: channels[i] + ipt[max(0, i - 1)],
                            outChannels: out[i])
        }
        lateralBlocks = try [4, 3, 2].enumerated().map { i, n in
            try w.conv("\(path).lateral_block\(n).conv", outChannels: out[i], inChannels: channels[i + 1], kernelSize: 1)
        }
        gradientConvs = try [4, 3, 2].enumerated().map { i, n in
            try w.conv("\(path).gdt_convs_\(n).0", outChannels: 16, inChannels: out[i], kernelSize: 3)
        }
        gradientAttention = try [4, 3, 2].map { n in
            try w.conv("\(path).gdt_convs_attn_\(n).0", outChannels: 1, inChannels: 16, kernelSize: 1)
        }
        convOut = try w.conv("\(path).conv_out1.0", outChannels: 1, inChannels: out[3] + ipt[3], kernelSize: 1)
    }

    /// The map's logits (1×H×W) into `output`, from the input image `x` (3×H×W), the encoder's `x1`…`x3` and the
    /// squeezed deepest features `x4`.
    func callAsFunction(image x: TensorView, _ x1: TensorView, _ x2: TensorView, _ x3: TensorView, _ x4: TensorView,
                        into output: TensorView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        // Stage 4: the squeezed features and the patches.
        var p = stageInput(features: x4, iptBlock: 0, image: x, context: context) { $0.copy(x4) }
        p = stage(0, p, context: context)
        // Stages 3, 2, 1: resize onto the next features, add their lateral conv, append the patches.
        func up(_ i: Int, _ previous: TensorView, skip: TensorView) -> TensorView {
            let input = stageInput(features: lateralBlocks[i].outChannels, height: skip.height, width: skip.width,
                                   iptBlock: i + 1, image: x, context: context) { features in
                let mark = arena.mark()
                let resized = arena.tensor(channels: previous.channels, height: skip.height, width: skip.width)
                ResizeBilinear.forward(previous, into: resized, coordinates: .alignCorners, context: context)
                lateralBlocks[i].forward(skip, into: features, epilogue: Epilogue.none.adding(resized), context: context)
                arena.release(to: mark)
            }
            return stage(i + 1, input, context: context)
        }
        p = up(0, p, skip: x3)
        p = up(1, p, skip: x2)
        p = up(2, p, skip: x1)
        // At the input's size: the last block's output resized, the image through ipt_blk1, conv_out1.
        let last = p
        let final = stageInput(features: last.channels, height: x.height, width: x.width, iptBlock: 4, image: x,
                               context: context) { features in
            ResizeBilinear.forward(last, into: features, coordinates: .alignCorners, context: context)
        }
        convOut.forward(final, into: output, epilogue: .none, context: context)
    }

    /// A stage's input: `features` channels written by `write`, then the image patches' `ipt_blk` output.
    func stageInput(features: Int, height: Int, width: Int, iptBlock i: Int, image: TensorView,
                    context: ExecutionContext, _ write: (TensorView) -> Void) -> TensorView {
        let block = iptBlocks[i]
        let input = context.arena.tensor(channels: features + block.outChannels, height: height, width: width)
        write(input.channels(0..<features))
        let mark = context.arena.mark()
        let patches = Decoder.patches(of: image, height: height, width: width, context: context)
        block(patches, into: input.channels(features..<input.channels), context: context)
        context.arena.release(to: mark)
        return input
    }

    func stageInput(features: TensorView, iptBlock i: Int, image: TensorView, context: ExecutionContext,
                    _ write: (TensorView) -> Void) -> TensorView {
        stageInput(features: features.channels, height: features.height, width: features.width, iptBlock: i,
                   image: image, context: context, write)
    }

    /// Decoder block `i` (4 − i in the original's numbering), then for all but the last its gradient attention:
    /// p · sigmoid(attn(relu(conv(p)))). The result is allocated in the arena.
    func stage(_ i: Int, _ input: TensorView, context: ExecutionContext) -> TensorView {
        let block = decoderBlocks[i], arena = context.arena
        let p = arena.tensor(channels: block.outChannels, height: input.height, width: input.width)
        block(input, into: p, context: context)
        guard i < 3 else { return p }
        let mark = arena.mark()
        let gradient = arena.tensor(channels: 16, height: p.height, width: p.width)
        gradientConvs[i].forward(p, into: gradient, epilogue: .relu, context: context)
        let attention = arena.tensor(channels: 1, height: p.height, width: p.width)
        gradientAttention[i].forward(gradient, into: attention, epilogue: .none, context: context)
        Sigmoid.forwardInPlace(attention)
        ScaleByMap.forwardInPlace(p, by: attention, context: context)
        arena.release(to: mark)
        return p
    }

    /// `image2patches`: the image (C×H×W) cut into a grid of `height × width` patches, stacked as channels in
    /// (channel, grid row, grid column) order; in the arena. A copy, no arithmetic.
    static func patches(of image: TensorView, height: Int, width: Int, context: ExecutionContext) -> TensorView {
        let rows = image.height / height, columns = image.width / width
        precondition(rows * height == image.height && columns * width == image.width,
                     "BiRefNet's image patches need the input to be a whole multiple of \(height)×\(width)")
        let out = context.arena.tensor(channels: image.channels * rows * columns, height: height, width: width)
        for c in 0..<image.channels {
            for gy in 0..<rows {
                for gx in 0..<columns {
                    let dst = out.plane((c * rows + gy) * columns + gx)
                    for y in 0..<height {
                        (dst + y * width).update(from: image.plane(c) + (gy * height + y) * image.width + gx * width,
                                                 count: width)
                    }
                }
            }
        }
        return out
    }

    func macs(height: Int, width: Int) -> Int {
        var total = 0
        let sizes = [(height / 32, width / 32), (height / 16, width / 16), (height / 8, width / 8), (height / 4, width / 4)]
        for (i, (h, w)) in sizes.enumerated() {
            total += iptBlocks[i].macs(height: h, width: w) + decoderBlocks[i].macs(height: h, width: w)
            if i < 3 {
                total += gradientConvs[i].macs(height: h, width: w) + gradientAttention[i].macs(height: h, width: w)
                total += lateralBlocks[i].macs(height: sizes[i + 1].0, width: sizes[i + 1].1)
            }
        }
        return total + iptBlocks[4].macs(height: height, width: width) + convOut.macs(height: height, width: width)
    }
}

/// `BasicDecBlk`: conv_in (3×3) → ReLU → ASPP-deformable → conv_out (3×3), BatchNorms folded.
struct BasicDecBlk: Sendable {
    let convIn: Conv2D
    let attention: ASPPDeformable
    let convOut: Conv2D

    init(_ w: inout WeightLoader, _ path: String, inChannels: Int, outChannels: Int) throws {
        let inter = try w.shape(of: "\(path).conv_in.weight").first ?? 0
        convIn = try w.conv("\(path).conv_in", outChannels: inter, inChannels: inChannels, kernelSize: 3)
        attention = try ASPPDeformable(&w, "\(path).dec_att", channels: inter)
        convOut = try w.conv("\(path).conv_out", outChannels: outChannels, inChannels: inter, kernelSize: 3)
    }

    var outChannels: Int { convOut.outChannels }

    func callAsFunction(_ x: TensorView, into out: TensorView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let t = arena.tensor(channels: convIn.outChannels, height: x.height, width: x.width)
        convIn.forward(x, into: t, epilogue: .relu, context: context)
        let a = arena.tensor(channels: convIn.outChannels, height: x.height, width: x.width)
        attention(t, into: a, context: context)
        convOut.forward(a, into: out, epilogue: .none, context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        convIn.macs(height: height, width: width) + attention.macs(height: height, width: width)
            + convOut.macs(height: height, width: width)
    }
}

/// `ASPPDeformable`: a 1×1 deformable branch and 1×1, 3×3, 7×7 ones, each → ReLU; the global average through a
/// 1×1 conv → ReLU, spread over the map; all concatenated, then a 1×1 conv → ReLU (dropout is off at inference).
struct ASPPDeformable: Sendable {
    let branches: [DeformableBranch]        // aspp1, aspp_deforms.0 … 2
    let pooled: Conv2D                      // global_avg_pool.1
    let conv1: Conv2D

    init(_ w: inout WeightLoader, _ path: String, channels: Int) throws {
        let planes = try w.shape(of: "\(path).global_avg_pool.1.weight").first ?? 0
        branches = try [("aspp1", 1)] .map { try DeformableBranch(&w, "\(path).\($0.0).atrous_conv", inChannels: channels,
                                                                 outChannels: planes, kernelSize: $0.1) }
            + [1, 3, 7].enumerated().map { i, k in
                try DeformableBranch(&w, "\(path).aspp_deforms.\(i).atrous_conv", inChannels: channels,
                                     outChannels: planes, kernelSize: k)
            }
        pooled = try w.conv("\(path).global_avg_pool.1", outChannels: planes, inChannels: channels, kernelSize: 1)
        conv1 = try w.conv("\(path).conv1", outChannels: channels, inChannels: 5 * planes, kernelSize: 1)
    }

    func callAsFunction(_ x: TensorView, into out: TensorView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let planes = pooled.outChannels
        let all = arena.tensor(channels: 5 * planes, height: x.height, width: x.width)
        for (i, branch) in branches.enumerated() {
            branch(x, into: all.channels(i * planes..<(i + 1) * planes), context: context)
        }
        let mean = arena.tensor(channels: x.channels, height: 1, width: 1)
        GlobalAveragePool.forward(x, into: mean)
        let pooledMap = arena.tensor(channels: planes, height: 1, width: 1)
        pooled.forward(mean, into: pooledMap, epilogue: .relu, context: context)
        ResizeBilinear.forward(pooledMap, into: all.channels(4 * planes..<5 * planes), coordinates: .alignCorners,
                               context: context)
        conv1.forward(all, into: out, epilogue: .relu, context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        branches.reduce(0) { $0 + $1.macs(height: height, width: width) } + pooled.macs(height: 1, width: 1)
            + conv1.macs(height: height, width: width)
    }
}

/// `DeformableConv2d` with the BatchNorm and ReLU after it: offsets by `offset_conv`, the mask
/// 2·sigmoid(`modulator_conv`), both k×k convs of the input; then the modulated deformable conv (`regular_conv`).
struct DeformableBranch: Sendable {
    let offsetConv: Conv2D
    let modulatorConv: Conv2D
    let conv: DeformableConv2D

    init(_ w: inout WeightLoader, _ path: String, inChannels: Int, outChannels: Int, kernelSize k: Int) throws {
        offsetConv = try w.conv("\(path).offset_conv", outChannels: 2 * k * k, inChannels: inChannels, kernelSize: k)
        modulatorConv = try w.conv("\(path).modulator_conv", outChannels: k * k, inChannels: inChannels, kernelSize: k)
        conv = DeformableConv2D(
            inChannels: inChannels, outChannels: outChannels, kernelSize: k, padding: k / 2,
            weight: try w.tensor("\(path).regular_conv.weight", shape: [outChannels, inChannels, k, k]),
            bias: try w.tensor("\(path).regular_conv.bias", shape: [outChannels]))
    }

    func callAsFunction(_ x: TensorView, into out: TensorView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let offset = arena.tensor(channels: offsetConv.outChannels, height: x.height, width: x.width)
        offsetConv.forward(x, into: offset, epilogue: .none, context: context)
        let mask = arena.tensor(channels: modulatorConv.outChannels, height: x.height, width: x.width)
        modulatorConv.forward(x, into: mask, epilogue: .none, context: context)
        Sigmoid.forwardInPlace(mask)
        conv.forward(x, offset: offset, mask: mask, maskScale: 2, into: out, epilogue: .relu, context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        let pixels = height * width
        return offsetConv.macs(height: height, width: width) + modulatorConv.macs(height: height, width: width)
            + pixels * conv.outChannels * conv.inChannels * conv.taps
    }
}

/// `SimpleConvs` (the image patches' blocks): conv1 (3×3) then conv_out (3×3), no activation between.
struct SimpleConvs: Sendable {
    let conv1: Conv2D
    let convOut: Conv2D

    init(_ w: inout WeightLoader, _ path: String, inChannels: Int, outChannels: Int, inter: Int) throws {
        conv1 = try w.conv("\(path).conv1", outChannels: inter, inChannels: inChannels, kernelSize: 3)
        convOut = try w.conv("\(path).conv_out", outChannels: outChannels, inChannels: inter, kernelSize: 3)
    }

    var outChannels: Int { convOut.outChannels }

    func callAsFunction(_ x: TensorView, into out: TensorView, context: ExecutionContext) {
        let mark = context.arena.mark()
        defer { context.arena.release(to: mark) }
        let t = context.arena.tensor(channels: conv1.outChannels, height: x.height, width: x.width)
        conv1.forward(x, into: t, epilogue: .none, context: context)
        convOut.forward(t, into: out, epilogue: .none, context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        conv1.macs(height: height, width: width) + convOut.macs(height: height, width: width)
    }
}

extension TensorView {
    /// Copies `other`'s floats (same shape) into this view.
    func copy(_ other: TensorView) {
        precondition(sameShape(as: other), "copy of \(other.shapeDescription) into \(shapeDescription)")
        data.update(from: other.data, count: count)
    }
}
