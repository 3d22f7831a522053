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
        XCTAssertNoThrow(try query(["top": "2"]).refuseUnknown(ClassifyImageRequest.Parameters.all.names))
        XCTAssertThrowsError(try query(["tops": "2"]).refuseUnknown(ClassifyImageRequest.Parameters.all.names)) {
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

    /// Each parameter is declared once (name, kind, default, range, help): the help shows the default the parse
    /// uses, and the range error the range the declaration gives.
    func testDeclaredParametersShowTheirDefaultsAndAreReadWithThem() throws {
        let lists = [CutoutParameters.Parameters.all, ClassifyImageRequest.Parameters.all, DetectRectanglesRequest.Parameters.all]
        for list in lists { XCTAssertEqual(Set(list.names).count, list.count, "\(list.names)") }
        func written(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        var numbers = 0
        for p in lists.joined() {
            switch p.kind {
            case .number(let value?, let range):
                numbers += 1
                XCTAssertTrue(p.help.contains("(\(written(value))"), "\(p.name): \(p.help)")
                XCTAssertEqual(try query([:]).number(p) as Double, value, p.name)
                let outside = String(range.upperBound + 1)
                XCTAssertThrowsError(try query([p.name: outside]).number(p) as Double) {
                    XCTAssertEqual(($0 as? SwiftsegError)?.message,
                                   "\(p.name) expects a number in \(range.lowerBound)…\(range.upperBound), got '\(outside)'")
                }
            case .integer(let value, _):
                XCTAssertTrue(p.help.contains("(\(value))"), "\(p.name): \(p.help)")
                XCTAssertEqual(try query([:]).integer(p), value, p.name)
            case .flag:
                XCTAssertFalse(try query([:]).flag(p))
                XCTAssertTrue(try query([p.name: ""]).flag(p))
            case .number(nil, _), .text:
                break
            }
        }
        XCTAssertEqual(numbers, 14)  // the effects' 6, threshold, min-area, jpeg-quality and the rectangles' 5
        XCTAssertEqual(try CutoutParameters(query(["effect": "highlight"])).effect, .highlight(dim: 0.35, outlineWidth: 3, outlineColor: .white))
        XCTAssertEqual(try CutoutParameters(query(["effect": "mask-preview"])).effect, .maskPreview(color: RGB(0, 170, 255)))
    }
}
