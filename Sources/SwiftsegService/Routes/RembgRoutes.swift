import Foundation
import Swiftseg

/// rembg's server API (`rembg s`), so its clients work unchanged: `POST /api/remove` with the image as the
/// multipart field `file` (or the raw body) and rembg's parameters in the query or as form fields, answered
/// with the same PNG as `swiftseg infer` with the equivalent flags (`om` → `--mask`, `ppm` →
/// `--post-process`, `a`, `af`, `ab`, `ae` → `--alpha-matting` and its settings, `dc` → `--decontaminate`
/// (ignored with `om`, as rembg ignores it), `bgc=r,g,b,255` →
/// `--background #rrggbb`). `GET /api/remove?url=…` is refused: this
/// server fetches no URLs.
enum RembgRoutes {
    static let routes = [
        Route(method: "POST", path: "/api/remove", usesLane: true, handle: remove),
        Route(method: "GET", path: "/api/remove", usesLane: false, handle: refuseURL),
    ]

    static let names = ["model", "a", "af", "ab", "ae", "om", "ppm", "dc", "bgc", "extras"]

    static func remove(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        let rembg = try context.parameters(request, known: names)
        let cutout = try CutoutRoutes.pipeline(try translate(rembg, model: context.service.saliencyModelName),
                                               service: context.service).0
        let bytes = try context.imageBytes(request)
        let files = try context.onLane { lane in
            try cutout.encode(try cutout.lift(try context.decode(bytes), with: lane.segmenter), parts: lane.segmenter.parts)
        }
        return RouteContext.image(files.image, format: .png)
    }

    static func refuseURL(_ request: HTTPRequest, _ context: RouteContext) throws -> HTTPResponse {
        throw HTTPError(400, "bad_request", "this server fetches no URLs: POST the image to /api/remove (multipart field 'file' or the raw body)")
    }

    /// rembg's parameters as infer's.
    static func translate(_ p: RequestParameters, model: String) throws -> RequestParameters {
        func flag(_ name: String) throws -> Bool {
            do { return try p.flag(name) } catch { throw Service.httpError(SwiftsegError(error)) }
        }
        if let asked = p.value("model"), asked != model {
            throw HTTPError(400, "bad_request", "model \(asked) is not loaded: this server runs \(model) (start it with --model \(asked))")
        }
        if let extras = p.value("extras"), !extras.isEmpty, extras != "{}" {
            throw HTTPError(400, "bad_request", "extras (prompts for SAM) are not supported: no SAM model here")
        }
        typealias P = CutoutParameters.Parameters
        var values: [String: String] = [:]
        if try flag("a") {  // af, ab, ae count only with a (rembg's clients send their defaults either way)
            values[P.alphaMatting.name] = "1"
            for (short, setting) in [("af", P.alphaMattingForegroundThreshold), ("ab", P.alphaMattingBackgroundThreshold),
                                     ("ae", P.alphaMattingErodeSize)] where p.value(short) != nil {
                values[setting.name] = p.value(short)
            }
        }
        if try flag("om") { values[P.mask.name] = "1" } else if try flag("dc") { values[P.decontaminate.name] = "1" }  // rembg: none on masks
        if try flag("ppm") { values[P.postProcess.name] = "1" }
        if let text = p.value("bgc"), !text.isEmpty {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, parts.allSatisfy({ $0 != nil && (0...255).contains($0!) }) else {
                throw HTTPError(400, "bad_request", "bgc expects r,g,b,a with each 0…255, e.g. 255,255,255,255, got '\(text)'")
            }
            switch parts[3]! {
            case 255: values[P.background.name] = "#" + parts[0..<3].map { String(format: "%02x", $0!) }.joined()
            case 0: break  // under a fully transparent colour the cutout is unchanged
            default:
                throw HTTPError(400, "bad_request", "bgc with alpha \(parts[3]!) is not supported: use 255 (opaque) or 0 (none)")
            }
        }
        return RequestParameters(values: values, prefix: "")
    }
}
