import SwiftsegKernels
extension Conv2D {
    /// Dilated 3×3 weights regrouped by tap (``taps``), 9 × outChannels × inChannels floats: `W[tap]` (tap =
    /// ky·3 + kx) is the `outChannels × inChannels` matrix `weight[:, :, ky, kx]`, so each tap's channel mix is
    /// one GEMM with a contiguous A.
    static func tapMajor(_ weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int) -> RearrangedWeights {
        RearrangedWeights(count: 9 * outChannels * inChannels) { w in
            for co in 0..<outChannels {
                for ci in 0..<inChannels {
                    for tap in 0..<9 { w[(tap * outChannels + co) * inChannels + ci] = weight[(co * inChannels + ci) * 9 + tap] }
                }
            }
        }
    }

    /// Most floats of per-worker scratch the tap-wise kernel may use (gathered input + partial output); larger
    /// maps take the row-tiled im2col path.
    static let dilatedTapsScratchBudget = 1 << 22

    /// Whether ``dilatedTapsForward(_:into:epilogue:context:)`` can run this layer at this size (tap-major
    /// weights prepared, scratch within budget); `forward` then uses it under `.gemm` and `.auto`.
    public func supportsDilatedTaps(height: Int, width: Int) -> Bool {
        taps != nil && (inChannels + outChannels) * height * width <= Conv2D.dilatedTapsScratchBudget
    }

    /// Output positions `i` along an axis of length `n` whose tap at `offset` lands inside the input.
    static func validRange(_ n: Int, offset: Int) -> Range<Int> {
        let lower = max(0, -offset), upper = min(n, n - offset)
        return lower..<max(lower, upper)
    }

