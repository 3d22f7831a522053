import Foundation
import Swiftseg
import XCTest

/// Runs the built `swiftseg` binary as a user would: what every CLI test case shares.
class CLITestCase: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
    static let binary = Bundle.main.bundleURL.appendingPathComponent("swiftseg").path

    var tmp = ""

    override func setUpWithError() throws {
        tmp = NSTemporaryDirectory() + "swiftseg-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: tmp) }

    struct Result { let status: Int32; let stdout: Data; let stderr: String }

    @discardableResult
    func run(_ args: [String], stdin: Data? = nil, binary: String = CLITestCase.binary,
             environment: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: o, stderr: String(decoding: e, as: UTF8.self))
    }

    func photo(_ name: String) -> String { "\(Self.fixtures)/photos/\(name)" }

    /// PNG header facts: width, height, colour type (0 gray, 2 RGB, 6 RGBA).
    func pngInfo(_ data: Data) -> (width: Int, height: Int, colorType: Int)? {
        let b = [UInt8](data)
        guard b.count > 26, b.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func be32(_ i: Int) -> Int { b[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20), Int(b[25]))
    }

    /// An error run: non-zero exit, exactly one line on stderr naming the problem, nothing on stdout.
    func assertCleanFailure(_ r: Result, mentions: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(r.status, 0, file: file, line: line)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "stderr: \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("swiftseg: error: "), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains(mentions), "'\(mentions)' not in: \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stdout.isEmpty, file: file, line: line)
    }

}

final class CLITests: CLITestCase {
    // MARK: help

    /// `infer --help` is pinned to Tests/Fixtures/cli/infer-help.txt: a change to the options shows up here
    /// and in review (regenerate with `swiftseg infer --help > Tests/Fixtures/cli/infer-help.txt`).
    func testInferHelpIsPinned() throws {
        let r = try run(["infer", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self),
                       try String(contentsOfFile: "\(Self.fixtures)/cli/infer-help.txt", encoding: .utf8))
    }

