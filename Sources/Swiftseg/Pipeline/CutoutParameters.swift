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

    /// Every name this reads.
    public static let names = ["mask", "crop", "select", "point", "background", "effect", "darken-ev", "blur-radius",
                               "halo-radius", "halo-strength", "dim", "outline-width", "outline-color",
                               "preview-color", "threshold", "min-area", "post-process", "format",
                               "png-compression", "jpeg-quality", "webp-quality", "alpha-matting", "alpha-matting-foreground-threshold",
                               "alpha-matting-background-threshold", "alpha-matting-erode-size", "decontaminate"]

    public init(_ p: RequestParameters) throws {
        lifting.crop = try p.flag("crop")
        lifting.request.postProcess = try p.flag("post-process")
        lifting.request.threshold = try p.number("threshold", default: 0.5, in: 0.000001...1)
        lifting.request.minimumArea = try p.number("min-area", default: 0.001, in: 0...0.999999)
        background = p.value("background")
        if let text = p.value("png-compression") {
            guard let compression = PNGCompression(text) else {
                throw SwiftsegError(.badRequest, "\(p.label("png-compression")) expects fast or a level 0…9, got '\(text)'")
            }
            encoding.pngCompression = compression
        }
        encoding.jpegQuality = Int(try p.number("jpeg-quality", default: 90, in: 1...100))
        if p.value("webp-quality") != nil {
            encoding.webpQuality = Int(try p.number("webp-quality", default: 0, in: 0...100))
        }
        if let name = p.value("format") {
            guard let f = ImageFormat.writable.first(where: { $0.extensions.contains(name.lowercased()) }) else {
                let names = ImageFormat.writable.map(\.rawValue).joined(separator: ", ")
                throw SwiftsegError(.badRequest, "\(p.label("format")) must be one of \(names), got '\(name)'")
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
        let wantsMask = try p.flag("mask")
        if lifting.alphaMatting != nil && (wantsMask || effect != nil || background != nil) {
            throw SwiftsegError(.badRequest, "\(p.label("alpha-matting")) makes the cutout; it cannot be combined with \(p.label("mask")), \(p.label("background")) or \(p.label("effect"))")
        }
        if try p.flag("decontaminate") {
            if wantsMask {
                throw SwiftsegError(.badRequest, "\(p.label("decontaminate")) sets the cutout's colours; a mask (\(p.label("mask"))) has none")
            }
            lifting.decontamination = Decontamination()
        }
        if wantsMask {
            if effect != nil || background != nil {
                throw SwiftsegError(.badRequest, "\(p.label("mask")) writes the mask; it cannot be combined with \(p.label("background")) or \(p.label("effect"))")
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
        let settings = ["alpha-matting-foreground-threshold", "alpha-matting-background-threshold", "alpha-matting-erode-size"]
        guard try p.flag("alpha-matting") else {
            if let given = settings.first(where: { p.value($0) != nil }) {
                throw SwiftsegError(.badRequest, "\(p.label(given)) goes with \(p.label("alpha-matting"))")
            }
            return nil
        }
        return AlphaMatting(foregroundThreshold: try p.integer(settings[0], default: 240, in: 0...255),
                            backgroundThreshold: try p.integer(settings[1], default: 10, in: 0...255),
                            erodeSize: try p.integer(settings[2], default: 10, in: 0...1000))
    }

    private static func selection(_ p: RequestParameters) throws -> LiftingOptions.Selection {
        switch (p.value("select"), p.value("point")) {
        case (.some, .some): throw SwiftsegError(.badRequest, "use \(p.label("select")) or \(p.label("point")), not both")
        case (let list?, nil):
            let parts = list.split(separator: ",", omittingEmptySubsequences: false)
            let indices = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, indices.count == parts.count, indices.allSatisfy({ $0 >= 1 }) else {
                throw SwiftsegError(.badRequest, "\(p.label("select")) expects instance numbers like 1,3, got '\(list)'")
            }
            return .instances(indices)
        case (nil, let text?):
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2 else {
                throw SwiftsegError(.badRequest, "\(p.label("point")) expects X,Y (normalized, e.g. 0.5,0.4), got '\(text)'")
            }
            let point = NormalizedPoint(x: parts[0], y: parts[1])
            guard point.isInUnitSquare else {
                throw SwiftsegError(.badRequest, "\(p.label("point")) \(text) is outside the image: X and Y must be between 0 and 1")
            }
            return .point(point)
        case (nil, nil): return .all
        }
    }

    private static func effect(_ p: RequestParameters) throws -> Effect? {
        guard let name = p.value("effect") else { return nil }
        switch name {
        case "darken": return .darken(ev: try p.number("darken-ev", default: 2, in: 0...20))
        case "blur":
            return .blur(radius: try p.number("blur-radius", default: 12, in: 0...1000),
                         haloRadius: try p.number("halo-radius", default: 16, in: 0...1000),
                         haloStrength: try p.number("halo-strength", default: 0.6, in: 0...1))
        case "highlight":
            return .highlight(dim: try p.number("dim", default: 0.35, in: 0...1),
                              outlineWidth: Int(try p.number("outline-width", default: 3, in: 0...100)),
                              outlineColor: try p.value("outline-color").map(color) ?? .white)
        case "mask-preview":
            return .maskPreview(color: try p.value("preview-color").map(color) ?? RGB(0, 170, 255))
        default:
            throw SwiftsegError(.badRequest, "\(p.label("effect")) must be one of \(Effect.names.joined(separator: ", ")), got '\(name)'")
        }
    }

    private static func color(_ text: String) throws -> RGB {
        do { return try RGB(hex: text) } catch { throw SwiftsegError(error) }
    }
}
