import Foundation

/// What picture to make of one photo, read from named parameters: `swiftseg infer`'s picture flags and
/// `POST /v1/cutout`'s query, one parser for both (``RequestParameters``), so both make the same bytes from
/// the same words.
///
/// ```swift
/// let p = RequestParameters(values: ["effect": "blur", "blur-radius": "20"], prefix: "")
/// let cutout = try CutoutParameters(p)
/// let pipeline = try cutout.pipeline(format: .png) { try Background(argument: $0) }
/// ```
public struct CutoutParameters: Sendable {
    /// Output (mask, cutout, composite), selection, crop, threshold, minimum area, post-process. A composite's
    /// background is a placeholder until ``pipeline(format:background:)`` resolves ``background``.
    public var lifting = LiftingOptions()
    /// `background` as given: `transparent`, `#RRGGBB`, or (for the CLI) a path.
    public var background: String?
    public var effect: Effect?
    public var encoding = EncodingOptions()
    /// `format` as given; nil = the caller's default (the CLI: the output's extension).
    public var format: ImageFormat?

    /// The parameters a picture takes, in the order `swiftseg infer --help` lists them.
    public enum Parameters {
        public static let mask = Parameter.flag("mask", help: "Write the 8-bit grayscale soft mask (input's size) instead of the cutout.")
        public static let select = Parameter.text("select", "LIST") { _ in
            "Use only these instances (e.g. 1,3) for the mask, cutout, crop and composite."
        }
        public static let point = Parameter.text("point", "X,Y") { _ in
            "Use the instance under this point (normalized 0…1, top-left origin);\non background, all instances."
        }
        public static let crop = Parameter.flag("crop", help: "Crop the output to the chosen instances' extent.")
        public static let background = Parameter.text("background", "BG") { _ in
            "Put the subject on transparent, a #RRGGBB colour or an image (scaled to the\nphoto's size); writes a composite."
        }
        public static let effect = Parameter.text("effect", "EFFECT") { _ in
            "\(Effect.names.joined(separator: " | ")): an effect on the composite."
        }
        public static let darkenEV = Parameter.number("darken-ev", "EV", default: 2, in: 0...20) {
            "darken: stops of exposure taken off the background (\($0))."
        }
        public static let blurRadius = Parameter.number("blur-radius", "PX", default: 12, in: 0...1000) {
            "blur: background blur σ in pixels (\($0))."
        }
        public static let haloRadius = Parameter.number("halo-radius", "PX", default: 16, in: 0...1000) {
            "blur: halo spread σ in pixels (\($0); 0 = no halo)."
        }
        public static let haloStrength = Parameter.number("halo-strength", "F", default: 0.6, in: 0...1) {
            "blur: halo opacity \($1) (\($0))."
        }
        public static let dim = Parameter.number("dim", "F", default: 0.35, in: 0...1) {
            "highlight: brightness kept outside the chosen subjects, \($1) (\($0))."
        }
        public static let outlineWidth = Parameter.number("outline-width", "PX", default: 3, in: 0...100) {
            "highlight: outline width in pixels (\($0); 0 = none)."
        }
        public static let outlineColor = Parameter.text("outline-color", "#RRGGBB", default: "#ffffff") {
            "highlight: outline colour (\($0))."
        }
        public static let previewColor = Parameter.text("preview-color", "#RRGGBB", default: "#00aaff") {
            "mask-preview: the mask's colour (\($0))."
        }
        public static let threshold = Parameter.number("threshold", "T", default: ForegroundInstanceMaskRequest().threshold,
                                                       in: 0.000001...1) {
            "Mask level (0…1] at which a pixel belongs to an instance (\($0))."
        }
        public static let minimumArea = Parameter.number("min-area", "F", default: ForegroundInstanceMaskRequest().minimumArea,
                                                         in: 0...0.999999) {
            "Smallest instance as a fraction of the image [0…1) (\($0)); smaller are specks."
        }
        public static let postProcess = Parameter.flag("post-process",
            help: "rembg's mask post-processing: morphological open, blur, re-threshold (binary).")
        public static let alphaMatting = Parameter.flag("alpha-matting",
            help: "rembg's alpha matting (-a): closed-form matting over the mask's uncertain band and\nthe foreground's own colours there; finer hair and fur edges. Cutouts only.")
        public static let alphaMattingForegroundThreshold = Parameter.integer("alpha-matting-foreground-threshold", "0-255",
                                                                              default: 240, in: 0...255) {
            "Alpha matting: mask levels above this are sure foreground (\($0))."
        }
        public static let alphaMattingBackgroundThreshold = Parameter.integer("alpha-matting-background-threshold", "0-255",
                                                                              default: 10, in: 0...255) {
            "Alpha matting: mask levels below this are sure background (\($0))."
        }
        public static let alphaMattingErodeSize = Parameter.integer("alpha-matting-erode-size", "PX", default: 10, in: 0...1000) {
            "Alpha matting: the sure regions are eroded by a square of this side (\($0))."
        }
        public static let decontaminate = Parameter.flag("decontaminate",
            help: "rembg's -dc: the subject's colours are the foreground estimated under the mask\n(pymatting's multi-level method), so soft edges lose the background's fringe.\nCutouts and composites; with --alpha-matting, where matting cannot run.")
        public static let format = Parameter.text("format", "FMT") { _ in
            "png, jpeg or webp (default: from the output's extension, else png). JPEG has no\nalpha: use it for masks and opaque composites."
        }
        public static let pngCompression = Parameter.text("png-compression", "fast|0-9") { _ in
            "PNG compression: fast (default: run-length deflate, zlib level 1 for gray photos;\n~1/7 of level 6's time, files about as small) or a zlib level, 0 stored … 9 smallest\n(6 = libpng's and Pillow's default)."
        }
        public static let jpegQuality = Parameter.number("jpeg-quality", "1-100", default: Double(EncodingOptions().jpegQuality),
                                                         in: 1...100) {
            "JPEG quality (\($0))."
        }
        public static let webpQuality = Parameter.number("webp-quality", "0-100", default: nil, in: 0...100) { _ in
            "Lossy WebP at this quality (default: lossless WebP, the same pixels as PNG)."
        }

