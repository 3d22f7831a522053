extension Conv2D {
    /// Scratch budget per worker for im2col columns (floats); tiles shrink to fit unless that would make them
    /// narrower than `minimumTilePixels`.
    static let columnBudget = 1 << 20
    static let minimumTilePixels = 256

    /// Rows of output per GEMM tile for an input of this size on `threads` workers.
    func tileRows(height: Int, width: Int, threads: Int) -> Int {
        let byBudget = Conv2D.columnBudget / max(reductionSize * width, 1)
        let byMinimum = (Conv2D.minimumTilePixels + width - 1) / width
        var rows = max(byBudget, byMinimum, 1)
        rows = min(rows, (height + threads - 1) / threads)  // at least one tile per worker when possible
        return max(1, min(rows, height))
    }

    /// im2col + `BLAS.sgemm`, tiled over output rows and run in parallel; each tile's epilogue (bias, ReLU,
    /// residual) runs right after its GEMM while the tile is in cache. 1×1 convs multiply the input directly.
    public func gemmForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                            context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        let h = input.height, w = input.width
        let rows = tileRows(height: h, width: w, threads: context.threads)
        let tiles = (h + rows - 1) / rows
        let scratch = kernelSize == 1 ? [] : context.scratch(floats: reductionSize * rows * w)
        parallelFor(count: tiles, threads: context.threads,
                    GEMMTiles(conv: self, input: input, output: output, epilogue: epilogue, rows: rows, scratch: scratch))
    }

    /// One task per band of `rows` output rows: im2col (1×1: the input itself), one GEMM, the epilogue.
    struct GEMMTiles: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let rows: Int
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ tile: Int, worker: Int) {
            let h = input.height, w = input.width, hw = h * w, kk = conv.reductionSize
            let y0 = tile * rows, y1 = min(h, y0 + rows)
            let offset = y0 * w, n = (y1 - y0) * w
            let columns: UnsafePointer<Float>
            let ldb: Int
            if conv.kernelSize == 1 {
                columns = UnsafePointer(input.data + offset)
                ldb = hw
            } else {
                conv.im2col(input, rows: y0..<y1, into: scratch[worker])
                columns = UnsafePointer(scratch[worker])
                ldb = n
            }
            BLAS.sgemm(m: conv.outChannels, n: n, k: kk, a: conv.weight, lda: kk, b: columns, ldb: ldb,
                       c: output.data + offset, ldc: hw)
            for co in 0..<conv.outChannels {
                conv.applyEpilogue(epilogue, channel: co, out: output.plane(co) + offset, offset: offset, count: n)
            }
        }
    }

    /// Writes the `(inChannels·k·k) × (rows·width)` column matrix of output rows `rows` into `columns`:
    /// row `(ci·k + ky)·k + kx` holds input channel `ci` shifted by the tap's offset, zero outside the image.
    /// Copies whole row segments, so its cost is a memcpy per (tap, row).
    public func im2col(_ input: TensorView, rows: Range<Int>, into columns: UnsafeMutablePointer<Float>) {
        let k = kernelSize, pad = padding, h = input.height, w = input.width
        let n = rows.count * w
        for ci in 0..<inChannels {
            let plane = input.plane(ci)
            for ky in 0..<k {
                for kx in 0..<k {
                    let dst = columns + ((ci * k + ky) * k + kx) * n
                    let dx = kx * dilation - pad
                    let x0 = max(0, -dx), x1 = min(w, w - dx)  // valid output x range for this tap
                    for (r, y) in rows.enumerated() {
                        let out = dst + r * w
                        let sy = y + ky * dilation - pad
                        if sy < 0 || sy >= h || x0 >= x1 {
                            out.update(repeating: 0, count: w)
                            continue
                        }
                        if x0 > 0 { out.update(repeating: 0, count: x0) }
                        (out + x0).update(from: plane + sy * w + x0 + dx, count: x1 - x0)
                        if x1 < w { (out + x1).update(repeating: 0, count: w - x1) }
                    }
                }
            }
        }
    }
}
