import SwiftsegKernels

/// Direct 3×3 convolution (dilation 1) for thin layers: each output vector accumulates its 9 · inChannels
/// products in registers (SwiftsegKernels/DirectConvKernels.swift, one build per instruction set). Winograd's
/// transforms cost per input and per output channel, so with one output channel (U²-Net's side outputs,
/// 64→1) or three input channels (the first conv, 3→64) they outweigh the multiplies they save; im2col pays a
/// 9× copy of the input. Exact like the GEMM path: every product is formed as in the reference, summed in float.
extension Conv2D {
    /// Whether ``directForward(_:into:epilogue:context:)`` can run this layer (3×3, dilation 1).
    public var supportsDirect: Bool { kernelSize == 3 && dilation == 1 && isStrideOneSame }

    /// Most output channels, or input channels, for which `.auto` picks the direct kernel.
    static let directMaximumThinChannels = 4
    /// Fewest pixels for which `.auto` picks the direct kernel on a layer thin on the input side only: below
    /// ~64×64, im2col + GEMM with its short K (27 for 3 channels) is faster.
    static let directMinimumPixelsForThinInput = 64 * 64
    /// Largest input (bytes) for which `.auto` picks the direct kernel on a layer with 2–4 output channels: past
    /// the caches its ring path reads the input planes, one row of each channel at a time, at a few GB/s, while
    /// Winograd's F(6×4) streams whole rows (64→4 at 320×320, 26 MB: direct 1.5–2× slower than Winograd; at
    /// 80×80 about even). One output channel takes the kernel's thin path, faster than Winograd at every size.
    static let directMaximumInputBytesForThinOutput = 16 << 20

    /// `.auto`'s choice for thin layers (nil for the others). From `swiftseg-bench --layers` (PERF.md): with one
    /// output channel the direct kernel's thin path was 1.4–2.2× faster than Winograd from 40×40 to 320×320 (64→1
    /// on Zen 3: 0.08 against 0.17 ms, 0.8 against 1.5, 4.2 against 6.0); with 2–4 output channels its ring path
    /// was 2–4× faster than Winograd and GEMM from 10×10 to 160×160 and slower at 320×320
    /// (``directMaximumInputBytesForThinOutput``); with 3 or 4 input channels it was fastest from 80×80 up and
    /// GEMM below 64×64.
    func thinLayerKernel(height: Int, width: Int) -> ConvKernelPolicy? {
        guard supportsDirect else { return nil }
        if outChannels <= DirectConvKernels.thinMaximumOutputs && inChannels > outChannels { return .direct }
        if outChannels <= Conv2D.directMaximumThinChannels {
            let inputBytes = inChannels * height * width * MemoryLayout<Float>.size
            return inputBytes > Conv2D.directMaximumInputBytesForThinOutput && supportsWinograd ? nil : .direct
        }
        if inChannels <= Conv2D.directMaximumThinChannels {
            return height * width >= Conv2D.directMinimumPixelsForThinInput ? .direct : .gemm
        }
        return nil
    }

    /// Runs the conv with the direct kernel, output rows spread over the workers.
    ///
    /// ```swift
    /// conv.directForward(x, into: y, epilogue: .relu, context: ctx)
    /// ```
    public func directForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                              context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        precondition(supportsDirect, "the direct kernel runs 3×3 dilation-1 convs only")
        let h = input.height, w = input.width
        let kernels = context.kernels
        let scratch = context.scratch(floats: Kernels.directConvScratchFloats(inChannels: inChannels, width: w))
        context.withWorkers { workers in
            // Bands of rows, about four per worker: each band copies two input rows more than it outputs.
            let rowsPerTask = max(1, (h + 4 * workers - 1) / (4 * workers))
            let tasks = (h + rowsPerTask - 1) / rowsPerTask
            parallelFor(count: tasks, threads: workers,
                        DirectBands(conv: self, input: input, output: output, epilogue: epilogue.kernel,
                                    rowsPerTask: rowsPerTask, kernels: kernels, scratch: scratch))
        }
    }

    /// One task per band of output rows, all output channels.
    struct DirectBands: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: KernelEpilogue
        let rowsPerTask: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let h = input.height
            let y0 = task * rowsPerTask, y1 = min(h, y0 + rowsPerTask)
            kernels.directConvRows(input.data, conv.inChannels, h, input.width, conv.weight, conv.bias, 0,
                                   conv.outChannels, y0, y1, output.data, epilogue, scratch[worker])
        }
    }
}
