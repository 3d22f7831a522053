/// Bilinear resize at any scale, up or down (no antialiasing), in either of PyTorch's conventions
/// (``Coordinates``): U²-Net's `_upsample_like` (`align_corners=False`), BiRefNet's every `F.interpolate`
/// (`align_corners=True`). Source coordinates are clamped to the input and computed in Float, as ONNX Runtime
/// computes them.
public enum ResizeBilinear {
    /// Where output index `i` samples the input.
    public enum Coordinates: Sendable {
        /// `align_corners=False` (ONNX `pytorch_half_pixel`): `(i + 0.5) / scale − 0.5`, `scale = out / in`.
        case halfPixel
        /// `align_corners=True` (ONNX `align_corners`): `i · (in − 1) / (out − 1)`, the corners' centres on each
        /// other.
        case alignCorners
    }

    /// Source position of output index `i`: the lower tap, the upper tap and the weight of the upper one.
    @inline(__always)
    static func taps(_ i: Int, inSize: Int, outSize: Int, _ coordinates: Coordinates = .halfPixel) -> (Int, Int, Float) {
        var s: Float
        switch coordinates {
        case .halfPixel: s = outSize > 1 ? (Float(i) + 0.5) / (Float(outSize) / Float(inSize)) - 0.5 : 0
        case .alignCorners: s = outSize > 1 ? Float(i) * Float(inSize - 1) / Float(outSize - 1) : 0
        }
        s = min(max(s, 0), Float(inSize - 1))
        let lo = min(Int(s), inSize - 1)
        let hi = min(lo + 1, inSize - 1)
        return (lo, hi, s - Float(lo))
    }

    /// Per-pixel formula: the reference.
    public static func reference(_ input: TensorView, into output: TensorView, coordinates: Coordinates = .halfPixel) {
        precondition(input.channels == output.channels, "resize keeps the channel count")
        for c in 0..<input.channels {
            for y in 0..<output.height {
                let (y0, y1, ty) = taps(y, inSize: input.height, outSize: output.height, coordinates)
                for x in 0..<output.width {
                    let (x0, x1, tx) = taps(x, inSize: input.width, outSize: output.width, coordinates)
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
    public static func forward(_ input: TensorView, into output: TensorView, coordinates: Coordinates = .halfPixel,
                               context: ExecutionContext) {
        precondition(input.channels == output.channels, "resize keeps the channel count")
        context.timeOp("resize bilinear") { run(input, into: output, coordinates: coordinates, context: context) }
    }

    static func run(_ input: TensorView, into output: TensorView, coordinates: Coordinates, context: ExecutionContext) {
        let arena = context.arena
        let mark = arena.mark()
        defer { arena.release(to: mark) }
        let ow = output.width, iw = input.width
        // Column taps: (lo, hi) index pairs as Int32, then the weight of hi.
        let table = UnsafeMutableRawPointer(arena.allocate(floats: 3 * ow))
        let lo = table.bindMemory(to: Int32.self, capacity: 2 * ow)
        let weights = (table + 8 * ow).bindMemory(to: Float.self, capacity: ow)
        for x in 0..<ow {
            let (x0, x1, t) = taps(x, inSize: iw, outSize: ow, coordinates)
            lo[2 * x] = Int32(x0); lo[2 * x + 1] = Int32(x1); weights[x] = t
        }
        let rowBuffers = arena.allocate(floats: 2 * ow * context.threads)
        context.withWorkers { workers in
            // Few channels (U²-Net's side outputs have one): bands of rows too, about four tasks per worker.
            // Every output row is computed the same way in any band, so the split does not change the result.
            let bands = min(max(1, (4 * workers + input.channels - 1) / input.channels), max(1, output.height / 16))
            let rowsPerBand = (output.height + bands - 1) / bands
            parallelFor(count: input.channels * bands, threads: workers,
                        Channels(input: input, output: output, coordinates: coordinates, lo: lo, weights: weights,
                                 rowBuffers: rowBuffers, bands: bands, rowsPerBand: rowsPerBand,
                                 lerp: context.kernels.lerp, upsample2x: context.kernels.upsample2xRow))
        }
    }

    /// One task per band of rows of a channel: each output row is a lerp of two horizontally resampled input
    /// rows, kept in the worker's two row buffers (consecutive output rows mostly share them).
    struct Channels: ParallelTasks {
        let input: TensorView, output: TensorView
        let coordinates: Coordinates
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
                let (y0, y1, ty) = ResizeBilinear.taps(y, inSize: input.height, outSize: output.height, coordinates)
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
            if ow == 2 * iw && coordinates == .halfPixel { upsample2x(row, iw, out); return }  // U²-Net's: vectorised
            for x in 0..<ow {
                let t = weights[x]
                out[x] = row[Int(lo[2 * x])] * (1 - t) + row[Int(lo[2 * x + 1])] * t
            }
        }
    }
}
