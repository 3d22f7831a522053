import Dispatch
import Foundation
import SwiftsegModels
import SwiftsegRuntime

/// Lifts the subject out of photos: U²-Net on the CPU, with rembg-compatible pre- and post-processing.
///
/// Basic usage:
/// ```swift
/// import Swiftseg
///
/// let segmenter = try Segmenter()                          // embedded u2netp weights
/// let photo = try Image(contentsOfFile: "photo.jpg")
/// let mask = segmenter.foregroundMask(for: photo)          // 8-bit soft mask, photo's size
/// try AtomicFile.write(try mask.image.pngData(), to: "mask.png")
/// let cutout = segmenter.cutout(photo, mask: mask)         // RGBA, background transparent
/// try AtomicFile.write(try cutout.pngData(), to: "cutout.png")
/// ```
///
/// A `Segmenter` keeps per-run buffers, so use one per thread; they can share a loaded network (immutable and
/// `Sendable`) through ``init(model:configuration:)``. The network is any salient-object model (one sigmoid
/// channel at the input's size, such as ``U2Net``); its input size and normalisation come from its weights
/// file's metadata.
public final class Segmenter {
    public struct Configuration: Sendable {
        /// Worker threads for the network (default: all cores).
        public var threads: Int = ProcessInfoCores.count
        /// Convolution kernel policy (tests force `.reference` or `.gemm`).
        public var kernelPolicy: ConvKernelPolicy = .auto
        /// Cores shared with other segmenters running at the same time (a server's lanes): each pass uses as many
        /// of `threads` as the others leave idle, op by op, with the same result as an unshared pass on
        /// `threads`. Hold one of its cores around each use (``CoreBudget/withCore(_:)``). Nil: `threads` always.
        public var coreBudget: CoreBudget? = nil
        /// Side of the square network input (default: the size the weights file declares, 320 for U²-Net, as
        /// rembg uses).
        public var inputSize: Int? = nil
        public init() {}
    }

    public let model: any Network
    public let configuration: Configuration
    /// The network's input side: ``Configuration/inputSize`` or the model's own.
    public let inputSize: Int
    private let context: ExecutionContext
    private let input: Tensor
    private let output: Tensor
    private let normalization: Normalization

    /// Loads the model from `source` (default: the embedded u2netp), by the architecture its file declares.
    public convenience init(model source: ModelSource = .u2netp, configuration: Configuration = Configuration()) throws {
        let winograd = [.auto, .winograd].contains(configuration.kernelPolicy)  // else never used: skip its memory
        let network = try source.load(options: .init(prepareFastKernels: winograd))
        try Segmenter.checkIsSaliencyModel(network)
        let size = configuration.inputSize ?? network.preprocessing.inputSize
        if let problem = network.inputProblem(height: size, width: size) { throw SwiftsegError(.badRequest, problem) }
        self.init(model: network, configuration: configuration)
    }

    /// Uses an already loaded model, which must be a saliency model (``checkIsSaliencyModel(_:)``).
    public init(model: any Network, configuration: Configuration = Configuration()) {
        let size = configuration.inputSize ?? model.preprocessing.inputSize
        precondition(configuration.threads >= 1 && size >= 1, "threads and input size must be ≥ 1")
        precondition((try? Segmenter.checkIsSaliencyModel(model)) != nil, "\(model.name) is not a saliency model")
        if let problem = model.inputProblem(height: size, width: size) { preconditionFailure(problem) }
        self.model = model
        self.configuration = configuration
        inputSize = size
        normalization = Normalization(mean: model.preprocessing.mean, std: model.preprocessing.std)
        context = ExecutionContext(threads: configuration.threads, policy: configuration.kernelPolicy,
                                   coreBudget: configuration.coreBudget)
        input = Tensor(channels: 3, height: size, width: size)
        output = Tensor(channels: 1, height: size, width: size)
    }

