import Dispatch
import SwiftsegRuntime

/// U²-Net (Qin et al. 2020, "U²-Net: Going Deeper with Nested U-Structure for Salient Object Detection"), a
/// port of the original `model/u2net.py`: six RSU encoder stages, five decoder stages, a side output per
/// decoder level, and a 1×1 `outconv` fusing the six side maps into `d0`.
///
/// The model is immutable and `Sendable`; per-run state lives in an ``ExecutionContext``. Any input size works:
/// each upsampling targets the skip tensor's size, as in the ONNX graph.
///
/// ```swift
/// let net = try U2Net(weights: .embeddedU2NetP())
/// let ctx = ExecutionContext(threads: 2)
/// let input = Tensor(channels: 3, height: 320, width: 320)     // normalised RGB, NCHW
/// let d0 = Tensor(channels: 1, height: 320, width: 320)
/// net.forward(input.view, into: d0.view, context: ctx)         // sigmoid saliency in [0, 1]
/// ```
public final class U2Net: Network {
    public let configuration: U2NetConfiguration
    /// Input size and normalisation from the file's metadata (rembg's: 320, ImageNet mean/std); the output is
    /// d0 after its sigmoid.
    public let preprocessing: ModelPreprocessing
    /// The weights file; the model's convolutions point into its mapping.
    public let weights: SafeTensorsFile
    /// The encoder, decoder and side outputs.
    let body: U2NetBody
    /// The 1×1 conv fusing the six side maps into d0.
    let outconv: Conv2D

    /// Builds the model the file's metadata names, checking every tensor's name and shape.
    ///
    /// - Parameter prepareFastKernels: transform the 3×3 weights for the Winograd kernels (the default policy's).
    ///   Pass `false` when only the exact GEMM path will run (`ConvKernelPolicy.gemm`, the CLI's `--exact`):
    ///   it saves their memory (4× the 3×3 weights: ~0.5 GB for u2net) and the load time; Winograd-capable
    ///   layers then run GEMM under every policy.
    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        let config = try U2NetConfiguration.declared(by: file)
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .sigmoid)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        body = try U2NetBody(&w, config)
        outconv = try w.conv("outconv", outChannels: 1, inChannels: 6, kernelSize: 1, dilation: 1)
        try w.checkAllUsed(expecting: config.variant)
        configuration = config
        weights = file
        file.releaseResidentPages()  // the transform read every 3×3 weight once; most are not read again
    }

    /// "u2netp", "u2net", or the variant its file names.
    public var name: String { configuration.variant }

    /// d0 is one channel at the input's size.
    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (1, height, width) }

    /// Runs the network on a normalised 3×H×W image and writes `d0 = sigmoid(outconv(cat(d1…d6)))`, 1×H×W,
    /// into `output`. The context's arena is reset, so views from a previous pass become invalid.
    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        U2NetBody.checkShapes(input, output, model: "U²-Net", output: "d0")
        let arena = context.arena
        arena.reset()
        let sides = arena.tensor(channels: 6, height: input.height, width: input.width)
        body(input, sides: sides, context: context)
        context.time("side+fuse") {
            outconv.forward(sides, into: output, epilogue: .none, context: context)
            Sigmoid.forwardInPlace(output)
        }
        arena.reset()  // frees everything; after a learning pass, grows the block so the next pass allocates nothing
    }

    /// Multiply-accumulates of all convolutions for an input of this size (for GFLOP/s: 2 FLOPs per MAC).
    public func convMACs(height: Int, width: Int) -> Int {
        body.convMACs(height: height, width: width) + outconv.macs(height: height, width: width)
    }
}
