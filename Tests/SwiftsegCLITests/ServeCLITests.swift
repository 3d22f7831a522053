import Foundation
import SwiftsegServiceTestSupport
import XCTest

/// `swiftseg serve` as a deployment runs it: a process on an ephemeral port, stopped with SIGTERM.
final class ServeCLITests: CLITestCase {
    /// `serve --help` is pinned to Tests/Fixtures/cli/serve-help.txt.
    func testHelpIsPinned() throws {
        let r = try run(["serve", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       try String(contentsOfFile: "\(Self.fixtures)/cli/serve-help.txt", encoding: .utf8))
    }

    func testUsageMistakesExit2WithOneLine() throws {
        for (args, mentions) in [(["--port", "70000"], "--port"), (["--threads", "2", "--concurrent", "3"], "--concurrent"),
                                 (["--max-queue", "-1"], "--max-queue"), (["photo.jpg"], "no inputs"),
                                 (["--drain-seconds", "x"], "--drain-seconds")] {
            let r = try run(["serve"] + args)
            XCTAssertEqual(r.status, 2, args.joined(separator: " "))
            assertCleanFailure(r, mentions: mentions)
        }
        let badHost = try run(["serve", "--host", "localhost:80"])
        XCTAssertEqual(badHost.status, 1)
        assertCleanFailure(badHost, mentions: "not an IP address")
    }

    /// A running server: its port (read from the line it prints) and a way to read the rest of its stderr.
    final class Server {
        let process = Process()
        let stderr = Pipe()
        var port = 0
        private var seen = ""

        init(binary: String, arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["serve", "--port", "0"] + arguments
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while port == 0 && Date() < deadline {
                let data = stderr.fileHandleForReading.availableData
                if data.isEmpty { break }
                seen += String(decoding: data, as: UTF8.self)
                if let range = seen.range(of: #"http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = Int(seen[range].split(separator: ":").last!)!
                }
            }
            if port == 0 { process.terminate(); throw TestConnection.Failure(description: "no port in: \(seen)") }
        }

        /// Everything it printed, once it has exited.
        func finish() -> (status: Int32, stderr: String) {
            let rest = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, seen + String(decoding: rest, as: UTF8.self))
        }
    }

    func testServesInfersBytesAndDrainsOnSIGTERM() throws {
        let server = try Server(binary: Self.binary, arguments: ["--threads", "2", "--concurrent", "1"])
        let input = photo("chelsea.png")
        let expected = "\(tmp)/expected.png"
        XCTAssertEqual(try run(["infer", input, "--threads", "2", "-o", expected]).status, 0)
        let form = TestConnection.multipart([("file", "chelsea.png", Array(FileManager.default.contents(atPath: input)!))])
        let response = try TestConnection.request(port: server.port, "POST", "/api/remove", body: form.body,
                                                  headers: ["Content-Type": form.contentType])
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.body, Array(FileManager.default.contents(atPath: expected)!),
                       "the same bytes as swiftseg infer with the lane's threads")
        XCTAssertEqual(try TestConnection.request(port: server.port, "GET", "/readyz").status, 200)

        kill(server.process.processIdentifier, SIGTERM)
        let (status, stderr) = server.finish()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains("POST /api/remove 200 "), stderr)
        XCTAssertTrue(stderr.contains("swiftseg: draining"), stderr)
        XCTAssertTrue(stderr.hasSuffix("swiftseg: stopped\n"), stderr)
    }

    func testAPortInUseFailsWithOneLine() throws {
        let server = try Server(binary: Self.binary, arguments: ["--quiet"])
        defer { kill(server.process.processIdentifier, SIGTERM); _ = server.finish() }
        let r = try run(["serve", "--port", String(server.port)])
        XCTAssertEqual(r.status, 1)
        assertCleanFailure(r, mentions: "cannot listen on 127.0.0.1:\(server.port)")
    }

    /// The page in a real headless browser (Tools/check_page.py: Selenium driving Debian's chromium): pick a
    /// photo, get the cutout, instances, labels and rectangles, switch to the mask. The Python is
    /// `SWIFTSEG_PAGE_PYTHON` (CI's virtualenv with Tools/requirements-page.txt), else Tools/.venv's or the
    /// system's. Skipped, saying why, where chromium, chromedriver or Selenium is missing — but not where
    /// `SWIFTSEG_REQUIRE_BROWSER=1` (CI sets it after installing all three), where a skip is a failure.
    func testThePageWorksInAHeadlessBrowser() throws {
        let tools = URL(fileURLWithPath: Self.fixtures).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tools").path
        let environment = ProcessInfo.processInfo.environment
        let required = environment["SWIFTSEG_REQUIRE_BROWSER"] == "1"
        let candidates = [environment["SWIFTSEG_PAGE_PYTHON"], "\(tools)/.venv/bin/python", "/usr/bin/python3"]
        let python = candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let python else {
            if required { return XCTFail("SWIFTSEG_REQUIRE_BROWSER=1 but no Python to run Tools/check_page.py") }
            throw XCTSkip("no Python to run Tools/check_page.py")
        }
        let r = try run(["\(tools)/check_page.py", "--swiftseg", Self.binary], binary: python)
        let output = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        if r.status == 77 {
            if required { return XCTFail("SWIFTSEG_REQUIRE_BROWSER=1 but " + output) }
            throw XCTSkip(output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(r.status, 0, output)
    }
}
