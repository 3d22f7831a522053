import Dispatch
import Foundation
import SwiftsegModels
import SwiftsegRuntime

/// Classifies photos with an image classifier on the CPU: the built-in EfficientNet-Lite0 (ImageNet, 1,000
/// classes) or any classifier the registry builds. Its input size, normalisation and labels come from the
/// weights file.
///
/// ```swift
/// let classifier = try Classifier()
/// let result = classifier.classify(try Image(contentsOfFile: "photo.jpg"), request: ClassifyImageRequest())
/// for c in result.observations { print("(\(String(format: "%.2f", c.confidence))) \(c.identifier)") }
/// ```
///
/// A `Classifier` keeps per-run buffers, so use one per thread; they can share a loaded network through
/// ``init(model:configuration:)``. Confidences are the softmax of logits within 1e-3 of ONNX Runtime's
/// (`EfficientNetLiteTests`).
public final class Classifier {
    public struct Configuration: Sendable {
        /// Worker threads for the network (default: all cores).
        public var threads: Int = ProcessInfoCores.count
        /// Convolution kernel policy (tests force `.reference` or `.gemm`).
        public var kernelPolicy: ConvKernelPolicy = .auto
        /// Cores shared with other classifiers running at the same time (a server's lanes): each pass uses as many
        /// of `threads` as the others leave idle, op by op, with the same result as an unshared pass on
        /// `threads`. Hold one of its cores around each use (``CoreBudget/withCore(_:)``). Nil: `threads` always.
        public var coreBudget: CoreBudget? = nil
        public init() {}
    }

    public let model: any Network
    public let configuration: Configuration
    /// Class names, index by index (the file's `labels`; "class N" where it has none).
    public let labels: [String]
    private let context: ExecutionContext
    private let input: Tensor
    private let logits: Tensor

    /// Loads the model from `source` (default: the embedded EfficientNet-Lite0).
    public convenience init(model source: ModelSource = .efficientNetLite0, configuration: Configuration = Configuration()) throws {
        let network = try source.load(options: .init(prepareFastKernels: configuration.kernelPolicy != .gemm))
        try Classifier.checkIsClassifier(network)
        self.init(model: network, configuration: configuration)
    }

    /// Uses an already loaded classifier (``checkIsClassifier(_:)``).
    public init(model: any Network, configuration: Configuration = Configuration()) {
        precondition(configuration.threads >= 1, "threads must be ≥ 1")
        precondition((try? Classifier.checkIsClassifier(model)) != nil, "\(model.name) is not a classifier")
        self.model = model
        self.configuration = configuration
        let size = model.preprocessing.inputSize, classes = model.outputShape(height: size, width: size).channels
        labels = Classifier.labels(of: model, count: classes)
        context = ExecutionContext(threads: configuration.threads, policy: configuration.kernelPolicy,
                                   coreBudget: configuration.coreBudget)
        input = Tensor(channels: 3, height: size, width: size)
        logits = Tensor(channels: classes, height: 1, width: 1)
    }

    /// One classifier per batch lane, sharing `model`'s weights, with `configuration.threads` split between
    /// them (``BatchRunner/threadsPerLane(_:lanes:sharingCores:)``) — or all of them for each, with a
    /// ``Configuration/coreBudget`` — each with its own buffers.
    public static func lanes(sharing model: any Network, configuration: Configuration, count: Int) -> [Classifier] {
        BatchRunner.threadsPerLane(configuration.threads, lanes: count,
                                   sharingCores: configuration.coreBudget != nil).map { threads in
            var perLane = configuration
            perLane.threads = threads
            return Classifier(model: model, configuration: perLane)
        }
    }

    /// Throws unless `network` ends in class logits (one value per class, no spatial extent).
    public static func checkIsClassifier(_ network: any Network) throws {
        let shape = network.outputShape(height: 224, width: 224)
        guard network.preprocessing.output == .logits, shape.height == 1, shape.width == 1 else {
            throw SwiftsegError(.badRequest, "\(network.weights.name): \(network.name) is not an image classifier")
        }
    }

