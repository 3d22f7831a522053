import Dispatch
import Foundation

/// One photo through rectangle detection, as the CLI and a server run it: detect, then what to show of it —
/// the report, the photo with the quads drawn, the perspective-corrected crops.
///
/// ```swift
/// let result = try RectanglesPipeline.detect(photo, request: DetectRectanglesRequest(maximumObservations: 0))
/// let json = try result.report(input: "card.jpg").jsonData()
/// let crops = result.extracts(from: photo)          // one upright image per rectangle, best first
/// ```
public enum RectanglesPipeline {
    public static func detect(_ photo: Image, request: DetectRectanglesRequest,
                              decodeMs: Double? = nil) throws -> RectanglesResult {
        try detect(ReducedImage(photo), request: request, decodeMs: decodeMs)
    }

    /// The same on a photo decoded reduced (`decode(_:name:options:wantsFull:)`); the result is in the full photo's pixels.
    public static func detect(_ photo: ReducedImage, request: DetectRectanglesRequest,
                              decodeMs: Double? = nil) throws -> RectanglesResult {
        let start = DispatchTime.now().uptimeNanoseconds
        let observations = try request.perform(on: photo)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        return RectanglesResult(width: photo.fullWidth, height: photo.fullHeight, observations: observations,
                                timingsMs: ["detect": ms]).addingDecodeTime(decodeMs)
    }

    /// A photo decoded for detection: `reduced` as far as detection needs (a large JPEG at a reduced DCT
    /// scale), and `full`, the whole photo, when crops or a drawing are wanted.
    public struct DecodedPhoto: Sendable {
        public let reduced: ReducedImage
        public let full: Image?
    }

    /// `bytes` decoded for detection; with `wantsFull` the whole photo as well, decoded a second time only when
    /// the first decode was reduced.
    public static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              wantsFull: Bool) throws -> DecodedPhoto {
        let reduced = try ReducedImage(encoded: bytes, name: name, options: options,
                                       minimumLongerSide: DetectRectanglesRequest.photoSide)
        guard wantsFull else { return DecodedPhoto(reduced: reduced, full: nil) }
        let full = reduced.denominator == 1 ? reduced.image : try Image(encoded: bytes, name: name, options: options)
        return DecodedPhoto(reduced: reduced, full: full)
    }

    /// `image` encoded as `path`'s extension names (.png, .jpg, .webp), alpha dropped for JPEG: a crop of a photo
    /// with alpha keeps it in PNG and WebP, and JPEG has none to keep.
    public static func encoded(_ image: Image, forPath path: String) throws -> [UInt8] {
        guard let format = ImageFormat(path: path), format.isWritable else {
            throw SwiftsegError(.badRequest, "\(path): name a \(ImageFormat.writableExtensions) file")
        }
        return try (format == .jpeg && image.hasAlpha ? image.rgb() : image).encoded(as: format)
    }

    /// Where the crops of `count` rectangles go for `--extract PATH`: PATH itself for one, `stem-1.ext`,
    /// `stem-2.ext` … for several.
    public static func extractPaths(_ path: String, count: Int) -> [String] {
        if count == 1 { return [path] }
        let ns = path as NSString
        let stem = ns.deletingPathExtension, ext = ns.pathExtension
        return (0..<count).map { ext.isEmpty ? "\(stem)-\($0 + 1)" : "\(stem)-\($0 + 1).\(ext)" }
    }
}

/// What detection found in one photo.
public struct RectanglesResult: Sendable {
    public let width: Int
    public let height: Int
    public let observations: [RectangleObservation]
    public let timingsMs: [String: Double]

    /// The same with the photo's decoding time among the timings (`decode`; none for nil): a batch decodes its
    /// photos apart from detecting in them.
    public func addingDecodeTime(_ decodeMs: Double?) -> RectanglesResult {
        guard let decodeMs else { return self }
        return RectanglesResult(width: width, height: height, observations: observations,
                                timingsMs: timingsMs.merging(["decode": decodeMs]) { $1 })
    }

    public func report(input: String?) -> RectanglesReport {
        RectanglesReport(input: input, width: width, height: height, rectangles: observations.map {
            RectanglesReport.Rectangle($0, width: width, height: height)
        }, timingsMs: timingsMs)
    }

    /// The photo (as RGB) with each quad outlined (yellow for the best, cyan for the rest) and a dot on its
    /// top-left corner; line width scaled with the photo.
    public func drawn(on photo: Image) -> Image {
        var out = photo.rgb()
        let lineWidth = max(2, Double(min(width, height)) / 200)
        for (i, o) in observations.enumerated().reversed() {
            let quad = o.pixelCorners(width: width, height: height).points
            let color: (UInt8, UInt8, UInt8) = i == 0 ? (255, 214, 0) : (0, 200, 255)
            Drawing.strokePolygon(quad, on: &out, lineWidth: lineWidth, color: color)
            Drawing.fillDisc(center: quad[0], radius: lineWidth * 2, on: &out, color: color)
        }
        return out  // rgb() kept the photo's profile
    }

    /// Each rectangle's content, upright (`RectangleObservation.perspectiveCorrected(from:)`), best first.
    public func extracts(from photo: Image) -> [Image] {
        observations.compactMap { $0.perspectiveCorrected(from: photo)?.withProfile(photo.iccProfile) }
    }
}

/// `swiftseg rectangles --json`: normalized corners with Vision's bottom-left origin, and the same corners in
/// pixels with a top-left origin.
///
///     {"input": "card.jpg", "width": 640, "height": 480, "rectangles": [{"topLeft": {"x": 0.2, "y": 0.8}, …,
///      "boundingBox": {"x", "y", "width", "height"}, "confidence": 0.97,
///      "pixelCorners": {"topLeft": {"x": 128.4, "y": 96.1}, …}}], "timingsMs": {"detect": 9.1}}
public struct RectanglesReport: JSONReport, Sendable {
    public struct Rectangle: Encodable, Sendable {
        public var topLeft: VisionPoint, topRight: VisionPoint, bottomRight: VisionPoint, bottomLeft: VisionPoint
        public var boundingBox: NormalizedRect
        public var confidence: Double
        public var pixelCorners: PixelQuad

        public init(_ o: RectangleObservation, width: Int, height: Int) {
            topLeft = o.topLeft; topRight = o.topRight; bottomRight = o.bottomRight; bottomLeft = o.bottomLeft
            boundingBox = o.boundingBox
            confidence = o.confidence
            pixelCorners = o.pixelCorners(width: width, height: height)
        }
    }

    public var input: String?
    public var width: Int
    public var height: Int
    public var rectangles: [Rectangle]
    public var timingsMs: [String: Double]
}
