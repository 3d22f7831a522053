import SwiftsegRuntime

/// EfficientNet-Lite (Tan & Le 2019; Google's Lite variant for mobile CPUs), an ImageNet classifier, ported from
/// the PyTorch port's `EfficientNet` module: a 3×3 stride-2 stem + ReLU6 (`_conv_stem`), sixteen MBConv
/// blocks (`_blocks`, ``InvertedBottleneck``s with 3×3 or 5×5 depthwise convs), a 1×1 head to 1280 + ReLU6
/// (`_conv_head`), global average pooling and a fully connected layer to 1000 logits (`_fc`).
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
    let network: InvertedBottleneckClassifier

    /// Builds the model the file's metadata names, checking every tensor's name and shape.
    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        let config = try EfficientNetLiteConfiguration.declared(by: file)
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .logits)
        labels = try EfficientNetLiteConfiguration.labels(in: file, count: config.classes)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        network = try config.build(&w)
        try w.checkAllUsed(expecting: config.variant)
        configuration = config
        weights = file
    }

    public var name: String { configuration.variant }

    /// One logit per class, for any input size (the pooling takes whatever map the blocks leave).
    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) {
        (configuration.classes, 1, 1)
    }

    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        network.forward(input, into: output, context: context)
    }

    public func convMACs(height: Int, width: Int) -> Int { network.convMACs(height: height, width: width) }
}
