import SwiftsegRuntime

/// The mobile inverted bottleneck (Sandler et al. 2018, "MobileNetV2: Inverted Residuals and Linear
/// Bottlenecks"; EfficientNet's MBConv without squeeze-and-excitation): a 1×1 expansion + ReLU6 (absent when
/// the expansion is 1), a depthwise k×k conv + ReLU6 carrying the block's stride, a 1×1 linear projection, and
/// the input added back when the block keeps the shape. BatchNorm is folded into each conv. MobileNetV2 and
/// EfficientNet-Lite build it from their own key mappings.
public struct InvertedBottleneck: Sendable {
    /// The 1×1 expansion, nil when the expansion is 1.
    public let expand: Conv2D?
    /// The depthwise k×k conv (the block's stride and padding).
    public let depthwise: Conv2D
    /// The 1×1 linear projection.
    public let project: Conv2D

    public init(expand: Conv2D?, depthwise: Conv2D, project: Conv2D) {
        precondition(depthwise.isDepthwise && depthwise.inChannels == (expand?.outChannels ?? depthwise.inChannels)
                     && project.inChannels == depthwise.outChannels, "an inverted bottleneck's convs must chain")
        self.expand = expand
        self.depthwise = depthwise
        self.project = project
    }

    public var inChannels: Int { expand?.inChannels ?? depthwise.inChannels }
    public var outChannels: Int { project.outChannels }
    /// Channels of the expanded maps.
    public var expandedChannels: Int { depthwise.inChannels }
    /// The input is added back (a linear bottleneck with a skip) when the block keeps the shape.
    public var hasResidual: Bool { depthwise.stride == 1 && inChannels == outChannels }

    /// Output height and width for an input of this size.
    public func outputSize(height: Int, width: Int) -> (height: Int, width: Int) {
        depthwise.outputSize(height: height, width: width)
    }

    /// `x` → `out` (`expanded` and `filtered` are scratch of the expanded width at the input's and the output's
    /// size; `out` must not share memory with `x`).
    func callAsFunction(_ x: TensorView, into out: TensorView, expanded: TensorView, filtered: TensorView,
                        context: ExecutionContext) {
        chain(x, into: out, expanded: expanded, filtered: filtered) { $0.forward($1, into: $2, epilogue: $3, context: context) }
    }

    /// Whether the block runs on channel-blocked maps (``forwardBlocked``): every conv of whole channel blocks.
    var supportsBlocked: Bool {
        (expand?.supportsBlocked ?? true) && depthwise.supportsBlocked && project.supportsBlocked
    }

    /// The block on channel-blocked maps (`x`, `out`, `expanded`, `filtered` all blocked; ``ChannelBlocks``).
    func forwardBlocked(_ x: TensorView, into out: TensorView, expanded: TensorView, filtered: TensorView,
                        context: ExecutionContext) {
        if let expand, x.width > Conv2D.depthwiseBlockMaximumWidth, Conv2D.fusesBlocked(expand: expand, depthwise: depthwise) {
            // Wide maps: the expanded map (up to 4.8 MB, past L2) made a row at a time into the depthwise conv's
            // ring, never written out. Small maps keep the two convs: their expanded maps stay in L2, and a
            // row of 7 or 14 pixels would stream the 1×1's weights (up to 0.9 MB) once per row.
            if Conv2D.fusesBlocked(expand: expand, depthwise: depthwise, project: project) {
                // and each filtered row projected at once: the filtered map is not written out either
                Conv2D.blockedExpandDepthwiseProject(expand: expand, depthwise: depthwise, project: project, x,
                                                     residual: hasResidual ? x : nil, into: out, context: context)
                return
            }
            Conv2D.blockedExpandDepthwise(expand: expand, depthwise: depthwise, x, into: filtered, context: context)
            project.blockedForward(filtered, into: out, epilogue: hasResidual ? Epilogue.none.adding(x) : .none,
                                   context: context)
            return
        }
        chain(x, into: out, expanded: expanded, filtered: filtered) {
            $0.blockedForward($1, into: $2, epilogue: $3, context: context)
        }
    }

