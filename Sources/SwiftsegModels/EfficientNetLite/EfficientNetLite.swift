import SwiftsegRuntime

/// EfficientNet-Lite (Tan & Le 2019; Google's Lite variant for mobile CPUs), an ImageNet classifier, ported from
/// the PyTorch port's `EfficientNet` module: a 3×3 stride-2 stem + ReLU6, sixteen ``MBConvBlock``s, a 1×1
/// head to 1280 + ReLU6, global average pooling and a fully connected layer to 1000 logits.
///
/// Padding is TensorFlow's "SAME" throughout (the weights were trained with it): on even sizes the strided
/// convs pad one more pixel after than before. The model is immutable and `Sendable`; per-run state lives in
/// an ``ExecutionContext``.
///
/// ```swift
/// let net = try EfficientNetLite(weights: .embeddedEfficientNetLite0())
/// let input = Tensor(channels: 3, height: 224, width: 224)    // (v − 127) / 128, RGB, NCHW
/// let logits = Tensor(channels: 1000, height: 1, width: 1)
/// net.forward(input.view, into: logits.view, context: ExecutionContext(threads: 2))
/// ```
public final class EfficientNetLite: Network {
    public let configuration: EfficientNetLiteConfiguration
    public let weights: SafeTensorsFile
    /// 224, (v − 127) / 128, logits: from the file's metadata.
    public let preprocessing: ModelPreprocessing
    /// The class names, index by index, from the file's `labels` metadata.
    public let labels: [String]
    /// `_conv_stem` (+ `_bn0`).
    let convStem: Conv2D
    /// `_blocks`.
    let blocks: [MBConvBlock]
    /// `_conv_head` (+ `_bn1`).
    let convHead: Conv2D
    /// `_fc`.
    let fc: Linear

    /// Builds the model the file's metadata names, checking every tensor's name and shape.
    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        let config = try EfficientNetLiteConfiguration.declared(by: file)
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .logits)
        labels = try EfficientNetLiteConfiguration.labels(in: file, count: config.classes)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        convStem = try w.conv("_conv_stem", outChannels: config.stemChannels, inChannels: 3, kernelSize: 3,
                              stride: 2, padding: .same)
        blocks = try config.blocks.map { try MBConvBlock(&w, $0) }
        convHead = try w.conv("_conv_head", outChannels: config.headChannels,
                              inChannels: config.blocks.last!.outChannels, kernelSize: 1)
        fc = Linear(outFeatures: config.classes, inFeatures: config.headChannels,
                    weight: try w.tensor("_fc.weight", shape: [config.classes, config.headChannels]),
                    bias: try w.tensor("_fc.bias", shape: [config.classes]))
        try w.checkAllUsed(expecting: config.variant)
        configuration = config
        weights = file
    }

    public var name: String { configuration.variant }

    /// One logit per class, for any input size (the pooling takes whatever map the blocks leave).
    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) {
        (configuration.classes, 1, 1)
    }

    /// Runs the network on a normalised 3×H×W image and writes the logits (`classes`×1×1) into `output`.
    /// Activations ping-pong between two buffers of the largest block input or output, and every block's
    /// expanded maps share two more, all from the arena: after the first pass at a size, a pass allocates nothing.
    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        precondition(input.channels == 3, "EfficientNet-Lite takes 3 channels, got \(input.channels)")
        precondition(output.count == configuration.classes, "logits are \(configuration.classes) floats, got \(output.count)")
        let arena = context.arena
        arena.reset()
        let plan = Plan(self, height: input.height, width: input.width)
        let even = arena.allocate(floats: plan.largestIO), odd = arena.allocate(floats: plan.largestIO)  // not an array: no allocation
        let expanded = arena.allocate(floats: plan.largestExpanded), filtered = arena.allocate(floats: plan.largestFiltered)
        var (h, w) = convStem.outputSize(height: input.height, width: input.width)
        var x = TensorView(channels: convStem.outChannels, height: h, width: w, data: even)
        context.time("stem") { convStem.forward(input, into: x, epilogue: .relu6, context: context) }
        for (i, block) in blocks.enumerated() {
            let (oh, ow) = block.outputSize(height: h, width: w), mid = block.block.expandedChannels
            let y = TensorView(channels: block.block.outChannels, height: oh, width: ow, data: i % 2 == 0 ? odd : even)
            context.time(EfficientNetLite.blockNames[i]) {
                block(x, into: y,
                      expanded: TensorView(channels: mid, height: h, width: w, data: expanded),
                      filtered: TensorView(channels: mid, height: oh, width: ow, data: filtered), context: context)
            }
            (x, h, w) = (y, oh, ow)
        }
        let head = TensorView(channels: convHead.outChannels, height: h, width: w, data: expanded)
        let pooled = TensorView(channels: convHead.outChannels, height: 1, width: 1, data: filtered)
        context.time("head") {
            convHead.forward(x, into: head, epilogue: .relu6, context: context)
            GlobalAveragePool.forward(head, into: pooled)
            fc.forward(pooled, into: output, epilogue: .none)
        }
        arena.reset()
    }

    /// Profile labels, so a pass builds no strings.
    static let blockNames = (0..<64).map { "block\($0)" }

    /// The largest buffers a pass needs, walked through the network's shapes.
    struct Plan {
        var largestIO = 0, largestExpanded = 0, largestFiltered = 0
        init(_ net: EfficientNetLite, height: Int, width: Int) {
            var (h, w) = net.convStem.outputSize(height: height, width: width)
            largestIO = net.convStem.outChannels * h * w
            for block in net.blocks {
                let (oh, ow) = block.outputSize(height: h, width: w), mid = block.block.expandedChannels
                largestIO = max(largestIO, block.block.outChannels * oh * ow)
                largestExpanded = max(largestExpanded, mid * h * w)
                largestFiltered = max(largestFiltered, mid * oh * ow)
                (h, w) = (oh, ow)
            }
            largestExpanded = max(largestExpanded, net.convHead.outChannels * h * w)
            largestFiltered = max(largestFiltered, net.convHead.outChannels)
        }
    }

    public func convMACs(height: Int, width: Int) -> Int {
        var total = convStem.macs(height: height, width: width)
        var (h, w) = convStem.outputSize(height: height, width: width)
        for block in blocks {
            total += block.macs(height: h, width: w)
            (h, w) = block.outputSize(height: h, width: w)
        }
        return total + convHead.macs(height: h, width: w) + fc.macs
    }
}
