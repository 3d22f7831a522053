import Dispatch
import Swiftseg

/// `POST /v1/cutout` (the picture, as `swiftseg infer` makes it) and `POST /v1/subjects` (`infer --json`'s
/// report). Query parameters are infer's flags without the dashes (`?mask=1`, `?effect=blur&blur-radius=20`),
/// with the same defaults; the image is the raw body or the multipart field `file`.
enum CutoutRoutes {
    static let routes = [
        Route(method: "POST", path: "/v1/cutout", usesLane: true, handle: cutout),
        Route(method: "POST", path: "/v1/subjects", usesLane: true, handle: subjects),
    ]

    /// What subjects' report depends on (the picture's options make no difference to it).
    static let subjectNames = {
        typealias P = CutoutParameters.Parameters
        return [P.threshold, P.minimumArea, P.postProcess, P.select, P.point].names
    }()

    static func cutout(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        let parameters = try context.parameters(request, known: CutoutParameters.Parameters.all.names)
        let bytes = try context.imageBytes(request)
        let accepted = RouteContext.preferredFormat(accept: request.head.header("accept"))
        let (pipeline, format) = try Self.pipeline(parameters, service: context.service, format: accepted)
        let files = try context.onLane { lane in
            try pipeline.encode(try pipeline.lift(try context.decode(bytes), with: lane.segmenter), parts: lane.segmenter.parts)
        }
        return RouteContext.image(files.image, format: format)
    }

    static func subjects(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        let parameters = try context.parameters(request, known: subjectNames)
        let bytes = try context.imageBytes(request)
        var (pipeline, _) = try Self.pipeline(parameters, service: context.service)
        pipeline.lifting.output = .mask  // the report is the same whatever the picture; the mask is the cheapest
        let report = try context.onLane { lane in
            let start = DispatchTime.now().uptimeNanoseconds
            let photo = try context.decode(bytes)
            let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            let lifted = try pipeline.lift(photo, with: lane.segmenter)
            return pipeline.report(for: lifted, input: nil, model: context.service.saliencyModelName,
                                   timingsMs: SubjectLiftingPipeline.timingsMs(lifted, decodeMs: decodeMs))
        }
        return .json(try report.jsonData())
    }

    /// infer's pipeline for these parameters: the `format` parameter's format, else `format` (what the
    /// request's Accept header prefers), else PNG; a background is `transparent` or a colour (the server opens
    /// no files); alpha matting within --max-matting-pixels.
    static func pipeline(_ parameters: RequestParameters, service: Service,
                         format accepted: ImageFormat? = nil) throws -> (SubjectLiftingPipeline, ImageFormat) {
        do {
            let cutout = try CutoutParameters(parameters)
            let format = cutout.format ?? accepted ?? .png
            var pipeline = try cutout.pipeline(format: format) { text in
                guard text == "transparent" || text.hasPrefix("#") else {
                    throw SwiftsegError(.badRequest, "background is transparent or #RRGGBB here (the server opens no files), got '\(text)'")
                }
                return try Background(argument: text)
            }
            pipeline.lifting.alphaMatting?.maximumUnknownPixels = service.configuration.maxMattingPixels
            return (pipeline, format)
        } catch let error as SwiftsegError {
            throw Service.httpError(error)
        }
    }
}
