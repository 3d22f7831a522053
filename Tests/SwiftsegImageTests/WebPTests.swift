@testable import SwiftsegImage
import XCTest

/// WebP in and out (Tests/Fixtures/decode/webp-*, made by Tools/make_format_fixtures.py with Debian's cwebp,
/// img2webp and webpmux; the lossy references are Pillow's decodes of the same files).
final class WebPTests: XCTestCase, ReadsDecodeFixtures {
    let upright = try! Image(contentsOfFile: Fixtures.path("decode/upright.png"))
    let rgba = try! Image(contentsOfFile: Fixtures.path("decode/rgba.png"))

    /// The largest difference of any sample.
    func maxDiff(_ a: Image, _ b: Image) -> Int {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return .max }
        return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    func testEveryKindDecodesAsPillowDecodesIt() throws {
        XCTAssertEqual(try load("webp-lossless.webp"), upright, "lossless: the pixels themselves")
        XCTAssertEqual(try load("webp-alpha.webp"), rgba, "lossless with alpha: RGBA, the pixels themselves")
        let lossy = try load("webp-lossy.webp")
        XCTAssertEqual(lossy.channels, 3)
        XCTAssertEqual(maxDiff(lossy, try load("webp-lossy-pillow.png")), 0, "lossy: Pillow's decode (the same libwebp steps)")
        let alphaLossy = try load("webp-alpha-lossy.webp")
        XCTAssertEqual(alphaLossy.channels, 4)
        XCTAssertEqual(maxDiff(alphaLossy, try load("webp-alpha-lossy-pillow.png")), 0, "lossy with alpha: Pillow's decode")
        XCTAssertEqual(try load("webp-animated.webp"), upright, "an animation: its first frame")
        XCTAssertEqual(ImageFormat(sniffing: try bytes("webp-lossy.webp")), .webp)
    }

    func testAllEightEXIFOrientationsComeOutUpright() throws {
        for o in 1...8 {
            XCTAssertEqual(ExifOrientation.read(from: try bytes("webp-orientation-\(o).webp")), ExifOrientation(rawValue: o), "\(o)")
            XCTAssertEqual(try load("webp-orientation-\(o).webp"), upright, "EXIF orientation \(o)")
        }
        let stored = try load("webp-orientation-6.webp", options: DecodingOptions(appliesOrientation: false))
        XCTAssertEqual([stored.width, stored.height], [40, 60], "the stored pixels when orientation is ignored")
    }

