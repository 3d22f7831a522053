@_exported import SwiftsegKernelTypes   // KernelISA and CPUFeatures, for the runtime's clients
import SwiftsegKernels
import SwiftsegKernelsAVX2
import SwiftsegKernelsAVX512

/// The kernels of one ``KernelISA`` build, as function values: the single place the runtime switches between
/// the builds. Call sites read `context.kernels.winogradInput(tile)(…)`.
struct Kernels: Sendable {
    typealias WinogradInput = @Sendable (_ input: UnsafePointer<Float>, _ channels: Int, _ height: Int, _ width: Int,
                                         _ tileRow: Int, _ firstTile: Int, _ tiles: Int,
                                         _ v: UnsafeMutablePointer<Float>, _ ld: Int,
                                         _ scratch: UnsafeMutablePointer<Float>, _ upsampled: UpsampledRows?) -> Void
    typealias WinogradOutput = @Sendable (_ m: UnsafePointer<Float>, _ ld: Int, _ channels: Int,
                                          _ bias: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                                          _ height: Int, _ width: Int, _ tileRow: Int, _ firstTile: Int,
                                          _ tiles: Int, _ epilogue: KernelEpilogue,
                                          _ scratch: UnsafeMutablePointer<Float>) -> Void

    /// C = A · B, `m × k` by `k × n`: A packed in the build's row blocks (``winogradRowBlock``), B and C with
    /// leading dimensions, columns computed in whole vectors.
    typealias GEMM = @Sendable (_ m: Int, _ n: Int, _ k: Int, _ packedA: UnsafePointer<Float>,
                                _ b: UnsafePointer<Float>, _ ldb: Int, _ c: UnsafeMutablePointer<Float>,
                                _ ldc: Int) -> Void

    /// The same GEMM with a convolution's epilogue on each row (bias `bias[row]`, the activation, the residual
    /// laid out as C) applied before its one store: the 1×1 convs.
    typealias EpilogueGEMM = @Sendable (_ m: Int, _ n: Int, _ k: Int, _ packedA: UnsafePointer<Float>,
                                        _ b: UnsafePointer<Float>, _ ldb: Int, _ c: UnsafeMutablePointer<Float>,
                                        _ ldc: Int, _ bias: UnsafePointer<Float>, _ epilogue: KernelEpilogue) -> Void

    /// Output rows of a 3×3 dilation-1 conv for a range of output channels (DirectConvKernels.conv3x3Rows).
    typealias DirectConvRows = @Sendable (_ input: UnsafePointer<Float>, _ inChannels: Int, _ height: Int,
                                          _ width: Int, _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                          _ firstChannel: Int, _ endChannel: Int, _ firstRow: Int, _ endRow: Int,
                                          _ output: UnsafeMutablePointer<Float>, _ epilogue: KernelEpilogue,
                                          _ scratch: UnsafeMutablePointer<Float>) -> Void

    /// Output rows of one channel of a depthwise conv (DepthwiseConvKernels.channelRows).
    typealias DepthwiseRows = @Sendable (_ input: UnsafePointer<Float>, _ height: Int, _ width: Int,
                                         _ weight: UnsafePointer<Float>, _ bias: Float, _ kernelSize: Int,
                                         _ stride: Int, _ padTop: Int, _ padLeft: Int,
                                         _ output: UnsafeMutablePointer<Float>, _ outHeight: Int, _ outWidth: Int,
                                         _ firstRow: Int, _ endRow: Int, _ epilogue: KernelEpilogue,
                                         _ scratch: UnsafeMutablePointer<Float>) -> Void

    typealias DepthwiseBlock = @Sendable (_ input: UnsafePointer<Float>, _ height: Int, _ width: Int,
                                          _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                          _ kernelSize: Int, _ stride: Int, _ padTop: Int, _ padLeft: Int,
                                          _ output: UnsafeMutablePointer<Float>, _ outHeight: Int, _ outWidth: Int,
                                          _ epilogue: KernelEpilogue, _ scratch: UnsafeMutablePointer<Float>) -> Void

