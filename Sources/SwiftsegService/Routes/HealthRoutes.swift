/// `GET /livez` (the process answers), `GET /readyz` (models loaded and not draining, else 503) and
/// `GET /metrics` (Prometheus text 0.0.4). None waits for a lane, so probes answer under full load.
enum HealthRoutes {
    static let routes = [
        Route(method: "GET", path: "/livez", usesLane: false) { _, _ in .json(Array(#"{"status":"ok"}"#.utf8)) },
        Route(method: "GET", path: "/readyz", usesLane: false) { _, context in
            context.service.isReady ? .json(Array(#"{"status":"ready"}"#.utf8))
                                    : .json(Array(#"{"status":"draining"}"#.utf8), status: 503)
        },
        Route(method: "GET", path: "/metrics", usesLane: false) { _, context in
            let service = context.service
            let now = service.admission.snapshot
            return .text(service.metrics.text(queueDepth: now.waiting, inFlight: now.busy, lanes: service.admission.laneCount,
                                              ready: service.isReady),
                         contentType: "text/plain; version=0.0.4; charset=utf-8")
        },
    ]
}
