import _CMicroHTTPD
import Dispatch
import Foundation

/// What the server asks of the service, in the order a request goes through it.
public protocol HTTPHandler: AnyObject, Sendable {
    /// The head is in and the body not yet read: a response now (a refusal: the body is never read), or a
    /// context carried to ``respond(_:context:)`` and ``finished(context:)``.
    func begin(_ head: HTTPRequestHead) -> HTTPBeginning
    /// The whole request: its response. Called on the connection's own thread, which it may block.
    func respond(_ request: HTTPRequest, context: AnyObject?) -> HTTPResponse
    /// The request is over (answered, or the client went away): release what ``begin(_:)`` took.
    func finished(context: AnyObject?)
}

public enum HTTPBeginning {
    case refuse(HTTPResponse)
    case accept(context: AnyObject?)
}

/// An HTTP/1.1 server on GNU libmicrohttpd: a thread per connection (so a request may block its thread in
/// the network while the others go on), keep-alive, connection and per-address limits, an idle timeout for
/// slow clients, and a body cap that libmicrohttpd lacks (a declared `Content-Length` over the cap is refused
/// before the body is read; a chunked body is counted and dropped once over it).
///
/// ```swift
/// let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: .init(), handler: service)
/// print(server.port)      // the kernel's choice
/// server.stopAccepting(); server.stop()
/// ```
public final class HTTPServer: @unchecked Sendable {
    public struct Limits: Sendable {
        public var maxBodyBytes = 64 << 20
        /// Connections open at once; more are refused by the kernel's backlog.
        public var connections = 256
        public var connectionsPerAddress = 64
        /// Seconds a connection may sit idle (slow or silent clients) before it is closed.
        public var idleTimeoutSeconds = 30
        /// Seconds a body may take to arrive in full; a client still sending after that is disconnected (a
        /// trickling upload would otherwise hold its queue place forever). nil: no limit.
        public var bodySeconds: Double? = 60
        public init() {}
    }

    public private(set) var port = 0
    let limits: Limits
    let handler: any HTTPHandler
    private var daemon: OpaquePointer?
    private var quiescedSocket: Int32 = -1

    public init(host: String, port: Int, limits: Limits, handler: any HTTPHandler) throws {
        self.limits = limits
        self.handler = handler
        guard (0...65535).contains(port) else { throw HTTPServerError("port \(port) is not in 0…65535") }
        var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_ITC.rawValue
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        let isV6 = host.contains(":")
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 else { throw HTTPServerError("--host \(host) is not an IP address") }
            flags |= MHD_USE_IPv6.rawValue
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &v4.sin_addr) == 1 else { throw HTTPServerError("--host \(host) is not an IP address") }
        }
        // The access handler and the completion callback find this object through their context pointer;
        // the daemon is stopped in stop()/deinit, before the object goes.
        let me = Unmanaged.passUnretained(self).toOpaque()
        let completed: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
            guard let context, let slot = requestContext, let exchange = slot.pointee else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            let state = Unmanaged<Exchange>.fromOpaque(exchange).takeRetainedValue()
            slot.pointee = nil
            server.handler.finished(context: state.context)
        }
        let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, requestContext in
            let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
            return server.access(connection!, url: url, method: method, upload: upload, uploadSize: uploadSize!,
                                 requestContext: requestContext!)
        }
        let limits = self.limits
        func start(_ address: UnsafeMutableRawPointer) -> OpaquePointer? {  // the address is read while binding
            var options = [
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: address),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: limits.connections, ptr_value: nil),
                MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: limits.connectionsPerAddress, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: limits.idleTimeoutSeconds, ptr_value: nil),
                MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), ptr_value: me),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return swiftseg_mhd_start(flags, UInt16(port), accessHandler, me, &options)
        }
        daemon = isV6 ? withUnsafeMutablePointer(to: &v6) { start(UnsafeMutableRawPointer($0)) }
                      : withUnsafeMutablePointer(to: &v4) { start(UnsafeMutableRawPointer($0)) }
        guard let daemon else {
            throw HTTPServerError("cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        self.port = Int(swiftseg_mhd_bound_port(daemon))
    }

    deinit { stop() }

    /// Stops taking new connections; the open ones go on (draining).
    public func stopAccepting() {
        guard let daemon, quiescedSocket < 0 else { return }
        quiescedSocket = MHD_quiesce_daemon(daemon)
    }

    /// Closes every connection and waits for their threads. Requests still being answered finish first.
    public func stop() {
        guard let d = daemon else { return }
        daemon = nil
        MHD_stop_daemon(d)
        if quiescedSocket >= 0 { close(quiescedSocket); quiescedSocket = -1 }
    }

    /// One request's state across the access handler's calls.
    final class Exchange {
        let head: HTTPRequestHead
        let context: AnyObject?
        var body: [UInt8] = []
        var tooLarge = false
        let start = DispatchTime.now().uptimeNanoseconds
        init(head: HTTPRequestHead, context: AnyObject?) { self.head = head; self.context = context }
    }

    /// libmicrohttpd calls this once with the head, then once per piece of the body, then once with no data.
    private func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = requestContext.pointee else {
            let head = HTTPRequestHead(method: method.map { String(cString: $0) } ?? "",
                                       path: url.map { String(cString: $0) } ?? "/",
                                       query: Self.values(connection, .GET_ARGUMENT_KIND, lowercased: false),
                                       headers: Self.values(connection, .HEADER_KIND, lowercased: true))
            switch handler.begin(head) {
            case .refuse(let response):
                var closing = response
                closing.headers.append(("Connection", "close"))  // the body, if any, is never read
                return queue(closing, on: connection)
            case .accept(let context):
                let exchange = Exchange(head: head, context: context)
                if let length = head.contentLength, length <= UInt64(limits.maxBodyBytes) {
                    exchange.body.reserveCapacity(Int(length))
                }
                requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
                return .YES
            }
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let limit = limits.bodySeconds, Double(DispatchTime.now().uptimeNanoseconds - exchange.start) / 1e9 > limit {
                return .NO  // closes the connection; completion still runs and releases the request's place
            }
            if !exchange.tooLarge, let upload {
                if exchange.body.count + uploadSize.pointee > limits.maxBodyBytes {
                    exchange.tooLarge = true
                    exchange.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        let request = HTTPRequest(head: exchange.head, body: exchange.body, bodyTooLarge: exchange.tooLarge)
        exchange.body = []
        return queue(handler.respond(request, context: exchange.context), on: connection)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let mustCopy = MHD_ResponseMemoryMode(rawValue: 2)!  // MHD_RESPMEM_MUST_COPY: the body is copied
        let made = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), mustCopy)
        }
        guard let made else { return .NO }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        final class Box { var values: [String: String] = [:]; var lowercased = false }
        let box = Box()
        box.lowercased = lowercased
        _ = withExtendedLifetime(box) {
            MHD_get_connection_values(connection, kind, { context, _, key, value in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                if let key {
                    let name = box.lowercased ? String(cString: key).lowercased() : String(cString: key)
                    if box.values[name] == nil { box.values[name] = value.map { String(cString: $0) } ?? "" }
                }
                return .YES
            }, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.values
    }
}

public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
