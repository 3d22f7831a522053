import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegService
import SwiftsegServiceTestSupport
import XCTest

/// The service on 127.0.0.1, an ephemeral port, started and stopped by each test; requests over real sockets.
final class ServiceTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
    static let saliency = try! ModelSource(argument: "u2netp").load()
    static let classifier = try! ModelSource(argument: "efficientnet-lite0").load()

    static func photo(_ name: String) -> [UInt8] { Array(FileManager.default.contents(atPath: "\(fixtures)/\(name)")!) }

    /// Logged lines, so tests can check them and the output stays quiet.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    private func start(threads: Int = 2, concurrent: Int = 1, maxQueue: Int = 8, maxBodyBytes: Int = 64 << 20,
                       requestTimeout: Double? = 60, idleSeconds: Int = 30, connectionsPerAddress: Int = 64,
                       log: Log = Log()) throws -> (Service, Int) {
        var configuration = Service.Configuration()
        configuration.port = 0
        configuration.threads = threads
        configuration.concurrent = concurrent
        configuration.maxQueue = maxQueue
        configuration.maxBodyBytes = maxBodyBytes
        configuration.requestTimeout = requestTimeout
        configuration.http.idleTimeoutSeconds = idleSeconds
        configuration.http.connectionsPerAddress = connectionsPerAddress
        configuration.maxMattingPixels = 40_000  // a wide band (ae=40) on chelsea is over it
        let service = try Service(configuration: configuration, saliencyModel: Self.saliency,
                                  classifierModel: Self.classifier, log: log.append)
        let port = try service.start()
        addTeardownBlock { service.drain(timeout: 10) }
        return (service, port)
    }

    /// The library's own answer, on a segmenter with the service's threads (results depend on the thread count
    /// in the last bit of a few pixels, as the CLI's do; not on how many cores a lane borrows).
    private func expectedPicture(_ photo: [UInt8], _ values: [String: String], threads: Int) throws -> [UInt8] {
        let cutout = try CutoutParameters(RequestParameters(values: values, prefix: ""))
        let pipeline = try cutout.pipeline(format: cutout.format ?? .png) { try Background(argument: $0) }
        var configuration = Segmenter.Configuration()
        configuration.threads = threads
        let segmenter = Segmenter(model: Self.saliency, configuration: configuration)
        return try pipeline.encode(pipeline.lift(Image(encoded: photo, name: "x"), with: segmenter)).image
    }

    private func withoutTimings(_ json: [String: Any]) -> NSDictionary {
        var copy = json
        copy["timingsMs"] = nil
        return copy as NSDictionary
    }

    func testEachEndpointGivesTheLibrarysAnswer() throws {
        let (_, port) = try start()
        let photo = Self.photo("photos/chelsea.png")

        for (query, values) in [("", [String: String]()), ("?mask=1", ["mask": "1"]),
                                ("?effect=blur&blur-radius=8&format=jpeg", ["effect": "blur", "blur-radius": "8", "format": "jpeg"]),
                                ("?background=%23102030&crop", ["background": "#102030", "crop": ""])] {
            let response = try TestConnection.request(port: port, "POST", "/v1/cutout" + query, body: photo)
            XCTAssertEqual(response.status, 200, query + response.text)
            XCTAssertEqual(response.body, try expectedPicture(photo, values, threads: 2), query)
            XCTAssertEqual(response.headers["content-type"], values["format"] == "jpeg" ? "image/jpeg" : "image/png")
        }

        // WebP: in (lossless, so the same picture as the PNG), and out by `format` or by the Accept header
        let webp = try Image(encoded: photo, name: "x").webpData()
        let fromWebP = try TestConnection.request(port: port, "POST", "/v1/cutout", body: webp)
        XCTAssertEqual(fromWebP.status, 200, fromWebP.text)
        XCTAssertEqual(fromWebP.body, try expectedPicture(photo, [:], threads: 2), "a lossless WebP: the PNG's cutout")
        let webpOut = try TestConnection.request(port: port, "POST", "/v1/cutout?format=webp", body: photo)
        XCTAssertEqual(webpOut.headers["content-type"], "image/webp")
        XCTAssertEqual(webpOut.body, try expectedPicture(photo, ["format": "webp"], threads: 2))
        for (accept, type) in [("image/webp", "image/webp"), ("image/jpeg;q=0.5, image/webp;q=0.9", "image/webp"),
                               ("*/*", "image/png"), ("image/webp;q=0, image/png", "image/png")] {
            let negotiated = try TestConnection.request(port: port, "POST", "/v1/cutout?mask=1", body: photo, headers: ["Accept": accept])
            XCTAssertEqual(negotiated.headers["content-type"], type, accept)
        }
        let explicit = try TestConnection.request(port: port, "POST", "/v1/cutout?format=png", body: photo, headers: ["Accept": "image/webp"])
        XCTAssertEqual(explicit.headers["content-type"], "image/png", "the format parameter over the Accept header")

        // HEIC, AVIF, BMP and GIF in
        for name in ["decode/heic.heic", "decode/avif.avif", "decode/bmp-rle8.bmp", "decode/gif-transparent.gif"] {
            let file = Self.photo(name)
            let response = try TestConnection.request(port: port, "POST", "/v1/cutout?mask=1", body: file)
            XCTAssertEqual(response.status, 200, name + response.text)
            XCTAssertEqual(response.body, try expectedPicture(file, ["mask": "1"], threads: 2), name)
        }

        // rembg's API: multipart with its parameters as form fields or in the query
        let form = TestConnection.multipart([("file", "cat.png", photo), ("om", nil, Array("true".utf8))])
        let mask = try TestConnection.request(port: port, "POST", "/api/remove", body: form.body,
                                              headers: ["Content-Type": form.contentType])
        XCTAssertEqual(mask.status, 200, mask.text)
        XCTAssertEqual(mask.body, try expectedPicture(photo, ["mask": "1"], threads: 2))
        let white = try TestConnection.request(port: port, "POST", "/api/remove?bgc=255,255,255,255&ppm=true", body: photo)
        XCTAssertEqual(white.body, try expectedPicture(photo, ["background": "#ffffff", "post-process": "1"], threads: 2))

        // rembg's alpha matting: a, af, ab, ae as --alpha-matting and its settings
        let matted = try TestConnection.request(port: port, "POST", "/api/remove?a=true&af=230&ae=6", body: photo)
        XCTAssertEqual(matted.status, 200, matted.text)
        let mattedValues = ["alpha-matting": "1", "alpha-matting-foreground-threshold": "230", "alpha-matting-erode-size": "6"]
        XCTAssertEqual(matted.body, try expectedPicture(photo, mattedValues, threads: 2))
        let query = mattedValues.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
        XCTAssertEqual(try TestConnection.request(port: port, "POST", "/v1/cutout?" + query, body: photo).body, matted.body)
        XCTAssertNotEqual(matted.body, try expectedPicture(photo, [:], threads: 2))
        let ignored = try TestConnection.request(port: port, "POST", "/api/remove?a=false&af=240&ab=10&ae=10", body: photo)
        XCTAssertEqual(ignored.body, try expectedPicture(photo, [:], threads: 2), "af, ab, ae count only with a")

        // rembg 2.0.86's dc (query or form field) as --decontaminate; ignored with om, as rembg ignores it
        let clean = try TestConnection.request(port: port, "POST", "/api/remove?dc=true", body: photo)
        XCTAssertEqual(clean.status, 200, clean.text)
        XCTAssertEqual(clean.body, try expectedPicture(photo, ["decontaminate": "1"], threads: 2))
        XCTAssertNotEqual(clean.body, try expectedPicture(photo, [:], threads: 2))
        XCTAssertEqual(try TestConnection.request(port: port, "POST", "/v1/cutout?decontaminate=1", body: photo).body, clean.body)
        let dcForm = TestConnection.multipart([("file", "cat.png", photo), ("dc", nil, Array("true".utf8))])
        XCTAssertEqual(try TestConnection.request(port: port, "POST", "/api/remove", body: dcForm.body,
                                                  headers: ["Content-Type": dcForm.contentType]).body, clean.body)
        XCTAssertEqual(try TestConnection.request(port: port, "POST", "/api/remove?om=true&dc=true", body: photo).body,
                       try expectedPicture(photo, ["mask": "1"], threads: 2))

        let subjects = try TestConnection.request(port: port, "POST", "/v1/subjects?threshold=0.4", body: photo)
        XCTAssertEqual(subjects.status, 200)
        var configuration = Segmenter.Configuration()
        configuration.threads = 2
        var pipeline = SubjectLiftingPipeline()
        pipeline.lifting.request.threshold = 0.4
        pipeline.lifting.output = .mask
        let lifted = try pipeline.lift(Image(encoded: photo, name: "x"), with: Segmenter(model: Self.saliency, configuration: configuration))
        let report = pipeline.report(for: lifted, input: nil, model: "u2netp", timingsMs: [:])
        let expected = try JSONSerialization.jsonObject(with: Data(report.jsonData())) as! [String: Any]
        XCTAssertEqual(withoutTimings(subjects.json), withoutTimings(expected))

        let labels = try TestConnection.request(port: port, "POST", "/v1/classify?top=2&crop-and-scale=scaleFit", body: photo)
        let request = ClassifyImageRequest(cropAndScale: .scaleFit, maximumResults: 2)
        var classifierConfiguration = Classifier.Configuration()
        classifierConfiguration.threads = 2
        let result = Classifier(model: Self.classifier, configuration: classifierConfiguration)
            .classify(try Image(encoded: photo, name: "x"), request: request)
        let expectedLabels = try JSONSerialization.jsonObject(with: Data(
            result.report(input: nil, model: "efficientnet-lite0", cropAndScale: .scaleFit).jsonData())) as! [String: Any]
        XCTAssertEqual(withoutTimings(labels.json), withoutTimings(expectedLabels))

        let card = Self.photo("rectangles/a4-upright.jpg")
        let found = try TestConnection.request(port: port, "POST", "/v1/rectangles?max-observations=0", body: card)
        let cardImage = try Image(encoded: card, name: "x")
        let detected = try RectanglesPipeline.detect(cardImage, request: DetectRectanglesRequest(maximumObservations: 0))
        let expectedRectangles = try JSONSerialization.jsonObject(with: Data(detected.report(input: nil).jsonData())) as! [String: Any]
        XCTAssertEqual(withoutTimings(found.json), withoutTimings(expectedRectangles))
        XCTAssertFalse((found.json["rectangles"] as? [Any] ?? []).isEmpty)
        let crop = try TestConnection.request(port: port, "POST", "/v1/rectangles?extract=1", body: card)
        XCTAssertEqual(crop.headers["content-type"], "image/png")
        XCTAssertEqual(crop.body, try detected.extracts(from: cardImage)[0].pngData())
    }

    func testSixteenClientsAtOnceAllGetTheSameAnswer() throws {
        let (service, port) = try start(concurrent: 2, maxQueue: 16)
        let photo = Self.photo("photos/coins.png")
        // Two lanes sharing two cores: whether a request ran alone (both cores) or beside another (one), the
        // bytes are those of a two-thread segmenter.
        let expected = try expectedPicture(photo, ["mask": "1"], threads: 2)
        let results = Results()
        simultaneously(16) {
            results.add(Result { try TestConnection.request(port: port, "POST", "/v1/cutout?mask=1", body: photo) })
        }
        for result in results.all {
            let response = try result.get()
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.body, expected)
        }
        XCTAssertEqual(service.metrics.count(route: "/v1/cutout", status: 200), 16)
    }

    func testAFullQueueAnswers503WithRetryAfterAtOnce() throws {
        let (service, port) = try start(concurrent: 1, maxQueue: 0)
        let photo = Self.photo("photos/astronaut.png")
        let results = Results()
        simultaneously(6) {
            results.add(Result { try TestConnection.request(port: port, "POST", "/v1/cutout", body: photo) })
        }
        let responses = try results.all.map { try $0.get() }
        let busy = responses.filter { $0.status == 503 }
        XCTAssertFalse(busy.isEmpty, "six requests at once on one lane with no queue: some must be refused")
        XCTAssertTrue(responses.contains { $0.status == 200 })
        for response in busy {
            // The expected wait (admitted × recent service time ÷ lanes, at least 1) spread over w … 2w.
            XCTAssertTrue(["1", "2"].contains(response.headers["retry-after"] ?? ""), "\(response.headers)")
            XCTAssertEqual(response.errorCode, "busy")
        }
        XCTAssertTrue(responses.allSatisfy { $0.status == 200 || $0.status == 503 })
        let metrics = try TestConnection.request(port: port, "GET", "/metrics").text
        XCTAssertTrue(metrics.contains("swiftseg_rejections_total{reason=\"queue_full\"} \(busy.count)\n"), metrics)
        XCTAssertEqual(service.metrics.count(route: "/v1/cutout", status: 503), busy.count)
    }

    /// 16 clients that honour Retry-After, 8 requests each, on the default 2 lanes and queue of 8: every request
    /// ends 200. The bound: a refused client waits at least the time the lanes need for everything admitted when
    /// it was refused (Retry-After is that expected wait, spread over w … 2w), so by its return that queue has
    /// drained and only clients refused at about the same moment compete with it again; 12 tries (11 waits of
    /// ≥ 1 s) per request is far beyond what that allows, and the whole run is the 128 requests' work on 2 lanes
    /// plus the waits (a few seconds here). The count of 503s is printed.
    func testClientsThatHonourRetryAfterAreAllServed() throws {
        let (_, port) = try start(threads: 2, concurrent: 2, maxQueue: 8)
        let photo = Self.photo("decode/upright.png")
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var outcomes: [(status: Int, tries: Int, seconds: Double)] = [], refusals = 0
        }
        let tally = Tally()
        let started = Date()
        simultaneously(16) {
            for _ in 0..<8 {
                var tries = 0
                let start = Date()
                while true {
                    tries += 1
                    let response = try? TestConnection.request(port: port, "POST", "/v1/cutout?mask=1", body: photo)
                    if let response, response.status == 503, tries < 12, let wait = Int(response.headers["retry-after"] ?? "") {
                        tally.lock.lock(); tally.refusals += 1; tally.lock.unlock()
                        Thread.sleep(forTimeInterval: Double(wait))
                        continue
                    }
                    tally.lock.lock(); tally.outcomes.append((response?.status ?? -1, tries, Date().timeIntervalSince(start))); tally.lock.unlock()
                    break
                }
            }
        }
        let elapsed = Date().timeIntervalSince(started), outcomes = tally.outcomes, refusals = tally.refusals
        print("16 clients × 8 requests honouring Retry-After: \(refusals) 503s, at most \(outcomes.map(\.tries).max() ?? 0) tries and "
              + String(format: "%.1f s for a request, %.1f s in all", outcomes.map(\.seconds).max() ?? 0, elapsed))
        XCTAssertEqual(outcomes.count, 128)
        XCTAssertTrue(outcomes.allSatisfy { $0.status == 200 }, "\(outcomes.filter { $0.status != 200 })")
    }

    func testBadInputsGetTheRightStatusAndJSONAndTheServerStaysUp() throws {
        let log = Log()
        let (_, port) = try start(maxBodyBytes: 2 << 20, log: log)
        let png = Self.photo("photos/chelsea.png"), jpeg = Self.photo("photos/rocket.jpg")
        let webp = try Image(encoded: png, name: "x").webpData(quality: 80)
        var mutated = jpeg
        for i in 0..<40 { mutated[600 + (i * 7919) % (mutated.count - 600)] ^= 0x5a }  // the same bytes every run
        let form = TestConnection.multipart([("other", nil, Array("x".utf8))])
        let cases: [(String, String, [UInt8]?, [String: String], Int, String)] = [
            ("empty body", "/v1/cutout", [], [:], 400, "bad_request"),
            ("garbage", "/v1/cutout", Array("hello, not an image".utf8), [:], 415, "unsupported_media_type"),
            ("truncated PNG", "/v1/cutout", Array(png.prefix(png.count / 2)), [:], 422, "corrupt_image"),
            ("truncated WebP", "/v1/cutout", Array(webp.prefix(webp.count / 2)), [:], 422, "corrupt_image"),
            ("a PDF", "/v1/cutout", Array("%PDF-1.7\n".utf8) + [UInt8](repeating: 0, count: 40), [:], 415, "unsupported_media_type"),
            ("a GIF with no image", "/v1/cutout", Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 40), [:], 422, "corrupt_image"),
            ("format=gif", "/v1/cutout?format=gif", png, [:], 400, "bad_request"),
            ("truncated JPEG", "/v1/classify", Array(jpeg.prefix(400)), [:], 422, "corrupt_image"),
            ("multipart without file", "/api/remove", form.body, ["Content-Type": form.contentType], 400, "bad_request"),
            ("multipart without its boundary", "/api/remove", Array("--nope\r\n".utf8), ["Content-Type": "multipart/form-data; boundary=abc"], 400, "bad_request"),
            ("multipart, no boundary parameter", "/api/remove", png, ["Content-Type": "multipart/form-data"], 400, "bad_request"),
            ("4 GiB Content-Length", "/v1/cutout", nil, ["Content-Length": "4294967296"], 413, "too_large"),
            ("over --max-body-mb", "/v1/cutout", [UInt8](repeating: 0xff, count: 3 << 20), [:], 413, "too_large"),
            ("bad threshold", "/v1/cutout?threshold=7", png, [:], 400, "bad_request"),
            ("unknown parameter", "/v1/classify?topp=3", png, [:], 400, "bad_request"),
            ("background from a file", "/v1/cutout?background=/etc/passwd", png, [:], 400, "bad_request"),
            ("alpha matting erode size", "/api/remove?a=true&ae=-1", png, [:], 400, "bad_request"),
            ("alpha matting with a mask", "/v1/cutout?alpha-matting=1&mask=1", png, [:], 400, "bad_request"),
            ("decontaminating a mask", "/v1/cutout?decontaminate=1&mask=1", png, [:], 400, "bad_request"),
            ("dc not a boolean", "/api/remove?dc=maybe", png, [:], 400, "bad_request"),
            ("alpha matting over --max-matting-pixels", "/api/remove?a=1&af=200&ab=50&ae=40", png, [:], 413, "too_large"),
            ("another model", "/api/remove?model=isnet-anime", png, [:], 400, "bad_request"),
            ("bad bgc", "/api/remove?bgc=1,2,3", png, [:], 400, "bad_request"),
            ("bad rectangles limits", "/v1/rectangles?min-aspect=0.9&max-aspect=0.2", png, [:], 400, "bad_request"),
            ("no rectangle to extract", "/v1/rectangles?extract=1&min-size=1", png, [:], 422, "no_rectangle"),
            ("unknown route", "/v2/cutout", png, [:], 404, "not_found"),
        ]
        for (name, target, body, headers, status, code) in cases {
            let response = try TestConnection.request(port: port, "POST", target, body: body, headers: headers)
            XCTAssertEqual(response.status, status, "\(name): \(response.text)")
            XCTAssertEqual(response.errorCode, code, name)
            XCTAssertEqual(response.headers["content-type"], "application/json", name)
            XCTAssertNotNil((response.json["error"] as? [String: Any])?["message"] as? String, name)
        }
        let mutatedResponse = try TestConnection.request(port: port, "POST", "/v1/cutout", body: mutated)
        XCTAssertTrue([200, 422].contains(mutatedResponse.status), "a mutated JPEG decodes or is refused: \(mutatedResponse.text)")
        let wrongMethod = try TestConnection.request(port: port, "GET", "/v1/cutout")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.headers["allow"], "POST")
        XCTAssertEqual(try TestConnection.request(port: port, "GET", "/api/remove?url=http://example.com/a.jpg").status, 400)

        // a chunked body over the cap is counted as it arrives and refused at its end
        let chunked = try TestConnection(port: port)
        var body: [UInt8] = []
        for _ in 0..<3 { body += Array("100000\r\n".utf8) + [UInt8](repeating: 1, count: 0x100000) + Array("\r\n".utf8) }
        body += Array("0\r\n\r\n".utf8)
        try chunked.send(Array("POST /v1/cutout HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + body)
        let overflow = try chunked.readResponse()
        XCTAssertEqual(overflow.status, 413)
        XCTAssertEqual(overflow.errorCode, "too_large")

        XCTAssertEqual(try TestConnection.request(port: port, "GET", "/livez").status, 200, "still up")
        XCTAssertEqual(try TestConnection.request(port: port, "POST", "/v1/classify", body: png).status, 200)
        XCTAssertTrue(log.all.contains { $0.hasPrefix("POST /v1/cutout 413 ") }, log.all.joined(separator: "\n"))
    }

    func testOddPhotosAreAnsweredOnEveryEndpoint() throws {
        let (_, port) = try start()
        let odd: [(String, Image)] = [
            ("1×1", Image(width: 1, height: 1, channels: 3, pixels: [200, 10, 10])),
            ("one row", Image(width: 97, height: 1, channels: 3, pixels: (0..<291).map { UInt8($0 % 256) })),
            ("gray", Image(width: 40, height: 30, channels: 1, pixels: (0..<1200).map { UInt8($0 % 251) })),
            ("RGBA", Image(width: 33, height: 20, channels: 4, pixels: (0..<2640).map { UInt8(($0 * 7) % 256) })),
            ("flat", Image(width: 64, height: 48, channels: 3, pixels: [UInt8](repeating: 128, count: 64 * 48 * 3))),
        ]
        for (name, image) in odd {
            let png = try image.pngData()
            for target in ["/v1/cutout", "/v1/cutout?mask=1&crop=1", "/v1/cutout?effect=highlight", "/api/remove",
                           "/v1/subjects", "/v1/classify", "/v1/rectangles", "/v1/rectangles?extract=1"] {
                let response = try TestConnection.request(port: port, "POST", target, body: png)
                XCTAssertTrue(response.status == 200 || (400..<500).contains(response.status), "\(name) \(target): \(response.status) \(response.text)")
                if response.status != 200 { XCTAssertNotNil(response.errorCode, "\(name) \(target)") }
            }
        }
        XCTAssertEqual(try TestConnection.request(port: port, "GET", "/livez").status, 200)
    }

    func testAnImageOverThePixelLimitIs413FromItsHeader() throws {
        let (_, port) = try start()
        var huge = Self.photo("photos/chelsea.png")
        for (offset, value) in [(16, UInt32(60000)), (20, UInt32(60000))] {  // IHDR width and height
            withUnsafeBytes(of: value.bigEndian) { for i in 0..<4 { huge[offset + i] = $0[i] } }
        }
        let response = try TestConnection.request(port: port, "POST", "/v1/cutout", body: huge)
        XCTAssertEqual(response.status, 413, response.text)
        XCTAssertEqual(response.errorCode, "too_large")
    }

    func testARequestThatWaitsPastItsDeadlineGets503() throws {
        let (service, port) = try start(concurrent: 1, maxQueue: 12, requestTimeout: 0.3)
        let photo = Self.photo("photos/astronaut.png")
        let results = Results()
        simultaneously(12) {
            results.add(Result { try TestConnection.request(port: port, "POST", "/v1/cutout", body: photo) })
        }
        let responses = try results.all.map { try $0.get() }
        let late = responses.filter { $0.errorCode == "timeout" }
        XCTAssertFalse(late.isEmpty, "twelve requests of 40–100 ms on one lane with a 0.3 s deadline: \(responses.map(\.status))")
        // Retry-After: the expected wait (at most 13 admitted × a recent 40–300 ms ÷ 1 lane → 1–4 s) over w … 2w.
        XCTAssertTrue(late.allSatisfy { $0.status == 503 && (1...8).contains(Int($0.headers["retry-after"] ?? "") ?? 0) })
        XCTAssertTrue(responses.contains { $0.status == 200 })
        XCTAssertTrue(try TestConnection.request(port: port, "GET", "/metrics").text
            .contains("swiftseg_rejections_total{reason=\"timeout\"} \(late.count)\n"))
        _ = service
    }

    func testWhatIsNotHTTPIsRefusedAndTheServerStaysUp() throws {
        let (_, port) = try start(idleSeconds: 1)  // what never completes a request is closed when idle
        for junk in ["\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}", "GARBAGE\r\n\r\n", "POST /v1/cutout HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                     "GET /\(String(repeating: "a", count: 20000)) HTTP/1.1\r\nHost: x\r\n\r\n"] {
            let connection = try TestConnection(port: port)
            try? connection.send(Array(junk.utf8))
            if let response = try? connection.readResponse() {
                XCTAssertTrue((400..<500).contains(response.status), "\(junk.prefix(30)): \(response.status)")
            }  // or the server closed the connection: both are fine for what is not HTTP
        }
        XCTAssertEqual(try TestConnection.request(port: port, "GET", "/livez").status, 200)
    }

    /// The multipart parser on mutated and truncated bodies: it parses or throws a 400, never traps (deterministic
    /// mutations: flipped bytes, cuts, repeated and dropped boundaries).
    func testMutatedMultipartBodiesParseOrAreRefused() throws {
        let form = TestConnection.multipart([("file", "a.png", Array(repeating: 7, count: 300)), ("om", nil, Array("1".utf8)),
                                             ("x", "b.bin", Array("--swiftsegTestBoundary7MA4YWxk".utf8))])
        let parsed = try MultipartForm(body: form.body, contentType: form.contentType)
        XCTAssertEqual(parsed.fields.map(\.name), ["file", "om", "x"])
        XCTAssertEqual(parsed.fields[0].filename, "a.png")
        XCTAssertEqual(parsed.fields[0].data, Array(repeating: 7, count: 300))
        var state: UInt64 = 20261201
        func next(_ n: Int) -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) % max(n, 1) }
        var refused = 0
        for _ in 0..<3000 {
            var body = form.body
            switch next(4) {
            case 0: for _ in 0...next(8) { body[next(body.count)] = UInt8(truncatingIfNeeded: next(256)) }
            case 1: body = Array(body.prefix(next(body.count)))
            case 2: body.insert(contentsOf: body[next(body.count)...].prefix(next(60)), at: next(body.count))
            default: body.removeSubrange(next(body.count / 2)..<(body.count / 2 + next(body.count / 2)))
            }
            do { _ = try MultipartForm(body: body, contentType: form.contentType) }
            catch let error as HTTPError { XCTAssertEqual(error.status, 400); refused += 1 }
        }
        XCTAssertGreaterThan(refused, 1000, "most mutations break the framing")
        // Data full of the delimiter's first bytes and near misses ("\r\n--swiftseg…" cut short), and a part that
        // ends right at the closing delimiter: each field comes back whole.
        let nearMisses = (0..<40).flatMap { Array("\r\n--swiftsegTestBoundary7MA4YWx".utf8).prefix($0 % 33) + [13, 10, 13] }
        let tricky = TestConnection.multipart([("a", "a.bin", nearMisses), ("b", nil, [13]), ("c", nil, [])])
        let fields = try MultipartForm(body: tricky.body, contentType: tricky.contentType).fields
        XCTAssertEqual(fields.map(\.name), ["a", "b", "c"])
        XCTAssertEqual(fields.map(\.data), [nearMisses, [13], []])
        for type in ["multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\""] {
            XCTAssertThrowsError(try MultipartForm(body: form.body, contentType: type), type)
        }
    }

    func testSlowAndSilentClientsAreCutOffAndGiveTheirPlaceBack() throws {
        let (_, port) = try start(concurrent: 1, maxQueue: 0, requestTimeout: 1, idleSeconds: 1)
        let photo = Self.photo("photos/coins.png")
        let head = Array("POST /v1/classify HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n".utf8)
        for trickles in [true, false] {  // a body sent a byte at a time past the deadline; a body never sent
            let slow = try TestConnection(port: port)
            try slow.send(head + [1, 2, 3])
            usleep(100_000)
            XCTAssertEqual(try TestConnection.request(port: port, "POST", "/v1/classify", body: photo).status, 503,
                           "the slow client holds the only place")
            var cutOff = false
            for _ in 0..<15 where !cutOff {
                usleep(300_000)
                if trickles { do { try slow.send([4]) } catch { cutOff = true } }
                else { cutOff = (try? slow.readResponse()) == nil }
            }
            XCTAssertTrue(cutOff || (try? slow.readResponse()) == nil, "trickles: \(trickles)")
            usleep(200_000)
            XCTAssertEqual(try TestConnection.request(port: port, "POST", "/v1/classify", body: photo).status, 200,
                           "its place is free again (trickles: \(trickles))")
        }
    }

    /// Past the per-address connection limit a new connection is closed at once (the client sees no response),
    /// and is served again once the others close.
    func testTheConnectionLimitPerAddressHolds() throws {
        let (_, port) = try start(connectionsPerAddress: 3)
        var open: [TestConnection] = []
        for _ in 0..<3 {
            let c = try TestConnection(port: port)
            XCTAssertEqual(try c.request("GET", "/livez").status, 200)
            open.append(c)  // kept alive, holding its place
        }
        XCTAssertThrowsError(try TestConnection.request(port: port, "GET", "/livez"), "a fourth connection is refused")
        open.removeAll()
        usleep(200_000)
        XCTAssertEqual(try TestConnection.request(port: port, "GET", "/livez").status, 200)
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let (_, port) = try start()
        let connection = try TestConnection(port: port)
        let photo = Self.photo("photos/coins.png")
        for _ in 0..<3 {
            XCTAssertEqual(try connection.request("POST", "/v1/classify?top=1", body: photo).status, 200)
        }
        XCTAssertEqual(try connection.request("GET", "/readyz").status, 200)
    }

    func testDrainFinishesRequestsInFlightAndRefusesNewOnes() throws {
        let (service, port) = try start()
        let photo = Self.photo("photos/astronaut.png")
        let probe = try TestConnection(port: port)  // opened before the drain, kept alive
        XCTAssertEqual(try probe.request("GET", "/readyz").status, 200)
        let inFlight = Results()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            inFlight.add(Result { try TestConnection.request(port: port, "POST", "/v1/cutout", body: photo) })
        }
        while service.requestsAdmitted == 0 { usleep(1000) }  // the cutout is in (the probe's request may not be over)
        let drained = Results()
        DispatchQueue.global().async(group: group) {
            drained.add(Result { service.drain(timeout: 20) })
        }
        while service.isReady { usleep(1000) }
        let ready = try probe.request("GET", "/readyz")
        XCTAssertEqual(ready.status, 503)
        XCTAssertEqual(ready.json["status"] as? String, "draining")
        group.wait()
        XCTAssertEqual(try inFlight.all[0].get().status, 200, "the request in flight finishes")
        XCTAssertEqual(try drained.raw[0].get() as? Bool, true)
        XCTAssertThrowsError(try TestConnection(port: port).request("GET", "/livez"), "no new connections after a drain")
    }

    func testMetricsAreInPrometheusTextFormat() throws {
        let (_, port) = try start()
        _ = try TestConnection.request(port: port, "POST", "/v1/classify", body: Self.photo("photos/coins.png"))
        _ = try TestConnection.request(port: port, "POST", "/v1/classify", body: [])
        let response = try TestConnection.request(port: port, "GET", "/metrics")
        XCTAssertEqual(response.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8")
        let text = response.text
        for line in ["swiftseg_http_requests_total{route=\"/v1/classify\",status=\"200\"} 1",
                     "swiftseg_http_requests_total{route=\"/v1/classify\",status=\"400\"} 1",
                     "swiftseg_http_request_duration_seconds_count{route=\"/v1/classify\"} 2",
                     "swiftseg_http_request_duration_seconds_bucket{route=\"/v1/classify\",le=\"+Inf\"} 2",
                     "swiftseg_queue_depth 0", "swiftseg_in_flight 0", "swiftseg_lanes 1", "swiftseg_ready 1"] {
            XCTAssertTrue(text.contains(line + "\n"), "missing \(line) in\n\(text)")
        }
        // every sample line is `name{labels} value` and every family is declared before its samples
        var declared = Set<String>()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") { declared.insert(String(line.split(separator: " ")[2])); continue }
            if line.hasPrefix("#") { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) ? String($0.dropLast($1.count)) : $0 }
            XCTAssertTrue(declared.contains(family) || declared.contains(name), "undeclared: \(line)")
            XCTAssertNotNil(Double(line.split(separator: " ").last!), "value: \(line)")
        }
        let rss = text.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }
        XCTAssertGreaterThan(Double(rss?.split(separator: " ").last ?? "0") ?? 0, 10e6)
    }

    func testThePageIsServedWithNoOutsideResources() throws {
        let (_, port) = try start()
        let page = try TestConnection.request(port: port, "GET", "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        for endpoint in ["/v1/cutout", "/v1/subjects", "/v1/classify", "/v1/rectangles"] {
            XCTAssertTrue(page.text.contains(endpoint), endpoint)
        }
        XCTAssertFalse(page.text.contains("http://") && !page.text.contains("http://www.w3.org/2000/svg"))
        XCTAssertFalse(page.text.contains("https://"), "no CDN")
    }

    /// Runs `body` on `count` threads of their own, all started before any begins (concurrentPerform would run
    /// only as many at once as there are cores).
    private func simultaneously(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread {
                ready.signal()
                go.wait()
                body()
                done.leave()
            }.start()
        }
        for _ in 0..<count { ready.wait() }
        for _ in 0..<count { go.signal() }
        done.wait()
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Result<Any, any Error>] = []
        func add<T>(_ result: Result<T, any Error>) { lock.lock(); values.append(result.map { $0 as Any }); lock.unlock() }
        var all: [Result<TestConnection.Response, any Error>] {
            lock.lock(); defer { lock.unlock() }
            return values.map { $0.map { $0 as? TestConnection.Response ?? TestConnection.Response(status: -1, headers: [:], body: []) } }
        }
        var raw: [Result<Any, any Error>] { lock.lock(); defer { lock.unlock() }; return values }
    }
}
