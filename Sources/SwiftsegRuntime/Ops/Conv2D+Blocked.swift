import SwiftsegKernels

/// 1×1 and depthwise convolutions on channel-blocked maps (SwiftsegKernels/BlockedKernels.swift: channels in
/// blocks of 16, each block pixel-major, so a vector is one pixel's 16 channels), the layout a classifier runs
/// its small maps in (``ChannelBlocks``): there the planar kernels spend their time transposing (depthwise) or
/// on padded pixel columns (a 7×7 map is 49 pixels, four vectors). A ``TensorView`` whose data is blocked keeps
/// its channels, height and width; only the order of its floats differs. Each kernel forms the planar fast path's
/// multiply-adds in the same order: in the FMA builds, the same bytes.
extension Conv2D {
    /// Whether ``blockedForward(_:into:epilogue:context:)`` runs this layer: a 1×1 stride-1 conv with packed
    /// weights (``supportsPointwise``) or a depthwise conv the SIMD kernel runs (``supportsDepthwiseKernel``),
    /// with channels in whole blocks of 16.
    public var supportsBlocked: Bool {
        inChannels % ChannelBlocks.width == 0 && outChannels % ChannelBlocks.width == 0
            && (supportsPointwise || supportsDepthwiseKernel)
    }

    /// The conv on blocked `input` into blocked `output` (and a blocked residual), channel blocks spread over
    /// the workers. The input must stay readable ``ChannelBlocks/slackFloats`` past its end (``ChannelBlocks/floats(channels:height:width:)``).
    ///
    /// ```swift
    /// expand.blockedForward(x, into: expanded, epilogue: .relu6, context: ctx)   // x, expanded: blocked
    /// ```
    public func blockedForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        precondition(supportsBlocked, "blockedForward runs 1×1 and depthwise convs of whole channel blocks")
        let blocks = outChannels / ChannelBlocks.width, kernels = context.kernels
        if isDepthwise {
            precondition(epilogue.residual == nil, "the blocked depthwise conv takes no residual")
            let pad = resolvedPadding(height: input.height, width: input.width)
            let scratch = context.scratch(floats: BlockedKernels.depthwiseScratchFloats(
                kernelSize: kernelSize, stride: stride, outHeight: output.height, outWidth: output.width))
            context.timeOp("conv depthwise blocked") {
                context.parallelFor(count: blocks, BlockedDepthwiseTasks(conv: self, input: input, output: output,
                                                                         activation: epilogue.activation, padding: pad,
                                                                         kernels: kernels, scratch: scratch))
            }
        } else {
            let weight = pointwise!.packed(rowBlock: ChannelBlocks.width)
            context.timeOp("conv1x1 blocked") {
                context.withWorkers { workers in
                    // about two tasks per worker: channel blocks cost the same
                    let perTask = max(1, (blocks + 2 * workers - 1) / (2 * workers))
                    parallelFor(count: (blocks + perTask - 1) / perTask, threads: workers,
                                BlockedPointwiseTasks(conv: self, input: input, output: output, epilogue: epilogue.kernel,
                                                      weight: weight, perTask: perTask, kernels: kernels))
                }
            }
        }
    }

    struct BlockedPointwiseTasks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: KernelEpilogue
        let weight: UnsafePointer<Float>
        let perTask: Int
        let kernels: Kernels

        func run(_ task: Int, worker: Int) {
            let blocks = (task * perTask)..<min(conv.outChannels / ChannelBlocks.width, (task + 1) * perTask)
            kernels.blockedPointwise(input.data, input.planeSize, conv.inChannels, weight, conv.bias, output.data, blocks,
                                     epilogue)
        }
    }

    struct BlockedDepthwiseTasks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let activation: Epilogue.Activation
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ block: Int, worker: Int) {
            let lanes = ChannelBlocks.width, k = conv.kernelSize
            kernels.blockedDepthwise(input.data + block * lanes * input.planeSize, input.height, input.width,
                                     conv.weight + block * lanes * k * k, conv.bias + block * lanes, k, conv.stride,
                                     padding.top, padding.left, output.data + block * lanes * output.planeSize,
                                     output.height, output.width, activation, scratch[worker])
        }
    }
}

/// The channel-blocked layout of ``Conv2D/blockedForward(_:into:epilogue:context:)``: sizes, and the
/// conversions from and to planes.
///
/// ```swift
/// ChannelBlocks.block(planes, into: blocked, context: ctx)     // enter the layout
/// ChannelBlocks.unblock(blocked, into: planes, context: ctx)   // and leave it
/// ```
public enum ChannelBlocks {
    /// Channels per block: one vector.
    public static let width = SIMDKernels.width
    /// Floats a blocked map is read past its end (``floats(channels:height:width:)`` includes them).
    public static let slackFloats = BlockedKernels.slackFloats

    /// Floats to allocate for a blocked map.
    public static func floats(channels: Int, height: Int, width: Int) -> Int { channels * height * width + slackFloats }

    /// Whether a map of these channels can be blocked.
    public static func fits(channels: Int) -> Bool { channels % width == 0 }

    /// `planes` (planar) into `blocked` (the same shape).
    public static func block(_ planes: TensorView, into blocked: TensorView, context: ExecutionContext) {
        precondition(planes.count == blocked.count && fits(channels: planes.channels), "blocks of 16 channels, the same shape")
        context.kernels.toBlocked(planes.data, planes.channels, planes.planeSize, blocked.data, context.scratch(floats: 17 * width)[0])
    }

    /// `blocked` into `planes` (the same shape).
    public static func unblock(_ blocked: TensorView, into planes: TensorView, context: ExecutionContext) {
        precondition(planes.count == blocked.count && fits(channels: planes.channels), "blocks of 16 channels, the same shape")
        context.kernels.fromBlocked(blocked.data, blocked.channels, blocked.planeSize, planes.data, context.scratch(floats: 17 * width)[0])
    }
}
