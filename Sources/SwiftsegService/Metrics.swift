import Foundation
import Swiftseg

/// What `GET /metrics` reports, in Prometheus' text format 0.0.4: requests by route and status, a latency
/// histogram per route, rejections by reason; the queue, lanes and memory are read when scraped. Routes are
/// the service's own paths (anything else counts as "other"), so the labels stay few.
public final class Metrics: @unchecked Sendable {
    /// Upper bounds of the latency buckets, seconds.
    public static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var count = 0
    }

    private let lock = NSLock()
    private var requests: [String: [Int: Int]] = [:]      // route → status → count
    private var latency: [String: Histogram] = [:]
    private var rejections: [String: Int] = [:]

    public init() {}

    public func record(route: String, status: Int, seconds: Double) {
        lock.lock(); defer { lock.unlock() }
        requests[route, default: [:]][status, default: 0] += 1
        var h = latency[route, default: Histogram()]
        for (i, bound) in Self.buckets.enumerated() where seconds <= bound { h.counts[i] += 1 }
        h.sum += seconds
        h.count += 1
        latency[route] = h
    }

    /// `reason`: queue_full, timeout, draining, too_large.
    public func reject(_ reason: String) {
        lock.lock(); defer { lock.unlock() }
        rejections[reason, default: 0] += 1
    }

    /// Requests answered with `status` on `route` so far (for tests and logs).
    public func count(route: String, status: Int) -> Int {
        lock.lock(); defer { lock.unlock() }
        return requests[route]?[status] ?? 0
    }

    /// The exposition text, with the gauges read now.
    public func text(queueDepth: Int, inFlight: Int, lanes: Int, ready: Bool) -> String {
        lock.lock()
        let requests = self.requests, latency = self.latency, rejections = self.rejections
        lock.unlock()
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) { out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" }
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }

        family("swiftseg_http_requests_total", "counter", "Requests answered, by route and status.")
        for route in requests.keys.sorted() {
            for status in requests[route]!.keys.sorted() {
                out += "swiftseg_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(requests[route]![status]!)\n"
            }
        }
        family("swiftseg_http_request_duration_seconds", "histogram", "Time from a request's head to its response, by route.")
        for route in latency.keys.sorted() {
            let h = latency[route]!
            for (i, bound) in Self.buckets.enumerated() {
                out += "swiftseg_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(number(bound))\"} \(h.counts[i])\n"
            }
            out += "swiftseg_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(h.count)\n"
            out += "swiftseg_http_request_duration_seconds_sum{route=\"\(route)\"} \(h.sum)\n"
            out += "swiftseg_http_request_duration_seconds_count{route=\"\(route)\"} \(h.count)\n"
        }
        family("swiftseg_rejections_total", "counter", "Requests refused before any work: queue_full, timeout, draining, too_large.")
        for reason in ["queue_full", "timeout", "draining", "too_large"] {
            out += "swiftseg_rejections_total{reason=\"\(reason)\"} \(rejections[reason] ?? 0)\n"
        }
        family("swiftseg_queue_depth", "gauge", "Requests waiting for a lane.")
        out += "swiftseg_queue_depth \(queueDepth)\n"
        family("swiftseg_in_flight", "gauge", "Requests on a lane now.")
        out += "swiftseg_in_flight \(inFlight)\n"
        family("swiftseg_lanes", "gauge", "Network lanes (--concurrent).")
        out += "swiftseg_lanes \(lanes)\n"
        family("swiftseg_ready", "gauge", "1 when models are loaded and the server is not draining.")
        out += "swiftseg_ready \(ready ? 1 : 0)\n"
        family("process_resident_memory_bytes", "gauge", "Resident set size.")
        out += "process_resident_memory_bytes \(ProcessMemory.residentBytes() ?? 0)\n"
        return out
    }
}
