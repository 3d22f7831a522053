import Dispatch
import Swiftseg

/// `POST /v1/rectangles`: `swiftseg rectangles --json`'s object; with `?extract=1`, the best rectangle's
/// perspective-corrected crop as PNG (422 `no_rectangle` when none is found). Vision's parameters under the
/// CLI's names (`?min-aspect=0.6&max-observations=0`).
enum RectanglesRoutes {
    static let routes = [Route(method: "POST", path: "/v1/rectangles", usesLane: true, handle: rectangles)]

    static func rectangles(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        let parameters = try context.parameters(request, known: DetectRectanglesRequest.Parameters.all.names + ["extract"])
        let detection: DetectRectanglesRequest, extract: Bool
        do {
            detection = try DetectRectanglesRequest(parameters: parameters)
            extract = try parameters.flag("extract")
        } catch {
            throw Service.httpError(SwiftsegError(error))
        }
        let bytes = try context.imageBytes(request)
        return try context.onLane { _ in  // no network, but the lane bounds the photos being worked on
            let start = DispatchTime.now().uptimeNanoseconds
            let photo = try context.decode(bytes) {
                try RectanglesPipeline.decode(bytes, name: "upload", options: $0, wantsFull: extract)
            }
            let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            let result = try RectanglesPipeline.detect(photo.reduced, request: detection, decodeMs: decodeMs)
            guard extract, let full = photo.full else { return .json(try result.report(input: nil).jsonData()) }
            guard let crop = result.observations.first?.perspectiveCorrected(from: full) else {
                throw HTTPError(422, "no_rectangle", "no rectangle found with these parameters; nothing to extract")
            }
            return RouteContext.image(try RectanglesPipeline.encoded(crop, forPath: "crop.png"), format: .png)
        }
    }
}