        public static let all = [mask, select, point, crop, background, effect, darkenEV, blurRadius, haloRadius, haloStrength,
                                 dim, outlineWidth, outlineColor, previewColor, threshold, minimumArea, postProcess, alphaMatting,
                                 alphaMattingForegroundThreshold, alphaMattingBackgroundThreshold, alphaMattingErodeSize,
                                 decontaminate, format, pngCompression, jpegQuality, webpQuality]
    }

    public init(_ p: RequestParameters) throws {
        typealias P = Parameters
        lifting.crop = try p.flag(P.crop)
        lifting.request.postProcess = try p.flag(P.postProcess)
        lifting.request.threshold = try p.number(P.threshold)
        lifting.request.minimumArea = try p.number(P.minimumArea)
        background = p.text(P.background)
        if let text = p.text(P.pngCompression) {
            guard let compression = PNGCompression(text) else {
                throw SwiftsegError(.badRequest, "\(p.label(P.pngCompression.name)) expects fast or a level 0…9, got '\(text)'")
            }
            encoding.pngCompression = compression
        }
        encoding.jpegQuality = Int(try p.number(P.jpegQuality) as Double)
        encoding.webpQuality = try (p.number(P.webpQuality) as Double?).map { Int($0) }
        if let name = p.text(P.format) {
            guard let f = ImageFormat.writable.first(where: { $0.extensions.contains(name.lowercased()) }) else {
                let names = ImageFormat.writable.map(\.rawValue).joined(separator: ", ")
                throw SwiftsegError(.badRequest, "\(p.label(P.format.name)) must be one of \(names), got '\(name)'")
            }
            format = f
        }
        lifting.selection = try Self.selection(p)
        effect = try Self.effect(p)
        if let bg = background, bg.hasPrefix("#") { _ = try Self.color(bg) }
        if background == "transparent" && effect != nil {
            throw SwiftsegError(.badRequest, "effects need an opaque background (the photo's, a colour or an image), not transparent")
        }
        lifting.alphaMatting = try Self.alphaMatting(p)
        let wantsMask = try p.flag(P.mask)
        let (mask, backgroundName, effectName) = (p.label(P.mask.name), p.label(P.background.name), p.label(P.effect.name))
        if lifting.alphaMatting != nil && (wantsMask || effect != nil || background != nil) {
            throw SwiftsegError(.badRequest, "\(p.label(P.alphaMatting.name)) makes the cutout; it cannot be combined with \(mask), \(backgroundName) or \(effectName)")
        }
        if try p.flag(P.decontaminate) {
            if wantsMask {
                throw SwiftsegError(.badRequest, "\(p.label(P.decontaminate.name)) sets the cutout's colours; a mask (\(mask)) has none")
            }
            lifting.decontamination = Decontamination()
        }
        if wantsMask {
            if effect != nil || background != nil {
                throw SwiftsegError(.badRequest, "\(mask) writes the mask; it cannot be combined with \(backgroundName) or \(effectName)")
            }
            lifting.output = .mask
        } else if effect != nil || background != nil {
            lifting.output = .composite(background: .original, effect: effect)  // background resolved by pipeline()
        }
    }

