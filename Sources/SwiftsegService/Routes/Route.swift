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

    /// Decodes an upload with the server's limits: 413 over them, 415 for what is in none of the formats swiftseg
    /// reads (``ImageFormat``), 422 for a file in one of them that is corrupt or truncated.
    func decode(_ bytes: [UInt8]) throws -> Image {
        try decode(bytes) { try Image(encoded: bytes, name: "upload", options: $0) }
    }

    /// The same with the decoding done by `body` (given the server's limits), errors mapped as above.
    func decode<T>(_ bytes: [UInt8], _ body: (DecodingOptions) throws -> T) throws -> T {
        do {
            return try body(service.configuration.decoding)
        } catch {
            let e = SwiftsegError(error)
            if e.kind == .unsupportedInput && ImageFormat(sniffing: bytes) == nil {
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
    /// The format an Accept header prefers among those swiftseg writes: the highest `q` of the media types it
    /// names exactly (`image/webp`, `image/png`, `image/jpeg`), the first named on a tie; nil when it names none
    /// (absent, `*/*`, `image/*`: the route's default). A type with `q=0` is never chosen.
    static func preferredFormat(accept: String?) -> ImageFormat? {
        guard let accept else { return nil }
        var best: (format: ImageFormat, q: Double)?
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, let format = ImageFormat.writable.first(where: { $0.mediaType == type }) else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0, q > (best?.q ?? 0) { best = (format, q) }
        }
        return best?.format
    }

    static func image(_ bytes: [UInt8], format: ImageFormat) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: format.mediaType, body: bytes)
    }
}