    func testEverySubcommandHasHelp() throws {
        let top = try run(["--help"])
        XCTAssertEqual(top.status, 0)
        for sub in ["infer", "run-tensor", "inspect"] {
            XCTAssertTrue(String(decoding: top.stdout, as: UTF8.self).contains(sub))
            let r = try run([sub, "--help"])
            XCTAssertEqual(r.status, 0, sub)
            XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).hasPrefix("OVERVIEW: "), sub)
        }
    }

    // MARK: infer

    func testInferWritesCutoutBesideInputByDefault() throws {
        let input = "\(tmp)/rocket.jpg"
        try FileManager.default.copyItem(atPath: photo("rocket.jpg"), toPath: input)
        let r = try run(["infer", input, "--threads", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/rocket.cutout.png"))
        let info = try XCTUnwrap(pngInfo(out))
        XCTAssertEqual(info.width, 640)
        XCTAssertEqual(info.height, 427)
        XCTAssertEqual(info.colorType, 6, "RGBA")
    }

    func testInferMaskThroughPipes() throws {
        let r = try run(["infer", "-", "--mask"], stdin: try Data(contentsOf: URL(fileURLWithPath: photo("chelsea.png"))))
        XCTAssertEqual(r.status, 0, r.stderr)
        let info = try XCTUnwrap(pngInfo(r.stdout))
        XCTAssertEqual(info.width, 451)
        XCTAssertEqual(info.height, 300)
        XCTAssertEqual(info.colorType, 0, "grayscale")
    }

    func testBadInputsFailCleanlyAndWriteNothing() throws {
        let out = "\(tmp)/out.png"
        let notImage = "\(tmp)/notes.jpg", empty = "\(tmp)/empty.png", truncated = "\(tmp)/truncated.jpg"
        try Data("just text".utf8).write(to: URL(fileURLWithPath: notImage))
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data(contentsOf: URL(fileURLWithPath: photo("rocket.jpg"))).prefix(4000).write(to: URL(fileURLWithPath: truncated))
        let corruptWeights = "\(tmp)/weights.safetensors"
        try Data(contentsOf: URL(fileURLWithPath: "\(Self.fixtures)/ops/sigmoid.safetensors")).write(to: URL(fileURLWithPath: corruptWeights))
        let cases: [([String], String)] = [
            (["infer", "\(tmp)/missing.jpg", "-o", out], "no such file"),
            (["infer", notImage, "-o", out], "not a PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF"),
            (["infer", empty, "-o", out], "empty"),
            (["infer", truncated, "-o", out], "truncated JPEG"),
            (["infer", tmp, "-o", out], "-o names a folder"),
            (["infer", photo("rocket.jpg"), "-o", "\(tmp)/no/such/dir/out.png"], "does not exist"),
            (["infer", photo("rocket.jpg"), "-o", out, "--model", "\(tmp)/nope.safetensors"], "no such file"),
            (["infer", photo("rocket.jpg"), "-o", out, "--model", corruptWeights], "expected 'u2net'"),
            (["infer", photo("rocket.jpg"), "-o", out, "--threads", "zero"], "--threads"),
            (["infer", photo("rocket.jpg"), "-o", out, "--png-compression", "10"], "--png-compression expects fast or a level"),
            (["infer", photo("rocket.jpg"), "--frobnicate"], "unknown option"),
            (["infer"], "needs an input"),
            (["transmogrify"], "unknown subcommand"),
        ]
        for (args, mention) in cases {
            assertCleanFailure(try run(args), mentions: mention)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(args) left \(out)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp).filter { $0.hasSuffix(".tmp") }, [])
    }

    func testFailedRunKeepsExistingOutput() throws {
        let out = "\(tmp)/keep.png"
        try Data("previous result".utf8).write(to: URL(fileURLWithPath: out))
        let bad = "\(tmp)/bad.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]).write(to: URL(fileURLWithPath: bad))
        assertCleanFailure(try run(["infer", bad, "-o", out]), mentions: "corrupt PNG")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "previous result")
    }

    // MARK: subject lifting

    func testJSONReportInstancesAndSaliencyInOneRun() throws {
        let out = "\(tmp)/cut.png", labels = "\(tmp)/labels.png", heat = "\(tmp)/heat.png"
        let r = try run(["infer", photo("coins.png"), "-o", out, "--instances", labels, "--saliency", heat, "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        XCTAssertEqual(report["width"] as? Int, 384)
        XCTAssertEqual(report["height"] as? Int, 303)
        XCTAssertEqual(report["model"] as? String, "u2netp")
        XCTAssertEqual(report["threshold"] as? Double, 0.5)
        XCTAssertNotNil(report["timingsMs"] as? [String: Double])
        let instances = try XCTUnwrap(report["instances"] as? [[String: Any]])
        XCTAssertEqual(instances.count, 22)
        for (n, instance) in instances.enumerated() {
            XCTAssertEqual(instance["index"] as? Int, n + 1)
            let b = try XCTUnwrap(instance["bounds"] as? [String: Int])
            let nb = try XCTUnwrap(instance["normalizedBounds"] as? [String: Double])
            XCTAssertEqual(Set(b.keys), ["x", "y", "width", "height"])
            XCTAssertEqual(nb["x"]!, Double(b["x"]!) / 384, accuracy: 1e-12)
            XCTAssertEqual(nb["y"]!, Double(303 - b["y"]! - b["height"]!) / 303, accuracy: 1e-12, "bottom-left origin")
            XCTAssertNotNil(instance["area"] as? Int)
            XCTAssertNotNil(instance["score"] as? Double)
        }
        // The label PNG: 8-bit gray whose values are exactly the report's indices (and 0).
        let png = try Data(contentsOf: URL(fileURLWithPath: labels))
        XCTAssertEqual(pngInfo(png)?.colorType, 0)
        XCTAssertEqual([UInt8](png)[24], 8)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: heat)))?.width, 384)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: out)))?.colorType, 6)
    }

    func testSelectCropAndCompositeOutputs() throws {
        let crop = "\(tmp)/crop.png"
        XCTAssertEqual(try run(["infer", photo("coins.png"), "--select", "3", "--crop", "-o", crop, "--json"]).status, 0)
        let report = try JSONSerialization.jsonObject(with: try run(["infer", photo("coins.png"), "--json", "-o", "\(tmp)/a.png"]).stdout) as! [String: Any]
        let third = (report["instances"] as! [[String: Any]])[2]["bounds"] as! [String: Int]
        let info = try XCTUnwrap(pngInfo(try Data(contentsOf: URL(fileURLWithPath: crop))))
        XCTAssertEqual(info.width, third["width"])
        XCTAssertEqual(info.height, third["height"])

        let composite = "\(tmp)/composite.png"
        XCTAssertEqual(try run(["infer", photo("rocket.jpg"), "--background", "#102030", "--effect", "highlight", "-o", composite]).status, 0)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: composite)))?.colorType, 2, "opaque composite is RGB")
        let tapped = "\(tmp)/tapped.png"
        XCTAssertEqual(try run(["infer", photo("rocket.jpg"), "--point", "0.5,0.5", "--mask", "-o", tapped]).status, 0)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: tapped)))?.colorType, 0)
    }

    func testSubjectLiftingBadInputsFailCleanly() throws {
        let out = "\(tmp)/out.png", labels = "\(tmp)/labels.png"
        let cases: [([String], String)] = [
            (["--point", "1.5,0.2"], "outside the image"),
            (["--point", "half"], "--point expects X,Y"),
            (["--select", "99"], "instance 99 does not exist"),
            (["--select", "1,x"], "--select expects"),
            (["--select", "1", "--point", "0.5,0.5"], "not both"),
            (["--background", "#12345"], "is not a colour"),
            (["--background", "\(tmp)/missing-background.jpg"], "no such file"),
            (["--effect", "sparkle"], "--effect must be one of"),
            (["--effect", "blur", "--background", "transparent"], "opaque background"),
            (["--threshold", "2"], "--threshold expects"),
            (["--mask", "--effect", "darken"], "cannot be combined"),
            (["--alpha-matting", "--mask"], "cannot be combined"),
            (["--alpha-matting", "--alpha-matting-foreground-threshold", "256"], "expects an integer in 0…255"),
            (["--alpha-matting", "--alpha-matting-background-threshold", "x"], "expects an integer in 0…255"),
            (["--alpha-matting", "--alpha-matting-erode-size", "-1"], "--alpha-matting-erode-size expects"),
            (["--alpha-matting-erode-size", "4"], "goes with --alpha-matting"),
            (["--decontaminate", "--mask"], "a mask (--mask) has none"),
        ]
        for (extra, mention) in cases {
            assertCleanFailure(try run(["infer", photo("coins.png"), "-o", out, "--instances", labels] + extra), mentions: mention)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(extra) left \(out)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: labels), "\(extra) left \(labels)")
        }
    }

    /// `--decontaminate` (rembg 2.0.86's -dc): the cutout's alpha is the plain cutout's, its colours the library's
    /// estimate under that mask (so they change on the soft edge); a composite is made of those colours too.
    func testDecontaminateRecoloursTheSubjectOnly() throws {
        let plain = "\(tmp)/plain.png", clean = "\(tmp)/clean.png", mask = "\(tmp)/mask.png"
        for (arguments, out) in [([String](), plain), (["--decontaminate"], clean), (["--mask"], mask)] {
            XCTAssertEqual(try run(["infer", photo("chelsea.png"), "-o", out] + arguments).status, 0, "\(arguments)")
        }
        let a = try Image(contentsOfFile: plain), b = try Image(contentsOfFile: clean), m = try Image(contentsOfFile: mask)
        let expected = Compositing.cutout(Decontamination().colours(of: try Image(contentsOfFile: photo("chelsea.png")), under: m), alpha: m)
        XCTAssertEqual(b.pixels, expected.pixels)
        XCTAssertEqual(stride(from: 3, to: a.pixels.count, by: 4).map { a.pixels[$0] }, stride(from: 3, to: b.pixels.count, by: 4).map { b.pixels[$0] })
        XCTAssertNotEqual(a.pixels, b.pixels)
        let white = "\(tmp)/white.png", whiteClean = "\(tmp)/white-clean.png"
        XCTAssertEqual(try run(["infer", photo("chelsea.png"), "--background", "#ffffff", "-o", white]).status, 0)
        XCTAssertEqual(try run(["infer", photo("chelsea.png"), "--background", "#ffffff", "--decontaminate", "-o", whiteClean]).status, 0)
        XCTAssertNotEqual(try Image(contentsOfFile: white).pixels, try Image(contentsOfFile: whiteClean).pixels)
    }

    // MARK: formats and batches

    /// WebP in and out, HEIC and AVIF in: a lossless WebP of a photo gives the PNG's cutout; `.webp` outputs are WebP (lossless
    /// by default, a VP8L bitstream; lossy with --webp-quality), a batch picks .webp files up, the rectangles' crops
    /// can be WebP. (The pixels of each kind: SwiftsegImageTests' WebPTests.)
    func testWebPInAndOut() throws {
        let png = "\(Self.fixtures)/decode/upright.png", webp = "\(Self.fixtures)/decode/webp-lossless.webp"
        func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        // (The PNG carries an sRGB profile that cwebp left out, so the cutouts differ by it: the masks compare.)
        XCTAssertEqual(try run(["infer", png, "--mask", "-o", "\(tmp)/from-png.png"]).status, 0)
        XCTAssertEqual(try run(["infer", webp, "--mask", "-o", "\(tmp)/from-webp.png"]).status, 0)
        XCTAssertEqual(try bytes("\(tmp)/from-webp.png"), try bytes("\(tmp)/from-png.png"))
        for (arguments, chunk) in [([String](), "VP8L"), (["--webp-quality", "70"], "VP8X")] {
            let out = "\(tmp)/cutout-\(chunk).webp"
            let r = try run(["infer", webp, "-o", out] + arguments)  // no profile: a plain lossless file is VP8L
            XCTAssertEqual(r.status, 0, r.stderr)
            let written = try bytes(out)
            XCTAssertEqual(String(decoding: written[0..<4] + written[8..<16], as: UTF8.self), "RIFFWEBP" + chunk, "\(arguments)")
        }
        XCTAssertEqual(try run(["infer", png, "--mask", "--format", "webp", "-o", "-"]).stdout.prefix(4), Data("RIFF".utf8))
        assertCleanFailure(try run(["infer", png, "--webp-quality", "101", "-o", "\(tmp)/q.webp"]), mentions: "webp-quality")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/q.webp"))
        // A file's extension names what is in it: never PNG bytes in a .tif, nor WebP in a .png.
        for ext in ["tif", "bmp", "gif"] {
            assertCleanFailure(try run(["infer", png, "-o", "\(tmp)/out.\(ext)"]), mentions: "swiftseg writes .png, .jpg, .jpeg, .webp")
            XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/out.\(ext)"))
        }
        assertCleanFailure(try run(["infer", png, "--format", "webp", "-o", "\(tmp)/out.png"]), mentions: "names PNG, but --format is webp")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/out.tif"))
        let beside = "\(tmp)/beside.png"
        try FileManager.default.copyItem(atPath: png, toPath: beside)
        XCTAssertEqual(try run(["infer", beside, "--format", "webp"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(tmp)/beside.cutout.webp"), "the default output takes --format's extension")
        let folder = "\(tmp)/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: webp, toPath: "\(folder)/cat.webp")
        let batch = try run(["infer", folder, "-o", "\(tmp)/out", "--mask", "--quiet"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(tmp)/out/cat.mask.png"), "a batch picks up .webp")
        // HEIC and AVIF are read (a batch picks them up too) but not written.
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/decode/heic.heic", toPath: "\(folder)/phone.HEIC")
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/decode/avif.avif", toPath: "\(folder)/web.avif")
        let again = try run(["infer", folder, "-o", "\(tmp)/out", "--mask", "--quiet"])
        XCTAssertEqual(again.status, 0, again.stderr)
        for name in ["phone.mask.png", "web.mask.png"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(tmp)/out/\(name)"), name)
        }
        assertCleanFailure(try run(["infer", png, "-o", "\(tmp)/out.heic"]), mentions: "swiftseg writes .png, .jpg, .jpeg, .webp")
        let card = "\(Self.fixtures)/rectangles/a4-upright.jpg"
        XCTAssertEqual(try run(["rectangles", card, "--extract", "\(tmp)/card.webp"]).status, 0)
        XCTAssertEqual(Array(try bytes("\(tmp)/card.webp")[8..<12]), Array("WEBP".utf8))
    }

    /// A photo's colour profile goes into the cutout (PNG iCCP), the composite (JPEG APP2) and WebP (ICCP), and
    /// not into a mask. (The bytes themselves: SwiftsegImageTests' ColorProfileTests.)
    func testTheColourProfileIsKept() throws {
        let photo = "\(Self.fixtures)/decode/profile-adobe-rgb.jpg"
        func contains(_ path: String, _ marker: String) throws -> Bool {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), m = Array(marker.utf8)
            return (0...(bytes.count - m.count)).contains { Array(bytes[$0..<($0 + m.count)]) == m }
        }
        for (arguments, out, marker) in [([String](), "cutout.png", "iCCP"), (["--background", "#ffffff"], "composite.jpg", "ICC_PROFILE"),
                                         ([], "cutout.webp", "ICCP"), (["--mask"], "mask.png", "")] {
            let r = try run(["infer", photo, "-o", "\(tmp)/\(out)"] + arguments)
            XCTAssertEqual(r.status, 0, r.stderr)
            if marker.isEmpty {
                XCTAssertFalse(try contains("\(tmp)/\(out)", "iCCP"), "a mask has no colour profile")
            } else {
                XCTAssertTrue(try contains("\(tmp)/\(out)", marker), out)
            }
        }
    }

    func testJPEGOutputAndOrientation() throws {
        let out = "\(tmp)/composite.jpg"
        let r = try run(["infer", photo("rocket.jpg"), "--background", "#ffffff", "-o", out, "--jpeg-quality", "80"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))).prefix(3), [0xFF, 0xD8, 0xFF])
        assertCleanFailure(try run(["infer", photo("rocket.jpg"), "-o", "\(tmp)/cutout.jpg"]), mentions: "JPEG has no alpha")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(tmp)/cutout.jpg"))
        // A photo stored sideways with EXIF orientation 6 comes out upright (60×40), unless told otherwise.
        let sideways = "\(Self.fixtures)/decode/orientation-6.jpg"
        XCTAssertEqual(try run(["infer", sideways, "--mask", "-o", "\(tmp)/up.png"]).status, 0)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/up.png")))?.width, 60)
        XCTAssertEqual(try run(["infer", sideways, "--mask", "--ignore-orientation", "-o", "\(tmp)/raw.png"]).status, 0)
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/raw.png")))?.width, 40)
        assertCleanFailure(try run(["infer", photo("rocket.jpg"), "--max-pixels", "1000", "-o", "\(tmp)/x.png"]), mentions: "over the limit")
    }

    /// A folder with a sub-folder, a clashing stem and a broken file: the batch finishes the rest, mirrors
    /// the tree, writes a manifest line per photo, exits 1, and a rerun skips what is done.
    func testBatchFolderResumeManifestAndFailures() throws {
        let input = "\(tmp)/in", out = "\(tmp)/out", manifest = "\(tmp)/manifest.jsonl"
        try FileManager.default.createDirectory(atPath: "\(input)/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo("coins.png"), toPath: "\(input)/coins.png")
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/decode/baseline.jpg", toPath: "\(input)/sub/a.JPG")
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/decode/gray8.png", toPath: "\(input)/sub/a.png")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: "\(input)/sub/broken.jpeg"))
        try Data("ignored".utf8).write(to: URL(fileURLWithPath: "\(input)/notes.txt"))

        let first = try run(["infer", input, "-o", out, "--manifest", manifest, "--mask", "--jobs", "2"])
        XCTAssertEqual(first.status, 1, "one photo failed")
        XCTAssertTrue(first.stderr.contains("failed   \(input)/sub/broken.jpeg: not a PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF image"), first.stderr)
        let written = Set(try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") })
        XCTAssertEqual(written, ["coins.mask.png", "sub/a.JPG.mask.png", "sub/a.png.mask.png"])
        let lines = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(records.filter { $0["status"] as? String == "ok" }.count, 3)
        let coins = try XCTUnwrap(records.first { ($0["input"] as? String)?.hasSuffix("coins.png") == true })
        XCTAssertEqual(coins["instances"] as? Int, 22)
        XCTAssertNotNil(coins["ms"] as? Double)
        XCTAssertTrue((records.first { $0["status"] as? String == "failed" }?["error"] as? String)?.contains("broken.jpeg") == true)

        let second = try run(["infer", input, "-o", out, "--manifest", manifest, "--mask"])
        XCTAssertEqual(second.status, 1)
        XCTAssertEqual(second.stderr.components(separatedBy: "skipped  ").count - 1, 3, second.stderr)
        XCTAssertEqual(try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").count, 8, "appended")
        XCTAssertTrue(try run(["infer", input, "-o", out, "--mask", "--overwrite", "--quiet"]).stderr.contains("failed"))
    }

    /// Two photos in the network at once (`--concurrent 2 --threads 2`, also the default with two threads; the
    /// lanes share the two cores) write exactly the masks one lane with both threads writes, and those of each
    /// photo run on its own; a broken photo still fails alone, and the flag is refused for a single image or a
    /// count below 1.
    func testConcurrentBatchMatchesSequential() throws {
        let input = "\(tmp)/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let names = ["coins.png", "rocket.jpg", "chelsea.png", "astronaut.png"]
        for name in names { try FileManager.default.copyItem(atPath: photo(name), toPath: "\(input)/\(name)") }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: "\(input)/broken.png"))
        let one = try run(["infer", input, "-o", "\(tmp)/one", "--mask", "--quiet", "--concurrent", "1", "--threads", "2"])
        let two = try run(["infer", input, "-o", "\(tmp)/two", "--mask", "--quiet", "--concurrent", "2", "--threads", "2"])
        let byDefault = try run(["infer", input, "-o", "\(tmp)/default", "--mask", "--quiet", "--threads", "2"])  // 2 lanes
        XCTAssertEqual(one.status, 1)
        XCTAssertEqual(two.status, 1)
        XCTAssertEqual(byDefault.status, 1)
        XCTAssertTrue(two.stderr.contains("broken.png"), two.stderr)
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/one/\(stem).mask.png"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/two/\(stem).mask.png"))
            XCTAssertEqual(a, b, "\(name): the two-lane batch wrote a different mask")
            let c = try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/default/\(stem).mask.png"))
            XCTAssertEqual(a, c, "\(name): the default batch (two lanes) wrote a different mask")
            let single = try run(["infer", photo(name), "--mask", "-o", "\(tmp)/\(stem).single.png", "--threads", "2"])
            XCTAssertEqual(single.status, 0, single.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/\(stem).single.png")), b,
                           "\(name): the batch wrote a different mask than the photo on its own")
        }
        assertCleanFailure(try run(["infer", photo("rocket.jpg"), "--concurrent", "2", "-o", "\(tmp)/x.png"]),
                           mentions: "is for batches")
        assertCleanFailure(try run(["infer", input, "-o", "\(tmp)/y", "--concurrent", "0"]), mentions: "--concurrent")
        assertCleanFailure(try run(["infer", input, "-o", "\(tmp)/y", "--concurrent", "2", "--threads", "1"]),
                           mentions: "need a core each of --threads 1")
    }

    /// `--json` on a batch: one JSON report per finished photo, one per line on standard output, the same
    /// contract as for one image; nothing for a failed photo, nor for one skipped on a rerun.
    func testBatchJSONLines() throws {
        let input = "\(tmp)/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["coins.png", "rocket.jpg"] { try FileManager.default.copyItem(atPath: photo(name), toPath: "\(input)/\(name)") }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: "\(input)/broken.png"))
        let r = try run(["infer", input, "-o", "\(tmp)/out", "--json", "--quiet"])
        XCTAssertEqual(r.status, 1)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, String(decoding: r.stdout, as: UTF8.self))
        let reports = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let coins = try XCTUnwrap(reports.first { ($0["input"] as? String)?.hasSuffix("coins.png") == true })
        XCTAssertEqual((coins["instances"] as? [Any])?.count, 22)
        XCTAssertEqual(coins["width"] as? Int, 384)
        XCTAssertNotNil((coins["timingsMs"] as? [String: Any])?["network"])
        XCTAssertNotNil((coins["timingsMs"] as? [String: Any])?["decode"], "decoded apart, timed all the same")
        XCTAssertTrue(reports.contains { ($0["input"] as? String)?.hasSuffix("rocket.jpg") == true })
        let rerun = try run(["infer", input, "-o", "\(tmp)/out", "--json", "--quiet"])
        XCTAssertTrue(rerun.stdout.isEmpty, "skipped photos print no report")
    }

    /// The fuzz harness's replay mode (how a saved crash is reproduced) runs each file through the decoders
    /// (and a decoded image through the PNG writer and back) and the weights loader, and says what each made of it.
    func testFuzzHarnessReplaysInputs() throws {
        let harness = Bundle.main.bundleURL.appendingPathComponent("swiftseg-fuzz").path
        let weights = URL(fileURLWithPath: Self.fixtures).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Weights/u2netp.safetensors").path
        let r = try run(["\(Self.fixtures)/decode/baseline.jpg", weights, "\(Self.fixtures)/decode/cmyk.jpg"], binary: harness)
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("baseline.jpg: image 60×40×3, re-encoded as PNG; weights error"), out)
        XCTAssertTrue(out.contains("u2netp.safetensors: image error: input: not a PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF image; weights: a complete U²-Net"), out)
        XCTAssertTrue(out.contains("cmyk.jpg: image 60×40×3, re-encoded as PNG"), out)
        XCTAssertEqual(try run(["\(tmp)/missing"], binary: harness).status, 1)
    }

    func testShardsPartitionTheInputs() throws {
        let input = "\(tmp)/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for o in 1...8 { try FileManager.default.copyItem(atPath: "\(Self.fixtures)/decode/orientation-\(o).png", toPath: "\(input)/p\(o).png") }
        var seen: [String] = []
        for shard in 0..<3 {
            let out = "\(tmp)/shard\(shard)"
            XCTAssertEqual(try run(["infer", input, "-o", out, "--mask", "--shard", "\(shard)/3", "--quiet"]).status, 0)
            seen += try FileManager.default.contentsOfDirectory(atPath: out)
        }
        XCTAssertEqual(seen.sorted(), (1...8).map { "p\($0).mask.png" }.sorted(), "every photo in exactly one shard")
        assertCleanFailure(try run(["infer", input, "-o", "\(tmp)/x", "--shard", "3/3"]), mentions: "--shard expects")
        assertCleanFailure(try run(["infer", input, photo("rocket.jpg")]), mentions: "need -o <output folder>")
        assertCleanFailure(try run(["infer", input, "-o", "\(tmp)/x", "--instances", "\(tmp)/i.png"]),
                           mentions: "for a batch, --json prints each photo's instances")
    }

    /// Mutated photos through the whole CLI: each run either succeeds with a valid PNG or fails with one
    /// error line and leaves no output (more cases: SWIFTSEG_FUZZ_CASES).
    func testMutatedPhotosThroughTheCLI() throws {
        let cases = max(12, (Int(ProcessInfo.processInfo.environment["SWIFTSEG_FUZZ_CASES"] ?? "") ?? 0) / 25)
        let seeds = try ["decode/progressive.jpg", "decode/palette-trns.png", "decode/orientation-6.jpg"].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(Self.fixtures)/\($0)")))
        }
        var state: UInt64 = 99
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for n in 0..<cases {
            var bytes = seeds[n % seeds.count]
            switch n % 3 {
            case 0: bytes = Array(bytes.prefix(next() % bytes.count))
            case 1: for _ in 0..<4 { bytes[next() % bytes.count] ^= UInt8(1 << (next() % 8)) }
            default: bytes[8 + next() % 40] = UInt8(next() % 256)
            }
            let input = "\(tmp)/case\(n).img", out = "\(tmp)/case\(n).png"
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            let r = try run(["infer", input, "--mask", "-o", out])
            if r.status == 0 {
                XCTAssertNotNil(pngInfo(try Data(contentsOf: URL(fileURLWithPath: out))), "case \(n)")
            } else {
                assertCleanFailure(r, mentions: input)
                XCTAssertFalse(FileManager.default.fileExists(atPath: out), "case \(n) left \(out)")
            }
        }
    }

    // MARK: run-tensor and inspect

    /// run-tensor's d0 vs ONNX Runtime's: --exact (GEMM) within 1e-4, the default (Winograd) within 1e-3.
    func testRunTensorMatchesONNXRuntime() throws {
        func floats(_ path: String) throws -> [Float] {
            let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let header = Int(b[8]) | Int(b[9]) << 8
            return b[(10 + header)...].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        let expected = try floats("\(Self.fixtures)/photos/coffee-crop.d0.npy")
        for (flags, bound) in [(["--exact"], Float(1e-4)), ([], 1e-3)] {
            let out = "\(tmp)/d0.npy"
            let r = try run(["run-tensor", "\(Self.fixtures)/photos/coffee-crop.input.npy", "-o", out, "--model", "u2netp"] + flags)
            XCTAssertEqual(r.status, 0, r.stderr)
            let ours = try floats(out)
            XCTAssertEqual(ours.count, 203 * 157)
            XCTAssertEqual(ours.count, expected.count)
            XCTAssertLessThanOrEqual(zip(ours, expected).map { abs($0 - $1) }.max() ?? 1, bound, "\(flags)")
        }
    }

    func testRunTensorRejectsWrongShape() throws {
        let out = "\(tmp)/d0.npy"
        assertCleanFailure(try run(["run-tensor", "\(Self.fixtures)/photos/coffee.d0.npy", "-o", out]), mentions: "N×3×H×W")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        assertCleanFailure(try run(["run-tensor", photo("rocket.jpg"), "-o", out]), mentions: "not a float32 .npy")
    }

    /// `--model NAME` finds a converted file in the model folder (SWIFTSEG_MODEL_DIR), here a U²-Net variant with
    /// widths of its own (Tools/make_u2net_variant_fixture.py), and the report names it.
    func testModelByNameFromTheModelFolder() throws {
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/models/u2net-variant.safetensors",
                                         toPath: "\(tmp)/u2net-variant.safetensors")
        let out = "\(tmp)/cutout.png"
        let r = try run(["infer", photo("coins.png"), "-o", out, "--model", "u2net-variant", "--json"],
                        environment: ["SWIFTSEG_MODEL_DIR": tmp])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        XCTAssertEqual(report?["model"] as? String, "u2net-variant")
        XCTAssertEqual(pngInfo(try Data(contentsOf: URL(fileURLWithPath: out)))?.colorType, 6)
        assertCleanFailure(try run(["infer", photo("coins.png"), "-o", "\(tmp)/cutout2.png", "--model", "silueta"],
                                   environment: ["SWIFTSEG_MODEL_DIR": tmp]), mentions: "--variant silueta")
        // a name that is not there: the error lists what is (built in, and converted in the folder)
        assertCleanFailure(try run(["infer", photo("coins.png"), "-o", "\(tmp)/cutout2.png", "--model", "u2net-varient"],
                                   environment: ["SWIFTSEG_MODEL_DIR": tmp, "XDG_CACHE_HOME": tmp]),
                           mentions: "(built in: u2netp, efficientnet-lite0; converted there: u2net-variant)")
        // ISNet the same way (its file says 1024 and std 1: the photo goes in at 1024×1024)
        try FileManager.default.copyItem(atPath: "\(Self.fixtures)/models/isnet-variant.safetensors",
                                         toPath: "\(tmp)/isnet-variant.safetensors")
        let isnet = try run(["infer", photo("coins.png"), "--mask", "-o", "\(tmp)/isnet-mask.png", "--model", "isnet-variant", "--json"],
                            environment: ["SWIFTSEG_MODEL_DIR": tmp])
        XCTAssertEqual(isnet.status, 0, isnet.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: isnet.stdout) as? [String: Any])?["model"] as? String, "isnet-variant")
        let mask = try XCTUnwrap(pngInfo(try Data(contentsOf: URL(fileURLWithPath: "\(tmp)/isnet-mask.png"))))
        XCTAssertEqual([mask.width, mask.height, mask.colorType], [384, 303, 0])
    }

    func testInspectDescribesEmbeddedWeights() throws {
        let r = try run(["inspect"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("variant: u2netp"))
        XCTAssertTrue(text.contains("source_sha256: "))
        XCTAssertTrue(text.contains("loads OK"))
    }
}
