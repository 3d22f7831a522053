import Dispatch
import Foundation
import Swiftseg
import SwiftsegRuntime

/// `swiftseg serve`: the requests library over HTTP. Routes (one file per group under Routes/) call the same
/// pipelines as the CLI, on lanes that each own a segmenter and a classifier, behind a bounded queue
/// (``Admission``); everything else answers at once. Errors are JSON (``HTTPError``), one log line per request
/// goes to stderr, and ``Metrics`` counts what happened.
///
/// ```swift
/// let service = try Service(configuration: .init(), saliencyModel: u2netp, classifierModel: lite0)
/// let port = try service.start()          // serving on 127.0.0.1:port
/// service.drain(timeout: 25)              // on SIGTERM: readyz 503, no new connections, in-flight finish
/// ```
public final class Service: HTTPHandler, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 7000
        /// Cores for the networks, shared by the lanes: a lane working alone uses them all, lanes working
        /// together split them op by op (``CoreBudget``; the same bytes either way).
        public var threads = ProcessInfoCores.count
        /// Photos in the networks at once (lanes), each holding a core of its own while it works.
        public var concurrent = 2
        /// Requests admitted beyond the lanes, waiting for one; more get 503 at once.
        public var maxQueue = 8
        public var maxBodyBytes = 64 << 20
        /// Seconds from a request's head to the start of its work; later, 503 (nil: no deadline).
        public var requestTimeout: Double? = 60
        public var decoding = DecodingOptions()
        /// Alpha matting is refused (413) when more of the mask than this is unsure (its memory grows with it).
        public var maxMattingPixels: Int? = 1_000_000   // ~0.4 GB and ~4 s on two cores (PERF.md)
        public var http = HTTPServer.Limits()
        /// Seconds a client is told to wait in a 503's Retry-After when the server is draining (the other 503s
        /// say the expected wait: ``Service/retryAfter()``).
        public var retryAfterSeconds = 1
        public var quiet = false
        public var kernelPolicy = ConvKernelPolicy.auto
        public init() {}
    }

    /// What a lane owns: one network pass at a time each.
    struct Lane: @unchecked Sendable {
        let segmenter: Segmenter
        let classifier: Classifier
    }

    public let configuration: Configuration
    let admission: Admission<Lane>
    /// The `threads` cores the lanes share; a lane holds one for each request's whole work.
    let cores: CoreBudget
    public let metrics = Metrics()
    let saliencyModelName: String
    let classifierModelName: String
    private var server: HTTPServer?
    private let stateLock = NSLock()
    private var isDraining = false
    private var answering = 0          // requests between begin and their response
    private let log: (String) -> Void

    /// Every route, found by method and path.
    static let routes: [Route] = RembgRoutes.routes + CutoutRoutes.routes + ClassifyRoutes.routes
        + RectanglesRoutes.routes + HealthRoutes.routes + PageRoutes.routes

    public init(configuration: Configuration, saliencyModel: any Network, classifierModel: any Network,
                log: @escaping (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) throws {
        do {
            try Segmenter.checkIsSaliencyModel(saliencyModel)
            try Classifier.checkIsClassifier(classifierModel)
        } catch {
            throw SwiftsegError(error)
        }
        guard configuration.concurrent >= 1, configuration.concurrent <= configuration.threads else {
            throw SwiftsegError(.badRequest, "--concurrent \(configuration.concurrent) lanes need a core each of --threads \(configuration.threads): give 1…\(configuration.threads)")
        }
        cores = CoreBudget(cores: configuration.threads)
        self.configuration = configuration
        self.log = log
        saliencyModelName = saliencyModel.name
        classifierModelName = classifierModel.name
        var segmenterConfiguration = Segmenter.Configuration()
        segmenterConfiguration.threads = configuration.threads
        segmenterConfiguration.kernelPolicy = configuration.kernelPolicy
        segmenterConfiguration.coreBudget = cores
        var classifierConfiguration = Classifier.Configuration()
        classifierConfiguration.threads = configuration.threads
        classifierConfiguration.kernelPolicy = configuration.kernelPolicy
        classifierConfiguration.coreBudget = cores
        let segmenters = Segmenter.lanes(sharing: saliencyModel, configuration: segmenterConfiguration,
                                         count: configuration.concurrent)
        let classifiers = Classifier.lanes(sharing: classifierModel, configuration: classifierConfiguration,
                                           count: configuration.concurrent)
        admission = Admission(lanes: zip(segmenters, classifiers).map { Lane(segmenter: $0, classifier: $1) },
                              maxQueue: configuration.maxQueue)
    }

    /// Starts listening; returns the port (the kernel's choice for port 0).
    @discardableResult
    public func start() throws -> Int {
        var limits = configuration.http
        limits.maxBodyBytes = configuration.maxBodyBytes
        limits.bodySeconds = configuration.requestTimeout  // a body still arriving at the deadline would miss it anyway
        let server = try HTTPServer(host: configuration.host, port: configuration.port, limits: limits, handler: self)
        self.server = server
        return server.port
    }

    /// Not draining (models are loaded before the server starts).
    public var isReady: Bool {
        stateLock.lock(); defer { stateLock.unlock() }
        return !isDraining
    }

    /// Requests between their head and their end (answered or abandoned), health probes included.
    public var requestsInProgress: Int {
        stateLock.lock(); defer { stateLock.unlock() }
        return answering
    }

    /// Requests holding a place in the queue or on a lane (their head arrived; not yet answered).
    public var requestsAdmitted: Int { admission.snapshot.admitted }

    /// Drains: `/readyz` answers 503, new requests 503, no new connections; waits up to `timeout` seconds for
    /// the requests being answered, then closes everything. Returns whether all finished in time.
    @discardableResult
    public func drain(timeout: Double) -> Bool {
        stateLock.lock()
        isDraining = true
        stateLock.unlock()
        server?.stopAccepting()
        let deadline = Date().addingTimeInterval(timeout)
        var finished = false
        repeat {  // at least one look, so --drain-seconds 0 on an idle server still stops cleanly
            stateLock.lock()
            let busy = answering
            stateLock.unlock()
            if busy == 0 { finished = true; break }
            usleep(20_000)
        } while Date() < deadline
        if finished { server?.stop() }  // else the process exits with the stragglers' threads still running
        return finished
    }

    // MARK: HTTPHandler

    /// A request's context from head to completion.
    final class Exchange {
        let route: Route?
        let start = DispatchTime.now()
        var ticket: Admission<Lane>.Ticket?
        init(route: Route?) { self.route = route }
    }

    public func begin(_ head: HTTPRequestHead) -> HTTPBeginning {
        let exchange = Exchange(route: Self.routes.first { $0.path == head.path && $0.method == head.method })
        func refuse(_ error: HTTPError) -> HTTPBeginning {
            .refuse(finish(error.response, head: head, exchange: exchange, bodyBytes: 0))
        }
        guard let route = exchange.route else {
            if Self.routes.contains(where: { $0.path == head.path }) {
                let allowed = Self.routes.filter { $0.path == head.path }.map(\.method).joined(separator: ", ")
                var response = HTTPError(405, "method_not_allowed", "\(head.method) \(head.path): use \(allowed)").response
                response.headers.append(("Allow", allowed))
                return .refuse(finish(response, head: head, exchange: exchange, bodyBytes: 0))
            }
            return refuse(HTTPError(404, "not_found", "no route \(head.path) (see GET / for the page, POST /v1/cutout, /v1/subjects, /v1/classify, /v1/rectangles, /api/remove)"))
        }
        if let length = head.contentLength, length > UInt64(configuration.maxBodyBytes) {
            metrics.reject("too_large")
            return refuse(HTTPError(413, "too_large", "the body is \(length) bytes, over this server's limit of \(configuration.maxBodyBytes) (--max-body-mb)"))
        }
        stateLock.lock()
        let draining = isDraining
        if !(draining && route.usesLane) { answering += 1 }  // until finished(context:): drain waits for it
        stateLock.unlock()
        if draining && route.usesLane {
            metrics.reject("draining")
            return refuse(HTTPError(503, "draining", "the server is shutting down; retry on another instance",
                                    retryAfter: configuration.retryAfterSeconds))
        }
        if route.usesLane {
            guard let ticket = admission.admit() else {
                stateLock.lock(); answering -= 1; stateLock.unlock()
                metrics.reject("queue_full")
                return refuse(HTTPError(503, "busy", "all \(admission.laneCount) lanes are busy and \(configuration.maxQueue) requests are waiting; retry shortly",
                                        retryAfter: retryAfter()))
            }
            exchange.ticket = ticket
        }
        return .accept(context: exchange)
    }

    /// The Retry-After of a 503 for a full queue or a timeout: the expected wait (``Admission/expectedWaitSeconds``,
    /// w) spread uniformly over w … 2w. Clients refused together then come back at different times instead of
    /// all at once, where the first to arrive wins again and the same few keep losing; the spread keeps the
    /// load the queue sees near what the lanes can serve.
    func retryAfter() -> Int {
        let wait = admission.expectedWaitSeconds
        return Int.random(in: wait...(2 * wait))
    }

    public func respond(_ request: HTTPRequest, context: AnyObject?) -> HTTPResponse {
        let exchange = context as! Exchange
        let head = request.head
        let response: HTTPResponse
        if request.bodyTooLarge {
            metrics.reject("too_large")
            response = HTTPError(413, "too_large", "the body is over this server's limit of \(configuration.maxBodyBytes) bytes (--max-body-mb)").response
        } else {
            do {
                response = try exchange.route!.handle(request, RouteContext(service: self, exchange: exchange, request: request))
            } catch let error as HTTPError {
                response = error.response
            } catch let error as Admission<Lane>.Refusal where error == .timedOut {
                metrics.reject("timeout")
                response = HTTPError(503, "timeout", "no lane came free within --request-timeout; retry shortly",
                                     retryAfter: retryAfter()).response
            } catch {
                response = Self.httpError(SwiftsegError(error)).response
            }
        }
        if let ticket = exchange.ticket { admission.release(ticket) }
        return finish(response, head: head, exchange: exchange, bodyBytes: request.body.count)
    }

    public func finished(context: AnyObject?) {
        guard let exchange = context as? Exchange else { return }
        if let ticket = exchange.ticket { admission.release(ticket) }  // the client may have gone before its answer
        stateLock.lock(); answering -= 1; stateLock.unlock()
    }

    /// Logs and counts a response.
    private func finish(_ response: HTTPResponse, head: HTTPRequestHead, exchange: Exchange, bodyBytes: Int) -> HTTPResponse {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - exchange.start.uptimeNanoseconds) / 1e9
        metrics.record(route: exchange.route?.path ?? "other", status: response.status, seconds: seconds)
        if !configuration.quiet {
            log(String(format: "%@ %@ %d %.1f ms %d B in %d B out", head.method, head.path, response.status,
                       seconds * 1000, bodyBytes, response.body.count))
        }
        return response
    }

    /// The library's error kinds as statuses.
    static func httpError(_ error: SwiftsegError) -> HTTPError {
        switch error.kind {
        case .badRequest: HTTPError(400, "bad_request", error.message)
        case .tooLarge: HTTPError(413, "too_large", error.message)
        case .unsupportedInput: HTTPError(422, "corrupt_image", error.message)
        case .internal: HTTPError(500, "internal", error.message)
        }
    }
}