    /// A 1×1 conv on channel-blocked maps, for a range of output channel blocks and of pixels
    /// (BlockedKernels.pointwise).
    typealias BlockedPointwise = @Sendable (_ input: UnsafePointer<Float>, _ pixels: Int, _ inChannels: Int,
                                            _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                            _ outChannels: Int, _ output: UnsafeMutablePointer<Float>, _ blocks: Range<Int>,
                                            _ pixelRange: Range<Int>, _ epilogue: KernelEpilogue,
                                            _ skipScratch: UnsafeMutablePointer<Float>?) -> Void
    /// Output rows of one channel block of a depthwise conv on channel-blocked maps (BlockedKernels.depthwise).
    typealias BlockedDepthwise = @Sendable (_ input: UnsafePointer<Float>, _ height: Int, _ width: Int,
                                            _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                            _ kernelSize: Int, _ stride: Int, _ padTop: Int, _ padLeft: Int,
                                            _ output: UnsafeMutablePointer<Float>, _ outHeight: Int, _ outWidth: Int,
                                            _ rows: Range<Int>, _ activation: KernelEpilogue.Activation,
                                            _ scratch: UnsafeMutablePointer<Float>) -> Void
    /// Channel blocks of a depthwise conv on a small channel-blocked map, each through one zero-padded tile
    /// (BlockedKernels.depthwiseTiles).
    typealias BlockedDepthwiseTiles = @Sendable (_ input: UnsafePointer<Float>, _ height: Int, _ width: Int,
                                                 _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                                 _ kernelSize: Int, _ stride: Int, _ padTop: Int, _ padLeft: Int,
                                                 _ output: UnsafeMutablePointer<Float>, _ outHeight: Int,
                                                 _ outWidth: Int, _ blocks: Range<Int>,
                                                 _ activation: KernelEpilogue.Activation,
                                                 _ scratch: UnsafeMutablePointer<Float>) -> Void
    /// An inverted bottleneck's expansion and depthwise conv at once on channel-blocked maps, for a range of
    /// expanded channel blocks and output rows (BlockedKernels.expandDepthwise).
    typealias BlockedExpandDepthwise = @Sendable (_ input: UnsafePointer<Float>, _ inChannels: Int, _ height: Int,
                                                  _ width: Int, _ expandWeight: UnsafePointer<Float>,
                                                  _ expandBias: UnsafePointer<Float>, _ taps: UnsafePointer<Float>,
                                                  _ bias: UnsafePointer<Float>, _ kernelSize: Int, _ stride: Int,
                                                  _ padTop: Int, _ padLeft: Int, _ output: UnsafeMutablePointer<Float>,
                                                  _ outHeight: Int, _ outWidth: Int, _ blocks: Range<Int>,
                                                  _ rows: Range<Int>, _ scratch: UnsafeMutablePointer<Float>) -> Void
    /// An inverted bottleneck's expansion, depthwise conv and projection at once on channel-blocked maps, for a
    /// range of output rows (BlockedKernels.expandDepthwiseProject).
    typealias BlockedExpandDepthwiseProject = @Sendable (
        _ input: UnsafePointer<Float>, _ inChannels: Int, _ height: Int, _ width: Int, _ expandWeight: UnsafePointer<Float>,
        _ expandBias: UnsafePointer<Float>, _ expandedBlocks: Int, _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
        _ kernelSize: Int, _ stride: Int, _ padTop: Int, _ padLeft: Int, _ projectWeight: UnsafePointer<Float>,
        _ projectBias: UnsafePointer<Float>, _ projectChannels: Int, _ residual: UnsafePointer<Float>?,
        _ output: UnsafeMutablePointer<Float>, _ outHeight: Int, _ outWidth: Int, _ rows: Range<Int>,
        _ scratch: UnsafeMutablePointer<Float>) -> Void
    /// Output rows of a strided conv from planes into a channel-blocked map (BlockedKernels.conv).
    typealias BlockedConv = @Sendable (_ input: UnsafePointer<Float>, _ inChannels: Int, _ height: Int, _ width: Int,
                                       _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                       _ kernelSize: Int, _ stride: Int, _ padTop: Int, _ padLeft: Int,
                                       _ output: UnsafeMutablePointer<Float>, _ outPixels: Int, _ outWidth: Int,
                                       _ blocks: Range<Int>, _ rows: Range<Int>,
                                       _ activation: KernelEpilogue.Activation,
                                       _ scratch: UnsafeMutablePointer<Float>) -> Void
    /// Planes ↔ channel-blocked maps (BlockedKernels.block / unblock).
    typealias Reblock = @Sendable (_ from: UnsafePointer<Float>, _ channels: Int, _ pixels: Int,
                                   _ into: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>) -> Void

