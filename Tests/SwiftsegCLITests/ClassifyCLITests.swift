import Foundation
import XCTest

/// `swiftseg classify`: labels for one photo, JSON, batches with a manifest, and clean failures.
final class ClassifyCLITests: CLITestCase {
    /// `classify --help` is pinned to Tests/Fixtures/cli/classify-help.txt.
    func testHelpIsPinned() throws {
        let r = try run(["classify", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       try String(contentsOfFile: "\(Self.fixtures)/cli/classify-help.txt", encoding: .utf8))
    }

    /// One photo: `(0.93) espresso`, one line per class, as many as --top.
    func testPrintsTheTopClasses() throws {
        let r = try run(["classify", photo("coffee.png"), "--top", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(lines.first, "(0.93) espresso")
        XCTAssertTrue(r.stderr.isEmpty, r.stderr)
        // Through a pipe, with the other crop-and-scale options.
        for mode in ["scaleFit", "scaleFill"] {
            let piped = try run(["classify", "-", "--top", "1", "--crop-and-scale", mode],
                                    stdin: try Data(contentsOf: URL(fileURLWithPath: photo("coffee.png"))))
            XCTAssertEqual(piped.status, 0, piped.stderr)
            XCTAssertTrue(String(decoding: piped.stdout, as: UTF8.self).hasSuffix(" espresso\n"), mode)
        }
    }

    /// --json: the report's keys, the classifications sorted with their class index.
    func testJSONReport() throws {
        let r = try run(["classify", photo("chelsea.png"), "--json", "--top", "3"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        XCTAssertEqual(json["model"] as? String, "efficientnet-lite0")
        XCTAssertEqual(json["cropAndScale"] as? String, "centerCrop")
        XCTAssertEqual(json["width"] as? Int, 451)
        let classes = json["classifications"] as! [[String: Any]]
        XCTAssertEqual(classes.count, 3)
        XCTAssertEqual(classes[0]["identifier"] as? String, "Egyptian cat")
        XCTAssertEqual(classes[0]["classIndex"] as? Int, 285)
        let confidences = classes.map { $0["confidence"] as! Double }
        XCTAssertEqual(confidences, confidences.sorted(by: >))
        XCTAssertNotNil((json["timingsMs"] as? [String: Double])?["network"])
    }

    /// A folder: a block per photo on stdout, a manifest line per photo, a bad photo reported and skipped,
    /// exit 1; `--json` gives JSON Lines.
    func testBatchReportsEachPhotoAndFailures() throws {
        let dir = "\(tmp)/photos"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["coffee.png", "rocket.jpg"] { try FileManager.default.copyItem(atPath: photo(name), toPath: "\(dir)/\(name)") }
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/broken.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0x00])))
        let manifest = "\(tmp)/labels.jsonl"
        let r = try run(["classify", dir, "--top", "1", "--manifest", manifest])
        XCTAssertEqual(r.status, 1)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("\(dir)/coffee.png:\n  (0.93) espresso\n"), out)
        XCTAssertTrue(out.contains("\(dir)/rocket.jpg:\n  (0.18) missile\n"), out)
        XCTAssertTrue(r.stderr.contains("failed   \(dir)/broken.jpg"), r.stderr)
        XCTAssertTrue(r.stderr.contains("1 of 3 photos failed"), r.stderr)
        let lines = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(Set(records.map { $0["status"] as! String }), ["ok", "failed"])
        XCTAssertEqual(records.first { ($0["input"] as? String)?.hasSuffix("coffee.png") == true }?["identifier"] as? String, "espresso")
        let json = try run(["classify", dir, "--top", "1", "--json", "--quiet"])
        let objects = String(decoding: json.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(objects.count, 2)
        for line in objects {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let timings = try XCTUnwrap(object["timingsMs"] as? [String: Double])
            XCTAssertEqual(Set(timings.keys), ["decode", "preprocess", "network", "postprocess"], "as for one photo")
        }
        XCTAssertEqual(json.stderr.split(separator: "\n").count, 2, json.stderr)  // the failure and the summary line
    }

    /// Bad input and bad options: one line on stderr, a non-zero exit, nothing on stdout.
    func testBadInputFailsCleanly() throws {
        let empty = "\(tmp)/empty.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let corrupt = "\(tmp)/corrupt.png"
        let png = try Data(contentsOf: URL(fileURLWithPath: photo("coffee.png")))
        XCTAssertTrue(FileManager.default.createFile(atPath: corrupt, contents: png.prefix(200)))
        for (args, mentions) in [
            ([empty], "file is empty"),
            ([corrupt], "corrupt PNG"),
            (["\(tmp)/missing.jpg"], "no such file"),
            ([photo("coffee.png"), "--top", "0"], "--top expects a positive integer, got '0'"),
            ([photo("coffee.png"), "--top", "many"], "--top expects a positive integer, got 'many'"),
            ([photo("coffee.png"), "--crop-and-scale", "zoom"], "--crop-and-scale must be one of"),
            ([photo("coffee.png"), "--model", "nope"], "model 'nope' not found in"),
            ([photo("coffee.png"), "--model", "nope.safetensors"], "model 'nope.safetensors': no such file"),
            ([photo("coffee.png"), "--model", "u2netp"], "u2netp is not an image classifier"),
            ([], "classify needs an input image"),
        ] as [([String], String)] {
            assertCleanFailure(try run(["classify"] + args), mentions: mentions)
        }
        assertCleanFailure(try run(["infer", photo("coffee.png"), "--model", "efficientnet-lite0", "-o", "\(tmp)/x.png"]),
                               mentions: "efficientnet-lite0 is not a subject-lifting (saliency) model")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/x.png"))
    }
}
