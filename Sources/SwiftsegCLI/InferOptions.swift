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
        OptionSpec(names: ["--mask"], valueName: nil,
                   help: "Write the 8-bit grayscale soft mask (input's size) instead of the cutout."),
        OptionSpec(names: ["--instances"], valueName: "PATH",
                   help: "Also write the instance label map: gray PNG, 0 = background, 1…N = instances\n(8-bit, or 16-bit when N > 255)."),
        OptionSpec(names: ["--saliency"], valueName: "PATH",
                   help: "Also write the saliency heat map (raw network confidence × 255, input's size)."),
        OptionSpec(names: ["--json"], valueName: nil,
                   help: "Print a JSON report on standard output: size, model, threshold, instances\n(index, bounds, normalizedBounds, area, score), timings. A batch prints one\nreport per photo, each on one line (JSON Lines), as photos finish."),
        OptionSpec(names: ["--select"], valueName: "LIST",
                   help: "Use only these instances (e.g. 1,3) for the mask, cutout, crop and composite."),
        OptionSpec(names: ["--point"], valueName: "X,Y",
                   help: "Use the instance under this point (normalized 0…1, top-left origin);\non background, all instances."),
        OptionSpec(names: ["--crop"], valueName: nil, help: "Crop the output to the chosen instances' extent."),
        OptionSpec(names: ["--background"], valueName: "BG",
                   help: "Put the subject on transparent, a #RRGGBB colour or an image (scaled to the\nphoto's size); writes a composite."),
        OptionSpec(names: ["--effect"], valueName: "EFFECT",
                   help: "darken | blur | highlight | mask-preview: an effect on the composite."),
        OptionSpec(names: ["--darken-ev"], valueName: "EV", help: "darken: stops of exposure taken off the background (2)."),
        OptionSpec(names: ["--blur-radius"], valueName: "PX", help: "blur: background blur σ in pixels (12)."),
        OptionSpec(names: ["--halo-radius"], valueName: "PX", help: "blur: halo spread σ in pixels (16; 0 = no halo)."),
        OptionSpec(names: ["--halo-strength"], valueName: "F", help: "blur: halo opacity 0…1 (0.6)."),
        OptionSpec(names: ["--dim"], valueName: "F", help: "highlight: brightness kept outside the chosen subjects, 0…1 (0.35)."),
        OptionSpec(names: ["--outline-width"], valueName: "PX", help: "highlight: outline width in pixels (3; 0 = none)."),
        OptionSpec(names: ["--outline-color"], valueName: "#RRGGBB", help: "highlight: outline colour (#ffffff)."),
        OptionSpec(names: ["--preview-color"], valueName: "#RRGGBB", help: "mask-preview: the mask's colour (#00aaff)."),
        OptionSpec(names: ["--threshold"], valueName: "T", help: "Mask level (0…1] at which a pixel belongs to an instance (0.5)."),
        OptionSpec(names: ["--min-area"], valueName: "F",
                   help: "Smallest instance as a fraction of the image [0…1) (0.001); smaller are specks."),
        OptionSpec(names: ["--post-process"], valueName: nil,
                   help: "rembg's mask post-processing: morphological open, blur, re-threshold (binary)."),
        OptionSpec(names: ["--alpha-matting"], valueName: nil,
                   help: "rembg's alpha matting (-a): closed-form matting over the mask's uncertain band and\nthe foreground's own colours there; finer hair and fur edges. Cutouts only."),
        OptionSpec(names: ["--alpha-matting-foreground-threshold"], valueName: "0-255",
                   help: "Alpha matting: mask levels above this are sure foreground (240)."),
        OptionSpec(names: ["--alpha-matting-background-threshold"], valueName: "0-255",
                   help: "Alpha matting: mask levels below this are sure background (10)."),
        OptionSpec(names: ["--alpha-matting-erode-size"], valueName: "PX",
                   help: "Alpha matting: the sure regions are eroded by a square of this side (10)."),
        OptionSpec(names: ["--decontaminate"], valueName: nil,
                   help: "rembg's -dc: the subject's colours are the foreground estimated under the mask\n(pymatting's multi-level method), so soft edges lose the background's fringe.\nCutouts and composites; with --alpha-matting, where matting cannot run."),
        OptionSpec(names: ["--format"], valueName: "FMT",
                   help: "png, jpeg or webp (default: from the output's extension, else png). JPEG has no\nalpha: use it for masks and opaque composites."),
        OptionSpec(names: ["--png-compression"], valueName: "fast|0-9",
                   help: "PNG compression: fast (default: run-length deflate, zlib level 1 for gray photos;\n~1/7 of level 6's time, files about as small) or a zlib level, 0 stored … 9 smallest\n(6 = libpng's and Pillow's default)."),
        OptionSpec(names: ["--jpeg-quality"], valueName: "1-100", help: "JPEG quality (90)."),
        OptionSpec(names: ["--webp-quality"], valueName: "0-100",
                   help: "Lossy WebP at this quality (default: lossless WebP, the same pixels as PNG)."),
        BatchOptions.ignoreOrientation,
        BatchOptions.maxPixels,
        BatchOptions.jobs,
        OptionSpec(names: ["--concurrent"], valueName: "N",
                   help: "Batch: photos in the network at the same time (2, or 1 with --threads 1), each\nwith its own activation memory (~120 MB for u2netp), sharing the --threads cores (a\nphoto alone gets them all; the bytes are a single photo's): on two cores 2 gives 10–20 %\nmore photos/s than 1 (PERF.md)."),
        OptionSpec(names: ["--overwrite"], valueName: nil,
                   help: "Batch: redo photos whose output exists (default: skip them, so a rerun resumes)."),
        BatchOptions.shard,
        BatchOptions.shardCount,
        OptionSpec(names: ["--manifest"], valueName: "FILE",
                   help: "Batch: append one JSON line per photo (input, output, status, error,\ninstances, ms)."),
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
            try BatchOptions.refuseBatchFlags(args, also: [("--overwrite", overwrite)])
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
