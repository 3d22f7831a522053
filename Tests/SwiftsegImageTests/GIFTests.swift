@testable import SwiftsegImage
import XCTest

/// GIF in (Tests/Fixtures/decode/gif-*, made by Tools/make_format_fixtures.py with Pillow and ImageMagick;
/// `<name>-pillow.png` is Pillow's decode of the file, converted to RGB or RGBA).
final class GIFTests: XCTestCase, ReadsDecodeFixtures {
    func testTheFirstFrameAsPillowDecodesIt() throws {
        let reference = try load("gif-pillow.png")
        XCTAssertEqual(try load("gif.gif"), reference, "interlaced (Pillow writes it so)")
        XCTAssertEqual(try load("gif-plain.gif"), reference, "not interlaced")
        XCTAssertEqual(try load("gif-animated.gif"), reference, "an animation: its first frame")
        let transparent = try load("gif-transparent.gif")
        XCTAssertEqual(transparent.channels, 4, "a transparent index: RGBA")
        XCTAssertEqual(transparent, try load("gif-transparent-pillow.png"))
        let offset = try load("gif-offset.gif")
        XCTAssertEqual([offset.width, offset.height], [80, 60], "the logical screen, the frame placed at (10, 5)")
        XCTAssertEqual(offset, try load("gif-offset-pillow.png"))
        let adobe = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc"))))
        XCTAssertTrue(try load("profile-adobe-rgb.gif").iccProfile == adobe, "an ICCRGBG1012 application extension")
        XCTAssertEqual(ImageFormat(sniffing: try bytes("gif.gif")), .gif)
        XCTAssertFalse(ImageFormat.gif.isWritable)
    }

    /// A screen and frame claiming 60000×60000 are refused by the limits before any pixel memory; every
    /// truncation is one clear error (giflib's text, mapped), never a partial picture or a crash.
    func testHugeHeadersAndTruncatedFilesAreRefused() throws {
        var huge = try bytes("gif-plain.gif")
        huge[6] = 0x60; huge[7] = 0xEA; huge[8] = 0x60; huge[9] = 0xEA  // the logical screen
        XCTAssertThrowsError(try Image(encoded: huge, name: "huge.gif")) {
            XCTAssertTrue("\($0)".contains("60000×60000, over the limit"), "\($0)")
        }
        XCTAssertThrowsError(try Image(encoded: Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B], name: "empty.gif")) {
            XCTAssertTrue("\($0)".contains("holds no image"), "\($0)")
        }
        for name in ["gif.gif", "gif-plain.gif", "gif-transparent.gif", "gif-offset.gif"] {
            XCTAssertGreaterThan(try refusedTruncations(of: name), 20, name)
        }
    }
}
