import SwiftsegRuntime

/// The nested U-structure U²-Net and ISNet share: six RSU encoder stages (each pooled 2×2 into the next), five
/// decoder stages on `cat(upsample(deeper), skip)`, and a 3×3 side output per level, each upsampled to the
/// level-1 size. U²-Net fuses the six side maps with a 1×1 conv; ISNet keeps the first.
final class U2NetBody: @unchecked Sendable {
    let stage1, stage2, stage3, stage4, stage5, stage6: any RSUBlock
    let stage5d, stage4d, stage3d, stage2d, stage1d: any RSUBlock
    /// side1…side6: 3×3 convs to one channel.
    let side: [Conv2D]

    init(_ w: inout WeightLoader, _ config: U2NetConfiguration) throws {
        func block(_ name: String) throws -> any RSUBlock {
            let s = config.stage(name)
            switch s.kind {
            case .rsu(let height):
                return try RSU(&w, name, height: height, inChannels: s.inChannels, midChannels: s.midChannels,
                               outChannels: s.outChannels)
            case .rsu4F:
                return try RSU4F(&w, name, inChannels: s.inChannels, midChannels: s.midChannels,
                                 outChannels: s.outChannels)
            }
        }
        stage1 = try block("stage1"); stage2 = try block("stage2"); stage3 = try block("stage3")
        stage4 = try block("stage4"); stage5 = try block("stage5"); stage6 = try block("stage6")
        stage5d = try block("stage5d"); stage4d = try block("stage4d"); stage3d = try block("stage3d")
        stage2d = try block("stage2d"); stage1d = try block("stage1d")
        side = try config.sideInChannels.enumerated().map { i, ch in
            try w.conv("side\(i + 1)", outChannels: 1, inChannels: ch, kernelSize: 3, dilation: 1)
        }
    }

    /// The shapes a forward pass takes: 3 channels in, one channel out at the input's size.
    static func checkShapes(_ input: TensorView, _ output: TensorView, model: String, output outputName: String) {
        precondition(input.channels == 3, "\(model) takes 3 channels, got \(input.channels)")
        precondition(output.channels == 1 && output.height == input.height && output.width == input.width,
                     "\(outputName) must be 1×\(input.height)×\(input.width), got \(output.shapeDescription)")
    }

    /// Every level on `input`, the six side maps (before any sigmoid) into `sides` (6 × input's size).
    func callAsFunction(_ input: TensorView, sides: TensorView, context: ExecutionContext) {
        _ = level(1, input: input, sides: sides, context: context)
    }

    private func encoder(_ i: Int) -> any RSUBlock {
        switch i {
        case 1: stage1
        case 2: stage2
        case 3: stage3
        case 4: stage4
        case 5: stage5
        default: stage6
        }
    }

    private func decoder(_ i: Int) -> any RSUBlock {
        switch i {
        case 1: stage1d
        case 2: stage2d
        case 3: stage3d
        case 4: stage4d
        default: stage5d
        }
    }

    /// Profile labels, so a pass builds no strings.
    static let encoderNames = ["stage1", "stage2", "stage3", "stage4", "stage5", "stage6"]
    static let decoderNames = ["stage1d", "stage2d", "stage3d", "stage4d", "stage5d"]

