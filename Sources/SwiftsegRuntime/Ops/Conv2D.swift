import SwiftsegKernels
/// A 2-D convolution with its bias: square kernels of odd size, any stride and dilation, explicit (also
/// asymmetric) or TensorFlow-"SAME" zero padding, and groups (depthwise when `groups` = channels).
///
/// BatchNorm is already folded into `weight` and `bias` by the converter. The weight is OIHW
/// (`outChannels × inChannels/groups × k × k`), which read row-major is exactly the matrix the GEMM path
/// multiplies, so weights are used in place from the memory-mapped file without repacking. Stride-1,
/// ungrouped convs with "same" padding — U²-Net's 3×3 convs at dilation 1, 2, 4, 8 and its 1×1 fuse — also
/// have the specialised Winograd, direct and tap-wise kernels; the rest run im2col + GEMM (depthwise: a
/// per-channel kernel). Every path is checked against ``referenceForward(_:into:epilogue:)``.
///
/// ```swift
/// let stem = Conv2D(outChannels: 32, inChannels: 3, kernelSize: 3, stride: 2, padding: .same, weight: w, bias: b)
/// stem.forward(x, into: y, epilogue: .relu6, context: ctx)      // y: 32 × ⌈H/2⌉ × ⌈W/2⌉
/// ```
public struct Conv2D: @unchecked Sendable {
    /// Zero padding around the input.
    public enum Padding: Sendable, Equatable {
        /// These many pixels on each side.
        case explicit(top: Int, left: Int, bottom: Int, right: Int)
        /// TensorFlow's "SAME" (ONNX's `SAME_UPPER`): the output is ⌈input / stride⌉ and the total padding this
        /// needs is split with the odd pixel after — at the bottom and right (stride 2 on an even size, 3×3:
        /// 0 before, 1 after; 5×5: 1 before, 2 after). Resolved per input size.
        case same

        /// `p` pixels on every side.
        public static func symmetric(_ p: Int) -> Padding { .explicit(top: p, left: p, bottom: p, right: p) }

        /// The pixels before and after along an axis of `size` input pixels, for a kernel spanning `extent`
        /// pixels (`dilation · (k − 1) + 1`) at `stride`.
        func along(_ size: Int, extent: Int, stride: Int, before: Int, after: Int) -> (before: Int, after: Int) {
            switch self {
            case .explicit: return (before, after)
            case .same:
                let total = max(((size + stride - 1) / stride - 1) * stride + extent - size, 0)
                return (total / 2, total - total / 2)
            }
        }
    }

    public let outChannels: Int
    public let inChannels: Int
    public let kernelSize: Int
    public let stride: Int
    public let dilation: Int
    public let padding: Padding
    /// Input and output channels are split into this many groups, each convolved on its own: 1 is an ordinary
    /// conv, `inChannels` (= `outChannels`) a depthwise one.
    public let groups: Int
    /// OIHW, `outChannels · (inChannels/groups) · kernelSize²` floats.
    public let weight: UnsafePointer<Float>
    /// `outChannels` floats.
    public let bias: UnsafePointer<Float>
    /// Winograd-transformed weights, prepared at load for 3×3 dilation-1 "same" convs (nil otherwise).
    public let winograd: WinogradWeights?
    /// Tap-major weights, prepared at load for dilated 3×3 "same" convs (nil otherwise; ``tapMajor(_:outChannels:inChannels:)``).
    public let taps: RearrangedWeights?
    /// Packed weights for the kernels' own GEMM, prepared at load for 1×1 stride-1 ungrouped convs of at least
    /// ``pointwiseMinimumOutChannels`` outputs, where the default build has that GEMM (nil otherwise).
    public let pointwise: PackedGEMMWeights?
    /// The same for strided ungrouped convs (a classifier's stem, ISNet's first conv), whose im2col columns the
    /// kernels' GEMM multiplies with the epilogue fused (``gemmForward(_:into:epilogue:context:)``).
    public let strided: PackedGEMMWeights?
    /// A depthwise conv's taps as the channel-blocked kernels read them (every depthwise conv; 1× its weights;
    /// ``blockedDepthwiseTaps(_:channels:kernelSize:)``).
    public let blockedTaps: RearrangedWeights?

