import Swiftseg

/// `swiftseg infer`'s flags turned into library values, all validated before any work starts.
struct InferOptions {
    var input: String
    var output: String
    var mask: Bool
    var instancesPath: String?
    var saliencyPath: String?
    var json: Bool
    var selection: Selection
    var crop: Bool
    var background: String?
    var effect: Effect?
    var request = ForegroundInstanceMaskRequest()
    var threads: Int

    enum Selection {
        case everything
        case instances([Int])
        case point(NormalizedPoint)
    }

    static let specs: [OptionSpec] = [
        OptionSpec(names: ["-o", "--output"], valueName: "PATH",
                   help: "Output PNG, or - for standard output. Default: beside the input,\n<name>.cutout.png (.mask.png with --mask, .composite.png with --background/--effect);\n- when the input is -."),
        OptionSpec(names: ["--mask"], valueName: nil,
                   help: "Write the 8-bit grayscale soft mask (input's size) instead of the cutout."),
        OptionSpec(names: ["--instances"], valueName: "PATH",
                   help: "Also write the instance label map: gray PNG, 0 = background, 1…N = instances\n(8-bit, or 16-bit when N > 255)."),
        OptionSpec(names: ["--saliency"], valueName: "PATH",
                   help: "Also write the saliency heat map (raw network confidence × 255, input's size)."),
        OptionSpec(names: ["--json"], valueName: nil,
                   help: "Print a JSON report on standard output: size, model, threshold, instances\n(index, bounds, normalizedBounds, area, score), timings."),
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
    ]

    init(_ args: ParsedArguments) throws {
        guard args.positionals.count == 1 else {
            throw CLIError.usage(args.positionals.isEmpty ? "infer needs an input image (see 'swiftseg infer --help')"
                                                          : "infer takes one input, got \(args.positionals.count)")
        }
        input = args.positionals[0]
        mask = args.has("--mask")
        instancesPath = args.value("--instances")
        saliencyPath = args.value("--saliency")
        json = args.has("--json")
        crop = args.has("--crop")
        background = args.value("--background")
        threads = try ModelOptions.threads(args)
        request.postProcess = args.has("--post-process")
        request.threshold = try Self.number(args, "--threshold", default: 0.5, in: 0.000001...1)
        request.minimumArea = try Self.number(args, "--min-area", default: 0.001, in: 0...0.999999)

        switch (args.value("--select"), args.value("--point")) {
        case (.some, .some): throw CLIError.usage("use --select or --point, not both")
        case (let list?, nil):
            let parts = list.split(separator: ",", omittingEmptySubsequences: false)
            let indices = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, indices.count == parts.count, indices.allSatisfy({ $0 >= 1 }) else {
                throw CLIError.usage("--select expects instance numbers like 1,3, got '\(list)'")
            }
            selection = .instances(indices)
        case (nil, let text?):
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 else { throw CLIError.usage("--point expects X,Y (normalized, e.g. 0.5,0.4), got '\(text)'") }
            let point = NormalizedPoint(x: parts[0], y: parts[1])
            guard point.isInUnitSquare else {
                throw CLIError.usage("--point \(text) is outside the image: X and Y must be between 0 and 1")
            }
            selection = .point(point)
        case (nil, nil): selection = .everything
        }

        if let name = args.value("--effect") {
            switch name {
            case "darken": effect = .darken(ev: try Self.number(args, "--darken-ev", default: 2, in: 0...20))
            case "blur":
                effect = .blur(radius: try Self.number(args, "--blur-radius", default: 12, in: 0...1000),
                               haloRadius: try Self.number(args, "--halo-radius", default: 16, in: 0...1000),
                               haloStrength: try Self.number(args, "--halo-strength", default: 0.6, in: 0...1))
            case "highlight":
                effect = .highlight(dim: try Self.number(args, "--dim", default: 0.35, in: 0...1),
                                    outlineWidth: Int(try Self.number(args, "--outline-width", default: 3, in: 0...100)),
                                    outlineColor: try Self.color(args, "--outline-color", default: .white))
            case "mask-preview":
                effect = .maskPreview(color: try Self.color(args, "--preview-color", default: RGB(0, 170, 255)))
            default:
                throw CLIError.usage("--effect must be one of \(Effect.names.joined(separator: ", ")), got '\(name)'")
            }
        }
        if let bg = background, bg.hasPrefix("#") { _ = try Self.color(bg) }
        if mask && (effect != nil || background != nil) {
            throw CLIError.usage("--mask writes the mask; it cannot be combined with --background or --effect")
        }
        let composite = effect != nil || background != nil
        output = args.value("--output") ?? Self.defaultOutput(for: input, suffix: mask ? "mask" : composite ? "composite" : "cutout")
        if json && output == "-" { throw CLIError.usage("--json prints on standard output; give -o a file") }
    }

    static func number(_ args: ParsedArguments, _ name: String, default value: Double, in range: ClosedRange<Double>) throws -> Double {
        guard let text = args.value(name) else { return value }
        guard let v = Double(text), range.contains(v) else {
            throw CLIError.usage("\(name) expects a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return v
    }

    static func color(_ args: ParsedArguments, _ name: String, default value: RGB) throws -> RGB {
        guard let text = args.value(name) else { return value }
        return try color(text)
    }

    static func color(_ text: String) throws -> RGB {
        do { return try RGB(hex: text) } catch let e as SubjectLiftingError { throw CLIError.usage(e.description) }
    }

    static func defaultOutput(for input: String, suffix: String) -> String {
        if input == "-" { return "-" }
        let url = URL(fileURLWithPath: input)
        return url.deletingPathExtension().path + ".\(suffix).png"
    }
}

import Foundation
