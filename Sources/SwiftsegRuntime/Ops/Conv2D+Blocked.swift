import SwiftsegKernels

/// 1×1 and depthwise convolutions on channel-blocked maps (SwiftsegKernels/BlockedKernels.swift: channels in
/// blocks of 16, each block pixel-major, so a vector is one pixel's 16 channels), the layout a classifier runs
/// its small maps in (``ChannelBlocks``): there the planar kernels spend their time transposing (depthwise) or
/// on padded pixel columns (a 7×7 map is 49 pixels, four vectors). A ``TensorView`` whose data is blocked keeps
/// its channels, height and width; only the order of its floats differs. Each kernel forms the planar fast path's
/// multiply-adds in the same order: in the FMA builds, the same bytes.
extension Conv2D {
    /// Whether ``blockedForward(_:into:epilogue:context:)`` runs this layer: a 1×1 stride-1 conv with packed
    /// weights (``supportsPointwise``; any channel counts, a last block padded), or a depthwise conv the SIMD
    /// kernel runs (``supportsDepthwiseKernel``) on whole blocks of 16 channels.
    public var supportsBlocked: Bool {
        supportsPointwise || (supportsDepthwiseKernel && blockedTaps != nil && inChannels % ChannelBlocks.width == 0)
    }

    /// The conv on blocked `input` into blocked `output` (and a blocked residual), spread over the workers by
    /// channel blocks and, on large maps, by pixels (1×1) or bands of rows (depthwise). The input must stay
    /// readable ``ChannelBlocks/slackFloats`` past its end (``ChannelBlocks/floats(channels:height:width:)``).
    ///
    /// ```swift
    /// expand.blockedForward(x, into: expanded, epilogue: .relu6, context: ctx)   // x, expanded: blocked
    /// ```
    public func blockedForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        precondition(supportsBlocked, "blockedForward runs 1×1 convs and depthwise convs of whole channel blocks")
        let blocks = ChannelBlocks.blocks(channels: outChannels), kernels = context.kernels
        if isDepthwise {
            precondition(epilogue.residual == nil, "the blocked depthwise conv takes no residual")
            let pad = resolvedPadding(height: input.height, width: input.width)
            if output.width <= BlockedKernels.narrowRowPixels && output.planeSize < Conv2D.blockedSplitPixels {
                // Small maps (14×14, 7×7): groups of blocks, each block's input in one padded tile.
                let scratch = context.scratch(floats: BlockedKernels.depthwiseTileScratchFloats(
                    kernelSize: kernelSize, stride: stride, outHeight: output.height, outWidth: output.width))
                context.timeOp("conv depthwise blocked") {
                    context.withWorkers { workers in
                        // a few groups a worker: the tasks end level, and the padding is zeroed once a group
                        let groups = min(blocks, workers == 1 ? 1 : 4 * workers)
                        parallelFor(count: groups, threads: workers, BlockedDepthwiseTileTasks(
                            conv: self, input: input, output: output, activation: epilogue.activation, padding: pad,
                            groups: groups, kernels: kernels, scratch: scratch))
                    }
                }
                return
            }
            let scratch = context.scratch(floats: BlockedKernels.depthwiseScratchFloats(
                kernelSize: kernelSize, stride: stride, outWidth: output.width))
            // Large maps in bands of rows too, so two workers share a layer of few blocks evenly; each band
            // re-copies the k − s input rows it shares with the band above.
            let bands = output.planeSize >= Conv2D.blockedSplitPixels ? (output.height + 15) / 16 : 1
            context.timeOp("conv depthwise blocked") {
                context.parallelFor(count: blocks * bands, BlockedDepthwiseTasks(
                    conv: self, input: input, output: output, activation: epilogue.activation, padding: pad,
                    bands: bands, kernels: kernels, scratch: scratch))
            }
        } else {
            let packed = pointwise!.blockedPacking(bias: bias)
            let hw = input.planeSize
            context.timeOp("conv1x1 blocked") {
                context.withWorkers { workers in
                    let split: BlockedPointwiseTasks.Split
                    if hw >= Conv2D.blockedSplitPixels {
                        // pixel runs whose inputs (k lanes each) stay within ~32 KB (L1), each through every block
                        let byCache = max(24, 8192 / max(inChannels, 1) / 24 * 24)
                        let perWorker = ((hw + 2 * workers - 1) / (2 * workers) + 23) / 24 * 24
                        split = .pixels(min(byCache, perWorker))
                    } else if workers == 1 || blocks >= 4 * workers {
                        // two tasks per worker, channel blocks split as evenly as they go (30 as 8 + 8 + 7 + 7,
                        // not 8 + 8 + 8 + 6), the larger first
                        split = .blocks(tasks: min(blocks, 2 * workers))
                    } else {
                        // too few blocks to share out evenly (80 channels: 5 blocks): pixel runs, each through
                        // every block (a 14×14 map: 4 × 49 pixels)
                        split = .pixels((hw + 2 * workers - 1) / (2 * workers))
                    }
                    let (tasks, taskPixels) = switch split {
                    case .pixels(let run): ((hw + run - 1) / run, run)
                    case .blocks(let tasks): (tasks, hw)
                    }
                    // for the kernel's masks of the inputs that are zero (most, after a depthwise conv's ReLU6)
                    let scratch = context.scratch(floats: BlockedKernels.pointwiseScratchFloats(pixels: taskPixels,
                                                                                                inChannels: inChannels))
                    parallelFor(count: tasks, threads: workers,
                                BlockedPointwiseTasks(conv: self, input: input, output: output, epilogue: epilogue.kernel,
                                                      weight: packed.weight, bias: packed.bias, split: split,
                                                      kernels: kernels, scratch: scratch))
                }
            }
        }
    }

    /// Whether ``blockedForward(planes:into:epilogue:context:)`` runs this layer: a strided conv with packed
    /// weights (``strided``: a classifier's stem), dilation 1.
    public var supportsBlockedFromPlanes: Bool { strided != nil && dilation == 1 }

    /// The conv on planar `input` into blocked `output` (BlockedKernels.conv): a classifier's stem, writing
    /// its map straight into the layout the blocks run in; the im2col GEMM's sums, so its bytes. Bands of four
    /// output rows spread over the workers.
    ///
    /// ```swift
    /// stem.blockedForward(planes: image, into: blocked, epilogue: .relu6, context: ctx)
    /// ```
    public func blockedForward(planes input: TensorView, into output: TensorView, epilogue: Epilogue,
                               context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        precondition(supportsBlockedFromPlanes && epilogue.residual == nil, "a strided conv with packed weights, no residual")
        let packed = strided!.blockedPacking(bias: bias), pad = resolvedPadding(height: input.height, width: input.width)
        let scratch = context.scratch(floats: BlockedKernels.convScratchFloats(inChannels: inChannels, kernelSize: kernelSize,
                                                                               stride: stride, outWidth: output.width))
        context.timeOp("conv strided blocked") {
            context.parallelFor(count: (output.height + 3) / 4, BlockedConvTasks(
                conv: self, input: input, output: output, activation: epilogue.activation, padding: pad,
                weight: packed.weight, bias: packed.bias, kernels: context.kernels, scratch: scratch))
        }
    }

    struct BlockedConvTasks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let activation: Epilogue.Activation
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let weight: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ band: Int, worker: Int) {
            kernels.blockedConv(input.data, conv.inChannels, input.height, input.width, weight, bias, conv.kernelSize,
                                conv.stride, padding.top, padding.left, output.data, output.planeSize, output.width,
                                0..<ChannelBlocks.blocks(channels: conv.outChannels),
                                (band * 4)..<min(output.height, band * 4 + 4), activation, scratch[worker])
        }
    }

    /// Whether ``blockedExpandDepthwise(expand:depthwise:_:into:context:)`` runs this pair: a 1×1 conv with
    /// packed weights into a depthwise conv of whole blocks on its channels.
    public static func fusesBlocked(expand: Conv2D, depthwise: Conv2D) -> Bool {
        expand.supportsPointwise && depthwise.isDepthwise && depthwise.supportsBlocked && expand.outChannels == depthwise.inChannels
    }

    /// An inverted bottleneck's expansion + ReLU6 and depthwise conv + ReLU6 at once, blocked `input` into
    /// blocked `output` (BlockedKernels.expandDepthwise): the expanded map is made a row at a time into the
    /// depthwise kernel's ring and never written out. The same bytes as `expand` then `depthwise`. On more
    /// than one worker, two bands of rows times a group of channel blocks per worker (a band re-makes the
    /// k − s expanded rows it shares with the other).
    ///
    /// ```swift
    /// Conv2D.blockedExpandDepthwise(expand: e, depthwise: d, x, into: filtered, context: ctx)
    /// ```
    public static func blockedExpandDepthwise(expand: Conv2D, depthwise: Conv2D, _ input: TensorView,
                                              into output: TensorView, context: ExecutionContext) {
        precondition(fusesBlocked(expand: expand, depthwise: depthwise), "an expansion into a blocked depthwise conv")
        let size = depthwise.outputSize(height: input.height, width: input.width)
        precondition(input.channels == expand.inChannels && output.channels == depthwise.outChannels
                     && output.height == size.height && output.width == size.width, "fused block shapes")
        let packed = expand.pointwise!.blockedPacking(bias: expand.bias)
        let pad = depthwise.resolvedPadding(height: input.height, width: input.width)
        let blocks = ChannelBlocks.blocks(channels: depthwise.outChannels), kernels = context.kernels
        context.timeOp("conv expand+depthwise blocked") {
            context.withWorkers { workers in
                let bands = workers > 1 ? min(2, output.height) : 1, groups = min(blocks, workers)
                let scratch = context.scratch(floats: BlockedKernels.expandDepthwiseScratchFloats(
                    blocks: (blocks + groups - 1) / groups, kernelSize: depthwise.kernelSize, stride: depthwise.stride,
                    outWidth: output.width))
                parallelFor(count: bands * groups, threads: workers, BlockedExpandDepthwiseTasks(
                    expand: expand, depthwise: depthwise, input: input, output: output, weight: packed.weight,
                    bias: packed.bias, padding: pad, bands: bands, groups: groups, kernels: kernels, scratch: scratch))
            }
        }
    }

    struct BlockedExpandDepthwiseTasks: ParallelTasks {
        let expand: Conv2D, depthwise: Conv2D
        let input: TensorView, output: TensorView
        let weight: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let bands: Int, groups: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            // the groups' sizes grow with their index: the larger ones' bands first, so the workers end level
            let band = task % bands, group = groups - 1 - task / bands
            let blocks = ChannelBlocks.blocks(channels: depthwise.outChannels)
            let rows = (band * output.height / bands)..<((band + 1) * output.height / bands)
            kernels.blockedExpandDepthwise(input.data, input.channels, input.height, input.width, weight, bias,
                                           depthwise.blockedTaps(block: 0),
                                           depthwise.bias, depthwise.kernelSize, depthwise.stride,
                                           padding.top, padding.left, output.data, output.height, output.width,
                                           (group * blocks / groups)..<((group + 1) * blocks / groups), rows,
                                           scratch[worker])
        }
    }

    /// Whether ``blockedExpandDepthwiseProject(expand:depthwise:project:_:residual:into:context:)`` runs these
    /// three: ``fusesBlocked(expand:depthwise:)``, then a 1×1 projection with packed weights on its channels.
    public static func fusesBlocked(expand: Conv2D, depthwise: Conv2D, project: Conv2D) -> Bool {
        fusesBlocked(expand: expand, depthwise: depthwise) && project.supportsPointwise
            && project.inChannels == depthwise.outChannels
    }

    /// An inverted bottleneck on a wide map at once: its expansion + ReLU6 made a row at a time into the
    /// depthwise conv's ring, as ``blockedExpandDepthwise(expand:depthwise:_:into:context:)``, and each filtered
    /// row projected (+ `residual`, blocked like `output`) as soon as it is made
    /// (BlockedKernels.expandDepthwiseProject): neither the expanded nor the filtered map (EfficientNet's 144 ×
    /// 56×56: 1.8 MB, past L2) is written out. The same bytes as the three convs. Bands of output rows over the
    /// workers, one a worker, each with every channel (a projection needs them all; a band re-makes the k − s
    /// expanded rows it shares with the one above, so more bands than workers would only add that work).
    ///
    /// ```swift
    /// Conv2D.blockedExpandDepthwiseProject(expand: e, depthwise: d, project: p, x, residual: x, into: y, context: ctx)
    /// ```
    public static func blockedExpandDepthwiseProject(expand: Conv2D, depthwise: Conv2D, project: Conv2D,
                                                     _ input: TensorView, residual: TensorView?,
                                                     into output: TensorView, context: ExecutionContext) {
        precondition(fusesBlocked(expand: expand, depthwise: depthwise, project: project),
                     "an expansion into a blocked depthwise conv and a 1×1")
        let size = depthwise.outputSize(height: input.height, width: input.width)
        precondition(input.channels == expand.inChannels && output.channels == project.outChannels
                     && output.height == size.height && output.width == size.width, "fused block shapes")
        if let residual { precondition(residual.count == output.count, "the residual is shaped like the output") }
        let expandPacked = expand.pointwise!.blockedPacking(bias: expand.bias)
        let projectPacked = project.pointwise!.blockedPacking(bias: project.bias)
        let pad = depthwise.resolvedPadding(height: input.height, width: input.width)
        let blocks = ChannelBlocks.blocks(channels: depthwise.outChannels), kernels = context.kernels
        let scratch = context.scratch(floats: BlockedKernels.expandDepthwiseProjectScratchFloats(
            blocks: blocks, kernelSize: depthwise.kernelSize, stride: depthwise.stride, outWidth: output.width))
        context.timeOp("conv expand+depthwise+project blocked") {
            context.withWorkers { workers in
                let bands = min(output.height, workers)
                parallelFor(count: bands, threads: workers, BlockedExpandDepthwiseProjectTasks(
                    expand: expand, depthwise: depthwise, project: project, input: input, residual: residual,
                    output: output, expandWeight: expandPacked.weight, expandBias: expandPacked.bias,
                    projectWeight: projectPacked.weight, projectBias: projectPacked.bias, padding: pad, bands: bands,
                    kernels: kernels, scratch: scratch))
            }
        }
    }

    struct BlockedExpandDepthwiseProjectTasks: ParallelTasks {
        let expand: Conv2D, depthwise: Conv2D, project: Conv2D
        let input: TensorView, residual: TensorView?, output: TensorView
        let expandWeight: UnsafePointer<Float>, expandBias: UnsafePointer<Float>
        let projectWeight: UnsafePointer<Float>, projectBias: UnsafePointer<Float>
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let bands: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ band: Int, worker: Int) {
            kernels.blockedExpandDepthwiseProject(
                input.data, input.channels, input.height, input.width, expandWeight, expandBias,
                ChannelBlocks.blocks(channels: depthwise.outChannels), depthwise.blockedTaps(block: 0),
                depthwise.bias, depthwise.kernelSize, depthwise.stride, padding.top, padding.left, projectWeight,
                projectBias, project.outChannels, residual.map { UnsafePointer($0.data) }, output.data, output.height,
                output.width, evenPart(band, of: bands, splitting: output.height), scratch[worker])
        }
    }

    /// Maps of at least this many pixels split their work by pixels (1×1) or rows (depthwise) as well as by
    /// channel blocks: EfficientNet's 28×28 and wider.
    static let blockedSplitPixels = 512

    struct BlockedPointwiseTasks: ParallelTasks {
        /// Pixel runs of a length (every block each), or this many tasks of channel blocks (every pixel each).
        enum Split { case pixels(Int), blocks(tasks: Int) }
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let epilogue: KernelEpilogue
        let weight: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let split: Split
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let hw = input.planeSize, all = ChannelBlocks.blocks(channels: conv.outChannels)
            let blocks: Range<Int>, pixels: Range<Int>
            switch split {
            case .pixels(let run):
                (blocks, pixels) = (0..<all, (task * run)..<min(hw, (task + 1) * run))
            case .blocks(let tasks):
                (blocks, pixels) = (evenPart(task, of: tasks, splitting: all), 0..<hw)
            }
            kernels.blockedPointwise(input.data, hw, conv.inChannels, weight, bias, conv.outChannels, output.data, blocks,
                                     pixels, epilogue, scratch[worker])
        }
    }

    struct BlockedDepthwiseTasks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let activation: Epilogue.Activation
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let bands: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let lanes = ChannelBlocks.width, k = conv.kernelSize, block = task / bands, band = task % bands
            let rows = (band * output.height / bands)..<((band + 1) * output.height / bands)
            kernels.blockedDepthwise(input.data + block * lanes * input.planeSize, input.height, input.width,
                                     conv.blockedTaps(block: block), conv.bias + block * lanes, k, conv.stride,
                                     padding.top, padding.left, output.data + block * lanes * output.planeSize,
                                     output.height, output.width, rows, activation, scratch[worker])
        }
    }
    struct BlockedDepthwiseTileTasks: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView
        let activation: Epilogue.Activation
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
        let groups: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            kernels.blockedDepthwiseTiles(input.data, input.height, input.width,
                                          conv.blockedTaps(block: 0), conv.bias,
                                          conv.kernelSize, conv.stride, padding.top, padding.left, output.data,
                                          output.height, output.width,
                                          evenPart(task, of: groups, splitting: ChannelBlocks.blocks(channels: conv.outChannels)),
                                          activation, scratch[worker])
        }
    }
}

