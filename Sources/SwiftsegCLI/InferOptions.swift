import Swiftseg

/// `swiftseg infer`'s flags turned into library values, all validated before any work starts.
struct InferOptions {
    var inputs: [String]
    /// A file (one input), or a folder (batch: several inputs or a folder input).
    var output: String
    var isBatch: Bool
    var instancesPath: String?
    var saliencyPath: String?
    var json: Bool
    /// The picture: output, selection, crop, effect, threshold, encoding, as the library parses them
    /// (`background` as given: a path is decoded once the photo is, so a bad one fails like a bad photo).
    var cutout: CutoutParameters
    var lifting: LiftingOptions { cutout.lifting }
    /// The output format; nil = from the output's extension (PNG when it has none).
    var format: ImageFormat? { cutout.format }
    var threads: Int
    /// Decoding limits, and for a batch the workers, lanes, shard, manifest and quiet.
    var batch: BatchOptions.Settings
    var overwrite: Bool

    var suffix: String { Self.suffix(for: lifting.output) }

    static func suffix(for output: LiftingOptions.Output) -> String {
        switch output {
        case .mask: "mask"
        case .cutout: "cutout"
        case .composite: "composite"
        }
    }

    static let specs: [OptionSpec] = [
        OptionSpec(names: ["-o", "--output"], valueName: "PATH",
                   help: "Output file (.png, .jpg or .webp), or - for standard output; for a batch, the output\nfolder (sub-folders mirror the inputs'). Default: beside the input, <name>.cutout.png\n(.mask.png with --mask, .composite.png with --background/--effect); - when the input is -."),
        OptionSpec(CutoutParameters.Parameters.mask),
        OptionSpec(names: ["--instances"], valueName: "PATH",
                   help: "Also write the instance label map: gray PNG, 0 = background, 1…N = instances\n(8-bit, or 16-bit when N > 255)."),
        OptionSpec(names: ["--saliency"], valueName: "PATH",
                   help: "Also write the saliency heat map (raw network confidence × 255, input's size)."),
        OptionSpec(names: ["--json"], valueName: nil,
                   help: "Print a JSON report on standard output: size, model, threshold, instances\n(index, bounds, normalizedBounds, area, score), timings. A batch prints one\nreport per photo, each on one line (JSON Lines), as photos finish."),
    ] + CutoutParameters.Parameters.all.filter { $0.name != CutoutParameters.Parameters.mask.name }  // --mask: above
        .map(OptionSpec.init) + [
        BatchOptions.ignoreOrientation,
        BatchOptions.maxPixels,
        BatchOptions.jobs(alongside: "the network"),
        BatchOptions.concurrent(", each\nwith its own activation memory (~120 MB for u2netp), sharing the --threads cores (a\nphoto alone gets them all; the bytes are a single photo's): on two cores 2 gives 10–20 %\nmore photos/s than 1 (PERF.md)."),
        OptionSpec(names: ["--overwrite"], valueName: nil,
                   help: "redo photos whose output exists (default: skip them, so a rerun resumes).", batchOnly: true),
        BatchOptions.shard,
        BatchOptions.shardCount,
        BatchOptions.manifest("input, output, status, error,\ninstances"),
        BatchOptions.quiet,
    ]

    init(_ args: ParsedArguments) throws {
        (inputs, isBatch) = try BatchOptions.inputs(args, subcommand: "infer", refusesStandardInputInBatch: false)
        instancesPath = args.value("--instances")
        saliencyPath = args.value("--saliency")
        json = args.has("--json")
        threads = try ModelOptions.threads(args)
        cutout = try args.parse(CutoutParameters.init)
        cutout.lifting.alphaMatting?.threads = threads   // the matting solver's, as the network's
        cutout.lifting.decontamination?.threads = threads
        batch = try BatchOptions.Settings(args, threads: threads)
        overwrite = args.has("--overwrite")

        if isBatch {
            guard let dir = args.value("--output") else {
                throw CLIError.usage("several inputs or a folder need -o <output folder>")
            }
            if inputs.contains("-") { throw CLIError.usage("- (standard input) takes a single image, not a batch") }
            var isFolder: ObjCBool = false
            if ImageFormat(path: dir) != nil && !(FileManager.default.fileExists(atPath: dir, isDirectory: &isFolder) && isFolder.boolValue) {
                throw CLIError.usage("several inputs or a folder write into a folder: -o names a folder, not the image \(dir)")
            }
            for (flag, given) in [("--instances", instancesPath != nil), ("--saliency", saliencyPath != nil)] where given {
                throw CLIError.usage("\(flag) names one file, for one image; for a batch, --json prints each photo's instances")
            }
            output = dir
        } else {
            guard inputs.count == 1 else { throw CLIError.usage("infer takes one input, got \(inputs.count)") }
            output = args.value("--output") ?? Self.defaultOutput(for: inputs[0], suffix: Self.suffix(for: cutout.lifting.output),
                                                                   fileExtension: (cutout.format ?? .png).extensions[0])
            try Self.checkExtension(of: output, format: cutout.format, flag: "-o")
            if let saliencyPath { try Self.checkExtension(of: saliencyPath, format: cutout.format, flag: "--saliency") }
            if json && output == "-" { throw CLIError.usage("--json prints on standard output; give -o a file") }
            try BatchOptions.refuseBatchFlags(args, options: Self.specs)
        }
    }

    /// The output format for `path`: --format, else the extension, else PNG.
    func format(for path: String) -> ImageFormat { format ?? ImageFormat(path: path) ?? .png }

    /// A file's extension names the format written into it, so no file holds one format's bytes under another's
    /// name: an output path with an extension must name a format swiftseg writes, and the --format given if any
    /// (no extension, or `-`, takes any).
    static func checkExtension(of path: String, format: ImageFormat?, flag: String) throws {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard path != "-", !ext.isEmpty else { return }
        guard let named = ImageFormat(path: path), named.isWritable else {
            let known = ImageFormat.writable.flatMap(\.extensions).map { "." + $0 }.joined(separator: ", ")
            throw CLIError.usage("\(flag) \(path): swiftseg writes \(known); name one of those")
        }
        if let format, format != named {
            throw CLIError.usage("\(flag) \(path) names \(named.name), but --format is \(format.rawValue)")
        }
    }

    static func defaultOutput(for input: String, suffix: String, fileExtension: String) -> String {
        if input == "-" { return "-" }
        let url = URL(fileURLWithPath: input)
        return url.deletingPathExtension().path + ".\(suffix).\(fileExtension)"
    }
}

import Foundation
