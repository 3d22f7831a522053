import SwiftsegKernels
/// A square 2-D convolution, stride 1, "same" padding (`dilation · (kernel-1)/2`), with its bias.
///
/// U²-Net uses only 3×3 convs with dilation 1, 2, 4 or 8 (padding = dilation) and one 1×1 conv; BatchNorm is
/// already folded into `weight` and `bias`. The weight is OIHW, which read row-major is exactly the
/// `outChannels × (inChannels·k·k)` matrix the GEMM path multiplies, so weights are used in place from the
/// memory-mapped file without repacking.
///
/// ```swift
/// conv.forward(input, into: output, activation: .relu, context: ctx)
/// ```
public struct Conv2D: @unchecked Sendable {
    public let outChannels: Int
    public let inChannels: Int
    public let kernelSize: Int
    public let dilation: Int
    /// OIHW, `outChannels · inChannels · kernelSize²` floats.
    public let weight: UnsafePointer<Float>
    /// `outChannels` floats.
    public let bias: UnsafePointer<Float>
    /// Winograd-transformed weights, prepared at load for 3×3 dilation-1 convs (nil otherwise).
    public let winograd: WinogradWeights?
    /// Tap-major weights, prepared at load for dilated 3×3 convs (nil otherwise).
    public let taps: TapWeights?

    /// - Parameter prepareFastKernels: prepare the weights the fast kernels read: Winograd-transformed for
    ///   3×3 dilation-1 convs (``winogradForward(_:into:epilogue:pooledInto:context:)``, 4× the weights' memory in 4×4
    ///   tiles, 5.3× in 6×4 ones), regrouped by tap for dilated 3×3 convs
    ///   (``dilatedTapsForward(_:into:epilogue:context:)``, 1×).
    /// - Parameter winogradTile: the Winograd tile shape (default: the layer's,
    ///   ``WinogradTile/forLayer(inChannels:outChannels:)``); tests and benchmarks force one.
    public init(outChannels: Int, inChannels: Int, kernelSize: Int, dilation: Int,
                weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, prepareFastKernels: Bool = false,
                winogradTile: WinogradTile? = nil) {
        precondition(kernelSize % 2 == 1 && dilation >= 1, "odd kernels with dilation ≥ 1 only")
        self.outChannels = outChannels
        self.inChannels = inChannels
        self.kernelSize = kernelSize
        self.dilation = dilation
        self.weight = weight
        self.bias = bias
        winograd = prepareFastKernels && kernelSize == 3 && dilation == 1
            ? WinogradWeights(weight: weight, outChannels: outChannels, inChannels: inChannels, tile: winogradTile) : nil
        taps = prepareFastKernels && kernelSize == 3 && dilation > 1
            ? TapWeights(weight: weight, outChannels: outChannels, inChannels: inChannels) : nil
    }

    /// Zero padding on each side, so the output has the input's height and width.
    public var padding: Int { dilation * (kernelSize - 1) / 2 }
    /// Length of one im2col column: the GEMM's K.
    public var reductionSize: Int { inChannels * kernelSize * kernelSize }
    /// Multiply-accumulates for an `height × width` input.
    public func macs(height: Int, width: Int) -> Int { outChannels * reductionSize * height * width }

    /// What follows the convolution, applied in the kernel's epilogue while the tile is in cache.
    public enum Epilogue {
        /// out = conv + bias
        case bias
        /// out = max(conv + bias, 0)
        case biasReLU
        /// out = max(conv + bias, 0) + residual (REBNCONV then the RSU block's residual add)
        case biasReLUResidual(TensorView)

        /// The epilogue as the SIMD kernels take it (the bias separately): ReLU or not, and the residual planes.
        var reluAndResidual: (relu: Bool, residual: UnsafePointer<Float>?) {
            switch self {
            case .bias: return (false, nil)
            case .biasReLU: return (true, nil)
            case .biasReLUResidual(let r): return (true, UnsafePointer(r.data))
            }
        }
    }

    /// Runs the convolution with the kernel the context's policy selects; with `pooled`, also writes the
    /// output's 2×2 max-pool (``MaxPool2D``) there — Winograd while each tile row is still in cache, the other
    /// kernels by a pass over the output afterwards.
    ///
    /// ```swift
    /// conv.forward(x, into: hx, epilogue: .biasReLU, pooledInto: pooledHx, context: ctx)
    /// ```
    public func forward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                        pooledInto pooled: TensorView? = nil, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        if let pooled { MaxPool2D.checkShapes(output, pooled) }
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
            if supportsDilatedTaps(height: input.height, width: input.width) {
                context.timeOp("conv3x3 dilated taps") {
                    dilatedTapsForward(input, into: output, epilogue: epilogue, context: context)
                }
            } else {
                context.timeOp(kernelSize == 1 ? "conv1x1 gemm" : dilation > 1 ? "conv3x3 dilated gemm" : "conv3x3 gemm") {
                    gemmForward(input, into: output, epilogue: epilogue, context: context)
                }
            }
        }
        if let pooled, kernel != .winograd { MaxPool2D.forward(output, into: pooled, context: context) }
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
    /// products with zero padding that im2col would multiply.)
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

    /// Fewest output pixels the map's Winograd tiles must cover for `.auto` to pick Winograd: 16 tiles of 4×4
    /// (10×10 takes 12×12 in either shape: GEMM; 16×16 takes 16×16, or 18×16 in 6×4 tiles; 20×20 takes 20×20 or 24×20).
    public static let winogradMinimumArea = 256

    func checkShapes(_ input: TensorView, _ output: TensorView, _ epilogue: Epilogue) {
        precondition(input.channels == inChannels, "conv expects \(inChannels) input channels, got \(input.channels)")
        precondition(output.channels == outChannels && output.height == input.height && output.width == input.width,
                     "conv output \(output.shapeDescription) does not match \(outChannels)×\(input.height)×\(input.width)")
        if case .biasReLUResidual(let r) = epilogue {
            precondition(r.sameShape(as: output), "residual \(r.shapeDescription) ≠ output \(output.shapeDescription)")
        }
    }

    /// Applies the epilogue to `count` outputs of channel `channel` at `out` (residual at the same offset).
    @inline(__always)
    func applyEpilogue(_ epilogue: Epilogue, channel: Int, out: UnsafeMutablePointer<Float>, offset: Int,
                       count: Int) {
        switch epilogue {
        case .bias: SIMDKernels.addBias(out, count: count, bias: bias[channel])
        case .biasReLU: SIMDKernels.addBiasReLU(out, count: count, bias: bias[channel])
        case .biasReLUResidual(let r):
            SIMDKernels.addBiasReLUResidual(out, count: count, bias: bias[channel], residual: r.plane(channel) + offset)
        }
    }
}