    /// A dilated 3×3 conv as 9 per-tap GEMMs over only the outputs whose tap lands inside the image. At
    /// U²-Net's dilations on small maps (d = 8 on 20×20 or 10×10) most of im2col's columns are zero padding;
    /// skipping them does 54–87 % of the multiplies on 20×20. The centre tap covers every output and reads the
    /// input planes directly; taps with no horizontal offset cover whole rows, so they read shifted input rows
    /// and accumulate straight into the output; the other six are gathered once (their rectangles of every
    /// input channel, one task per tap), then each block of output channels multiplies them into its own
    /// scratch and adds them in. The blocks are fixed by `threads` (BLAS sums depend on each call's shape), so
    /// gathering once keeps a pass on fewer workers than `threads` as cheap as one split for them.
    ///
    /// ```swift
    /// if conv.supportsDilatedTaps(height: 20, width: 20) { conv.dilatedTapsForward(x, into: y, epilogue: .relu, context: ctx) }
    /// ```
    public func dilatedTapsForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                   context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        guard let taps else { preconditionFailure("tap-major weights were not prepared for this conv") }
        let hw = input.height * input.width
        // Two blocks per worker (dynamic scheduling evens out a slow core).
        let blocks = max(1, min(context.threads == 1 ? 1 : 2 * context.threads, outChannels / 8))
        let perBlock = (outChannels + blocks - 1) / blocks
        let gathered = TapRectangles(height: input.height, width: input.width, dilation: dilation)
        // The gathered taps live in worker 0's buffer, each worker's partial products after them in its own.
        let gatheredFloats = inChannels * gathered.totalPixels
        let scratch = context.scratch(floats: gatheredFloats + perBlock * hw)
        context.parallelFor(count: 9, TapGathers(input: input, rectangles: gathered, into: scratch[0]))
        context.parallelFor(count: blocks,
                            TapBlocks(conv: self, taps: taps, input: input, output: output, epilogue: epilogue,
                                      perBlock: perBlock, rectangles: gathered, gathered: scratch[0],
                                      scratch: scratch, partialOffset: gatheredFloats))
    }

    /// Where each tap's outputs and inputs lie: the outputs `ys × xs` whose tap lands inside the image, and the
    /// offset of that tap's gathered rectangle (all input channels, `ys.count · xs.count` pixels each) in the
    /// gather buffer. Taps 4 (the centre) and 1, 7 (no horizontal offset) read the input in place: no rectangle.
    struct TapRectangles {
        let height: Int, width: Int, dilation: Int

        func offsets(_ tap: Int) -> (dy: Int, dx: Int) { ((tap / 3 - 1) * dilation, (tap % 3 - 1) * dilation) }

        func outputs(_ tap: Int) -> (ys: Range<Int>, xs: Range<Int>) {
            let (dy, dx) = offsets(tap)
            return (Conv2D.validRange(height, offset: dy), Conv2D.validRange(width, offset: dx))
        }

        func isGathered(_ tap: Int) -> Bool { tap % 3 != 1 }

        func pixels(_ tap: Int) -> Int {
            guard isGathered(tap) else { return 0 }
            let (ys, xs) = outputs(tap)
            return ys.count * xs.count
        }

        /// Pixels before tap `tap`'s rectangle, per input channel (the buffer holds `inChannels` times this).
        func start(_ tap: Int) -> Int { (0..<tap).reduce(0) { $0 + pixels($1) } }

        var totalPixels: Int { start(9) }
    }

    /// One task per tap: its rectangle of every input channel, copied row by row (channel-major, then rows).
    struct TapGathers: ParallelTasks {
        let input: TensorView
        let rectangles: TapRectangles
        let into: UnsafeMutablePointer<Float>

        func run(_ tap: Int, worker: Int) {
            let n = rectangles.pixels(tap)
            guard n > 0 else { return }
            let w = input.width, (dy, dx) = rectangles.offsets(tap), (ys, xs) = rectangles.outputs(tap)
            let base = into + input.channels * rectangles.start(tap), rowLength = xs.count
            for ci in 0..<input.channels {
                let src = input.plane(ci) + dx, dst = base + ci * n
                for (r, y) in ys.enumerated() {
                    (dst + r * rowLength).update(from: src + (y + dy) * w + xs.lowerBound, count: rowLength)
                }
            }
        }
    }

    /// One task per block of output channels: the centre tap's GEMM, then the other taps accumulated.
    struct TapBlocks: ParallelTasks {
        let conv: Conv2D
        let taps: RearrangedWeights
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let perBlock: Int
        let rectangles: TapRectangles
        let gathered: UnsafeMutablePointer<Float>
        let scratch: [UnsafeMutablePointer<Float>]
        let partialOffset: Int

        func run(_ block: Int, worker: Int) {
            let h = input.height, w = input.width, hw = h * w
            let inChannels = conv.inChannels, outChannels = conv.outChannels
            let c0 = block * perBlock, c1 = min(outChannels, c0 + perBlock), mb = c1 - c0
            guard mb > 0 else { return }
            let out = output.data + c0 * hw
            let partial = scratch[worker] + partialOffset
            // The centre tap (every output, unshifted input) initialises the output.
            BLAS.sgemm(m: mb, n: hw, k: inChannels, a: taps.floats + (4 * outChannels + c0) * inChannels, lda: inChannels,
                       b: input.data, ldb: hw, c: out, ldc: hw)
            for tap in 0..<9 where tap != 4 {
                let (dy, _) = rectangles.offsets(tap), (ys, xs) = rectangles.outputs(tap)
                if ys.isEmpty || xs.isEmpty { continue }
                let a = taps.floats + (tap * outChannels + c0) * inChannels
                if !rectangles.isGathered(tap) {  // whole rows: input rows y + dy are contiguous across the range
                    BLAS.sgemm(m: mb, n: ys.count * w, k: inChannels, a: a, lda: inChannels,
                               b: input.data + (ys.lowerBound + dy) * w, ldb: hw,
                               c: out + ys.lowerBound * w, ldc: hw, accumulate: true)
                    continue
                }
                let n = ys.count * xs.count, rowLength = xs.count
                BLAS.sgemm(m: mb, n: n, k: inChannels, a: a, lda: inChannels,
                           b: gathered + inChannels * rectangles.start(tap), ldb: n, c: partial, ldc: n)
                for co in 0..<mb {
                    for (r, y) in ys.enumerated() {
                        SIMDKernels.axpy(count: rowLength, alpha: 1, x: partial + co * n + r * rowLength,
                                         y: out + co * hw + y * w + xs.lowerBound)
                    }
                }
            }
            for co in c0..<c1 { conv.applyEpilogue(epilogue, channel: co, out: output.plane(co), offset: 0, count: hw) }
        }
    }
}
