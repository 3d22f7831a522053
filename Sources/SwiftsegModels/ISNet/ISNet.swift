import SwiftsegRuntime

/// ISNet (Qin et al. 2022, "Highly Accurate Dichotomous Image Segmentation"), the network of rembg's
/// `isnet-general-use` and `isnet-anime`, as the original `isnet.py`'s `ISNetDIS`: a 3×3 stride-2 conv 3→64
/// (`conv_in`, with a bias and no BatchNorm or activation), then U²-Net's nested U-structure (``U2NetBody``, the
/// same RSU blocks) at half the input's size; no fuse conv: the output is side output d1, upsampled to the input's
/// size, after its sigmoid (the ONNX export's first output).
///
/// ```swift
/// let net = try ISNet(weights: SafeTensorsFile(path: "isnet-general-use.safetensors"))
/// net.forward(input.view, into: d1.view, context: ExecutionContext(threads: 2))   // 1×H×W, 0…1
/// ```
///
/// rembg feeds it 1024×1024, divided by the image's maximum, with mean (0.485, 0.456, 0.406) and std 1 (the
/// file's metadata, as Tools/convert_onnx.py writes it), and min-max normalises d1 as for U²-Net.
public final class ISNet: Network {
    /// The RSU stages' and sides' widths, read from the file.
    public let configuration: U2NetConfiguration
    public let preprocessing: ModelPreprocessing
    public let weights: SafeTensorsFile
    let convIn: Conv2D
    let body: U2NetBody

    public init(weights file: SafeTensorsFile, prepareFastKernels: Bool = true) throws {
        guard file.metadata["architecture"] == "isnet" else {
            throw RuntimeError.invalidWeights("\(file.name): metadata architecture is not 'isnet' (convert with Tools/convert_onnx.py)")
        }
        let config = try U2NetConfiguration(variant: file.metadata["variant"] ?? "isnet", widthsFrom: file)
        preprocessing = try ModelPreprocessing(declaredBy: file, defaultOutput: .sigmoid)
        var w = WeightLoader(file: file, prepareFastKernels: prepareFastKernels)
        convIn = try w.conv("conv_in", outChannels: config.stage("stage1").inChannels, inChannels: 3, kernelSize: 3,
                            stride: 2, padding: .symmetric(1))
        body = try U2NetBody(&w, config)
        try w.checkAllUsed(expecting: config.variant)
        configuration = config
        weights = file
        file.releaseResidentPages()
    }

    /// The variant its file names (isnet-general-use, isnet-anime).
    public var name: String { configuration.variant }

    /// d1 is one channel at the input's size.
    public func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (1, height, width) }

    /// Runs the network on a normalised 3×H×W image and writes `sigmoid(upsample(side1(hx1d)))`, 1×H×W, into
    /// `output`. The context's arena is reset, so views from a previous pass become invalid.
    public func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        U2NetBody.checkShapes(input, output, model: "ISNet", output: "d1")
        let arena = context.arena
        arena.reset()
        let half = convIn.outputSize(height: input.height, width: input.width)
        let hxin = arena.tensor(channels: convIn.outChannels, height: half.height, width: half.width)
        context.time("conv_in") { convIn.forward(input, into: hxin, epilogue: .none, context: context) }
        let sides = arena.tensor(channels: 6, height: half.height, width: half.width)
        body(hxin, sides: sides, context: context)
        context.time("side+fuse") {
            ResizeBilinear.forward(sides.channels(0..<1), into: output, context: context)
            Sigmoid.forwardInPlace(output)
        }
        arena.reset()
    }

    public func convMACs(height: Int, width: Int) -> Int {
        let half = convIn.outputSize(height: height, width: width)
        return convIn.macs(height: height, width: width) + body.convMACs(height: half.height, width: half.width)
    }
}
