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
    /// `--background` as given (a path is decoded once the photo is, so a bad one fails like a bad photo).
    var background: String?
    var effect: Effect?
    var lifting = LiftingOptions()
    var encoding = EncodingOptions()
    /// The output format; nil = from the output's extension (PNG when it has none).
    var format: ImageFormat?
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
                   help: "Output file (.png or .jpg), or - for standard output; for a batch, the output\nfolder (sub-folders mirror the inputs'). Default: beside the input, <name>.cutout.png\n(.mask.png with --mask, .composite.png with --background/--effect); - when the input is -."),
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
        OptionSpec(names: ["--format"], valueName: "FMT",
                   help: "png or jpeg (default: from the output's extension, else png). JPEG has no alpha:\nuse it for masks and opaque composites."),
        OptionSpec(names: ["--png-compression"], valueName: "fast|0-9",
                   help: "PNG compression: fast (default: zlib run-length, level 1 for gray photos; ~1/6 of\nlevel 6's time, files about as small) or a zlib level, 0 stored … 9 smallest\n(6 = libpng's and Pillow's default)."),
        OptionSpec(names: ["--jpeg-quality"], valueName: "1-100", help: "JPEG quality (90)."),
        BatchOptions.ignoreOrientation,
        BatchOptions.maxPixels,
        BatchOptions.jobs,
        OptionSpec(names: ["--concurrent"], valueName: "N",
                   help: "Batch: photos in the network at the same time (2, or 1 with --threads 1), the\nthreads split between them (5 over 2: 3 and 2), each with its own activation memory\n(~110 MB for u2netp): on two cores 2 gives 10–20 % more photos/s than 1 (PERF.md)."),
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
        background = args.value("--background")
        threads = try ModelOptions.threads(args)
        lifting.crop = args.has("--crop")
        lifting.request.postProcess = args.has("--post-process")
        lifting.request.threshold = try args.number("--threshold", default: 0.5, in: 0.000001...1)
        lifting.request.minimumArea = try args.number("--min-area", default: 0.001, in: 0...0.999999)
        batch = try BatchOptions.Settings(args, threads: threads)
        if let text = args.value("--png-compression") {
            guard let compression = PNGCompression(text) else {
                throw CLIError.usage("--png-compression expects fast or a level 0…9, got '\(text)'")
            }
            encoding.pngCompression = compression
        }
        encoding.jpegQuality = Int(try args.number("--jpeg-quality", default: 90, in: 1...100))
        if let name = args.value("--format") {
            guard let f = ImageFormat(rawValue: name == "jpg" ? "jpeg" : name) else {
                throw CLIError.usage("--format must be png or jpeg, got '\(name)'")
            }
            format = f
        }
        overwrite = args.has("--overwrite")

        switch (args.value("--select"), args.value("--point")) {
        case (.some, .some): throw CLIError.usage("use --select or --point, not both")
        case (let list?, nil):
            let parts = list.split(separator: ",", omittingEmptySubsequences: false)
            let indices = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, indices.count == parts.count, indices.allSatisfy({ $0 >= 1 }) else {
                throw CLIError.usage("--select expects instance numbers like 1,3, got '\(list)'")
            }
            lifting.selection = .instances(indices)
        case (nil, let text?):
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 else { throw CLIError.usage("--point expects X,Y (normalized, e.g. 0.5,0.4), got '\(text)'") }
            let point = NormalizedPoint(x: parts[0], y: parts[1])
            guard point.isInUnitSquare else {
                throw CLIError.usage("--point \(text) is outside the image: X and Y must be between 0 and 1")
            }
            lifting.selection = .point(point)
        case (nil, nil): lifting.selection = .all
        }

        if let name = args.value("--effect") {
            switch name {
            case "darken": effect = .darken(ev: try args.number("--darken-ev", default: 2, in: 0...20))
            case "blur":
                effect = .blur(radius: try args.number("--blur-radius", default: 12, in: 0...1000),
                               haloRadius: try args.number("--halo-radius", default: 16, in: 0...1000),
                               haloStrength: try args.number("--halo-strength", default: 0.6, in: 0...1))
            case "highlight":
                effect = .highlight(dim: try args.number("--dim", default: 0.35, in: 0...1),
                                    outlineWidth: Int(try args.number("--outline-width", default: 3, in: 0...100)),
                                    outlineColor: try Self.color(args, "--outline-color", default: .white))
            case "mask-preview":
                effect = .maskPreview(color: try Self.color(args, "--preview-color", default: RGB(0, 170, 255)))
            default:
                throw CLIError.usage("--effect must be one of \(Effect.names.joined(separator: ", ")), got '\(name)'")
            }
        }
        if let bg = background, bg.hasPrefix("#") { _ = try Self.color(bg) }
        if background == "transparent" && effect != nil {
            throw CLIError.usage("effects need an opaque background (the photo's, a colour or an image), not transparent")
        }
        if args.has("--mask") {
            if effect != nil || background != nil {
                throw CLIError.usage("--mask writes the mask; it cannot be combined with --background or --effect")
            }
            lifting.output = .mask
        } else if effect != nil || background != nil {
            lifting.output = .composite(background: .original, effect: effect)  // background filled in once decoded
        }

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
            let defaultExtension = format == .jpeg ? "jpg" : "png"
            output = args.value("--output") ?? Self.defaultOutput(for: inputs[0], suffix: Self.suffix(for: lifting.output),
                                                                   fileExtension: defaultExtension)
            if json && output == "-" { throw CLIError.usage("--json prints on standard output; give -o a file") }
            try BatchOptions.refuseBatchFlags(args, also: [("--overwrite", overwrite)])
        }
    }

    /// The output format for `path`: --format, else the extension, else PNG.
    func format(for path: String) -> ImageFormat { format ?? ImageFormat(path: path) ?? .png }

    static func color(_ args: ParsedArguments, _ name: String, default value: RGB) throws -> RGB {
        guard let text = args.value(name) else { return value }
        return try color(text)
    }

    static func color(_ text: String) throws -> RGB {
        do { return try RGB(hex: text) } catch let e as SubjectLiftingError { throw CLIError.usage(e.description) }
    }

    static func defaultOutput(for input: String, suffix: String, fileExtension: String) -> String {
        if input == "-" { return "-" }
        let url = URL(fileURLWithPath: input)
        return url.deletingPathExtension().path + ".\(suffix).\(fileExtension)"
    }
}

import Foundation
