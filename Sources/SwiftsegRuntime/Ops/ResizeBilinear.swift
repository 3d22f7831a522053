/// Bilinear resize with PyTorch's `align_corners=False` convention (ONNX `pytorch_half_pixel`): U²-Net's
/// `_upsample_like`. Source coordinate `(x + 0.5) / scale - 0.5` with `scale = outSize / inSize`, clamped to
/// the input, as ONNX Runtime computes it (in Float).
public enum ResizeBilinear {
    /// Source position of output index `i`: the lower tap, the upper tap and the weight of the upper one.
    @inline(__always)
    static func taps(_ i: Int, inSize: Int, outSize: Int) -> (Int, Int, Float) {
        let scale = Float(outSize) / Float(inSize)
        var s: Float = outSize > 1 ? (Float(i) + 0.5) / scale - 0.5 : 0
        s = min(max(s, 0), Float(inSize - 1))
        let lo = min(Int(s), inSize - 1)
        let hi = min(lo + 1, inSize - 1)
        return (lo, hi, s - Float(lo))
    }

    /// Per-pixel formula: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        precondition(input.channels == output.channels, "resize keeps the channel count")
        for c in 0..<input.channels {
            for y in 0..<output.height {
                let (y0, y1, ty) = taps(y, inSize: input.height, outSize: output.height)
                for x in 0..<output.width {
                    let (x0, x1, tx) = taps(x, inSize: input.width, outSize: output.width)
                    let top = input[c, y0, x0] * (1 - tx) + input[c, y0, x1] * tx
                    let bottom = input[c, y1, x0] * (1 - tx) + input[c, y1, x1] * tx
                    output[c, y, x] = top * (1 - ty) + bottom * ty
                }
            }
        }
    }

    /// Separable: each output row lerps two horizontally-resampled source rows (SIMD), with the column taps
    /// computed once per call into arena memory. Channels (and bands of rows, when there are few) run in
    /// parallel; each worker keeps two row buffers.
    public static func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        precondition(input.channels == output.channels, "resize keeps the channel count")
        context.timeOp("resize bilinear") { run(input, into: output, context: context) }
    }

    static func run(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let ow = output.width, iw = input.width
        // Column taps: (lo, hi) index pairs as Int32, then the weight of hi.
        let table = UnsafeMutableRawPointer(arena.allocate(floats: 3 * ow))
        let lo = table.bindMemory(to: Int32.self, capacity: 2 * ow)
        let weights = (table + 8 * ow).bindMemory(to: Float.self, capacity: ow)
        for x in 0..<ow {
            let (x0, x1, t) = taps(x, inSize: iw, outSize: ow)
            lo[2 * x] = Int32(x0); lo[2 * x + 1] = Int32(x1); weights[x] = t
        }
        let rowBuffers = arena.allocate(floats: 2 * ow * context.threads)
        context.withWorkers { workers in
            // Few channels (U²-Net's side outputs have one): bands of rows too, about four tasks per worker.
            // Every output row is computed the same way in any band, so the split does not change the result.
            let bands = min(max(1, (4 * workers + input.channels - 1) / input.channels), max(1, output.height / 16))
            let rowsPerBand = (output.height + bands - 1) / bands
            parallelFor(count: input.channels * bands, threads: workers,
                        Channels(input: input, output: output, lo: lo, weights: weights, rowBuffers: rowBuffers,
                                 bands: bands, rowsPerBand: rowsPerBand,
                                 lerp: context.kernels.lerp, upsample2x: context.kernels.upsample2xRow))
        }
    }

    /// One task per band of rows of a channel: each output row is a lerp of two horizontally resampled input
    /// rows, kept in the worker's two row buffers (consecutive output rows mostly share them).
    struct Channels: ParallelTasks {
        let input: TensorView, output: TensorView
        let lo: UnsafeMutablePointer<Int32>, weights: UnsafeMutablePointer<Float>
        let rowBuffers: UnsafeMutablePointer<Float>
        let bands: Int, rowsPerBand: Int
        let lerp: Kernels.Lerp, upsample2x: Kernels.UpsampleRow

        func run(_ task: Int, worker: Int) {
            let ow = output.width, c = task / bands, band = task % bands
            let src = input.plane(c), dst = output.plane(c)
            var rowA = rowBuffers + 2 * ow * worker, rowB = rowA + ow
            var cachedA = -1, cachedB = -1
            for y in (band * rowsPerBand)..<min(output.height, (band + 1) * rowsPerBand) {
                let (y0, y1, ty) = ResizeBilinear.taps(y, inSize: input.height, outSize: output.height)
                if cachedA != y0 {
                    // The lower row moving up: the buffers trade places (a copy of the row was ~0.6 % of u2netp).
                    if cachedB == y0 {
                        swap(&rowA, &rowB); swap(&cachedA, &cachedB)
                    } else {
                        horizontal(src + y0 * input.width, rowA); cachedA = y0
                    }
                }
                if cachedB != y1 { horizontal(src + y1 * input.width, rowB); cachedB = y1 }
                lerp(rowA, rowB, ty, dst + y * ow, ow)
            }
        }

        func horizontal(_ row: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>) {
            let ow = output.width, iw = input.width
            if ow == 2 * iw { upsample2x(row, iw, out); return }  // U²-Net's usual case: vectorised
            for x in 0..<ow {
                let t = weights[x]
                out[x] = row[Int(lo[2 * x])] * (1 - t) + row[Int(lo[2 * x + 1])] * t
            }
        }
    }
}
