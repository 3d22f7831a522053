import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

/// The README's code examples, with fixture paths, so they keep compiling and working.
final class ReadmeExamplesTests: XCTestCase {
    let dir = NSTemporaryDirectory() + "swiftseg-readme-\(UUID().uuidString)"

    override func setUpWithError() throws { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// The README's "Rectangles" example, on the committed three-card photo.
    func testRectanglesExample() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("rectangles/three-cards.jpg"))
        var request = DetectRectanglesRequest()
        request.minimumAspectRatio = 0.6; request.maximumAspectRatio = 0.67
        var crops: [Image] = []
        for r in try request.perform(on: photo) {
            let box = r.pixelCorners(width: photo.width, height: photo.height)
            XCTAssertLessThan(box.topLeft.y, box.bottomRight.y)
            XCTAssertGreaterThan(r.confidence, 0.5)
            if let card = r.perspectiveCorrected(from: photo) { crops.append(card) }
        }
        XCTAssertEqual(crops.count, 1)
        XCTAssertEqual(Double(crops[0].height) / Double(crops[0].width), 54 / 85.6, accuracy: 0.06)
    }

    func testBasicUsage() throws {
        let segmenter = try Segmenter()
        let photo = try Image(contentsOfFile: Fixtures.path("photos/rocket.jpg"))
        let mask = segmenter.foregroundMask(for: photo)
        try AtomicFile.write(try mask.image.pngData(), to: "\(dir)/mask.png")
        let cutout = segmenter.cutout(photo, mask: mask)
        try AtomicFile.write(try cutout.pngData(), to: "\(dir)/cutout.png")
        XCTAssertGreaterThan(mask.timings.networkMs, 0)
        XCTAssertEqual(try Image(contentsOfFile: "\(dir)/cutout.png").channels, 4)

        let model = try U2Net(source: .u2netp)
        var config = Segmenter.Configuration()
        config.threads = 1
        let perThread = (0..<4).map { _ in Segmenter(model: model, configuration: config) }
        XCTAssertEqual(perThread.count, 4)

        let net = try U2Net(source: .u2netp)
        let context = ExecutionContext(threads: 2)
        let input = try NPY.read(path: Fixtures.path("photos/coffee-crop.input.npy"))
        let d0 = Tensor(channels: 1, height: input.shape[2], width: input.shape[3])
        net.forward(input.view, into: d0.view, context: context)
        XCTAssertTrue(d0.values.allSatisfy { (0...1).contains($0) })
    }

    /// The README's alpha-matting example: rembg's settings, two threads, the plain cutout as the fallback; and
    /// rembg's -dc beside it.
    func testAlphaMattingExample() throws {
        let segmenter = try Segmenter()
        let photo = try Image(contentsOfFile: Fixtures.path("photos/rocket.jpg"))
        let mask = segmenter.foregroundMask(for: photo)
        var matting = AlphaMatting(foregroundThreshold: 240, backgroundThreshold: 10, erodeSize: 10)   // rembg's defaults
        matting.threads = 2
        let matted = try matting.cutout(photo, mask: mask.image) ?? segmenter.cutout(photo, mask: mask)
        XCTAssertEqual([matted.width, matted.height, matted.channels], [photo.width, photo.height, 4])
        XCTAssertNotNil(try matting.cutout(photo, mask: mask.image), "the rocket's mask has sure regions of both kinds")
        let clean = Compositing.cutout(Decontamination().colours(of: photo, under: mask.image), alpha: mask.image)   // rembg's -dc
        XCTAssertEqual([clean.width, clean.height, clean.channels], [photo.width, photo.height, 4])
    }

    func testClassification() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/coffee.png"))
        let classifier = try Classifier()
        let results = ClassifyImageRequest(cropAndScale: .centerCrop, maximumResults: 2).perform(on: photo, using: classifier)
        var lines: [String] = []
        for c in results { lines.append(String(format: "(%.2f) %@", c.confidence, c.identifier)) }
        XCTAssertEqual(lines, ["(0.93) espresso", "(0.02) cup"])
    }

    func testSubjectLifting() throws {
        let segmenter = try Segmenter()
        let photo = try Image(contentsOfFile: Fixtures.path("photos/coins.png"))
        let beach = try Image(contentsOfFile: Fixtures.path("photos/coffee.png"))
        let observation = ForegroundInstanceMaskRequest(threshold: 0.5, minimumArea: 0.001).perform(on: photo, using: segmenter)
        XCTAssertEqual(observation.allInstances.count, 22)
        _ = observation.instanceMask[x: 10, y: 20]
        let chosen = try observation.instances(forTapAt: NormalizedPoint(x: 0.5, y: 0.2))
        let soft = try observation.scaledMask(forInstances: chosen)
        let lifted = try observation.maskedImage(ofInstances: chosen, from: photo, croppedToInstancesExtent: true)
        let subjects = try observation.subjects(in: photo)
        let both = try observation.image(for: Array(subjects.prefix(2)), from: photo)
        let postcard = try Compositing.render(photo, mask: soft, background: .image(beach), effect: .blur())
        let boxes = observation.saliency.salientObjects
        let pixels = VisionGeometry.imageRect(for: boxes[0], width: photo.width, height: photo.height)
        XCTAssertEqual(postcard.width, photo.width)
        XCTAssertEqual(lifted.channels, 4)
        XCTAssertEqual(both.channels, 4)
        XCTAssertFalse(pixels.isEmpty)

        var options = LiftingOptions()
        options.output = .composite(background: .color(RGB(255, 255, 255)), effect: nil)
        options.selection = .point(NormalizedPoint(x: 0.5, y: 0.5))
        options.crop = true
        let result = try segmenter.lift(photo, options: options)
        try AtomicFile.write(try result.image.pngData(), to: "\(dir)/subject.png")
        XCTAssertEqual(result.image.channels, 3)
    }
}
