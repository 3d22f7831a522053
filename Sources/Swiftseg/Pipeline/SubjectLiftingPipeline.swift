import Dispatch

/// One photo in, its files and report out: what `swiftseg infer` does for each photo and what a server does
/// for each request, as one value, so that both give the same bytes for the same options. Two steps, so a
/// batch can overlap them: ``lift(_:with:)`` runs the network and renders (on the thread that owns the
/// segmenter), ``encode(_:)`` makes the files (on any thread).
///
/// ```swift
/// var pipeline = SubjectLiftingPipeline()
/// pipeline.lifting.output = .mask
/// pipeline.instanceMap = true
/// let lifted = try pipeline.lift(photo, with: segmenter)
/// let files = try pipeline.encode(lifted)          // files.image: the mask as PNG; files.instanceMap: labels
/// let report = pipeline.report(for: lifted, input: "photo.jpg", model: segmenter.model.name)
/// ```
///
/// Errors come out as ``SwiftsegError``, sorted by kind.
public struct SubjectLiftingPipeline: Sendable {
    /// Which picture (cutout, mask, composite), of which subjects, cropped or not, and the request's
    /// threshold and minimum area.
    public var lifting = LiftingOptions()
    /// The picture's file format and encoder settings.
    public var format = ImageFormat.png
    public var encoding = EncodingOptions()
    /// Also encode the instance label map (gray PNG: 8-bit, or 16-bit over 255 instances).
    public var instanceMap = false
    /// Also encode the saliency heat map, in this format.
    public var saliencyMap: ImageFormat? = nil

    public init() {}

    /// The encoded outputs of one photo.
    public struct Files: Sendable {
        /// The picture ``lifting`` asks for.
        public let image: [UInt8]
        public let instanceMap: [UInt8]?
        public let saliencyMap: [UInt8]?
        /// Time spent encoding them.
        public let encodeMs: Double
    }

    /// Runs the network once on `photo` and renders the picture (``Segmenter/lift(_:options:)``).
    public func lift(_ photo: Image, with segmenter: Segmenter) throws -> LiftedSubject {
        do { return try segmenter.lift(photo, options: lifting) } catch { throw SwiftsegError(error) }
    }

    /// Encodes the picture and, if asked, the label map and the saliency map. `parts`: threads to share the
    /// picture's encoding with (a segmenter's ``Segmenter/parts``, on the thread that runs it; the same bytes
    /// either way).
    public func encode(_ lifted: LiftedSubject, parts: ParallelParts = .serial) throws -> Files {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let observation = lifted.observation
            let image = try lifted.image.encoded(as: format, options: encoding, parts: parts)
            let labels = instanceMap ? try observation.instanceMask.pngData(compression: encoding.pngCompression) : nil
            let saliency = try saliencyMap.map {
                try observation.saliency.heatMap(width: observation.width, height: observation.height)
                    .encoded(as: $0, options: encoding)
            }
            return Files(image: image, instanceMap: labels, saliencyMap: saliency,
                         encodeMs: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        } catch {
            throw SwiftsegError(error)
        }
    }

    /// Where the time went for one photo, by step (milliseconds): preprocess, network, postprocess, instances
    /// and render, plus `decode` and `encode` when given.
    public static func timingsMs(_ lifted: LiftedSubject, decodeMs: Double? = nil, encodeMs: Double? = nil) -> [String: Double] {
        let t = lifted.observation.timings
        var timings = ["preprocess": t.preprocessMs, "network": t.networkMs, "postprocess": t.postprocessMs,
                       "instances": t.instancesMs, "render": lifted.renderMs]
        if let decodeMs { timings["decode"] = decodeMs }
        if let encodeMs { timings["encode"] = encodeMs }
        return timings
    }

    /// The `--json` report for one photo (``SubjectReport``), `model` naming the network.
    public func report(for lifted: LiftedSubject, input: String?, model: String,
                       timingsMs: [String: Double]) -> SubjectReport {
        SubjectReport(input: input, observation: lifted.observation, model: model,
                      minArea: lifting.request.minimumArea, selected: lifted.chosen, timingsMs: timingsMs)
    }
}
