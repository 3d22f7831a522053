import Dispatch
import Swiftseg

/// `POST /v1/classify`: `swiftseg classify --json`'s object for the image in the body; `?top=`,
/// `?crop-and-scale=` as the CLI's flags.
enum ClassifyRoutes {
    static let routes = [Route(method: "POST", path: "/v1/classify", usesLane: true, handle: classify)]

    static func classify(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        let parameters = try context.parameters(request, known: ClassifyImageRequest.Parameters.all.names)
        let classification: ClassifyImageRequest
        do { classification = try ClassifyImageRequest(parameters: parameters) } catch { throw Service.httpError(SwiftsegError(error)) }
        let bytes = try context.imageBytes(request)
        let report = try context.onLane { lane in
            let start = DispatchTime.now().uptimeNanoseconds
            let photo = try context.decode(bytes) { try ClassifyImageRequest.decode(bytes, name: "upload", options: $0) }
            let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            return lane.classifier.classify(photo, request: classification)
                .report(input: nil, model: context.service.classifierModelName,
                        cropAndScale: classification.cropAndScale, decodeMs: decodeMs)
        }
        return .json(try report.jsonData())
    }
}
