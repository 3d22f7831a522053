import SwiftsegKernels

/// 1×1 convolutions (stride 1, no padding, one group) through the kernels' own register-blocked GEMM — the one
/// the Winograd channel mix uses — on weights packed once at load, instead of BLAS: MobileNet's and
/// EfficientNet's expand and project convs, where the wide AVX-512 block (8 rows × 32 columns) beats a BLAS
/// built for a narrower core type, and where the epilogue is fused into the GEMM's stores. Exact to
/// float rounding like the GEMM path (the same products, summed in another order). The baseline build has no
/// such GEMM (it needs FMA): there the BLAS path runs.
extension Conv2D {
    /// Whether ``pointwiseForward(_:into:epilogue:context:)`` can run this layer (weights packed at load).
    public var supportsPointwise: Bool { pointwise != nil }

    /// Fewest output channels for which `.auto` runs a 1×1 conv through the packed GEMM: its row blocks are 6 or 8
    /// rows, so thinner layers (U²-Net's 6→1 fuse) stay on BLAS.
    static let pointwiseMinimumOutChannels = 8

    /// Output columns per task: a tile of `outChannels × columns` floats stays within ~256 KB (L2), at least 64.
    func pointwiseColumns(pixels: Int, threads: Int) -> Int {
        let byCache = max(64, (1 << 16) / max(outChannels, 1)) / 16 * 16
        let perWorker = ((pixels + threads - 1) / threads + 15) / 16 * 16  // at least one task per worker
        return max(16, min(byCache, perWorker))
    }

    /// Runs the 1×1 conv with the context's build's GEMM on packed weights, output columns spread over the
    /// workers, the epilogue applied to each accumulator before its one store (the residual, for a tile with a
    /// partial vector, added as it is copied out of scratch).
    ///
    /// ```swift
    /// if conv.supportsPointwise { conv.pointwiseForward(x, into: y, epilogue: .relu6, context: ctx) }
    /// ```
    public func pointwiseForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                 context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        guard let pointwise, let gemm = context.kernels.epilogueGEMM else {
            preconditionFailure("pointwiseForward needs packed 1×1 weights and a build with its own GEMM")
        }
        let hw = input.planeSize, a = pointwise.packed(rowBlock: context.kernels.winogradRowBlock)
        context.withWorkers { workers in
            let columns = pointwiseColumns(pixels: hw, threads: workers)
            // The tail tile (a partial vector at the end) goes through scratch: the GEMM reads and writes whole
            // vectors.
            let scratch = hw % 16 == 0 ? [] : context.scratch(floats: (inChannels + outChannels) * (columns + 16))
            parallelFor(count: (hw + columns - 1) / columns, threads: workers,
                        PointwiseTiles(conv: self, input: input, output: output, epilogue: epilogue, columns: columns,
                                       a: a, gemm: gemm, scratch: scratch))
        }
    }

    /// One task per tile of output columns (pixels), all output channels.
    struct PointwiseTiles: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let columns: Int
        let a: UnsafePointer<Float>
        let gemm: Kernels.EpilogueGEMM
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ tile: Int, worker: Int) {
            let hw = input.planeSize, m = conv.outChannels, k = conv.inChannels
            let x0 = tile * columns, n = min(columns, hw - x0)
            if n % 16 == 0 {  // whole vectors: straight from the input planes into the output planes, epilogue fused
                var fused = epilogue.kernel
                fused.residual = fused.residual.map { $0 + x0 }
                gemm(m, n, k, a, UnsafePointer(input.data + x0), hw, output.data + x0, hw, conv.bias, fused)
            } else {  // the last tile's partial vector: through zero-padded scratch, the residual added on the way out
                let padded = (n + 15) / 16 * 16, b = scratch[worker], c = b + k * padded
                for ci in 0..<k {
                    (b + ci * padded).update(from: input.plane(ci) + x0, count: n)
                    (b + ci * padded + n).update(repeating: 0, count: padded - n)
                }
                gemm(m, n, k, a, UnsafePointer(b), padded, c, padded, conv.bias, KernelEpilogue(activation: epilogue.activation))
                for co in 0..<m {
                    let out = output.plane(co) + x0, values = c + co * padded
                    if let residual = epilogue.residual {
                        let r = residual.plane(co) + x0
                        for i in 0..<n { out[i] = values[i] + r[i] }
                    } else {
                        out.update(from: values, count: n)
                    }
                }
            }
        }
    }
}

/// A conv's weights as a matrix (`outChannels × ` the reduction: `inChannels` for a 1×1 conv, `inChannels · k²`
/// for the im2col path) packed in the row blocks of the kernels' GEMM (`WinogradKernels.packGEMMRows`), or for
/// the channel-blocked 1×1 kernel: each made on first use (the first pass), as only the path a conv takes needs
/// its packing — a 1×1 conv of the mobile classifiers takes the blocked kernel, so packing the GEMM's blocks at
/// load was a sixth of a one-photo `swiftseg classify` for nothing.
public final class PackedGEMMWeights: @unchecked Sendable {
    let outChannels: Int, inChannels: Int
    private let weight: UnsafePointer<Float>
    private let packings = PackingsOnFirstUse()

    init(weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int) {
        self.weight = weight
        self.outChannels = outChannels
        self.inChannels = inChannels
    }

    static func pack(_ weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int,
                     rowBlock: Int) -> UnsafeMutablePointer<Float> {
        let packed = UnsafeMutablePointer<Float>.allocate(capacity: outChannels * inChannels)
        WinogradKernels.packGEMMRows(weight, m: outChannels, k: inChannels, lda: inChannels, rowBlock: rowBlock, into: packed)
        return packed
    }

    /// The weights in blocks of `rowBlock` rows (``Kernels/winogradRowBlock``).
    func packed(rowBlock: Int) -> UnsafePointer<Float> {
        packings.packing(rowBlock) {
            PackedGEMMWeights.pack(weight, outChannels: outChannels, inChannels: inChannels, rowBlock: rowBlock)
        }
    }

    /// The weights for the channel-blocked 1×1 kernel (``BlockedKernels/pointwise``): row blocks of 16, the last
    /// padded with zero rows, followed by `bias` padded with zeros to as many rows, so a padded output lane
    /// stays zero. Made on first use (the first pass), kept with the other packings.
    func blockedPacking(bias: UnsafePointer<Float>) -> (weight: UnsafePointer<Float>, bias: UnsafePointer<Float>) {
        let rows = ChannelBlocks.paddedChannels(outChannels)
        let p = packings.packing(PackedGEMMWeights.blockedKey) {
            let padded = UnsafeMutablePointer<Float>.allocate(capacity: rows * inChannels)
            padded.initialize(repeating: 0, count: rows * inChannels)
            padded.update(from: weight, count: outChannels * inChannels)
            let p = UnsafeMutablePointer<Float>.allocate(capacity: rows * inChannels + rows)
            WinogradKernels.packGEMMRows(padded, m: rows, k: inChannels, lda: inChannels, rowBlock: ChannelBlocks.width, into: p)
            padded.deallocate()
            (p + rows * inChannels).initialize(repeating: 0, count: rows)
            (p + rows * inChannels).update(from: bias, count: outChannels)
            return p
        }
        return (p, p + rows * inChannels)
    }

    /// ``blockedPacking(bias:)``'s key among the packings (no row block is 0).
    private static let blockedKey = 0
}
