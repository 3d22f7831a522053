import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

final class ClassificationTests: XCTestCase {
    nonisolated(unsafe) static let classifier = try! Classifier()  // the tests run one at a time

    /// The network input for each crop-and-scale option equals Pillow's (Tools/make_classifier_fixtures.py) on
    /// the non-square photo: same crop, same Lanczos, same (v − 127) / 128.
    func testCropAndScaleMatchesPillow() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/chelsea.png"))
        XCTAssertEqual([photo.width, photo.height], [451, 300])
        for (mode, fixture) in [(ClassifyImageRequest.CropAndScale.centerCrop, "chelsea"), (.scaleFit, "chelsea.scaleFit"),
                                (.scaleFill, "chelsea.scaleFill")] {
            let expected = try NPY.read(path: Fixtures.path("classify/\(fixture).input.npy")).values
            let fitted = mode.apply(to: photo, size: 224)
            XCTAssertEqual([fitted.width, fitted.height, fitted.channels], [224, 224, 3])
            var ours = [Float](repeating: 0, count: 3 * 224 * 224)
            for c in 0..<3 {
                for i in 0..<(224 * 224) { ours[c * 224 * 224 + i] = (Float(fitted.pixels[3 * i + c]) - 127) / 128 }
            }
            XCTAssertEqual(ours, expected, "\(mode): network input differs from Pillow's")
        }
        // scaleFit letterboxes a landscape photo: black bars above and below, 149 rows of picture.
        let fit = ClassifyImageRequest.CropAndScale.scaleFit.apply(to: photo, size: 224)
        XCTAssertEqual(Array(fit.pixels[0..<3]), [0, 0, 0])
        XCTAssertEqual(Array(fit.pixels[(223 * 224) * 3..<(223 * 224) * 3 + 3]), [0, 0, 0])
    }

    /// The request's results: sorted, as many as asked, confidences the softmax of ORT's logits (within 0.01).
    func testClassifiesPhotosLikeONNXRuntime() throws {
        for (name, file, top1) in [("chelsea", "chelsea.png", "Egyptian cat"), ("coffee", "coffee.png", "espresso"),
                                   ("rocket", "rocket.jpg", "missile")] {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let results = ClassifyImageRequest(maximumResults: 5).perform(on: photo, using: Self.classifier)
            XCTAssertEqual(results.count, 5)
            XCTAssertEqual(results.first?.identifier, top1, name)
            XCTAssertEqual(results.map(\.confidence), results.map(\.confidence).sorted(by: >), "\(name): sorted")
            let logits = try NPY.read(path: Fixtures.path("classify/\(name).logits.npy")).values.map(Double.init)
            let peak = logits.max()!, sum = logits.reduce(0) { $0 + exp($1 - peak) }
            for r in results {
                XCTAssertEqual(r.confidence, exp(logits[r.classIndex] - peak) / sum, accuracy: 0.01, "\(name) \(r.identifier)")
                XCTAssertEqual(Self.classifier.labels[r.classIndex], r.identifier)
            }
        }
        let one = ClassifyImageRequest(cropAndScale: .scaleFill, maximumResults: 1)
            .perform(on: try Image(contentsOfFile: Fixtures.path("photos/coffee.png")), using: Self.classifier)
        XCTAssertEqual(one.map(\.identifier), ["espresso"])
    }

    /// A large JPEG is decoded reduced (at 1/2 here, 2400 → 1200 px ≥ ``ClassifyImageRequest/photoSide``) and gives
    /// the labels of the whole decode, reported with the full photo's size. (On 87 real phone photos, 1600 px and
    /// 12–16 MP: the same top-1 on all, top-5 confidences within 0.023: PERF.md.)
    func testLargeJPEGsAreDecodedReducedWithTheSameLabels() throws {
        for name in ["coffee.png", "chelsea.png", "rocket.jpg"] {
            let big = LanczosResampler.resize(try Image(contentsOfFile: Fixtures.path("photos/\(name)")).rgb(), width: 2400, height: 1600)
            let jpeg = try big.jpegData(quality: 92)
            let reduced = try ClassifyImageRequest.decode(jpeg, name: name)
            XCTAssertEqual([reduced.denominator, reduced.image.width, reduced.fullWidth, reduced.fullHeight], [2, 1200, 2400, 1600])
            let full = try ClassifyImageRequest.decode(jpeg, name: name, fullSize: true)
            XCTAssertEqual(full.denominator, 1)
            let request = ClassifyImageRequest(maximumResults: 5)
            let a = Self.classifier.classify(reduced, request: request), b = Self.classifier.classify(full, request: request)
            XCTAssertEqual([a.width, a.height], [2400, 1600], "the full photo's size in the report")
            XCTAssertEqual(a.observations.first?.identifier, b.observations.first?.identifier, name)
            for o in b.observations {
                let other = a.observations.first { $0.classIndex == o.classIndex }?.confidence ?? 0
                XCTAssertEqual(other, o.confidence, accuracy: 0.03, "\(name) \(o.identifier)")
            }
        }
    }

    /// The report is the CLI's --json contract.
    func testReportHasTheContractKeys() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/coffee.png"))
        let result = Self.classifier.classify(photo, request: ClassifyImageRequest(maximumResults: 2))
        let json = try JSONSerialization.jsonObject(with: Data(result.report(input: "coffee.png", model: "efficientnet-lite0",
                                                                              cropAndScale: .centerCrop).jsonData())) as! [String: Any]
        XCTAssertEqual(Set(json.keys), ["input", "width", "height", "model", "cropAndScale", "classifications", "timingsMs"])
        XCTAssertEqual(json["cropAndScale"] as? String, "centerCrop")
        let first = (json["classifications"] as! [[String: Any]])[0]
        XCTAssertEqual(first["identifier"] as? String, "espresso")
        XCTAssertEqual(first["classIndex"] as? Int, 967)
    }

    /// Each request refuses the other's model, in one line.
    func testModelsOfTheWrongKindAreRefused() throws {
        XCTAssertThrowsError(try Classifier(model: .u2netp)) {
            XCTAssertEqual(SwiftsegError($0).kind, .badRequest)
            XCTAssertTrue("\($0)".contains("u2netp is not an image classifier"), "\($0)")
        }
        XCTAssertThrowsError(try Segmenter(model: .efficientNetLite0)) {
            XCTAssertTrue("\($0)".contains("efficientnet-lite0 is not a subject-lifting (saliency) model"), "\($0)")
        }
    }
}
