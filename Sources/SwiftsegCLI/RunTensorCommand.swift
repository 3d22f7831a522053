import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

/// `swiftseg run-tensor`: the raw network on an .npy tensor, for parity checks against other runtimes.
enum RunTensorCommand {
    static let spec = CommandSpec(
        name: "run-tensor",
        summary: "Run the raw network on an NCHW float32 .npy tensor and write its output as .npy.",
        usage: "swiftseg run-tensor <input.npy> -o <output.npy> [--model <model>] [--threads <n>] [--policy <p>]",
        positionals: [("<input.npy>", "float32 array of shape N×3×H×W (any H, W), already normalised.")],
        options: [
            OptionSpec(names: ["-o", "--output"], valueName: "PATH",
                       help: "Where to write the output, float32: U²-Net's d0, N×1×H×W;\na classifier's logits, N×1000×1×1."),
            OptionSpec(names: ["--policy"], valueName: "POLICY",
                       help: "Convolution kernels: auto (default: the fastest per layer), winograd, direct,\ngemm (= --exact), or reference (slow oracle)."),
        ] + ModelOptions.specs(modelHelp: "u2netp (default), efficientnet-lite0 (both built in), u2net, or a\n.safetensors file."),
        discussion: """
            For U²-Net, d0 is the fused saliency map after the sigmoid (ONNX output 0); for a classifier, the logits
            before the softmax. To compare with ONNX Runtime, feed the same tensor to the ONNX model and diff the
            outputs.
            """)

    static func run(_ args: ParsedArguments) throws {
        guard args.positionals.count == 1 else { throw CLIError.usage("run-tensor needs exactly one input .npy") }
        guard let output = args.value("--output") else { throw CLIError.usage("run-tensor needs -o <output.npy>") }
        let policyName = args.value("--policy") ?? ModelOptions.policy(args).rawValue
        guard let policy = ConvKernelPolicy(rawValue: policyName) else {
            throw CLIError.usage("--policy must be one of \(ConvKernelPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let threads = try ModelOptions.threads(args)
        do {
            try AtomicFile.checkWritable(output)
            let input = try NPY.read(path: args.positionals[0])
            guard input.shape.count == 4, input.shape[1] == 3 else {
                throw CLIError.failure("\(args.positionals[0]): expected shape N×3×H×W, got \(input.shape.map(String.init).joined(separator: "×"))")
            }
            let model = try ModelOptions.loadModel(args)
            if let problem = model.inputProblem(height: input.shape[2], width: input.shape[3]) {
                throw CLIError.failure("\(args.positionals[0]): \(problem)")
            }
            let context = ExecutionContext(threads: threads, policy: policy)
            let out = model.outputShape(height: input.shape[2], width: input.shape[3])
            let result = Tensor(shape: [input.shape[0], out.channels, out.height, out.width])
            for n in 0..<input.shape[0] {
                model.forward(input.view(batch: n), into: result.view(batch: n), context: context)
            }
            try AtomicFile.write(NPY.encode(result), to: output)
        } catch let error as RuntimeError {
            throw CLIError.failure(error.description)
        } catch let error as ImageError {
            throw CLIError.failure(error.description)
        }
    }
}