    typealias MaxPoolRow = @Sendable (_ row0: UnsafePointer<Float>, _ row1: UnsafePointer<Float>,
                                      _ out: UnsafeMutablePointer<Float>, _ count: Int) -> Void
    typealias UpsampleRow = @Sendable (_ x: UnsafePointer<Float>, _ count: Int, _ out: UnsafeMutablePointer<Float>) -> Void
    typealias LinearColumns = @Sendable (_ columns: UnsafePointer<Float>, _ stride: Int, _ x: UnsafePointer<Float>,
                                         _ inputs: UnsafePointer<Int32>, _ count: Int, _ bias: UnsafePointer<Float>,
                                         _ outputs: Range<Int>, _ out: UnsafeMutablePointer<Float>) -> Void
    typealias Lerp = @Sendable (_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ t: Float,
                                _ out: UnsafeMutablePointer<Float>, _ count: Int) -> Void
    typealias LayerNormRow = @Sendable (_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ features: Int,
                                        _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                        _ epsilon: Float) -> Void
    typealias BiasGELURow = @Sendable (_ p: UnsafeMutablePointer<Float>, _ count: Int, _ bias: UnsafePointer<Float>?) -> Void
    typealias BiasRow = @Sendable (_ p: UnsafeMutablePointer<Float>, _ count: Int, _ bias: UnsafePointer<Float>?,
                                   _ residual: UnsafePointer<Float>?) -> Void
    typealias SoftmaxRow = @Sendable (_ p: UnsafeMutablePointer<Float>, _ count: Int) -> Void

    /// The Winograd transforms, F(4×4) and F(6×4) (``winogradInput(_:)`` and ``winogradOutput(_:)`` pick one).
    let winogradInput4x4: WinogradInput, winogradInput6x4: WinogradInput
    let winogradOutput4x4: WinogradOutput, winogradOutput6x4: WinogradOutput
    /// The Winograd channel mix, on U packed in blocks of ``winogradRowBlock`` rows; nil means `BLAS.sgemm` on
    /// row-major U (the register-blocked kernel needs FMA, so the baseline build does not use it).
    let winogradGEMM: GEMM?
    /// ``winogradGEMM`` with the epilogue fused (nil where that is).
    let epilogueGEMM: EpilogueGEMM?
    /// Rows per block of the U that ``winogradGEMM`` reads (`WinogradKernels.packGEMMRows`); 1, row-major,
    /// for BLAS.
    let winogradRowBlock: Int
    /// The direct 3×3 conv for layers with few input or output channels.
    let directConvRows: DirectConvRows
    /// The depthwise conv (stride 1 or 2), one channel at a time.
    let depthwiseRows: DepthwiseRows
    let depthwiseBlock: DepthwiseBlock
    /// The channel-blocked kernels (a classifier's small maps).
    let blockedPointwise: BlockedPointwise, blockedDepthwise: BlockedDepthwise, blockedConv: BlockedConv
    let blockedDepthwiseTiles: BlockedDepthwiseTiles
    let blockedExpandDepthwise: BlockedExpandDepthwise
    let blockedExpandDepthwiseProject: BlockedExpandDepthwiseProject
    let toBlocked: Reblock, fromBlocked: Reblock
    /// One output row of the 2×2 max-pool.
    let maxPool2x2Row: MaxPoolRow
    /// The vertical step of bilinear resizing.
    let lerp: Lerp
    /// A fully connected layer's outputs from the columns of its listed (nonzero) inputs.
    let linearColumns: LinearColumns
    /// The horizontal step of an exact 2× bilinear upsampling.
    let upsample2xRow: UpsampleRow
    /// A transformer's token rows: layer normalisation, a linear layer's GELU or bias-and-residual epilogue,
    /// the softmax of attention scores (``LayerNorm``, ``TokenLinear``, ``WindowAttention``).
    let layerNormRow: LayerNormRow
    let biasGELURow: BiasGELURow
    let biasRow: BiasRow
    let softmaxRow: SoftmaxRow