    /// - Parameter padding: default: `dilation · (k − 1) / 2` on every side ("same" at stride 1).
    /// - Parameter prepareFastKernels: prepare the weights the fast kernels read: Winograd-transformed for
    ///   3×3 dilation-1 convs (``winogradForward(_:into:epilogue:pooledInto:context:)``, 4× the weights' memory in 4×4
    ///   tiles, 5.3× in 6×4 ones), regrouped by tap for dilated 3×3 convs
    ///   (``dilatedTapsForward(_:into:epilogue:context:)``, 1×). Only stride-1, ungrouped "same" convs have them.
    /// - Parameter winogradTile: the Winograd tile shape (default: the layer's,
    ///   ``WinogradTile/forLayer(inChannels:outChannels:)``); tests and benchmarks force one.
    public init(outChannels: Int, inChannels: Int, kernelSize: Int, stride: Int = 1, dilation: Int = 1,
                padding: Padding? = nil, groups: Int = 1, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                prepareFastKernels: Bool = false, winogradTile: WinogradTile? = nil) {
        precondition(kernelSize % 2 == 1 && dilation >= 1 && stride >= 1, "odd kernels, stride and dilation ≥ 1")
        precondition(groups >= 1 && inChannels % groups == 0 && outChannels % groups == 0,
                     "\(groups) groups must divide \(inChannels) input and \(outChannels) output channels")
        if case .explicit(let t, let l, let b, let r) = padding {
            precondition(min(t, l, b, r) >= 0, "padding must be ≥ 0")
        }
        self.outChannels = outChannels
        self.inChannels = inChannels
        self.kernelSize = kernelSize
        self.stride = stride
        self.dilation = dilation
        self.padding = padding ?? .symmetric(dilation * (kernelSize - 1) / 2)
        self.groups = groups
        self.weight = weight
        self.bias = bias
        let plain = stride == 1 && groups == 1 && self.padding == .symmetric(dilation * (kernelSize - 1) / 2)
        winograd = prepareFastKernels && plain && kernelSize == 3 && dilation == 1
            ? WinogradWeights(weight: weight, outChannels: outChannels, inChannels: inChannels, tile: winogradTile) : nil
        taps = prepareFastKernels && plain && kernelSize == 3 && dilation > 1
            ? Conv2D.tapMajor(weight, outChannels: outChannels, inChannels: inChannels) : nil
        pointwise = prepareFastKernels && plain && kernelSize == 1 && outChannels >= Conv2D.pointwiseMinimumOutChannels
            && Kernels.of(.best).winogradGEMM != nil
            ? PackedGEMMWeights(weight: weight, outChannels: outChannels, inChannels: inChannels) : nil
        strided = prepareFastKernels && stride > 1 && groups == 1 && outChannels >= Conv2D.pointwiseMinimumOutChannels
            && Kernels.of(.best).winogradGEMM != nil
            ? PackedGEMMWeights(weight: weight, outChannels: outChannels, inChannels: inChannels * kernelSize * kernelSize) : nil
        blockedTaps = Conv2D.isDepthwise(groups: groups, inChannels: inChannels, outChannels: outChannels)
            ? Conv2D.blockedDepthwiseTaps(weight, channels: outChannels, kernelSize: kernelSize) : nil
    }

    /// Stride 1, one group, `dilation · (k − 1) / 2` on every side: the output has the input's size, and the
    /// specialised kernels (Winograd, direct, tap-wise, 1×1 straight into GEMM) apply.
    public var isStrideOneSame: Bool {
        stride == 1 && groups == 1 && padding == .symmetric(dilation * (kernelSize - 1) / 2)
    }

    /// One channel per group, one output per input channel.
    public var isDepthwise: Bool { Conv2D.isDepthwise(groups: groups, inChannels: inChannels, outChannels: outChannels) }

    /// One group per channel, as many out as in: ``isDepthwise`` for a conv not yet built (its initialiser).
    static func isDepthwise(groups: Int, inChannels: Int, outChannels: Int) -> Bool {
        groups > 1 && groups == inChannels && groups == outChannels
    }

    /// Pixels the kernel spans along each axis.
    public var kernelExtent: Int { dilation * (kernelSize - 1) + 1 }

    /// Padding (top, left, bottom, right) for an input of this size.
    public func resolvedPadding(height: Int, width: Int) -> (top: Int, left: Int, bottom: Int, right: Int) {
        var t = 0, l = 0, b = 0, r = 0
        if case .explicit(let pt, let pl, let pb, let pr) = padding { (t, l, b, r) = (pt, pl, pb, pr) }
        let y = padding.along(height, extent: kernelExtent, stride: stride, before: t, after: b)
        let x = padding.along(width, extent: kernelExtent, stride: stride, before: l, after: r)
        return (y.before, x.before, y.after, x.after)
    }