    /// Throws unless `network` maps an image to one sigmoid channel of its size (a salient-object model).
    public static func checkIsSaliencyModel(_ network: any Network) throws {
        let shape = network.outputShape(height: 32, width: 32)
        guard network.preprocessing.output == .sigmoid, shape == (1, 32, 32) else {
            throw SwiftsegError(.badRequest, "\(network.weights.name): \(network.name) is not a subject-lifting (saliency) model")
        }
    }

    /// One segmenter per batch lane, sharing `model`'s weights, with `configuration.threads` split between them
    /// (``BatchRunner/threadsPerLane(_:lanes:sharingCores:)``) — or, with a ``Configuration/coreBudget``, each
    /// on all of them, borrowing what the other lanes leave idle — each with its own activation memory.
    ///
    /// ```swift
    /// let lanes = Segmenter.lanes(sharing: model, configuration: config, count: 2)
    /// ```
    public static func lanes(sharing model: any Network, configuration: Configuration, count: Int) -> [Segmenter] {
        BatchRunner.threadsPerLane(configuration.threads, lanes: count,
                                   sharingCores: configuration.coreBudget != nil).map { threads in
            var perLane = configuration
            perLane.threads = threads
            return Segmenter(model: model, configuration: perLane)
        }
    }

    /// This segmenter's threads for image work beside the network (resizing, encoding), for use on the thread
    /// that runs it, between passes: with a core budget, only the cores no other lane holds (``ParallelParts``;
    /// the same bytes as on one thread).
    ///
    /// ```swift
    /// let png = try cutout.pngData(parts: segmenter.parts)
    /// ```
    public var parts: ParallelParts {
        let context = self.context
        return ParallelParts { count, body in context.forEachTask(count, body) }
    }

    /// The soft foreground mask of `image`, at the image's resolution.
    public func foregroundMask(for image: Image) -> ForegroundMask {
        var timings = ForegroundMask.Timings()
        var t0 = DispatchTime.now().uptimeNanoseconds
        func lap() -> Double {
            let t1 = DispatchTime.now().uptimeNanoseconds
            defer { t0 = t1 }
            return Double(t1 - t0) / 1e6
        }
        normalization.prepareInput(image, into: input.view, parts: parts)
        timings.preprocessMs = lap()
        model.forward(input.view, into: output.view, context: context)
        timings.networkMs = lap()
        let mask = MaskPostprocessing.mask(from: output.view, width: image.width, height: image.height, parts: parts)
        timings.postprocessMs = lap()
        return ForegroundMask(image: mask, saliency: output.values, saliencySize: inputSize,
                              timings: timings)
    }

    /// `image` with the mask as alpha (times the image's own alpha, if it has one), as rembg's cutout.
    public func cutout(_ image: Image, mask: ForegroundMask) -> Image {
        Compositing.cutout(image, alpha: mask.image)
    }
}

/// The result of ``Segmenter/foregroundMask(for:)``.
public struct ForegroundMask: Sendable {
    /// 8-bit grayscale mask at the input image's resolution (255 = foreground).
    public let image: Image
    /// The network's raw d0 (sigmoid saliency in 0…1), `saliencySize²` floats, row-major.
    public let saliency: [Float]
    public let saliencySize: Int
    public var timings: Timings

    /// A mask made elsewhere (e.g. to extract instances from a stored mask without running the network).
    public init(image: Image, saliency: [Float], saliencySize: Int, timings: Timings = Timings()) {
        precondition(image.channels == 1 && saliency.count == saliencySize * saliencySize, "gray mask, square saliency")
        self.image = image
        self.saliency = saliency
        self.saliencySize = saliencySize
        self.timings = timings
    }

    public struct Timings: Sendable {
        public var preprocessMs = 0.0
        public var networkMs = 0.0
        public var postprocessMs = 0.0
        /// Instance extraction, when a ``ForegroundInstanceMaskRequest`` ran.
        public var instancesMs = 0.0
        public init() {}
    }
}

/// Number of cores the process may use (defined in the runtime, which also needs it; re-exported here).
public typealias ProcessInfoCores = SwiftsegRuntime.ProcessInfoCores