    static let baseline = Kernels(
        winogradInput4x4: SwiftsegKernels.WinogradKernels.inputTransform,
        winogradInput6x4: SwiftsegKernels.WinogradKernels.inputTransformF6x4,
        winogradOutput4x4: SwiftsegKernels.WinogradKernels.outputTransform,
        winogradOutput6x4: SwiftsegKernels.WinogradKernels.outputTransformF6x4,
        winogradGEMM: nil,
        epilogueGEMM: nil,
        winogradRowBlock: 1,
        directConvRows: SwiftsegKernels.DirectConvKernels.conv3x3Rows,
        depthwiseRows: SwiftsegKernels.DepthwiseConvKernels.channelRows,
        depthwiseBlock: SwiftsegKernels.DepthwiseConvKernels.channelBlock,
        blockedPointwise: SwiftsegKernels.BlockedKernels.pointwise,
        blockedDepthwise: SwiftsegKernels.BlockedKernels.depthwise,
        blockedConv: SwiftsegKernels.BlockedKernels.conv,
        blockedDepthwiseTiles: SwiftsegKernels.BlockedKernels.depthwiseTiles,
        blockedExpandDepthwise: SwiftsegKernels.BlockedKernels.expandDepthwise,
        blockedExpandDepthwiseProject: SwiftsegKernels.BlockedKernels.expandDepthwiseProject,
        toBlocked: SwiftsegKernels.BlockedKernels.block,
        fromBlocked: SwiftsegKernels.BlockedKernels.unblock,
        maxPool2x2Row: SwiftsegKernels.SIMDKernels.maxPool2x2Row,
        lerp: SwiftsegKernels.SIMDKernels.lerp,
        linearColumns: SwiftsegKernels.SIMDKernels.linearColumns,
        upsample2xRow: SwiftsegKernels.SIMDKernels.upsample2xRow,
        layerNormRow: SwiftsegKernels.TransformerKernels.layerNorm,
        biasGELURow: SwiftsegKernels.TransformerKernels.addBiasGELU,
        biasRow: SwiftsegKernels.TransformerKernels.addBias,
        softmaxRow: SwiftsegKernels.TransformerKernels.softmax)

    static let avx2 = Kernels(
        winogradInput4x4: SwiftsegKernelsAVX2.WinogradKernels.inputTransform,
        winogradInput6x4: SwiftsegKernelsAVX2.WinogradKernels.inputTransformF6x4,
        winogradOutput4x4: SwiftsegKernelsAVX2.WinogradKernels.outputTransform,
        winogradOutput6x4: SwiftsegKernelsAVX2.WinogradKernels.outputTransformF6x4,
        winogradGEMM: SwiftsegKernelsAVX2.WinogradKernels.gemm,
        epilogueGEMM: SwiftsegKernelsAVX2.WinogradKernels.gemm,
        winogradRowBlock: SwiftsegKernelsAVX2.WinogradKernels.gemmRowBlock,
        directConvRows: SwiftsegKernelsAVX2.DirectConvKernels.conv3x3Rows,
        depthwiseRows: SwiftsegKernelsAVX2.DepthwiseConvKernels.channelRows,
        depthwiseBlock: SwiftsegKernelsAVX2.DepthwiseConvKernels.channelBlock,
        blockedPointwise: SwiftsegKernelsAVX2.BlockedKernels.pointwise,
        blockedDepthwise: SwiftsegKernelsAVX2.BlockedKernels.depthwise,
        blockedConv: SwiftsegKernelsAVX2.BlockedKernels.conv,
        blockedDepthwiseTiles: SwiftsegKernelsAVX2.BlockedKernels.depthwiseTiles,
        blockedExpandDepthwise: SwiftsegKernelsAVX2.BlockedKernels.expandDepthwise,
        blockedExpandDepthwiseProject: SwiftsegKernelsAVX2.BlockedKernels.expandDepthwiseProject,
        toBlocked: SwiftsegKernelsAVX2.BlockedKernels.block,
        fromBlocked: SwiftsegKernelsAVX2.BlockedKernels.unblock,
        maxPool2x2Row: SwiftsegKernelsAVX2.SIMDKernels.maxPool2x2Row,
        lerp: SwiftsegKernelsAVX2.SIMDKernels.lerp,
        linearColumns: SwiftsegKernelsAVX2.SIMDKernels.linearColumns,
        upsample2xRow: SwiftsegKernelsAVX2.SIMDKernels.upsample2xRow,
        layerNormRow: SwiftsegKernelsAVX2.TransformerKernels.layerNorm,
        biasGELURow: SwiftsegKernelsAVX2.TransformerKernels.addBiasGELU,
        biasRow: SwiftsegKernelsAVX2.TransformerKernels.addBias,
        softmaxRow: SwiftsegKernelsAVX2.TransformerKernels.softmax)