    /// Encoder stage `i` on `input`, the deeper stages on its pooled output, then decoder stage `i` on
    /// `cat(upsample(deeper), hx{i})`, and side output `i` from it. Returns `hx{i}d`, which is left allocated
    /// for the caller to release: it occupies the first channels of this level's concatenation, which the
    /// decoder reads only in its first conv (``RSUBlock``), so the largest buffer of the pass (128 × H × W at
    /// level 1) also holds its output and no separate output map is needed.
    private func level(_ i: Int, input: TensorView, sides: TensorView, context: ExecutionContext) -> TensorView {
        let arena = context.arena
        let enc = encoder(i), deeperChannels = i == 5 ? stage6.outChannels : decoder(i + 1).outChannels
        let cat = arena.tensor(channels: deeperChannels + enc.outChannels, height: input.height, width: input.width)
        let afterCat = arena.mark()
        let hx = cat.channels(deeperChannels..<cat.channels)
        // The stage's last conv pools its output for the next stage while each tile row is in cache, into the
        // concat's upsampling half (the deeper decoder has as many channels as this encoder), unused until the
        // deeper stages are done.
        precondition(deeperChannels == hx.channels, "the deeper decoder matches its encoder's channels")
        let pooled = TensorView(channels: hx.channels, height: MaxPool2D.outputSize(hx.height),
                                width: MaxPool2D.outputSize(hx.width), data: cat.data)
        context.time(U2NetBody.encoderNames[i - 1]) { enc.callAsFunction(input, into: hx, pooledInto: pooled, context: context) }
        let deeper: TensorView
        if i == 5 {
            deeper = arena.tensor(channels: deeperChannels, height: pooled.height, width: pooled.width)
            context.time("stage6") { stage6.callAsFunction(pooled, into: deeper, context: context) }
            sideOutput(6, deeper, sides: sides, context: context)
        } else {
            deeper = level(i + 1, input: pooled, sides: sides, context: context)
        }
        // The decoder's first conv makes the upsampling of `deeper` (the concat's first half) as it reads it.
        let dec = decoder(i)
        let out = cat.channels(0..<dec.outChannels)
        context.time(U2NetBody.decoderNames[i - 1]) {
            dec.callAsFunction(cat, upsampling: deeper, into: out, context: context)
        }
        arena.release(to: afterCat)  // deeper is consumed
        sideOutput(i, out, sides: sides, context: context)
        return out
    }

    /// `d{i} = side{i}(hx)`, upsampled to the input's size into channel i-1 of `sides`.
    private func sideOutput(_ i: Int, _ hx: TensorView, sides: TensorView, context: ExecutionContext) {
        context.time("side+fuse") {
            let target = sides.channels((i - 1)..<i)
            if hx.height == sides.height && hx.width == sides.width {
                side[i - 1].forward(hx, into: target, epilogue: .none, context: context)
            } else {
                let arena = context.arena, mark = arena.mark()
                defer { arena.release(to: mark) }
                let d = arena.tensor(channels: 1, height: hx.height, width: hx.width)
                side[i - 1].forward(hx, into: d, epilogue: .none, context: context)
                ResizeBilinear.forward(d, into: target, context: context)
            }
        }
    }

    /// Multiply-accumulates of the body's convolutions on a level-1 input of this size.
    func convMACs(height: Int, width: Int) -> Int {
        var total = 0
        func add(_ c: Conv2D, _ h: Int, _ w: Int) { total += c.macs(height: h, width: w) }
        func rsu(_ b: any RSUBlock, _ h: Int, _ w: Int) {
            if let b = b as? RSU {
                add(b.rebnconvin.conv, h, w)
                var (lh, lw) = (h, w)
                for i in 1..<b.height {
                    add(b.rebnconv[i - 1].conv, lh, lw)
                    add(b.rebnconvd[i - 1].conv, lh, lw)
                    if i == b.height - 1 { add(b.rebnconv[b.height - 1].conv, lh, lw) }
                    (lh, lw) = (MaxPool2D.outputSize(lh), MaxPool2D.outputSize(lw))
                }
            } else if let b = b as? RSU4F {
                ([b.rebnconvin] + b.rebnconv + b.rebnconvd).forEach { add($0.conv, h, w) }
            }
        }
        var (h, w) = (height, width)
        for i in 1...6 {
            let enc = i == 6 ? stage6 : encoder(i)
            rsu(enc, h, w)
            if i < 6 { rsu(decoder(i), h, w) }
            add(side[i - 1], h, w)
            (h, w) = (MaxPool2D.outputSize(h), MaxPool2D.outputSize(w))
        }
        return total
    }
}
