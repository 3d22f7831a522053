import XCTest
import Swiftseg

/// The one parser behind `swiftseg infer`'s flags and the service's query parameters.
final class RequestParametersTests: XCTestCase {
    private func query(_ values: [String: String]) -> RequestParameters { RequestParameters(values: values, prefix: "") }

    func testFlagsReadAsOnOrOffAndRefuseOtherWords() throws {
        for on in ["", "1", "true", "YES", "on"] { XCTAssertTrue(try query(["crop": on]).flag("crop"), on) }
        for off in ["0", "false", "no", "Off"] { XCTAssertFalse(try query(["crop": off]).flag("crop"), off) }
        XCTAssertFalse(try query([:]).flag("crop"))
        XCTAssertTrue(try RequestParameters(flags: ["crop"], prefix: "--").flag("crop"))
        XCTAssertThrowsError(try query(["crop": "maybe"]).flag("crop")) { error in
            XCTAssertEqual(error as? SwiftsegError, SwiftsegError(.badRequest, "crop is on or off (1 or 0), got 'maybe'"))
        }
    }

    func testMessagesNameTheParameterAsTheCallerSpellsIt() {
        XCTAssertThrowsError(try CutoutParameters(RequestParameters(values: ["threshold": "2"], prefix: "--"))) {
            XCTAssertEqual(($0 as? SwiftsegError)?.message, "--threshold expects a number in 1e-06…1.0, got '2'")
        }
        XCTAssertThrowsError(try CutoutParameters(query(["threshold": "nan"]))) {
            XCTAssertEqual(($0 as? SwiftsegError)?.message, "threshold expects a number in 1e-06…1.0, got 'nan'")
        }
        XCTAssertThrowsError(try CutoutParameters(query(["mask": "1", "effect": "blur"]))) {
            XCTAssertEqual(($0 as? SwiftsegError)?.message, "mask writes the mask; it cannot be combined with background or effect")
        }
    }

    func testCutoutParametersMakeTheLibraryValues() throws {
        let p = try CutoutParameters(query(["effect": "blur", "blur-radius": "20", "point": "0.5,0.25", "crop": "1",
                                            "format": "jpg", "jpeg-quality": "80", "png-compression": "9"]))
        XCTAssertEqual(p.effect, .blur(radius: 20, haloRadius: 16, haloStrength: 0.6))
        XCTAssertEqual(p.lifting.selection, .point(NormalizedPoint(x: 0.5, y: 0.25)))
        XCTAssertTrue(p.lifting.crop)
        XCTAssertEqual(p.format, .jpeg)
        XCTAssertEqual(p.encoding.jpegQuality, 80)
        XCTAssertEqual(p.encoding.pngCompression, PNGCompression("9"))
        let pipeline = try p.pipeline(format: .jpeg) { try Background(argument: $0) }
        XCTAssertEqual(pipeline.lifting.output, .composite(background: .original, effect: p.effect))
        let colored = try CutoutParameters(query(["background": "#102030"])).pipeline(format: .png) { try Background(argument: $0) }
        XCTAssertEqual(colored.lifting.output, .composite(background: .color(RGB(16, 32, 48)), effect: nil))
        XCTAssertEqual(try CutoutParameters(query(["mask": ""])).lifting.output, .mask)
    }

    func testUnknownParametersAreRefused() {
        XCTAssertNoThrow(try query(["top": "2"]).refuseUnknown(ClassifyImageRequest.parameterNames))
        XCTAssertThrowsError(try query(["tops": "2"]).refuseUnknown(ClassifyImageRequest.parameterNames)) {
            XCTAssertEqual(($0 as? SwiftsegError)?.message, "unknown parameter 'tops' (known: top, crop-and-scale)")
        }
    }

    func testRequestsFromParametersKeepVisionsDefaultsAndRanges() throws {
        XCTAssertEqual(try ClassifyImageRequest(parameters: query([:])), ClassifyImageRequest())
        XCTAssertEqual(try ClassifyImageRequest(parameters: query(["top": "2", "crop-and-scale": "scaleFit"])),
                       ClassifyImageRequest(cropAndScale: .scaleFit, maximumResults: 2))
        XCTAssertThrowsError(try ClassifyImageRequest(parameters: query(["crop-and-scale": "fit"])))
        XCTAssertEqual(try DetectRectanglesRequest(parameters: query([:])), DetectRectanglesRequest())
        XCTAssertEqual(try DetectRectanglesRequest(parameters: query(["max-observations": "0"])).maximumObservations, 0)
        XCTAssertThrowsError(try DetectRectanglesRequest(parameters: query(["min-aspect": "0.9", "max-aspect": "0.5"]))) {
            XCTAssertEqual(($0 as? SwiftsegError)?.kind, .badRequest)
        }
    }
}
