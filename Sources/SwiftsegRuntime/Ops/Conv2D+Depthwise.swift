import SwiftsegKernels

/// Depthwise convolution (`groups` = input = output channels): each channel convolved with its own k×k filter,
/// as in MobileNet's and EfficientNet's inverted residual blocks. im2col would copy each input k² times to
/// multiply by a single row, so it has kernels of its own. At stride 1 or 2 and dilation 1 (every depthwise
/// layer of those networks) the SIMD kernel of the context's build runs (SwiftsegKernels/
/// DepthwiseConvKernels.swift: each output vector's k² taps in a register, epilogue fused; on maps whose rows
/// are at most 16 pixels, 16 channels at once with a pixel's channels in one vector); otherwise a
/// portable one that accumulates each tap into the output row with `axpy`. Both are exact to float rounding
/// (each product formed as in the reference, summed in float).
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
        context.withWorkers { workers in
            // About four tasks per worker: channels differ little in cost.
            let perTask = max(1, (outChannels + 4 * workers - 1) / (4 * workers))
            if supportsDepthwiseKernel {
                let rowFloats = Kernels.depthwiseScratchFloats(kernelSize: kernelSize, stride: stride, outWidth: output.width)
                let lanes = Kernels.depthwiseBlockChannels
                if output.width <= Conv2D.depthwiseBlockMaximumWidth && outChannels >= lanes {
                    // Small maps: 16 channels a task through the block kernel, the rest (under 16) one by one.
                    let blockFloats = Kernels.depthwiseBlockScratchFloats(kernelSize: kernelSize, stride: stride,
                                                                          outHeight: output.height, outWidth: output.width)
                    let scratch = context.scratch(floats: max(rowFloats, blockFloats))
                    parallelFor(count: (outChannels + lanes - 1) / lanes, threads: workers,
                                DepthwiseKernelBlocks(conv: self, input: input, output: output, epilogue: epilogue.kernel,
                                                      kernels: context.kernels, scratch: scratch))
                    return
                }
                let scratch = context.scratch(floats: rowFloats)
                parallelFor(count: (outChannels + perTask - 1) / perTask, threads: workers,
                            DepthwiseKernelChannels(conv: self, input: input, output: output, epilogue: epilogue.kernel,
                                                    perTask: perTask, kernels: context.kernels, scratch: scratch))
                return
            }
            let scratch = stride == 1 ? [] : context.scratch(floats: output.width)
            parallelFor(count: (outChannels + perTask - 1) / perTask, threads: workers,
                        DepthwiseChannels(conv: self, input: input, output: output, epilogue: epilogue, perTask: perTask,
                                          scratch: scratch))
        }
    }

    /// Whether the SIMD depthwise kernel runs this layer: stride 1 or 2, dilation 1.
    public var supportsDepthwiseKernel: Bool { isDepthwise && dilation == 1 && (stride == 1 || stride == 2) }

    /// One task per block of channels, through the SIMD kernel.
    struct DepthwiseKernelChannels: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: KernelEpilogue
        let perTask: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let pad = conv.resolvedPadding(height: input.height, width: input.width)
            let c0 = task * perTask, c1 = min(conv.outChannels, c0 + perTask)
            for c in c0..<c1 {
                conv.depthwiseChannel(c, input, output, epilogue, padding: pad, kernels: kernels, scratch: scratch[worker])
            }
        }
    }

    /// One channel through the build's per-channel kernel (the whole plane).
    @inline(__always)
    func depthwiseChannel(_ c: Int, _ input: TensorView, _ output: TensorView, _ epilogue: KernelEpilogue,
                          padding pad: (top: Int, left: Int, bottom: Int, right: Int), kernels: Kernels, scratch: UnsafeMutablePointer<Float>) {
        let k = kernelSize
        kernels.depthwiseRows(input.plane(c), input.height, input.width, weight + c * k * k, bias[c], k, stride,
                              pad.top, pad.left, output.plane(c), output.height, output.width, 0, output.height,
                              epilogue.advanced(by: c * output.planeSize), scratch)
    }

    /// Output rows at most this wide run 16 channels at once (``DepthwiseKernelBlocks``): a 7- or 14-pixel row
    /// fills one vector in two or one and a bit of the per-channel kernel.
    public static let depthwiseBlockMaximumWidth = 16

    /// One task per 16 channels through the block kernel; a last task of fewer channels through the per-channel
    /// kernel.
    struct DepthwiseKernelBlocks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: KernelEpilogue
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let k = conv.kernelSize, pad = conv.resolvedPadding(height: input.height, width: input.width)
            let lanes = Kernels.depthwiseBlockChannels
            let c0 = task * lanes, c1 = min(conv.outChannels, c0 + lanes)
            if c1 - c0 == lanes {
                kernels.depthwiseBlock(input.plane(c0), input.height, input.width, conv.weight + c0 * k * k,
                                       conv.bias + c0, k, conv.stride, pad.top, pad.left, output.plane(c0),
                                       output.height, output.width, epilogue.advanced(by: c0 * output.planeSize),
                                       scratch[worker])
                return
            }
            for c in c0..<c1 {
                conv.depthwiseChannel(c, input, output, epilogue, padding: pad, kernels: kernels, scratch: scratch[worker])
            }
        }
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