    /// A lossless file's header claiming 16384×16384 is refused by the limits before anything is decoded;
    /// every truncation of every fixture is one clear error.
    func testHugeHeadersAndTruncatedFilesAreRefused() throws {
        var huge = try bytes("webp-lossless.webp")
        let vp8l = (12..<(huge.count - 4)).first { Array(huge[$0..<($0 + 4)]) == Array("VP8L".utf8) }!
        // After the chunk header and the 0x2F signature: 14 bits width − 1, 14 bits height − 1, little-endian.
        let bits = UInt32(16383) | UInt32(16383) << 14 | UInt32(huge[vp8l + 12] >> 4) << 28
        for k in 0..<4 { huge[vp8l + 9 + k] = UInt8(truncatingIfNeeded: bits >> (8 * k)) }
        XCTAssertThrowsError(try Image(encoded: huge, name: "huge.webp")) {
            XCTAssertTrue("\($0)".contains("16384×16384, over the limit"), "\($0)")
        }
        for name in ["webp-lossless.webp", "webp-lossy.webp", "webp-alpha-lossy.webp", "webp-animated.webp"] {
            let whole = try bytes(name)
            for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 97)) {
                XCTAssertThrowsError(try Image(encoded: Array(whole.prefix(length)), name: "cut.webp"), "\(name) cut at \(length)") {
                    XCTAssertEqual(($0 as? ImageError)?.kind, .unreadableImage, "\(name) cut at \(length): \($0)")
                }
            }
        }
    }

    func testLosslessOutputGivesThePixelsBackAndLossyIsClose() throws {
        for image in [upright, rgba, try load("gray8.png")] {
            let webp = try image.encoded(as: .webp)
            XCTAssertEqual(ImageFormat(sniffing: webp), .webp)
            let back = try Image(encoded: webp, name: "mem")
            XCTAssertEqual(back, image.channels == 1 ? image.rgb() : image, "lossless, \(image.channels) channels (gray as RGB)")
        }
        // The colour under fully transparent pixels is kept too (cutouts keep the photo under alpha 0).
        var hidden = rgba
        for p in stride(from: 3, to: hidden.pixels.count, by: 4) { hidden.pixels[p] = p % 8 == 3 ? 0 : hidden.pixels[p] }
        XCTAssertEqual(try Image(encoded: try hidden.webpData(), name: "mem"), hidden)
        let lossy = try Image(encoded: try upright.encoded(as: .webp, options: EncodingOptions(webpQuality: 90)), name: "mem")
        var total = 0
        for (a, b) in zip(lossy.pixels, upright.pixels) { total += abs(Int(a) - Int(b)) }
        XCTAssertLessThan(Double(total) / Double(upright.pixels.count), 6, "lossy at 90: close to the photo")
        XCTAssertThrowsError(try Image(width: 16_384, height: 1, channels: 3, pixels: [UInt8](repeating: 0, count: 16_384 * 3)).webpData()) {
            XCTAssertEqual(($0 as? ImageError)?.kind, .unsupportedOutput)
        }
        XCTAssertEqual(ImageFormat(path: "out.WEBP"), .webp)
        XCTAssertEqual(ImageFormat.names(ImageFormat.writable), "PNG, JPEG or WebP")
    }

    /// Decoded reduced by libwebp's scaler: 1/d exactly where d divides both sides (60×40: 1/4 and 1/2, not 1/8),
    /// each reduced pixel the mean of the d×d block it covers (within the scaler's fixed-point rounding), under
    /// every EXIF turn; the full size reported upright; the profile kept; animations and sides d does not divide
    /// decoded whole.
    func testReducedDecodingAveragesBlocksOfThePhoto() throws {
        for o in 1...8 {
            let name = "webp-orientation-\(o).webp"
            for (side, denominator) in [(60, 1), (30, 2), (15, 4), (8, 4), (1, 4)] {
                let reduced = try ReducedImage(encoded: try bytes(name), name: name, minimumLongerSide: side)
                XCTAssertEqual(reduced.denominator, denominator, "\(name) for \(side) px")
                XCTAssertEqual([reduced.fullWidth, reduced.fullHeight, reduced.image.width, reduced.image.height],
                               [60, 40, 60 / denominator, 40 / denominator], name)
                var worst = 0.0
                for y in 0..<reduced.image.height { for x in 0..<reduced.image.width {
                    let at = reduced.photoPoint(PixelPoint(x: Double(x), y: Double(y)))
                    let x0 = Int(at.x.rounded()), y0 = Int(at.y.rounded())
                    for c in 0..<3 {
                        var sum = 0
                        for yy in y0..<(y0 + denominator) { for xx in x0..<(x0 + denominator) { sum += Int(upright.pixels[(yy * 60 + xx) * 3 + c]) } }
                        let mean = Double(sum) / Double(denominator * denominator)
                        worst = max(worst, abs(mean - Double(reduced.image.pixels[(y * reduced.image.width + x) * 3 + c])))
                    }
                } }
                XCTAssertLessThanOrEqual(worst, 1, "\(name) at 1/\(denominator)")
            }
        }
        let alpha = try ReducedImage(encoded: try bytes("webp-alpha.webp"), name: "a", minimumLongerSide: 15)
        XCTAssertEqual([alpha.denominator, alpha.image.channels], [4, 4])
        let profile = try ReducedImage(encoded: try bytes("profile-adobe-rgb.webp"), name: "p", minimumLongerSide: 15)
        XCTAssertEqual(profile.denominator, 4)
        XCTAssertTrue(profile.image.iccProfile == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc")))))
        let animated = try ReducedImage(encoded: try bytes("webp-animated.webp"), name: "m", minimumLongerSide: 15)
        XCTAssertEqual(animated.denominator, 1)
        XCTAssertEqual(animated.image, upright)
        XCTAssertNil(WebPCodec.scaleDenominator(width: 4001, height: 3000, minimumLongerSide: 1000), "4001 is odd: whole")
        XCTAssertEqual(WebPCodec.scaleDenominator(width: 4032, height: 3024, minimumLongerSide: 1000), 4)
        XCTAssertEqual(WebPCodec.scaleDenominator(width: 4036, height: 3026, minimumLongerSide: 1000), 2)
    }
}
