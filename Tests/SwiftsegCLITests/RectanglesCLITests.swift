import Foundation
import XCTest

/// `swiftseg rectangles`: text and JSON, the crops and the drawing, batches, and clean refusals.
final class RectanglesCLITests: CLITestCase {
    var sheet: String { "\(Self.fixtures)/rectangles/a4-upright.jpg" }
    var cards: String { "\(Self.fixtures)/rectangles/three-cards.jpg" }

    /// `rectangles --help` is pinned to Tests/Fixtures/cli/rectangles-help.txt.
    func testHelpIsPinned() throws {
        let r = try run(["rectangles", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       try String(contentsOfFile: "\(Self.fixtures)/cli/rectangles-help.txt", encoding: .utf8))
    }

    /// One line per rectangle: confidence, then the four corners in pixels.
    func testPrintsTheCorners() throws {
        let r = try run(["rectangles", sheet])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.hasPrefix("("), out)
        XCTAssertTrue(out.contains("topLeft (213."), out)
        XCTAssertEqual(out.split(separator: "\n").count, 1)
        let three = try run(["rectangles", cards, "--max-observations", "3"])
        XCTAssertEqual(String(decoding: three.stdout, as: UTF8.self).split(separator: "\n").count, 3)
    }

    /// --json: normalized corners with a bottom-left origin, pixel corners with a top-left one, the bounding box.
    func testJSONReport() throws {
        let r = try run(["rectangles", sheet, "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        XCTAssertEqual(json["width"] as? Int, 640)
        XCTAssertEqual(json["height"] as? Int, 480)
        let rect = (json["rectangles"] as! [[String: Any]])[0]
        let topLeft = rect["topLeft"] as! [String: Double], pixel = (rect["pixelCorners"] as! [String: [String: Double]])["topLeft"]!
        XCTAssertEqual(topLeft["x"]! * 640, pixel["x"]!, accuracy: 1e-6)
        XCTAssertEqual((1 - topLeft["y"]!) * 480, pixel["y"]!, accuracy: 1e-6)
        XCTAssertEqual(pixel["y"]!, 64.1, accuracy: 0.5)
        let box = rect["boundingBox"] as! [String: Double]
        XCTAssertEqual(Set(box.keys), ["x", "y", "width", "height"])
        XCTAssertNotNil((json["timingsMs"] as? [String: Double])?["detect"])
        XCTAssertGreaterThan(rect["confidence"] as! Double, 0.5)
    }

    /// --extract writes NAME-1.png … for several, the upright crops; --draw the photo with the quads.
    func testExtractAndDraw() throws {
        let r = try run(["rectangles", cards, "--max-observations", "3", "--extract", "\(tmp)/card.png", "--draw", "\(tmp)/found.jpg"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for i in 1...3 {
            let info = try XCTUnwrap(pngInfo(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/card-\(i).png"))))
            XCTAssertEqual(Double(info.height) / Double(info.width), 54 / 85.6, accuracy: 0.06, "card \(i)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/card.png"))
        let drawn = try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/found.jpg"))
        XCTAssertTrue(drawn.starts(with: [0xFF, 0xD8, 0xFF]))
        // Through a pipe, the crop as JPEG.
        let piped = try run(["rectangles", "-", "--extract", "\(tmp)/from-stdin.jpg"],
                            stdin: try Data(contentsOf: URL(fileURLWithPath: sheet)))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/from-stdin.jpg")).starts(with: [0xFF, 0xD8, 0xFF]))
        // One rectangle: the path itself.
        XCTAssertEqual(try run(["rectangles", sheet, "--extract", "\(tmp)/page.png"]).status, 0)
        XCTAssertNotNil(pngInfo(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/page.png"))))
    }

    /// A folder: a block per photo, JSON Lines with --json, crops in the --extract folder, a bad photo reported
    /// and skipped, exit 1.
    func testBatch() throws {
        let dir = "\(tmp)/in"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sheet, toPath: "\(dir)/sheet.jpg")
        try FileManager.default.copyItem(atPath: cards, toPath: "\(dir)/cards.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/broken.png", contents: Data("not a png".utf8)))
        let r = try run(["rectangles", dir, "--json", "--extract", "\(tmp)/crops", "--draw", "\(tmp)/drawn",
                         "--manifest", "\(tmp)/m.jsonl", "--quiet"])
        XCTAssertEqual(r.status, 1)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(Set((object["timingsMs"] as? [String: Double] ?? [:]).keys), ["decode", "detect"], "as for one photo")
        }
        XCTAssertTrue(r.stderr.contains("broken.png"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(tmp)/crops/sheet.rect.png"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(tmp)/drawn/cards.rectangles.png"))
        let manifest = try String(contentsOfFile: "\(tmp)/m.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(manifest.count, 3)
    }

    /// --shard auto takes the scheduler's task: the same photos as --shard I/N, and a line saying where from;
    /// none set → exit 2.
    func testShardAuto() throws {
        let dir = "\(tmp)/many"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<9 { try FileManager.default.copyItem(atPath: "\(Self.fixtures)/rectangles/cases/00\(i).jpg", toPath: "\(dir)/\(i).jpg") }
        let explicit = try run(["rectangles", dir, "--shard", "1/3", "--json", "--quiet"])
        let auto = try run(["rectangles", dir, "--shard", "auto", "--json", "--quiet"],
                           environment: ["SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3"])
        XCTAssertEqual(auto.status, 0, auto.stderr)
        func inputs(_ r: Result) -> [String] {
            String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["input"] as? String
            }.sorted()
        }
        XCTAssertEqual(inputs(auto), inputs(explicit))
        XCTAssertFalse(inputs(auto).isEmpty)
        XCTAssertTrue(auto.stderr.contains("shard 1 of 3, from Slurm array"), auto.stderr)
        let k8s = try run(["rectangles", dir, "--shard", "auto", "--shard-count", "3", "--json", "--quiet"],
                          environment: ["JOB_COMPLETION_INDEX": "1"])
        XCTAssertEqual(inputs(k8s), inputs(explicit))
        let none = try run(["rectangles", dir, "--shard", "auto"], environment: ["SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": ""])
        XCTAssertEqual(none.status, 2)
        XCTAssertEqual(try run(["rectangles", dir, "--shard-count", "2"]).status, 2)
    }

    /// Bad parameters: one line on stderr, exit 2, no output file; a corrupt photo: one line, exit 1.
    func testRefusals() throws {
        let out = "\(tmp)/out.png"
        for args in [["--min-aspect", "0.9", "--max-aspect", "0.5"], ["--quadrature-tolerance", "50"],
                     ["--min-size", "-0.1"], ["--min-confidence", "abc"], ["--max-observations", "-2"],
                     ["--min-aspect", "nan"], ["--extract", "\(tmp)/out.gif"], ["--jobs", "2"]] {
            let r = try run(["rectangles", sheet, "--draw", out] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swiftseg: error: "), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        let broken = "\(tmp)/broken.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: broken, contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])))
        let r = try run(["rectangles", broken, "--draw", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertEqual(try run(["rectangles"]).status, 2)
    }
}