    /// The expansion + ReLU6, the depthwise conv + ReLU6, the projection (+ the input), each conv run by `run`
    /// (conv, input, output, epilogue) in one layout or the other.
    private func chain(_ x: TensorView, into out: TensorView, expanded: TensorView, filtered: TensorView,
                       _ run: (Conv2D, TensorView, TensorView, Epilogue) -> Void) {
        var h = x
        if let expand {
            run(expand, x, expanded, .relu6)
            h = expanded
        }
        run(depthwise, h, filtered, .relu6)
        run(project, filtered, out, hasResidual ? Epilogue.none.adding(x) : .none)
    }

    public func macs(height: Int, width: Int) -> Int {
        let out = outputSize(height: height, width: width)
        return (expand?.macs(height: height, width: width) ?? 0) + depthwise.macs(height: height, width: width)
            + project.macs(height: out.height, width: out.width)
    }
}

/// The classifier both MobileNetV2 and EfficientNet-Lite are: a stem conv + ReLU6, inverted bottlenecks, a 1×1
/// head + ReLU6, global average pooling and a fully connected layer to the logits. The networks differ in their
/// block tables, kernel sizes, padding and weight names, not in how a pass runs, so the pass is written once.
public struct InvertedBottleneckClassifier: Sendable {
    public let stem: Conv2D
    public let blocks: [InvertedBottleneck]
    public let head: Conv2D
    public let fc: Linear

    public init(stem: Conv2D, blocks: [InvertedBottleneck], head: Conv2D, fc: Linear) {
        self.stem = stem
        self.blocks = blocks
        self.head = head
        self.fc = fc
    }

