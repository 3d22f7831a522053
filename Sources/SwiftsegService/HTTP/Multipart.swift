import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its fields: what browsers and `curl -F` send, and
/// rembg's clients (`file=@photo.jpg`).
///
/// ```swift
/// let form = try MultipartForm(body: body, contentType: "multipart/form-data; boundary=XyZ")
/// let photo = form.fields.first { $0.name == "file" }?.data
/// ```
public struct MultipartForm: Sendable {
    public struct Field: Sendable {
        public let name: String
        public let filename: String?
        public let data: [UInt8]
    }

    public let fields: [Field]

    /// Whether a `Content-Type` is multipart/form-data.
    public static func isMultipart(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("multipart/form-data") ?? false
    }

    /// Parses `body`; throws ``HTTPError`` 400 when the boundary is missing or the body is not made of parts
    /// with it.
    public init(body: [UInt8], contentType: String) throws {
        guard let boundary = Self.parameter("boundary", in: contentType), !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw HTTPError(400, "bad_request", "multipart/form-data without a boundary parameter")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let malformed = HTTPError(400, "bad_request", "malformed multipart/form-data body")
        guard var at = Self.find(delimiter, in: body, from: 0) else { throw malformed }
        var fields: [Field] = []
        while true {
            at += delimiter.count
            if body[at...].starts(with: Array("--".utf8)) { break }     // the closing delimiter
            guard body[at...].starts(with: Array("\r\n".utf8)) else { throw malformed }
            at += 2
            guard let headersEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: at) else { throw malformed }
            let headers = String(decoding: body[at..<headersEnd], as: UTF8.self)
            let dataStart = headersEnd + 4
            guard let next = Self.find(Array("\r\n".utf8) + delimiter, in: body, from: dataStart) else { throw malformed }
            var name: String?, filename: String?
            for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                name = Self.parameter("name", in: String(line))
                filename = Self.parameter("filename", in: String(line))
            }
            guard let name else { throw HTTPError(400, "bad_request", "a multipart part has no name") }
            fields.append(Field(name: name, filename: filename, data: Array(body[dataStart..<next])))
            at = next + 2
            if fields.count > 64 { throw HTTPError(400, "bad_request", "more than 64 multipart parts") }
        }
        self.fields = fields
    }

    /// `key=value` or `key="value"` in a header's `;`-separated parameters.
    static func parameter(_ key: String, in header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`: `memchr` to each candidate first byte, then
    /// `memcmp` — about ten times faster than comparing byte by byte, which matters because a part's end is
    /// looked for through all of its data (a whole photo).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, from >= 0, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        return haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                let base = h.baseAddress!, last = h.count - n.count  // the last index a match can start at
                var i = from
                while i <= last, let hit = memchr(base + i, Int32(n[0]), last - i + 1) {
                    i = UnsafeRawPointer(hit) - base
                    if memcmp(hit, n.baseAddress!, n.count) == 0 { return i }
                    i += 1
                }
                return nil
            }
        }
    }
}
