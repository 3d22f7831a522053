import Foundation
import Swiftseg

/// One endpoint: method, path, whether it runs on a lane (behind the queue), and its handler.
struct Route: Sendable {
    let method: String
    let path: String
    /// Work routes wait for a lane; health, metrics and the page answer at once.
    let usesLane: Bool
    let handle: @Sendable (HTTPRequest, RouteContext) throws -> HTTPResponse
}

/// What a handler gets besides its request: the request's parameters and image, and a lane to work on.
struct RouteContext {
    let service: Service
    let exchange: Service.Exchange
    /// A multipart body's fields, parsed once (nil for any other body).
    let form: MultipartForm?

    /// Throws ``HTTPError`` 400 for a malformed multipart body.
    init(service: Service, exchange: Service.Exchange, request: HTTPRequest) throws {
        self.service = service
        self.exchange = exchange
        let type = request.head.header("content-type")
        form = MultipartForm.isMultipart(type) ? try MultipartForm(body: request.body, contentType: type!) : nil
    }

    /// The query's parameters, and a multipart body's fields other than `file` (rembg's clients send their
    /// options as form fields), refusing names not in `known`.
    func parameters(_ request: HTTPRequest, known: [String]) throws -> RequestParameters {
        var values = request.head.query
        if let form {
            for field in form.fields where field.name != "file" && field.filename == nil {
                values[field.name] = String(decoding: field.data, as: UTF8.self)
            }
        }
        let parameters = RequestParameters(values: values, prefix: "")
        do { try parameters.refuseUnknown(known) } catch { throw Service.httpError(SwiftsegError(error)) }
        return parameters
    }

    /// The image's bytes: a multipart body's `file` field, or the raw body.
    func imageBytes(_ request: HTTPRequest) throws -> [UInt8] {
        let bytes: [UInt8]
        if let form {
            guard let file = form.fields.first(where: { $0.name == "file" }) else {
                throw HTTPError(400, "bad_request", "the multipart body has no 'file' field")
            }
            bytes = file.data
        } else {
            bytes = request.body
        }
        if bytes.isEmpty {
            throw HTTPError(400, "bad_request", "no image: send it as the body or as the multipart field 'file'")
        }
        return bytes
    }

    /// Decodes an upload with the server's limits: 413 over them, 415 for what is not PNG or JPEG, 422 for a PNG
    /// or JPEG that is corrupt or truncated.
    func decode(_ bytes: [UInt8]) throws -> Image {
        try decode(bytes) { try Image(encoded: bytes, name: "upload", options: $0) }
    }

    /// The same with the decoding done by `body` (given the server's limits), errors mapped as above.
    func decode<T>(_ bytes: [UInt8], _ body: (DecodingOptions) throws -> T) throws -> T {
        do {
            return try body(service.configuration.decoding)
        } catch {
            let e = SwiftsegError(error)
            let isPNGOrJPEG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
            if e.kind == .unsupportedInput && !isPNGOrJPEG {
                throw HTTPError(415, "unsupported_media_type", e.message)
            }
            throw Service.httpError(e)
        }
    }

    /// Runs `body` on a free lane once one is free (503 if none comes before the deadline), holding one of the
    /// service's cores for all of it (decoding and encoding included; the networks borrow the idle ones).
    func onLane<T>(_ body: (Service.Lane) throws -> T) throws -> T {
        guard let ticket = exchange.ticket else { preconditionFailure("a lane route without a ticket") }
        let deadline = service.configuration.requestTimeout.map {
            Date().addingTimeInterval($0 - Double(DispatchTime.now().uptimeNanoseconds - ticket.admittedAt.uptimeNanoseconds) / 1e9)
        }
        return try service.admission.run(ticket, deadline: deadline) { lane in
            try service.cores.withCore { try body(lane) }
        }
    }

    /// A picture as the response, with its content type.
    static func image(_ bytes: [UInt8], format: ImageFormat) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: format == .jpeg ? "image/jpeg" : "image/png", body: bytes)
    }
}
