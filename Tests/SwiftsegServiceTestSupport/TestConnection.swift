import Foundation

/// A small HTTP/1.1 client over a raw socket, so tests can send what real clients would not: no body, a
/// lying Content-Length, broken multipart, several requests on one connection.
public final class TestConnection {
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]
        public init(status: Int, headers: [String: String], body: [UInt8]) { self.status = status; self.headers = headers; self.body = body }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        public var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    private let fd: Int32
    private var buffered: [UInt8] = []

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { close(fd); throw Failure(description: "cannot connect to port \(port): errno \(errno)") }
    }

    deinit { close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Sends a request; `headers` are added to Host and (when there is a body) Content-Length.
    public func request(_ method: String, _ target: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        var all = headers
        if let body, all["Content-Length"] == nil, all["Transfer-Encoding"] == nil { all["Content-Length"] = String(body.count) }
        for (k, v) in all.sorted(by: { $0.key < $1.key }) { head += "\(k): \(v)\r\n" }
        do {
            try send(Array((head + "\r\n").utf8) + (body ?? []))
        } catch {
            // A server may answer (413, 503) and close before the body is all sent, as curl sees it: read on.
        }
        return try readResponse()
    }

    /// Reads one response (headers, then Content-Length bytes).
    public func readResponse() throws -> Response {
        func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "connection closed before a whole response (errno \(errno))") }
            buffered += chunk[..<n]
        }
        let separator = Array("\r\n\r\n".utf8)
        var end: Int?
        while end == nil {
            end = buffered.count >= 4 ? (0...(buffered.count - 4)).first { buffered[$0..<($0 + 4)].elementsEqual(separator) } : nil
            if end == nil { try fill() }
        }
        let lines = String(decoding: buffered[..<end!], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let start = end! + 4
        while buffered.count < start + length { try fill() }
        let body = Array(buffered[start..<(start + length)])
        buffered.removeFirst(start + length)
        return Response(status: status, headers: headers, body: body)
    }

    /// One request on a fresh connection.
    public static func request(port: Int, _ method: String, _ target: String, body: [UInt8]? = nil,
                        headers: [String: String] = [:]) throws -> Response {
        try TestConnection(port: port).request(method, target, body: body, headers: headers)
    }

    /// A multipart/form-data body with `fields` (name, optional filename, bytes).
    public static func multipart(_ fields: [(name: String, filename: String?, data: [UInt8])],
                          boundary: String = "swiftsegTestBoundary7MA4YWxk") -> (body: [UInt8], contentType: String) {
        var body: [UInt8] = []
        for field in fields {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\""
            if let filename = field.filename { head += "; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream" }
            body += Array((head + "\r\n\r\n").utf8) + field.data + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}
