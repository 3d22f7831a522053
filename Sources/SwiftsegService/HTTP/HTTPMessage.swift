import Foundation

/// What arrives before the body: enough to refuse a request before reading it (too large, unknown route,
/// busy, draining).
public struct HTTPRequestHead: Sendable {
    public let method: String
    /// The path, percent-decoded, without the query.
    public let path: String
    /// Query parameters, percent-decoded; a name given without `=` has the value "".
    public let query: [String: String]
    /// Header values by lower-cased name.
    public let headers: [String: String]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// `Content-Length` when the client sent a valid one (a chunked body has none).
    public var contentLength: UInt64? { header("content-length").flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) } }
}

/// A whole request: its head and its body.
public struct HTTPRequest: Sendable {
    public let head: HTTPRequestHead
    public let body: [UInt8]
    /// The body went over the server's cap while it was read (a chunked upload); `body` is then empty.
    public let bodyTooLarge: Bool

    public init(head: HTTPRequestHead, body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.head = head
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }
}

/// A response: status, headers, body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    /// A JSON body (already encoded).
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    public func value(ofHeader name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A refusal with its status: the body is `{"error": {"code": "…", "message": "…"}}`.
public struct HTTPError: Error, Sendable, Equatable {
    public let status: Int
    /// A stable, machine-readable word: bad_request, not_found, method_not_allowed, too_large,
    /// unsupported_media_type, corrupt_image, no_rectangle, busy, timeout, draining, internal.
    public let code: String
    public let message: String
    /// Seconds a client should wait before retrying (503s).
    public let retryAfter: Int?

    public init(_ status: Int, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var response: HTTPResponse {
        let body = try! JSONSerialization.data(withJSONObject: ["error": ["code": code, "message": message]],
                                               options: [.sortedKeys, .withoutEscapingSlashes])
        var response = HTTPResponse.json(Array(body), status: status)
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        return response
    }
}
