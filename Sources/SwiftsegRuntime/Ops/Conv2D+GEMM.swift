extension Conv2D {
    /// Scratch budget per worker for im2col columns (floats); tiles shrink to fit unless that would make them
    /// narrower than `minimumTilePixels`.
    static let columnBudget = 1 << 20
    static let minimumTilePixels = 256

    /// Rows of output per GEMM tile for an output of this size on `threads` workers.
    func tileRows(height: Int, width: Int, threads: Int) -> Int {
        let byBudget = Conv2D.columnBudget / max(reductionSize * width, 1)
        let byMinimum = (Conv2D.minimumTilePixels + width - 1) / width
        var rows = max(byBudget, byMinimum, 1)
        rows = min(rows, (height + threads - 1) / threads)  // at least one tile per worker when possible
        return max(1, min(rows, height))
    }

    /// Whether the input itself is the column matrix: a 1×1 conv at stride 1 with no padding, one group.
    var multipliesInputDirectly: Bool { kernelSize == 1 && isStrideOneSame }

    /// Scratch per worker for a tile's im2col columns on the kernels' own GEMM (floats): the tile stays in L2.
    static let packedColumnBudget = 1 << 16

    /// im2col + `BLAS.sgemm`, tiled over output rows and run in parallel (one GEMM per group per tile); each
    /// tile's epilogue runs right after its GEMM while the tile is in cache. 1×1 stride-1 convs multiply the
    /// input directly. Strided ungrouped convs with packed weights (``strided``) run the kernels' own GEMM on
    /// smaller tiles instead, the epilogue fused, when every tile is whole vectors. Exact to float rounding:
    /// every product of the reference is formed, only summed in float.
    public func gemmForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                            context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        let h = output.height, w = output.width
        if let strided, let gemm = context.kernels.epilogueGEMM {
            let rows = max(1, min(Conv2D.packedColumnBudget / max(reductionSize * w, 1), (h + context.threads - 1) / context.threads, h))
            let last = h - (h - 1) / rows * rows
            if (rows * w) % 16 == 0 && (last * w) % 16 == 0 {
                let scratch = context.scratch(floats: reductionSize * rows * w)
                let a = strided.packed(rowBlock: context.kernels.winogradRowBlock)
                context.parallelFor(count: (h + rows - 1) / rows,
                                    PackedGEMMTiles(conv: self, input: input, output: output, epilogue: epilogue,
                                                    rows: rows, a: a, gemm: gemm, scratch: scratch))
                return
            }
        }
        let rows = tileRows(height: h, width: w, threads: context.threads)
        let tiles = (h + rows - 1) / rows
        let scratch = multipliesInputDirectly ? [] : context.scratch(floats: reductionSize * rows * w)
        context.parallelFor(count: tiles,
                    GEMMTiles(conv: self, input: input, output: output, epilogue: epilogue, rows: rows, scratch: scratch))
    }

    /// One task per band of `rows` output rows: per group, im2col (1×1: the input itself), one GEMM; then the
    /// epilogue.
    struct GEMMTiles: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let rows: Int
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ tile: Int, worker: Int) {
            let h = output.height, w = output.width, hw = h * w, kk = conv.reductionSize
            let y0 = tile * rows, y1 = min(h, y0 + rows)
            let offset = y0 * w, n = (y1 - y0) * w
            let outPerGroup = conv.outChannels / conv.groups
            for g in 0..<conv.groups {
                let columns: UnsafePointer<Float>
                let ldb: Int
                if conv.multipliesInputDirectly {
                    columns = UnsafePointer(input.data + offset)
                    ldb = hw
                } else {
                    conv.im2col(input, rows: y0..<y1, group: g, into: scratch[worker])
                    columns = UnsafePointer(scratch[worker])
                    ldb = n
                }
                BLAS.sgemm(m: outPerGroup, n: n, k: kk, a: conv.weight + g * outPerGroup * kk, lda: kk, b: columns,
                           ldb: ldb, c: output.plane(g * outPerGroup) + offset, ldc: hw)
            }
            for co in 0..<conv.outChannels {
                conv.applyEpilogue(epilogue, channel: co, out: output.plane(co) + offset, offset: offset, count: n)
            }
        }
    }

    /// One task per band of `rows` output rows on the kernels' GEMM: im2col, then the GEMM with the epilogue
    /// fused, straight into the output planes (whole vectors: ``gemmForward(_:into:epilogue:context:)`` checks).
    struct PackedGEMMTiles: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let rows: Int
        let a: UnsafePointer<Float>
        let gemm: Kernels.EpilogueGEMM
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ tile: Int, worker: Int) {
            let h = output.height, w = output.width
            let y0 = tile * rows, y1 = min(h, y0 + rows)
            let offset = y0 * w, n = (y1 - y0) * w
            conv.im2col(input, rows: y0..<y1, into: scratch[worker])
            var fused = epilogue.kernel
            fused.residual = fused.residual.map { $0 + offset }
            gemm(conv.outChannels, n, conv.reductionSize, a, UnsafePointer(scratch[worker]), n, output.data + offset,
                 h * w, conv.bias, fused)
        }
    }

    /// Writes the `(inChannels/groups·k·k) × (rows·outputWidth)` column matrix of output rows `rows` of group
    /// `group` into `columns`: row `(ci·k + ky)·k + kx` holds input channel `ci` of the group at the tap's
    /// offset for each output pixel, zero outside the image. At stride 1 it copies whole row segments, so its
    /// cost is a memcpy per (tap, row); at larger strides it gathers.
    public func im2col(_ input: TensorView, rows: Range<Int>, group: Int = 0,
                       into columns: UnsafeMutablePointer<Float>) {
        let k = kernelSize, h = input.height, w = input.width
        let pad = resolvedPadding(height: h, width: w)
        let outWidth = outputSize(height: h, width: w).width
        let n = rows.count * outWidth, inPerGroup = inChannels / groups
        for ci in 0..<inPerGroup {
            let plane = input.plane(group * inPerGroup + ci)
            for ky in 0..<k {
                for kx in 0..<k {
                    let dst = columns + ((ci * k + ky) * k + kx) * n
                    let dx = kx * dilation - pad.left
                    // Output x whose source x·stride + dx is inside the row: x0 ..< x1.
                    let x0 = min(outWidth, max(0, (-dx + stride - 1) / stride))
                    let x1 = max(x0, min(outWidth, (w - dx + stride - 1) / stride))
                    for (r, y) in rows.enumerated() {
                        let out = dst + r * outWidth
                        let sy = y * stride + ky * dilation - pad.top
                        if sy < 0 || sy >= h || x0 >= x1 {
                            out.update(repeating: 0, count: outWidth)
                            continue
                        }
                        if x0 > 0 { out.update(repeating: 0, count: x0) }
                        let src = plane + sy * w + dx
                        if stride == 1 {
                            (out + x0).update(from: src + x0, count: x1 - x0)
                        } else {
                            for x in x0..<x1 { out[x] = src[x * stride] }
                        }
                        if x1 < outWidth { (out + x1).update(repeating: 0, count: outWidth - x1) }
                    }
                }
            }
        }
    }
}
