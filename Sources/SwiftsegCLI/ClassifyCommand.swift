import Dispatch
import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

/// `swiftseg classify`: the most likely ImageNet classes of photos, as Vision's `VNCoreMLRequest` with an image
/// classifier gives them. One photo prints its labels; several photos or folders run as a batch.
enum ClassifyCommand {
    static let spec = CommandSpec(
        name: "classify",
        summary: "Name what is in photos: the top ImageNet classes with their confidence.",
        usage: "swiftseg classify <input>… [--top <k>] [--crop-and-scale <mode>] [--json] [--model <model>] [--threads <n>] […]",
        positionals: [("<input>…", BatchOptions.inputsHelp)],
        options: [
            OptionSpec(ClassifyImageRequest.Parameters.top),
            OptionSpec(ClassifyImageRequest.Parameters.cropAndScale),
            OptionSpec(names: ["--json"], valueName: nil,
                       help: "Print one JSON object per photo (JSON Lines for several): input, width,\nheight, model, cropAndScale, classifications (identifier, confidence, classIndex),\ntimingsMs."),
            OptionSpec(names: ["--full-decode"], valueName: nil,
                       help: "Decode whole photos (default: a JPEG or WebP at the smallest scale whose longer\nside is still \(ClassifyImageRequest.photoSide) px, which the fit to 224×224 shrinks anyway)."),
            BatchOptions.ignoreOrientation,
            BatchOptions.maxPixels,
            BatchOptions.jobs(alongside: "the network"),
            BatchOptions.concurrent(", sharing\nthe --threads cores."),
            BatchOptions.shard,
            BatchOptions.shardCount,
            BatchOptions.manifest("input, status, error, top identifier\nand confidence"),
            BatchOptions.quiet,
        ] + ModelOptions.specs(modelHelp: "efficientnet-lite0 (default, built in) or a .safetensors classifier.",
                               exactHelp: "Plain GEMM convolutions instead of the channel-blocked kernels, for checking\nthem: slower, and no closer (logits within ~1e-5 of ONNX Runtime either way)."),
        discussion: """
            The photo is turned upright by its EXIF orientation, fitted to the network's 224×224 input by
            --crop-and-scale with a Lanczos resampler, normalised as the model's file says ((v − 127) / 128 for
            EfficientNet-Lite0) and classified; confidences are softmax probabilities. Labels are ImageNet's
            synset words, as Core ML's ImageNet models report them ("cliff, drop, drop-off").

            Several inputs or a folder run as a batch: one block of lines (or one JSON line) per photo as it
            finishes; a bad photo is reported and skipped, and the exit status is 1 if any failed.

            EXAMPLES:
              swiftseg classify photo.jpg
              swiftseg classify photo.jpg --top 2 --json
              swiftseg classify ~/Pictures --json --quiet > labels.jsonl
              swiftseg classify /data/photos --shard 3/16 --manifest labels.jsonl --quiet
            """)

    struct Options {
        var inputs: [String]
        var isBatch: Bool
        var request: ClassifyImageRequest
        var json: Bool
        var fullDecode: Bool
        var batch: BatchOptions.Settings

        init(_ args: ParsedArguments) throws {
            (inputs, isBatch) = try BatchOptions.inputs(args, subcommand: "classify")
            request = try args.parse(ClassifyImageRequest.init(parameters:))
            json = args.has("--json")
            fullDecode = args.has("--full-decode")
            batch = try BatchOptions.Settings(args, threads: try ModelOptions.threads(args))
            if !isBatch { try BatchOptions.refuseBatchFlags(args, options: ClassifyCommand.spec.options) }
        }
    }

    static func run(_ args: ParsedArguments) throws {
        let options = try Options(args)
        let model = try ModelOptions.loadModel(args, default: "efficientnet-lite0")
        var configuration = Classifier.Configuration()
        configuration.threads = try ModelOptions.threads(args)
        configuration.kernelPolicy = ModelOptions.policy(args)
        do {
            try Classifier.checkIsClassifier(model)
            if options.isBatch {  // a classifier per lane, the lanes sharing the threads' cores
                configuration.coreBudget = CoreBudget(cores: configuration.threads)
                try runBatch(options, classifiers: Classifier.lanes(sharing: model, configuration: configuration,
                                                                    count: options.batch.concurrent))
            } else {
                try runSingle(options, classifier: Classifier(model: model, configuration: configuration))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure(SwiftsegError(error).message)
        }
    }

    static func runSingle(_ options: Options, classifier: Classifier) throws {
        let input = options.inputs[0]
        let start = DispatchTime.now().uptimeNanoseconds
        let (bytes, name) = try InferCommand.readBytes(input, options: options.batch.decoding)
        let photo = try ClassifyImageRequest.decode(bytes, name: name, options: options.batch.decoding,
                                                    fullSize: options.fullDecode)
        let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let result = classifier.classify(photo, request: options.request)
        print(try text(result, input: input == "-" ? nil : input, options: options, model: classifier.model.name,
                       decodeMs: decodeMs, header: false), terminator: "")
    }

    /// One photo's output: `(0.93) espresso` lines (under the file's name in a batch), or its JSON object.
    static func text(_ result: ClassificationResult, input: String?, options: Options, model: String,
                     decodeMs: Double? = nil, header: Bool) throws -> String {
        if options.json {
            let report = result.report(input: input, model: model,
                                       cropAndScale: options.request.cropAndScale, decodeMs: decodeMs)
            return String(decoding: try report.jsonData(pretty: !options.isBatch), as: UTF8.self)
        }
        let lines = result.observations.map { (header ? "  " : "") + String(format: "(%.2f) ", $0.confidence) + $0.identifier }
        return ((header ? ["\(input ?? "standard input"):"] : []) + lines).joined(separator: "\n") + "\n"
    }

    static func runBatch(_ options: Options, classifiers: [Classifier]) throws {
        let batch = BatchSession<ClassificationResult>(options.batch) { result in
            let top = result.value?.observations.first
            return "(\(Int(result.milliseconds)) ms, \(top.map { String(format: "%.2f %@", $0.confidence, $0.identifier) } ?? "-"))"
        }
        let (inputs, isMine) = try batch.inputs(options.inputs)
        let items = inputs.filter(isMine).map { BatchRunner.Item(input: $0, output: nil) }  // results go to standard output
        let request = options.request, model = classifiers[0].model.name
        let decoding = options.batch.decoding, fullSize = options.fullDecode
        let report = try batch.reporter(for: items, output: { result in
            try? result.value.map { try text($0, input: result.item.input.path, options: options, model: model,
                                             decodeMs: result.decodeMilliseconds, header: true) }
        }, manifest: { result in
            let top = result.value?.observations.first
            return ["identifier": top?.identifier ?? NSNull(), "confidence": top?.confidence ?? NSNull()]
        })
        BatchRunner(jobs: options.batch.jobs, lanes: classifiers.count, decoding: options.batch.decoding,
                    cores: classifiers.first?.configuration.coreBudget).run(
            items,
            decode: { path in
                try ClassifyImageRequest.decode(try Image.fileBytes(path, options: decoding), name: path,
                                                options: decoding, fullSize: fullSize)
            },
            process: { photo, lane in classifiers[lane].classify(photo, request: request) },
            files: { _, _ in [] },  // results go to standard output
            report: report)
        try batch.finish()
    }
}
