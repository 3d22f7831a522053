import SwiftsegKernels
/// Dilated 3×3 weights regrouped by tap: `W[tap]` (tap = ky·3 + kx) is the `outChannels × inChannels` matrix
/// `weight[:, :, ky, kx]`, so each tap's channel mix is one GEMM with a contiguous A.
public final class TapWeights: @unchecked Sendable {
    /// 9 × outChannels × inChannels floats.
    let w: UnsafeMutablePointer<Float>

    public init(weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int) {
        let count = 9 * outChannels * inChannels
        w = LargeBuffer.allocate(byteCount: count * 4).bindMemory(to: Float.self, capacity: count)
        for co in 0..<outChannels {
            for ci in 0..<inChannels {
                for tap in 0..<9 { w[(tap * outChannels + co) * inChannels + ci] = weight[(co * inChannels + ci) * 9 + tap] }
            }
        }
    }

    deinit { w.deallocate() }
}

extension Conv2D {
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
    /// and accumulate straight into the output; the other six gather their rectangle, multiply into scratch and
    /// add it in. Output channels are split across workers (each gathers for itself: 1/Cout of the work).
    ///
    /// ```swift
    /// if conv.supportsDilatedTaps(height: 20, width: 20) { conv.dilatedTapsForward(x, into: y, epilogue: .relu, context: ctx) }
    /// ```
    public func dilatedTapsForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                   context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        guard let taps else { preconditionFailure("tap-major weights were not prepared for this conv") }
        let hw = input.height * input.width
        // Two blocks per worker (dynamic scheduling evens out a slow core); each block gathers for itself.
        let blocks = max(1, min(context.threads == 1 ? 1 : 2 * context.threads, outChannels / 8))
        let perBlock = (outChannels + blocks - 1) / blocks
        let scratch = context.scratch(floats: (inChannels + perBlock) * hw)
        parallelFor(count: blocks, threads: context.threads,
                    TapBlocks(conv: self, taps: taps, input: input, output: output, epilogue: epilogue,
                              perBlock: perBlock, scratch: scratch))
    }

    /// One task per block of output channels: the centre tap's GEMM, then the other taps accumulated.
    struct TapBlocks: ParallelTasks {
        let conv: Conv2D
        let taps: TapWeights
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let perBlock: Int
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ block: Int, worker: Int) {
            let h = input.height, w = input.width, hw = h * w
            let inChannels = conv.inChannels, outChannels = conv.outChannels, dilation = conv.dilation
            let c0 = block * perBlock, c1 = min(outChannels, c0 + perBlock), mb = c1 - c0
            guard mb > 0 else { return }
            let out = output.data + c0 * hw
            let gathered = scratch[worker], partial = gathered + inChannels * hw
            // The centre tap (every output, unshifted input) initialises the output.
            BLAS.sgemm(m: mb, n: hw, k: inChannels, a: taps.w + (4 * outChannels + c0) * inChannels, lda: inChannels,
                       b: input.data, ldb: hw, c: out, ldc: hw)
            for tap in 0..<9 where tap != 4 {
                let dy = (tap / 3 - 1) * dilation, dx = (tap % 3 - 1) * dilation
                let ys = Conv2D.validRange(h, offset: dy), xs = Conv2D.validRange(w, offset: dx)
                if ys.isEmpty || xs.isEmpty { continue }
                let a = taps.w + (tap * outChannels + c0) * inChannels
                if dx == 0 {  // whole rows: input rows y + dy are contiguous across the range
                    BLAS.sgemm(m: mb, n: ys.count * w, k: inChannels, a: a, lda: inChannels,
                               b: input.data + (ys.lowerBound + dy) * w, ldb: hw,
                               c: out + ys.lowerBound * w, ldc: hw, accumulate: true)
                    continue
                }
                let n = ys.count * xs.count, rowLength = xs.count
                for ci in 0..<inChannels {
                    let src = input.plane(ci) + dx, dst = gathered + ci * n
                    for (r, y) in ys.enumerated() {
                        (dst + r * rowLength).update(from: src + (y + dy) * w + xs.lowerBound, count: rowLength)
                    }
                }
                BLAS.sgemm(m: mb, n: n, k: inChannels, a: a, lda: inChannels, b: gathered, ldb: n, c: partial, ldc: n)
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