    /// The library's pipeline for these parameters, the picture in `format`, with ``background`` turned into
    /// a ``Background`` by `resolve` (the CLI reads a path; the service takes colours only).
    public func pipeline(format: ImageFormat, background resolve: (String) throws -> Background) throws -> SubjectLiftingPipeline {
        var pipeline = SubjectLiftingPipeline()
        pipeline.lifting = lifting
        if case .composite = pipeline.lifting.output {
            let resolved = try background.map { try resolve($0) } ?? .original
            pipeline.lifting.output = .composite(background: resolved, effect: effect)
        }
        pipeline.format = format
        pipeline.encoding = encoding
        return pipeline
    }

    /// rembg's `-a` and its three settings (rembg's names and defaults); the settings need the flag.
    private static func alphaMatting(_ p: RequestParameters) throws -> AlphaMatting? {
        typealias P = Parameters
        let settings = [P.alphaMattingForegroundThreshold, P.alphaMattingBackgroundThreshold, P.alphaMattingErodeSize]
        guard try p.flag(P.alphaMatting) else {
            if let given = settings.first(where: { p.value($0.name) != nil }) {
                throw SwiftsegError(.badRequest, "\(p.label(given.name)) goes with \(p.label(P.alphaMatting.name))")
            }
            return nil
        }
        return AlphaMatting(foregroundThreshold: try p.integer(settings[0]), backgroundThreshold: try p.integer(settings[1]),
                            erodeSize: try p.integer(settings[2]))
    }

    private static func selection(_ p: RequestParameters) throws -> LiftingOptions.Selection {
        let (select, point) = (p.label(Parameters.select.name), p.label(Parameters.point.name))
        switch (p.text(Parameters.select), p.text(Parameters.point)) {
        case (.some, .some): throw SwiftsegError(.badRequest, "use \(select) or \(point), not both")
        case (let list?, nil):
            let parts = list.split(separator: ",", omittingEmptySubsequences: false)
            let indices = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, indices.count == parts.count, indices.allSatisfy({ $0 >= 1 }) else {
                throw SwiftsegError(.badRequest, "\(select) expects instance numbers like 1,3, got '\(list)'")
            }
            return .instances(indices)
        case (nil, let text?):
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 else {
                throw SwiftsegError(.badRequest, "\(point) expects X,Y (normalized, e.g. 0.5,0.4), got '\(text)'")
            }
            let normalized = NormalizedPoint(x: parts[0], y: parts[1])
            guard normalized.isInUnitSquare else {
                throw SwiftsegError(.badRequest, "\(point) \(text) is outside the image: X and Y must be between 0 and 1")
            }
            return .point(normalized)
        case (nil, nil): return .all
        }
    }

    private static func effect(_ p: RequestParameters) throws -> Effect? {
        typealias P = Parameters
        guard let name = p.text(P.effect) else { return nil }
        switch name {
        case "darken": return .darken(ev: try p.number(P.darkenEV))
        case "blur":
            return .blur(radius: try p.number(P.blurRadius), haloRadius: try p.number(P.haloRadius),
                         haloStrength: try p.number(P.haloStrength))
        case "highlight":
            return .highlight(dim: try p.number(P.dim), outlineWidth: Int(try p.number(P.outlineWidth) as Double),
                              outlineColor: try color(p.text(P.outlineColor)!))
        case "mask-preview":
            return .maskPreview(color: try color(p.text(P.previewColor)!))
        default:
            throw SwiftsegError(.badRequest, "\(p.label(P.effect.name)) must be one of \(Effect.names.joined(separator: ", ")), got '\(name)'")
        }
    }

    private static func color(_ text: String) throws -> RGB {
        do { return try RGB(hex: text) } catch { throw SwiftsegError(error) }
    }
}
