@testable import SwiftsegImage
import XCTest

/// BMP in (Tests/Fixtures/decode/bmp-*, made by Tools/make_format_fixtures.py with Pillow and ImageMagick from
/// the committed PNGs; `<name>-pillow.png` is Pillow's decode of a file where no committed PNG is the reference).
final class BMPTests: XCTestCase, ReadsDecodeFixtures {
    let upright = try! Image(contentsOfFile: Fixtures.path("decode/upright.png"))

    func testEachKindDecodesAsPillowDecodesIt() throws {
        XCTAssertEqual(try load("bmp-rgb.bmp"), upright, "24-bit: the pixels")
        XCTAssertEqual(try load("bmp-topdown.bmp"), upright, "top-down rows (negative height)")
        let rgba = try load("rgba.png")
        let rgbx = try load("bmp-rgbx.bmp")
        XCTAssertEqual(rgbx.channels, 3, "32-bit without an alpha mask: the fourth byte ignored, as Pillow does")
        XCTAssertEqual(rgbx.pixels, (0..<(rgba.width * rgba.height)).flatMap { i in rgba.pixels[(4 * i)..<(4 * i + 3)] })
        let gray = try load("bmp-gray.bmp")
        XCTAssertEqual(gray.channels, 1, "a palette of the 256 grays: gray, as Pillow reads it")
        XCTAssertEqual(gray, try load("gray8.png"))
        for name in ["bmp-palette", "bmp-1bit", "bmp-4bit", "bmp-rle8", "bmp-565", "bmp-555", "bmp-alpha"] {
            let image = try load("\(name).bmp"), reference = try load("\(name)-pillow.png")
            if name == "bmp-1bit" {  // black and white: Pillow's mode "1", one channel here
                XCTAssertEqual(image.channels, 1)
                XCTAssertEqual(image.pixels, (0..<(reference.width * reference.height)).map { reference.pixels[3 * $0] })
            } else {
                XCTAssertEqual(image, reference, name)
            }
        }
        XCTAssertEqual(try load("bmp-alpha.bmp").channels, 4)
        let adobe = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc"))))
        XCTAssertTrue(try load("profile-adobe-rgb.bmp").iccProfile == adobe, "a V5 header's embedded profile")
        XCTAssertEqual(try load("profile-adobe-rgb.bmp"), upright)
        XCTAssertEqual(ImageFormat(sniffing: try bytes("bmp-rle8.bmp")), .bmp)
        XCTAssertNil(ImageFormat(sniffing: Array("BM is not a bitmap, it is a text file".utf8)), "two letters are not enough")
        XCTAssertFalse(ImageFormat.bmp.isWritable)
        XCTAssertThrowsError(try upright.encoded(as: .bmp)) {
            XCTAssertEqual(($0 as? ImageError)?.kind, .unsupportedOutput)
        }
    }

    /// RLE4 (which no encoder here writes), byte by byte: runs of two alternating indices, an absolute run with its
    /// padding, an end of line that leaves the rest of a row at index 0, a delta, and the end of the bitmap.
    func testRunLengthFourBits() throws {
        let palette: [[UInt8]] = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]]
        let data: [UInt8] = [
            6, 0x12,          // bottom row: 1 2 1 2 1 2
            0, 0,             // end of line (the row was full)
            0, 3, 0x31, 0x20, // absolute: 3 1 2, then padding to 16 bits
            0, 0,             // end of line: the row's last three pixels stay 0
            0, 2, 2, 0,       // delta: two right, none up (the top row from x = 2)
            4, 0x33,          // 3 3 3 3
            0, 1,             // end of bitmap
        ]
        let file = bitmap(width: 6, height: 3, bits: 4, compression: 2, palette: palette, pixels: data)
        let image = try Image(encoded: file, name: "rle4.bmp")
        let rows: [[Int]] = [[0, 0, 3, 3, 3, 3], [3, 1, 2, 0, 0, 0], [1, 2, 1, 2, 1, 2]]  // top row first
        XCTAssertEqual(image.pixels, rows.flatMap { $0.flatMap { palette[$0] } })
        XCTAssertThrowsError(try Image(encoded: Array(file.dropLast(4)), name: "cut.bmp")) {
            XCTAssertTrue("\($0)".contains("truncated BMP"), "\($0)")
        }
    }

    /// A BMP with a 40-byte header, the palette's entries as BGR0.
    func bitmap(width: Int, height: Int, bits: Int, compression: UInt32, palette: [[UInt8]], pixels: [UInt8]) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let offset = 14 + 40 + 4 * palette.count
        var b = Array("BM".utf8) + le(offset + pixels.count, 4) + le(0, 4) + le(offset, 4)
        b += le(40, 4) + le(width, 4) + le(height, 4) + le(1, 2) + le(bits, 2) + le(Int(compression), 4)
        b += le(pixels.count, 4) + le(2835, 4) + le(2835, 4) + le(palette.count, 4) + le(0, 4)
        for c in palette { b += [c[2], c[1], c[0], 0] }
        return b + pixels
    }

    /// A header claiming 60000×60000 is refused by the limits before any pixel memory; every truncation is one
    /// clear error, or the whole picture when only trailing bytes (the profile, padding) are cut.
    func testHugeHeadersAndTruncatedFilesAreRefused() throws {
        var huge = try bytes("bmp-rgb.bmp")
        for at in [18, 22] { huge[at] = 0x60; huge[at + 1] = 0xEA; huge[at + 2] = 0; huge[at + 3] = 0 }
        XCTAssertThrowsError(try Image(encoded: huge, name: "huge.bmp")) {
            XCTAssertTrue("\($0)".contains("60000×60000, over the limit"), "\($0)")
        }
        var negative = try bytes("bmp-rgb.bmp")
        for i in 18..<22 { negative[i] = 0xFF }  // width −1
        XCTAssertThrowsError(try Image(encoded: negative, name: "negative.bmp")) {
            XCTAssertEqual(($0 as? ImageError)?.kind, .unreadableImage, "\($0)")
        }
        for name in ["bmp-rgb.bmp", "bmp-palette.bmp", "bmp-4bit.bmp", "bmp-rle8.bmp", "bmp-565.bmp", "bmp-alpha.bmp", "profile-adobe-rgb.bmp"] {
            // The profile is most of profile-adobe-rgb.bmp and lies after the pixels: cut there, the picture is whole.
            XCTAssertGreaterThan(try refusedTruncations(of: name), name.hasPrefix("profile") ? 10 : 20, name)
        }
    }
}
