import Dispatch
import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegService

/// `swiftseg serve`: the HTTP service. Parses flags, loads the models, starts the server, and drains on
/// SIGTERM/SIGINT; the routes and the queue live in SwiftsegService.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve cutouts, labels and rectangles over HTTP (rembg-compatible /api/remove).",
        usage: "swiftseg serve [--host <ip>] [--port <n>] [--model <model>] [--threads <n>] [--concurrent <n>] [--max-queue <n>]\n       [--max-body-mb <n>] [--request-timeout <s>] [--drain-seconds <s>] [--quiet]",
        positionals: [],
        options: [
            OptionSpec(names: ["--host"], valueName: "IP",
                       help: "Address to listen on (127.0.0.1: this machine only). Containers pass\n--host 0.0.0.0 (or :: for IPv6 too)."),
            OptionSpec(names: ["--port"], valueName: "N", help: "Port (7000, as rembg's server; 0 = any free port, printed)."),
            OptionSpec(names: ["--model"], valueName: "MODEL",
                       help: "Subject-lifting model: u2netp (default, built in), u2net, a name converted into\n~/.cache/swiftseg (silueta, u2net_human_seg, isnet-*, birefnet-*, bria-rmbg), or a\n.safetensors file (classification uses the built-in efficientnet-lite0)."),
            OptionSpec(names: ["--threads"], valueName: "N", help: "Worker threads for the networks (default: all cores)."),
            OptionSpec(names: ["--concurrent"], valueName: "N",
                       help: "Requests in the networks at once (2, or 1 with --threads 1), each with its own\nactivation memory (~120 MB for u2netp). They share the --threads cores: a request\nalone runs on all of them, requests together split them, with the same bytes either\nway (PERF.md)."),
            OptionSpec(names: ["--max-queue"], valueName: "N",
                       help: "Requests admitted beyond --concurrent, waiting for a lane (8); more get\n503 with Retry-After at once."),
            OptionSpec(names: ["--max-body-mb"], valueName: "N",
                       help: "Largest request body in MiB (64); a larger declared body gets 413 before it\nis read."),
            BatchOptions.maxPixels,
            OptionSpec(names: ["--max-matting-pixels"], valueName: "N",
                       help: "Refuse alpha matting (413) when more than N pixels of the mask are unsure\n(1000000: about 0.4 GB and 4 s for the solver; 0 = no limit)."),
            OptionSpec(names: ["--request-timeout"], valueName: "S",
                       help: "Seconds a request may wait for a lane before 503 (60; 0 = no limit)."),
            OptionSpec(names: ["--idle-timeout"], valueName: "S",
                       help: "Seconds a connection may sit idle or trickle before it is closed (30)."),
            OptionSpec(names: ["--max-connections"], valueName: "N",
                       help: "Open connections at most (256), and per client address (64)."),
            OptionSpec(names: ["--drain-seconds"], valueName: "S",
                       help: "On SIGTERM or SIGINT: /readyz answers 503, no new connections, requests in\nflight finish; exit within S seconds (25, inside Kubernetes' 30 s grace)."),
            OptionSpec(names: ["--exact"], valueName: nil,
                       help: "Exact GEMM convolutions (slower; see 'swiftseg infer --help')."),
            OptionSpec(names: ["--quiet"], valueName: nil, help: "No log line per request (errors at start-up are still printed)."),
        ],
        discussion: """
            ENDPOINTS:
              POST /api/remove     rembg's API: multipart field file (or the raw body); om, ppm, bgc, model
              POST /v1/cutout      the picture; query parameters are infer's flags without dashes
                                   (mask, crop, select, point, background=#RRGGBB|transparent, effect, …)
              POST /v1/subjects    infer --json's report
              POST /v1/classify    classify --json's object (top, crop-and-scale)
              POST /v1/rectangles  rectangles --json's object (min-aspect, …); extract=1: the best crop, PNG
              GET  /               a page to try it in a browser
              GET  /livez, /readyz, /metrics   probes and Prometheus metrics

            Errors are JSON: {"error": {"code": "…", "message": "…"}} with 400 (bad parameter), 404, 405,
            413 (body or image too large), 415 (not an image swiftseg reads), 422 (corrupt image), 503 (busy, timed
            out or draining; with Retry-After) or 500. One line per request goes to standard error (method,
            path, status, ms, bytes in and out). The server opens no files and fetches no URLs for a client.

            EXAMPLES:
              swiftseg serve
              curl -F file=@photo.jpg http://127.0.0.1:7000/api/remove -o cutout.png
              curl --data-binary @photo.jpg 'http://127.0.0.1:7000/v1/cutout?effect=blur' -o blur.png
              swiftseg serve --host 0.0.0.0 --port 8080 --concurrent 2 --max-queue 16 --quiet
            """)

    static func run(_ args: ParsedArguments) throws {
        if let extra = args.positionals.first { throw CLIError.usage("serve takes no inputs, got '\(extra)'") }
        var configuration = Service.Configuration()
        configuration.host = args.value("--host") ?? "127.0.0.1"
        configuration.port = try args.integer("--port", default: configuration.port, in: 0...65535)
        configuration.threads = try ModelOptions.threads(args)
        configuration.concurrent = try args.positiveInt("--concurrent", default: min(2, configuration.threads))
        if configuration.concurrent > configuration.threads {
            throw CLIError.usage("--concurrent \(configuration.concurrent) lanes need a core each of --threads \(configuration.threads): give at most \(configuration.threads)")
        }
        configuration.maxQueue = try args.integer("--max-queue", default: configuration.maxQueue, in: 0...1_000_000)
        configuration.maxBodyBytes = Int(try args.number("--max-body-mb", default: 64, in: 0.001...4096) * 1_048_576)
        configuration.decoding = try BatchOptions.decoding(args)
        let mattingPixels = try args.integer("--max-matting-pixels", default: configuration.maxMattingPixels ?? 0, in: 0...Int(Int32.max))
        configuration.maxMattingPixels = mattingPixels == 0 ? nil : mattingPixels
        let timeout = try args.number("--request-timeout", default: 60, in: 0...86_400)
        configuration.requestTimeout = timeout == 0 ? nil : timeout
        configuration.http.idleTimeoutSeconds = Int(try args.number("--idle-timeout", default: 30, in: 1...3600))
        configuration.http.connections = try args.positiveInt("--max-connections", default: 256)
        configuration.http.connectionsPerAddress = min(64, configuration.http.connections)
        let drainSeconds = try args.number("--drain-seconds", default: 25, in: 0...3600)
        configuration.quiet = args.has("--quiet")
        configuration.kernelPolicy = ModelOptions.policy(args)

        let saliency = try ModelOptions.loadSaliencyModel(args)
        let classifier: any Network
        do {
            classifier = try ModelSource(argument: "efficientnet-lite0").load(options: .init(prepareFastKernels: configuration.kernelPolicy != .gemm))
        } catch {
            throw CLIError.failure(SwiftsegError(error).message)
        }
        ProcessMemory.returnLargeBlocksToSystem()
        let service: Service
        let port: Int
        do {
            service = try Service(configuration: configuration, saliencyModel: saliency, classifierModel: classifier)
            port = try service.start()
        } catch let error as HTTPServerError {
            throw CLIError.failure(error.description)
        } catch {
            throw CLIError.failure(SwiftsegError(error).message)
        }
        let shown = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        FileHandle.standardError.write(Data("swiftseg: serving on http://\(shown):\(port) (\(saliency.name), \(classifier.name); \(configuration.concurrent) lanes, queue \(configuration.maxQueue))\n".utf8))

        // SIGTERM / SIGINT: drain, then exit (0 when every request in flight finished in time).
        let stop = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        stop.wait()
        FileHandle.standardError.write(Data("swiftseg: draining (up to \(drainSeconds) s)\n".utf8))
        let drained = service.drain(timeout: drainSeconds)
        withExtendedLifetime(sources) {}
        if !drained { throw CLIError.failure("requests still in flight after --drain-seconds \(drainSeconds); exiting") }
        FileHandle.standardError.write(Data("swiftseg: stopped\n".utf8))
    }
}
