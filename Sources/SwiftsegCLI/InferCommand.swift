import Dispatch
import Foundation
import Swiftseg
import SwiftsegRuntime

/// `swiftseg infer`: photos in; cutouts, masks, composites, instance maps, saliency maps and reports out.
/// One photo (file or -) writes one set of outputs; several photos or folders run as a resumable batch.
/// The network runs once per photo whatever the outputs.
enum InferCommand {
    static let spec = CommandSpec(
        name: "infer",
        summary: "Cut the subject out of photos (RGBA PNG), or write masks, instances or composites.",
        usage: "swiftseg infer <input>… [-o <output>] [--mask] [--instances <png>] [--json] [--select <list> | --point <x,y>]\n       [--crop] [--background <bg>] [--effect <effect>] [--threshold <t>] [--min-area <f>] [--model <model>] […]",
        positionals: [("<input>…", BatchOptions.inputsHelp)],
        options: InferOptions.specs + ModelOptions.specs,
        discussion: """
            The photo is turned upright by its EXIF orientation, resized to the model's input size (320×320 for
            U²-Net, 1024×1024 for ISNet), and the mask is resized back to the photo's size, as rembg does. Instances are the 8-connected regions of the mask
            at or above --threshold, numbered 1…N in reading order. With --select or --point, the mask, cutout,
            crop and composite use only the chosen instances (soft edges go to the nearest instance). Outputs are
            written only once complete; on any error nothing is written for that photo.

            A batch (several inputs, or a folder) writes into the -o folder, skips photos whose output exists
            (rerun to resume; --overwrite to redo), reports a bad photo and goes on, and exits 1 if any failed.

            EXAMPLES:
              swiftseg infer photo.jpg --instances labels.png --json
              swiftseg infer photo.jpg --point 0.5,0.6 --crop -o subject.png
              swiftseg infer photo.jpg --background beach.jpg -o postcard.jpg
              swiftseg infer photo.jpg --effect blur --blur-radius 20 -o portrait.png
              swiftseg infer ~/Pictures -o ~/cutouts --manifest cutouts.jsonl --shard 0/4
            """)

    static func run(_ args: ParsedArguments) throws {
        let options = try InferOptions(args)
        let model = try ModelOptions.loadSaliencyModel(args)
        var configuration = Segmenter.Configuration()
        configuration.threads = options.threads
        configuration.kernelPolicy = ModelOptions.policy(args)
        do {
            if options.isBatch {  // a segmenter per lane, the lanes sharing the threads' cores
                configuration.coreBudget = CoreBudget(cores: configuration.threads)
                try runBatch(options, model: model, configuration: configuration)
            } else {
                try runSingle(options, segmenter: Segmenter(model: model, configuration: configuration))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure(SwiftsegError(error).message)
        }
    }

    /// The library's pipeline for these options, with the background decoded (a picture is read once, for
    /// every photo); `format` is the picture's.
    static func pipeline(_ options: InferOptions, format: ImageFormat) throws -> SubjectLiftingPipeline {
        try options.cutout.pipeline(format: format) { try Background(argument: $0) }
    }

    static func runSingle(_ options: InferOptions, segmenter: Segmenter) throws {
        let output = options.output
        if output == "-" && isatty(STDOUT_FILENO) != 0 {
            throw CLIError.usage("refusing to write an image to a terminal; redirect standard output or use -o <file>")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        for path in [output, options.instancesPath, options.saliencyPath].compactMap({ $0 }) {
            try AtomicFile.checkWritable(path)
        }
        let input = options.inputs[0]
        let photo = try readImage(input, options: options.batch.decoding)
        var pipeline = try pipeline(options, format: options.format(for: output))
        pipeline.instanceMap = options.instancesPath != nil
        pipeline.saliencyMap = options.saliencyPath.map { options.format ?? ImageFormat(path: $0) ?? .png }
        let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let lifted = try pipeline.lift(photo, with: segmenter)
        let files = try pipeline.encode(lifted)
        var writes = [(path: output, bytes: files.image)]
        if let path = options.instancesPath, let bytes = files.instanceMap { writes.append((path, bytes)) }
        if let path = options.saliencyPath, let bytes = files.saliencyMap { writes.append((path, bytes)) }
        try AtomicFile.write(writes)
        if options.json {
            let timings = SubjectLiftingPipeline.timingsMs(lifted, decodeMs: decodeMs, encodeMs: files.encodeMs)
            let report = pipeline.report(for: lifted, input: input == "-" ? nil : input, model: segmenter.model.name,
                                         timingsMs: timings)
            FileHandle.standardOutput.write(Data(try report.jsonData()))
        }
    }

    static func readImage(_ input: String, options: DecodingOptions) throws -> Image {
        let (bytes, name) = try readBytes(input, options: options)
        return try Image(encoded: bytes, name: name, options: options)
    }

    /// An input's encoded bytes (a file, or standard input for `-`) and its name for messages.
    static func readBytes(_ input: String, options: DecodingOptions) throws -> (bytes: [UInt8], name: String) {
        if input == "-" { return ([UInt8](FileHandle.standardInput.readDataToEndOfFile()), "standard input") }
        return (try Image.fileBytes(input, options: options), input)
    }
}