    static let avx512 = Kernels(
        winogradInput4x4: SwiftsegKernelsAVX512.WinogradKernels.inputTransform,
        winogradInput6x4: SwiftsegKernelsAVX512.WinogradKernels.inputTransformF6x4,
        winogradOutput4x4: SwiftsegKernelsAVX512.WinogradKernels.outputTransform,
        winogradOutput6x4: SwiftsegKernelsAVX512.WinogradKernels.outputTransformF6x4,
        winogradGEMM: SwiftsegKernelsAVX512.WinogradKernels.gemm,
        epilogueGEMM: SwiftsegKernelsAVX512.WinogradKernels.gemm,
        winogradRowBlock: SwiftsegKernelsAVX512.WinogradKernels.gemmRowBlock,
        directConvRows: SwiftsegKernelsAVX512.DirectConvKernels.conv3x3Rows,
        depthwiseRows: SwiftsegKernelsAVX512.DepthwiseConvKernels.channelRows,
        depthwiseBlock: SwiftsegKernelsAVX512.DepthwiseConvKernels.channelBlock,
        blockedPointwise: SwiftsegKernelsAVX512.BlockedKernels.pointwise,
        blockedDepthwise: SwiftsegKernelsAVX512.BlockedKernels.depthwise,
        blockedConv: SwiftsegKernelsAVX512.BlockedKernels.conv,
        blockedDepthwiseTiles: SwiftsegKernelsAVX512.BlockedKernels.depthwiseTiles,
        blockedExpandDepthwise: SwiftsegKernelsAVX512.BlockedKernels.expandDepthwise,
        blockedExpandDepthwiseProject: SwiftsegKernelsAVX512.BlockedKernels.expandDepthwiseProject,
        toBlocked: SwiftsegKernelsAVX512.BlockedKernels.block,
        fromBlocked: SwiftsegKernelsAVX512.BlockedKernels.unblock,
        maxPool2x2Row: SwiftsegKernelsAVX512.SIMDKernels.maxPool2x2Row,
        lerp: SwiftsegKernelsAVX512.SIMDKernels.lerp,
        linearColumns: SwiftsegKernelsAVX512.SIMDKernels.linearColumns,
        upsample2xRow: SwiftsegKernelsAVX512.SIMDKernels.upsample2xRow,
        layerNormRow: SwiftsegKernelsAVX512.TransformerKernels.layerNorm,
        biasGELURow: SwiftsegKernelsAVX512.TransformerKernels.addBiasGELU,
        biasRow: SwiftsegKernelsAVX512.TransformerKernels.addBias,
        softmaxRow: SwiftsegKernelsAVX512.TransformerKernels.softmax)

    /// The input transform for tiles of `tile`'s shape.
    func winogradInput(_ tile: WinogradTile) -> WinogradInput {
        switch tile {
        case .f4x4: winogradInput4x4
        case .f6x4: winogradInput6x4
        }
    }

    /// The output transform for tiles of `tile`'s shape.
    func winogradOutput(_ tile: WinogradTile) -> WinogradOutput {
        switch tile {
        case .f4x4: winogradOutput4x4
        case .f6x4: winogradOutput6x4
        }
    }

    static func of(_ isa: KernelISA) -> Kernels {
        precondition(isa.isSupported, "this CPU cannot run the \(isa.rawValue) kernels")
        switch isa {
        case .baseline: return baseline
        case .avx2: return avx2
        case .avx512: return avx512
        }
    }

    /// Scratch the direct conv needs per worker; the same in every build.
    static func directConvScratchFloats(inChannels: Int, width: Int) -> Int {
        SwiftsegKernels.DirectConvKernels.scratchFloats(inChannels: inChannels, width: width)
    }

    /// Scratch the depthwise kernel needs per worker; the same in every build.
    static func depthwiseScratchFloats(kernelSize: Int, stride: Int, outWidth: Int) -> Int {
        SwiftsegKernels.DepthwiseConvKernels.scratchFloats(kernelSize: kernelSize, stride: stride, outWidth: outWidth)
    }

    /// Channels the depthwise block kernel takes at once (a vector's lanes), and its scratch; the same in every build.
    static let depthwiseBlockChannels = SwiftsegKernels.SIMDKernels.width
    static func depthwiseBlockScratchFloats(kernelSize: Int, stride: Int, outHeight: Int, outWidth: Int) -> Int {
        SwiftsegKernels.DepthwiseConvKernels.blockScratchFloats(kernelSize: kernelSize, stride: stride,
                                                                outHeight: outHeight, outWidth: outWidth)
    }

    /// Scratch either Winograd transform needs for `tiles` tiles; the same in every build (same source).
    static func winogradTransformScratchFloats(tiles: Int) -> Int {
        max(SwiftsegKernels.WinogradKernels.inputScratchFloats(tiles: tiles),
            SwiftsegKernels.WinogradKernels.outputScratchFloats)
    }
}
