import Foundation
import Swiftseg

/// `swiftseg infer`: photo in, cutout or mask PNG out.
enum InferCommand {
    static let spec = CommandSpec(
        name: "infer",
        summary: "Cut the subject out of a photo (RGBA PNG), or write its mask.",
        usage: "swiftseg infer <input> [-o <output>] [--mask] [--model <model>] [--threads <n>]",
        positionals: [("<input>", "A PNG or JPEG file, or - for standard input.")],
        options: [
            OptionSpec(names: ["-o", "--output"], valueName: "PATH",
                       help: "Output PNG, or - for standard output. Default: beside the input,\n<name>.cutout.png (or <name>.mask.png with --mask); - when the input is -."),
            OptionSpec(names: ["--mask"], valueName: nil,
                       help: "Write the 8-bit grayscale soft mask (input's size) instead of the cutout."),
        ] + ModelOptions.specs,
        discussion: """
            The photo is resized to 320×320 for the network and the mask is resized back to the photo's size, as
            rembg does. An existing output file is replaced only once the new one is completely written; on any
            error nothing is written.
            """)

    static func run(_ args: ParsedArguments) throws {
        guard args.positionals.count == 1 else {
            throw CLIError.usage(args.positionals.isEmpty ? "infer needs an input image (see 'swiftseg infer --help')"
                                                          : "infer takes one input, got \(args.positionals.count)")
        }
        let input = args.positionals[0]
        let wantsMask = args.has("--mask")
        let output = args.value("--output") ?? defaultOutput(for: input, mask: wantsMask)
        let threads = try ModelOptions.threads(args)
        if output == "-" && isatty(STDOUT_FILENO) != 0 {
            throw CLIError.usage("refusing to write a PNG to a terminal; redirect standard output or use -o <file>")
        }
        do {
            try AtomicFile.checkWritable(output)
            let photo = try readImage(input)
            let model = try ModelOptions.loadModel(args)
            var configuration = Segmenter.Configuration()
            configuration.threads = threads
            let segmenter = Segmenter(model: model, configuration: configuration)
            let mask = segmenter.foregroundMask(for: photo)
            let result = wantsMask ? mask.image : segmenter.cutout(photo, mask: mask)
            try AtomicFile.write(try result.pngData(), to: output)
        } catch let error as ImageError {
            throw CLIError.failure(error.description)
        }
    }

    static func defaultOutput(for input: String, mask: Bool) -> String {
        if input == "-" { return "-" }
        let url = URL(fileURLWithPath: input)
        return url.deletingPathExtension().path + (mask ? ".mask.png" : ".cutout.png")
    }

    static func readImage(_ input: String) throws -> Image {
        if input == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return try Image(encoded: [UInt8](data), name: "standard input")
        }
        return try Image(contentsOfFile: input)
    }
}