    /// Runs the network on a normalised 3×H×W image and writes the logits into `output`. Activations ping-pong
    /// between two buffers of the largest block input or output, and every block's expanded maps share two more,
    /// all from the arena: after the first pass at a size, a pass allocates nothing. From ``Plan/firstBlocked`` on
    /// (the stem's output, in these networks) the maps are channel-blocked (``ChannelBlocks``), when the context
    /// allows (``ExecutionContext/blockedLayouts``, the `.auto` policy): the same values, no transposes, parity
    /// splits or padded columns.
    func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        precondition(input.channels == 3, "the classifier takes 3 channels, got \(input.channels)")
        precondition(output.count == fc.outFeatures, "logits are \(fc.outFeatures) floats, got \(output.count)")
        let arena = context.arena
        arena.reset()
        let plan = Plan(self, height: input.height, width: input.width)
        // not arrays: no allocation; room past each for the blocked kernels' reads (ChannelBlocks.slackFloats)
        let slack = ChannelBlocks.slackFloats
        let even = arena.allocate(floats: plan.largestIO + slack), odd = arena.allocate(floats: plan.largestIO + slack)
        let expanded = arena.allocate(floats: plan.largestExpanded + slack)
        let filtered = arena.allocate(floats: plan.largestFiltered + slack)
        let firstBlocked = context.blockedLayouts && context.policy == .auto ? plan.firstBlocked : blocks.count + 1
        var (h, w) = stem.outputSize(height: input.height, width: input.width)
        var x = TensorView(channels: stem.outChannels, height: h, width: w, data: even)
        // With every block blocked, the stem writes its map straight into the layout.
        let stemBlocks = firstBlocked == 0 && stem.supportsBlockedFromPlanes
        context.time("stem") {
            if stemBlocks {
                stem.blockedForward(planes: input, into: x, epilogue: .relu6, context: context)
            } else {
                stem.forward(input, into: x, epilogue: .relu6, context: context)
            }
        }
        for (i, block) in blocks.enumerated() {
            let (oh, ow) = block.outputSize(height: h, width: w), mid = block.expandedChannels
            let label = InvertedBottleneckClassifier.blockNames[min(i, InvertedBottleneckClassifier.blockNames.count - 1)]
            if i == firstBlocked && !stemBlocks {   // from here on every map is channel-blocked
                let blocked = TensorView(channels: x.channels, height: h, width: w, data: x.data == even ? odd : even)
                context.time(label) { ChannelBlocks.block(x, into: blocked, context: context) }
                x = blocked
            }
            let y = TensorView(channels: block.outChannels, height: oh, width: ow, data: x.data == even ? odd : even)
            let e = TensorView(channels: mid, height: h, width: w, data: expanded)
            let f = TensorView(channels: mid, height: oh, width: ow, data: filtered)
            context.time(label) {
                if i >= firstBlocked {
                    block.forwardBlocked(x, into: y, expanded: e, filtered: f, context: context)
                } else {
                    block(x, into: y, expanded: e, filtered: f, context: context)
                }
            }
            (x, h, w) = (y, oh, ow)
        }
        let headMap = TensorView(channels: head.outChannels, height: h, width: w, data: expanded)
        let pooled = TensorView(channels: head.outChannels, height: 1, width: 1, data: filtered)
        context.time("head") {
            if firstBlocked < blocks.count {
                head.blockedForward(x, into: headMap, epilogue: .relu6, context: context)
                GlobalAveragePool.forward(blocked: headMap, into: pooled)
            } else {
                head.forward(x, into: headMap, epilogue: .relu6, context: context)
                GlobalAveragePool.forward(headMap, into: pooled)
            }
            fc.forward(pooled, into: output, epilogue: .none, context: context)
        }
        arena.reset()
    }

    /// Profile labels, so a pass builds no strings.
    static let blockNames = (0..<64).map { "block\($0)" }

    /// The largest buffers a pass needs, walked through the network's shapes.
    struct Plan {
        var largestIO = 0, largestExpanded = 0, largestFiltered = 0
        /// The first block whose maps, and every later block's and the head's, run channel-blocked
        /// (``ChannelBlocks``): where every conv from there on can (all of them in MobileNetV2 and
        /// EfficientNet-Lite, so block 0: the stem's output is blocked once); past the last block if none.
        var firstBlocked: Int
        init(_ net: InvertedBottleneckClassifier, height: Int, width: Int) {
            // a blocked map of c channels holds ChannelBlocks.paddedChannels(c) (24 → 32)
            let c = ChannelBlocks.paddedChannels
            var (h, w) = net.stem.outputSize(height: height, width: width)
            largestIO = c(net.stem.outChannels) * h * w
            var run: Int? = nil   // where the blocks that could run blocked, up to this one, start
            for (i, block) in net.blocks.enumerated() {
                let (oh, ow) = block.outputSize(height: h, width: w), mid = c(block.expandedChannels)
                run = block.supportsBlocked ? run ?? i : nil
                largestIO = max(largestIO, c(block.inChannels) * h * w, c(block.outChannels) * oh * ow)
                largestExpanded = max(largestExpanded, mid * h * w)
                largestFiltered = max(largestFiltered, mid * oh * ow)
                (h, w) = (oh, ow)
            }
            largestExpanded = max(largestExpanded, c(net.head.outChannels) * h * w)
            largestFiltered = max(largestFiltered, net.head.outChannels)
            firstBlocked = net.head.supportsBlocked ? run ?? net.blocks.count + 1 : net.blocks.count + 1
        }
    }

    func convMACs(height: Int, width: Int) -> Int {
        var total = stem.macs(height: height, width: width)
        var (h, w) = stem.outputSize(height: height, width: width)
        for block in blocks {
            total += block.macs(height: h, width: w)
            (h, w) = block.outputSize(height: h, width: w)
        }
        return total + head.macs(height: h, width: w) + fc.macs
    }
}