extension Conv2D {
    /// A depthwise conv's weights as the channel-blocked kernels read them (``blockedTaps``): per block of 16
    /// channels, its k² taps as vectors (tap t's 16 channels at `(block · k² + t) · 16`), a last block's missing
    /// channels zero; made at load, so the kernels do not transpose the taps on every call (a sixth of the small
    /// maps' depthwise time).
    static func blockedDepthwiseTaps(_ weight: UnsafePointer<Float>, channels: Int, kernelSize k: Int) -> RearrangedWeights {
        let lanes = ChannelBlocks.width
        return RearrangedWeights(count: ChannelBlocks.paddedChannels(channels) * k * k) { taps in
            for c in 0..<channels {
                for t in 0..<(k * k) { taps[((c / lanes) * k * k + t) * lanes + c % lanes] = weight[c * k * k + t] }
            }
        }
    }

    /// Channel block `block`'s k² tap vectors (``blockedTaps``; block 0's: all blocks', one after another).
    func blockedTaps(block: Int) -> UnsafePointer<Float> {
        UnsafePointer(blockedTaps!.floats + block * kernelSize * kernelSize * ChannelBlocks.width)
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

    /// Blocks of a map of `channels` channels: a last block of fewer is padded with zero lanes.
    public static func blocks(channels: Int) -> Int { BlockedKernels.blocks(channels: channels) }

    /// Channels a blocked map holds, its padded lanes included.
    public static func paddedChannels(_ channels: Int) -> Int { blocks(channels: channels) * width }

    /// Floats to allocate for a blocked map.
    public static func floats(channels: Int, height: Int, width: Int) -> Int {
        paddedChannels(channels) * height * width + slackFloats
    }

    /// `planes` (planar) into `blocked` (the same shape).
    public static func block(_ planes: TensorView, into blocked: TensorView, context: ExecutionContext) {
        precondition(planes.count == blocked.count, "blocking keeps the shape")
        context.kernels.toBlocked(planes.data, planes.channels, planes.planeSize, blocked.data, context.scratch(floats: 17 * width)[0])
    }

    /// `blocked` into `planes` (the same shape).
    public static func unblock(_ blocked: TensorView, into planes: TensorView, context: ExecutionContext) {
        precondition(planes.count == blocked.count, "unblocking keeps the shape")
        context.kernels.fromBlocked(blocked.data, blocked.channels, blocked.planeSize, planes.data, context.scratch(floats: 17 * width)[0])
    }
}