    /// Output height and width for an input of this size.
    public func outputSize(height: Int, width: Int) -> (height: Int, width: Int) {
        let p = resolvedPadding(height: height, width: width)
        return ((height + p.top + p.bottom - kernelExtent) / stride + 1,
                (width + p.left + p.right - kernelExtent) / stride + 1)
    }

    /// Length of one im2col column: the GEMM's K (per group).
    public var reductionSize: Int { inChannels / groups * kernelSize * kernelSize }
    /// Multiply-accumulates for an `height × width` input.
    public func macs(height: Int, width: Int) -> Int {
        let out = outputSize(height: height, width: width)
        return outChannels * reductionSize * out.height * out.width
    }

    /// Runs the convolution with the kernel the context's policy selects.
    ///
    /// ```swift
    /// conv.forward(x, into: y, epilogue: .relu, context: ctx)
    /// ```
    public func forward(_ input: TensorView, into output: TensorView, epilogue: Epilogue, context: ExecutionContext) {
        forward(input, into: output, epilogue: epilogue, pooledInto: nil, context: context)
    }

    /// The same, also writing the output's 2×2 max-pool (``MaxPool2D``) into `pooled` — a fusion for U²-Net's
    /// encoders: Winograd pools while each tile row is still in cache, the other kernels by a pass over the
    /// output afterwards.
    ///
    /// ```swift
    /// conv.forward(x, into: hx, epilogue: .relu, pooledInto: pooledHx, context: ctx)
    /// ```
    public func forward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                        pooledInto pooled: TensorView?, context: ExecutionContext) {
        forward(input, upsampling: nil, into: output, epilogue: epilogue, pooledInto: pooled, context: context)
    }

    /// The same, with `input`'s first `head.channels` channels standing for `head` upsampled to the input's size
    /// (``ResizeBilinear``), not yet written there — U²-Net's decoders, on `cat(upsample(deeper), skip)`. The
    /// Winograd tile-row path makes those rows as its input transform reads them (exact 2× upsampling;
    /// ``Conv2D/winogradForward(_:upsampling:into:epilogue:pooledInto:context:)``); every other path writes the
    /// upsampling into `input` first. The same bytes either way.
    ///
    /// ```swift
    /// conv.forward(cat, upsampling: deeper, into: hxd, epilogue: .relu, pooledInto: nil, context: ctx)
    /// ```
    public func forward(_ input: TensorView, upsampling head: TensorView?, into output: TensorView, epilogue: Epilogue,
                        pooledInto pooled: TensorView?, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        if let pooled { MaxPool2D.checkShapes(output, pooled) }
        if let head {
            precondition(head.channels <= input.channels, "the upsampled head has more channels than the input")
            if !runsPointwise(context) && winogradCanUpsample(head, into: input)
                && selectKernel(policy: context.policy, height: input.height, width: input.width) == .winograd {
                context.timeOp("conv3x3 winograd") {
                    winogradForward(input, upsampling: head, into: output, epilogue: epilogue, pooledInto: pooled,
                                    context: context)
                }
                return
            }
            ResizeBilinear.forward(head, into: input.channels(0..<head.channels), context: context)
        }
        if runsPointwise(context) {
            context.timeOp("conv1x1 packed gemm") { pointwiseForward(input, into: output, epilogue: epilogue, context: context) }
            if let pooled { MaxPool2D.forward(output, into: pooled, context: context) }
            return
        }
        let kernel = selectKernel(policy: context.policy, height: input.height, width: input.width)
        switch kernel {
        case .reference:
            context.timeOp("conv reference") { referenceForward(input, into: output, epilogue: epilogue) }
        case .winograd:
            context.timeOp("conv3x3 winograd") {
                winogradForward(input, into: output, epilogue: epilogue, pooledInto: pooled, context: context)
            }
        case .direct:
            context.timeOp("conv3x3 direct") { directForward(input, into: output, epilogue: epilogue, context: context) }
        case .gemm, .auto:
            if isDepthwise {
                context.timeOp("conv depthwise") { depthwiseForward(input, into: output, epilogue: epilogue, context: context) }
            } else if supportsDilatedTaps(height: input.height, width: input.width) {
                context.timeOp("conv3x3 dilated taps") {
                    dilatedTapsForward(input, into: output, epilogue: epilogue, context: context)
                }
            } else {
                context.timeOp(gemmLabel) { gemmForward(input, into: output, epilogue: epilogue, context: context) }
            }
        }
        if let pooled, kernel != .winograd { MaxPool2D.forward(output, into: pooled, context: context) }
    }

    /// The profile label of the GEMM path (a constant string per layer kind, so a pass builds none).
    private var gemmLabel: String {
        if !isStrideOneSame { return stride > 1 ? "conv strided gemm" : "conv gemm" }
        return kernelSize == 1 ? "conv1x1 gemm" : dilation > 1 ? "conv3x3 dilated gemm" : "conv3x3 gemm"
    }

    /// The kernel rule, deterministic per layer shape. `.auto` runs thin 3×3 dilation-1 layers with the direct
    /// kernel (at most 4 output channels; at most 4 input channels on maps of 64×64 and up, GEMM below; see
    /// Conv2D+Direct.swift), Winograd on the other layers that support it (3×3,
    /// dilation 1, weights prepared) when the map's tiles cover at least ``winogradMinimumArea`` pixels, and GEMM
    /// elsewhere (dilated 3×3, 1×1, and tiny maps, where Winograd's 4× larger weights cost more to stream than
    /// the multiplies it saves: `swiftseg-bench --layers` measured GEMM 1.1–2.2× faster at 10×10 and
    /// Winograd 1.4–2.8× faster from 20×20 up, for 16 to 1024 channels). `.winograd` forces Winograd
    /// wherever supported, `.direct` the direct kernel; `.gemm` and `.reference` force those kernels. (Under `.gemm` and `.auto`, dilated
    /// 3×3 layers with tap-major weights prepared run the tap-wise GEMM, which is exact too: it only skips the
    /// products with zero padding that im2col would multiply; depthwise layers run their per-channel kernel,
    /// and other strided or grouped layers im2col + GEMM.)
    public func selectKernel(policy: ConvKernelPolicy, height: Int, width: Int) -> ConvKernelPolicy {
        switch policy {
        case .reference, .gemm: return policy
        case .winograd: return supportsWinograd ? .winograd : .gemm
        case .direct: return supportsDirect ? .direct : .gemm
        case .auto:
            if let thin = thinLayerKernel(height: height, width: width) { return thin }
            let tile = winograd?.tile ?? .f4x4, tiles = Conv2D.winogradTiles(height: height, width: width, tile: tile)
            let area = tiles.rows * tile.height * tiles.columns * tile.width
            return supportsWinograd && area >= Conv2D.winogradMinimumArea ? .winograd : .gemm
        }
    }

    /// Whether `.auto` runs this 1×1 conv on the kernels' packed GEMM (``pointwiseForward(_:into:epilogue:context:)``).
    func runsPointwise(_ context: ExecutionContext) -> Bool {
        context.policy == .auto && supportsPointwise && context.kernels.winogradGEMM != nil
    }

    /// Fewest output pixels the map's Winograd tiles must cover for `.auto` to pick Winograd: 16 tiles of 4×4
    /// (10×10 takes 12×12 in either shape: GEMM; 16×16 takes 16×16, or 18×16 in 6×4 tiles; 20×20 takes 20×20 or 24×20).
    public static let winogradMinimumArea = 256

    func checkShapes(_ input: TensorView, _ output: TensorView, _ epilogue: Epilogue) {
        precondition(input.channels == inChannels, "conv expects \(inChannels) input channels, got \(input.channels)")
        let out = outputSize(height: input.height, width: input.width)
        precondition(out.height >= 1 && out.width >= 1, "conv input \(input.shapeDescription) is smaller than the kernel")
        precondition(output.channels == outChannels && output.height == out.height && output.width == out.width,
                     "conv output \(output.shapeDescription) does not match \(outChannels)×\(out.height)×\(out.width)")
        if let r = epilogue.residual {
            precondition(r.sameShape(as: output), "residual \(r.shapeDescription) ≠ output \(output.shapeDescription)")
        }
    }

    /// Applies the epilogue (after the bias) to `count` outputs of channel `channel` at `out`, which is `offset`
    /// floats into the channel's plane (the residual is read at the same place).
    @inline(__always)
    func applyEpilogue(_ epilogue: Epilogue, channel: Int, out: UnsafeMutablePointer<Float>, offset: Int,
                       count: Int) {
        let residual = epilogue.residual.map { UnsafePointer($0.plane(channel) + offset) }
        SIMDKernels.addBias(out, count: count, bias: bias[channel],
                            epilogue: KernelEpilogue(activation: epilogue.activation, residual: residual))
    }
}