    static func labels(of network: any Network, count: Int) -> [String] {
        if let text = network.weights.metadata["labels"], let data = text.data(using: .utf8),
           let names = try? JSONSerialization.jsonObject(with: data) as? [String], names.count == count {
            return names
        }
        return (0..<count).map { "class \($0)" }
    }

    /// The top classes of a photo decoded reduced (``ClassifyImageRequest/decode(_:name:options:fullSize:)``),
    /// reported with the full photo's size.
    public func classify(_ photo: ReducedImage, request: ClassifyImageRequest) -> ClassificationResult {
        let r = classify(photo.image, request: request)
        return ClassificationResult(observations: r.observations, width: photo.fullWidth, height: photo.fullHeight,
                                    preprocessMs: r.preprocessMs, networkMs: r.networkMs, postprocessMs: r.postprocessMs)
    }

    /// The top classes of `image` and where the time went.
    public func classify(_ image: Image, request: ClassifyImageRequest) -> ClassificationResult {
        var t0 = DispatchTime.now().uptimeNanoseconds
        func lap() -> Double {
            let t1 = DispatchTime.now().uptimeNanoseconds
            defer { t0 = t1 }
            return Double(t1 - t0) / 1e6
        }
        let p = model.preprocessing
        let fitted = request.cropAndScale.apply(to: image, size: p.inputSize)
        fitted.pixels.withUnsafeBufferPointer { px in
            let plane = input.view.planeSize
            for c in 0..<3 {
                let out = input.view.plane(c), mean = Float(p.mean[c]), std = Float(p.std[c])
                for i in 0..<plane { out[i] = (Float(px[3 * i + c]) - mean) / std }
            }
        }
        let preprocessMs = lap()
        model.forward(input.view, into: logits.view, context: context)
        let networkMs = lap()
        Softmax.forwardInPlace(logits.view)
        let probabilities = logits.view
        let count = min(request.maximumResults, probabilities.count)
        // A full sort of the class indices: 1,000 per photo cost nothing next to the network.
        let top = (0..<probabilities.count).sorted { probabilities.data[$0] > probabilities.data[$1] }.prefix(count)
        let observations = top.map {
            ClassificationObservation(identifier: labels[$0], confidence: Double(probabilities.data[$0]), classIndex: $0)
        }
        return ClassificationResult(observations: observations, width: image.width, height: image.height,
                                    preprocessMs: preprocessMs, networkMs: networkMs, postprocessMs: lap())
    }
}

/// What ``Classifier/classify(_:request:)`` found for one photo.
public struct ClassificationResult: Sendable {
    /// Most likely first.
    public let observations: [ClassificationObservation]
    /// The (upright) photo's size.
    public let width: Int, height: Int
    public let preprocessMs: Double, networkMs: Double, postprocessMs: Double

    /// The `swiftseg classify --json` object for this photo.
    public func report(input: String?, model: String, cropAndScale: ClassifyImageRequest.CropAndScale,
                       decodeMs: Double? = nil) -> ClassificationReport {
        var timings = ["preprocess": preprocessMs, "network": networkMs, "postprocess": postprocessMs]
        if let decodeMs { timings["decode"] = decodeMs }
        return ClassificationReport(input: input, width: width, height: height, model: model,
                                    cropAndScale: cropAndScale, classifications: observations, timingsMs: timings)
    }
}

/// The `swiftseg classify --json` contract: one object per photo.
///
/// ```json
/// {"input": "photo.jpg", "width": 640, "height": 480, "model": "efficientnet-lite0", "cropAndScale": "centerCrop",
///  "classifications": [{"identifier": "orange", "confidence": 0.8, "classIndex": 950}], "timingsMs": {…}}
/// ```
public struct ClassificationReport: JSONReport, Sendable {
    public var input: String?
    public var width: Int
    public var height: Int
    public var model: String
    public var cropAndScale: ClassifyImageRequest.CropAndScale
    public var classifications: [ClassificationObservation]
    public var timingsMs: [String: Double]
}
