import SwiftsegKernels

/// Depthwise convolution (`groups` = input = output channels): each channel convolved with its own k×k filter,
/// as in MobileNet's and EfficientNet's inverted residual blocks. im2col would copy each input k² times to
/// multiply by a single row, so this kernel accumulates the k² taps straight into each output row instead:
/// at stride 1 every tap is one `axpy` over a shifted input row; at larger strides a gathered one. Exact like
/// the GEMM path (each product formed as in the reference, summed in float).
extension Conv2D {
    /// Runs a depthwise conv, channels spread over the workers.
    ///
    /// ```swift
    /// let dw = Conv2D(outChannels: 96, inChannels: 96, kernelSize: 3, stride: 2, padding: .same, groups: 96,
    ///                 weight: w, bias: b)
    /// dw.depthwiseForward(x, into: y, epilogue: .relu6, context: ctx)
    /// ```
    public func depthwiseForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                 context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        precondition(isDepthwise, "depthwiseForward runs depthwise convs only (groups = channels)")
        let scratch = stride == 1 ? [] : context.scratch(floats: output.width)
        // About four tasks per worker: channels differ little in cost.
        let perTask = max(1, (outChannels + 4 * context.threads - 1) / (4 * context.threads))
        parallelFor(count: (outChannels + perTask - 1) / perTask, threads: context.threads,
                    DepthwiseChannels(conv: self, input: input, output: output, epilogue: epilogue, perTask: perTask,
                                      scratch: scratch))
    }

    /// One task per block of channels, each output row accumulated tap by tap, then its epilogue.
    struct DepthwiseChannels: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: Epilogue
        let perTask: Int
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let k = conv.kernelSize, s = conv.stride, d = conv.dilation
            let h = input.height, w = input.width, oh = output.height, ow = output.width
            let pad = conv.resolvedPadding(height: h, width: w)
            let c0 = task * perTask, c1 = min(conv.outChannels, c0 + perTask)
            for c in c0..<c1 {
                let plane = input.plane(c), filter = conv.weight + c * k * k
                for y in 0..<oh {
                    let out = output.plane(c) + y * ow
                    out.update(repeating: 0, count: ow)
                    for ky in 0..<k {
                        let sy = y * s + ky * d - pad.top
                        if sy < 0 || sy >= h { continue }
                        let row = plane + sy * w
                        for kx in 0..<k {
                            let dx = kx * d - pad.left
                            let x0 = min(ow, max(0, (-dx + s - 1) / s))
                            let x1 = max(x0, min(ow, (w - dx + s - 1) / s))
                            guard x0 < x1 else { continue }
                            let tap = filter[ky * k + kx]
                            if s == 1 {
                                SIMDKernels.axpy(count: x1 - x0, alpha: tap, x: row + x0 + dx, y: out + x0)
                            } else {
                                let gathered = scratch[worker]
                                for x in x0..<x1 { gathered[x] = row[x * s + dx] }
                                SIMDKernels.axpy(count: x1 - x0, alpha: tap, x: gathered + x0, y: out + x0)
                            }
                        }
                    }
                    conv.applyEpilogue(epilogue, channel: c, out: out, offset: y * ow, count: ow)
                }
            }
        }
    }
}
