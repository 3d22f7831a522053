import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

/// Options shared by the subcommands that run the network: which weights, how many threads.
enum ModelOptions {
    static let specs = specs(modelHelp: "u2netp (default, built in), u2net (after 'Tools/fetch_weights.sh u2net'), a name\nconverted into ~/.cache/swiftseg (silueta, u2net_human_seg, isnet-general-use,\nisnet-anime, birefnet-general and the other birefnet-* models, bria-rmbg: see\nREADME), or a .safetensors file made by Tools/convert_onnx.py.")

    /// What `--exact` does for U²-Net, whose 3×3 convs the default runs as Winograd.
    static let exactHelp = "Exact GEMM convolutions: d0 within 1e-4 of ONNX Runtime, about 3× slower\nthan the default Winograd kernels (within 1e-3); loads less (no Winograd weights)."

    /// The shared options with `--model`'s and `--exact`'s help for this subcommand's kind of model.
    static func specs(modelHelp: String, exactHelp: String = exactHelp) -> [OptionSpec] { [
        OptionSpec(names: ["--model"], valueName: "MODEL", help: modelHelp),
        OptionSpec(names: ["--threads"], valueName: "N",
                   help: "Worker threads (default: all cores the process may use)."),
        OptionSpec(names: ["--exact"], valueName: nil, help: exactHelp),
    ] }

    static func source(_ args: ParsedArguments, default name: String = "u2netp") -> ModelSource {
        ModelSource(argument: args.value("--model") ?? name)
    }

    /// The convolution policy the flags ask for: `--exact` → GEMM, else the fastest per layer.
    static func policy(_ args: ParsedArguments) -> ConvKernelPolicy { args.has("--exact") ? .gemm : .auto }

    static func threads(_ args: ParsedArguments) throws -> Int {
        try args.positiveInt("--threads", default: ProcessInfoCores.count)
    }

    /// Loads and checks the weights, building the network their file declares; errors come back as one line
    /// naming the file.
    static func loadModel(_ args: ParsedArguments, default name: String = "u2netp") throws -> any Network {
        do {
            return try source(args, default: name).load(options: .init(prepareFastKernels: policy(args) != .gemm))
        } catch let error as RuntimeError {
            throw CLIError.failure(error.description)
        }
    }

    /// ``loadModel(_:)``, which must be a subject-lifting (saliency) model.
    static func loadSaliencyModel(_ args: ParsedArguments) throws -> any Network {
        let model = try loadModel(args)
        do { try Segmenter.checkIsSaliencyModel(model) } catch { throw CLIError.failure(SwiftsegError(error).message) }
        return model
    }
}
