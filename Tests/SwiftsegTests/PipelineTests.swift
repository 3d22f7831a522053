import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

final class PipelineTests: XCTestCase {
    /// Every error the library throws is sorted by kind, keeping its one-line message.
    func testErrorsAreSortedByKind() throws {
        let cases: [(any Error, SwiftsegError.Kind)] = [
            (ImageError(.unreadableImage, "x.png: not a PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF image"), .unsupportedInput),
            (ImageError(.tooLarge, "x.png: image is 20000×20000, over the limit"), .tooLarge),
            (ImageError(.fileSystem, "x.png: no such file"), .badRequest),
            (ImageError(.unsupportedOutput, "JPEG has no alpha channel"), .badRequest),
            (ImageError(.codecFailure, "cannot start the JPEG encoder"), .internal),
            (SubjectLiftingError("instance 4 does not exist"), .badRequest),
            (RuntimeError.invalidWeights("w.safetensors: truncated"), .internal),
        ]
        for (error, kind) in cases {
            XCTAssertEqual(SwiftsegError(error).kind, kind, "\(error)")
            XCTAssertEqual(SwiftsegError(error).message, "\(error)")
        }
        // Real throws, through the pipeline: a corrupt photo and an unknown instance.
        XCTAssertThrowsError(try Image(encoded: [0x89, 0x50, 0x4E, 0x47, 0, 1], name: "bad.png")) {
            XCTAssertEqual(SwiftsegError($0).kind, .unsupportedInput)
        }
        let photo = try Image(contentsOfFile: Fixtures.path("photos/rocket.jpg"))
        var pipeline = SubjectLiftingPipeline()
        pipeline.lifting.selection = .instances([9])
        XCTAssertThrowsError(try pipeline.lift(photo, with: Segmenter())) {
            XCTAssertEqual(($0 as? SwiftsegError)?.kind, .badRequest)
            XCTAssertTrue("\($0)".contains("instance 9 does not exist"), "\($0)")
        }
        pipeline.lifting.selection = .all
        pipeline.format = .jpeg  // a cutout has alpha
        let lifted = try pipeline.lift(photo, with: Segmenter())
        XCTAssertThrowsError(try pipeline.encode(lifted)) { XCTAssertEqual(($0 as? SwiftsegError)?.kind, .badRequest) }
    }

    /// The pipeline's files are exactly what the library's parts make one by one, and its preprocessing is
    /// the model file's: 320 and ImageNet's mean/std for u2netp.
    func testPipelineFilesEqualTheirParts() throws {
        let segmenter = try Segmenter()
        XCTAssertEqual(segmenter.inputSize, 320)
        XCTAssertEqual(segmenter.model.preprocessing.mean, [0.485, 0.456, 0.406])
        XCTAssertEqual(segmenter.model.preprocessing.std, [0.229, 0.224, 0.225])
        let photo = try Image(contentsOfFile: Fixtures.path("photos/coins.png"))
        var pipeline = SubjectLiftingPipeline()
        pipeline.instanceMap = true
        pipeline.saliencyMap = .png
        let lifted = try pipeline.lift(photo, with: segmenter)
        let files = try pipeline.encode(lifted)
        let observation = lifted.observation
        XCTAssertEqual(files.image, try Compositing.cutout(photo, alpha: observation.softMask).pngData())
        XCTAssertEqual(files.instanceMap, try observation.instanceMask.pngData())
        XCTAssertEqual(files.saliencyMap, try observation.saliency.heatMap(width: photo.width, height: photo.height).pngData())
        let timings = SubjectLiftingPipeline.timingsMs(lifted, decodeMs: 1, encodeMs: files.encodeMs)
        XCTAssertEqual(Set(timings.keys), ["decode", "preprocess", "network", "postprocess", "instances", "render", "encode"])
        let report = pipeline.report(for: lifted, input: "coins.png", model: segmenter.model.name, timingsMs: timings)
        XCTAssertEqual(report.model, "u2netp")
        XCTAssertEqual(report.instances.count, observation.instances.count)
    }

    /// `lifting.alphaMatting` makes the cutout from the chosen subjects' mask by rembg's matting, and the plain
    /// cutout when that mask has no sure foreground (a flat photo).
    func testAlphaMattingMakesTheCutoutFromTheMask() throws {
        let segmenter = try Segmenter()
        let photo = try Image(contentsOfFile: Fixtures.path("photos/chelsea.png"))
        var pipeline = SubjectLiftingPipeline()
        pipeline.lifting.alphaMatting = AlphaMatting(erodeSize: 6)
        let lifted = try pipeline.lift(photo, with: segmenter)
        let matted = try XCTUnwrap(try AlphaMatting(erodeSize: 6).cutout(photo, mask: lifted.observation.softMask))
        XCTAssertEqual(lifted.image, matted)
        XCTAssertNotEqual(lifted.image, Compositing.cutout(photo, alpha: lifted.observation.softMask))
        let flat = Image(width: 40, height: 30, channels: 3, pixels: [UInt8](repeating: 90, count: 3600))
        let plain = try pipeline.lift(flat, with: segmenter)
        XCTAssertEqual(plain.image, Compositing.cutout(flat, alpha: plain.observation.softMask))
    }

    /// A network that does not make one sigmoid channel (a classifier) is refused as a subject lifter.
    func testSegmenterRefusesNonSaliencyModels() throws {
        final class Classifier: Network {
            let weights: SafeTensorsFile
            let preprocessing = ModelPreprocessing(inputSize: 224, mean: [127, 127, 127], std: [128, 128, 128], output: .logits)
            let name = "classifier"
            init(_ weights: SafeTensorsFile) { self.weights = weights }
            func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (1000, 1, 1) }
            func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {}
            func convMACs(height: Int, width: Int) -> Int { 0 }
        }
        let network = Classifier(try SafeTensorsFile.embeddedU2NetP())
        XCTAssertThrowsError(try Segmenter.checkIsSaliencyModel(network)) {
            XCTAssertEqual(SwiftsegError($0).kind, .badRequest)
            XCTAssertTrue("\($0)".contains("classifier is not a subject-lifting (saliency) model"), "\($0)")
        }
        XCTAssertNoThrow(try Segmenter.checkIsSaliencyModel(try U2Net(source: .u2netp)))
    }
}
