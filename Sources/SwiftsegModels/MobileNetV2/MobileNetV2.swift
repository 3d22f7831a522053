import SwiftsegRuntime

/// MobileNetV2 (Sandler et al. 2018), ported from torchvision's `mobilenet_v2`: a 3×3 stride-2 stem + ReLU6
/// (`features.0`), seventeen inverted residual blocks (`features.1` … `features.17`, ``InvertedBottleneck``s
/// with 3×3 depthwise convs), a 1×1 head + ReLU6 (`features.18`), global average pooling and the classifier
/// (`classifier.1`). Padding is symmetric (k / 2), as torchvision's. Loaded from a converted export
/// (Tools/convert_onnx.py), whose metadata gives the input size, normalisation and labels.
///
/// ```swift
/// let net = try MobileNetV2(weights: SafeTensorsFile(path: "mobilenetv2.safetensors"))
/// let logits = Tensor(channels: net.classes, height: 1, width: 1)
/// net.forward(input.view, into: logits.view, context: ExecutionContext(threads: 2))
/// ```
public final class MobileNetV2: Network {
    public let configuration: MobileNetV2Configuration
    public let weights: SafeTensorsFile
    public let preprocessing: ModelPreprocessing
    /// The number of classes (the classifier's rows).
    public let classes: Int
    let network: InvertedBottleneckClassifier

    /// Builds the model, checking every tensor's name and shape (widths from the file).
    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        guard file.metadata["architecture"] == "mobilenet-v2" else {
            throw RuntimeError.invalidWeights(
                "\(file.name): metadata architecture is \(file.metadata["architecture"].map { "'\($0)'" } ?? "missing"), expected 'mobilenet-v2' (convert with Tools/convert_onnx.py)")
        }
        let config = MobileNetV2Configuration.standard
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .logits)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        network = try config.build(&w)
        try w.checkAllUsed(expecting: "MobileNetV2")
        classes = network.fc.outFeatures
        configuration = config
        weights = file
    }

    public var name: String { weights.metadata["variant"] ?? "mobilenetv2" }

    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (classes, 1, 1) }

    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        network.forward(input, into: output, context: context)
    }

    public func convMACs(height: Int, width: Int) -> Int { network.convMACs(height: height, width: width) }
}
