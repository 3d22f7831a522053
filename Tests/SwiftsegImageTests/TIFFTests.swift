@testable import SwiftsegImage
import XCTest

/// TIFF in (Tests/Fixtures/decode/tiff-*, made by Tools/make_format_fixtures.py with Pillow, ImageMagick and
/// libtiff's tools from the committed PNGs, which are the references).
final class TIFFTests: XCTestCase, ReadsDecodeFixtures {
    let upright = try! Image(contentsOfFile: Fixtures.path("decode/upright.png"))

    func testEachKindDecodes() throws {
        XCTAssertEqual(try load("tiff-rgb.tif"), upright, "uncompressed RGB: the pixels")
        XCTAssertEqual(try load("tiff-lzw.tif"), upright, "LZW: the pixels")
        XCTAssertEqual(try load("tiff-pages.tif"), upright, "two pages: the first")
        let gray = try load("tiff-gray.tif")
        XCTAssertEqual(gray.channels, 1)
        XCTAssertEqual(gray, try load("gray8.png"))
        let sixteen = try load("tiff-16bit.tif")
        XCTAssertEqual(sixteen.channels, 3)
        XCTAssertLessThanOrEqual(zip(sixteen.pixels, upright.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99, 1,
                                 "16-bit: 8-bit within 1 (libtiff rounds, the PNG's high byte truncates)")
        // Alpha: libtiff's reader premultiplies it; un-premultiplied back, the colour is exact where alpha is 255
        // and within rounding (255 / alpha) elsewhere; alpha itself is exact.
        let rgba = try load("tiff-rgba.tif"), reference = try load("rgba.png")
        XCTAssertEqual(rgba.channels, 4)
        for i in 0..<(rgba.width * rgba.height) {
            let a = Int(reference.pixels[4 * i + 3])
            XCTAssertEqual(rgba.pixels[4 * i + 3], reference.pixels[4 * i + 3])
            guard a > 0 else { continue }
            for c in 0..<3 {
                XCTAssertLessThanOrEqual(abs(Int(rgba.pixels[4 * i + c]) - Int(reference.pixels[4 * i + c])), 255 / a / 2 + 1, "pixel \(i)")
            }
        }
        XCTAssertEqual(ImageFormat(sniffing: try bytes("tiff-lzw.tif")), .tiff)
        XCTAssertFalse(ImageFormat.tiff.isWritable)
    }

    func testTheOrientationTagTurnsItUpright() throws {
        for o in 1...8 {
            XCTAssertEqual(ExifOrientation.read(from: try bytes("tiff-orientation-\(o).tif")), ExifOrientation(rawValue: o))
            XCTAssertEqual(try load("tiff-orientation-\(o).tif"), upright, "Orientation \(o)")
        }
        let stored = try load("tiff-orientation-6.tif", options: DecodingOptions(appliesOrientation: false))
        XCTAssertEqual(stored, try load("orientation-6.png", options: DecodingOptions(appliesOrientation: false)))
        XCTAssertTrue(try load("profile-adobe-rgb.tif").iccProfile == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc")))))
    }

    /// A header claiming 60000×60000 is refused by the limits before any pixel memory; every truncation is one
    /// clear error, or — cut only in metadata stored after the pixels, as Pillow places an ICC profile — the
    /// whole picture (never a partial one).
    func testHugeHeadersAndTruncatedFilesAreRefused() throws {
        var huge = try bytes("tiff-rgb.tif")  // little-endian: IFD offset at 4, entries of 12 bytes after a count
        let ifd = Int(huge[4]) | Int(huge[5]) << 8 | Int(huge[6]) << 16 | Int(huge[7]) << 24
        let count = Int(huge[ifd]) | Int(huge[ifd + 1]) << 8
        for e in 0..<count {
            let at = ifd + 2 + 12 * e, tag = Int(huge[at]) | Int(huge[at + 1]) << 8
            if tag == 256 || tag == 257 {  // width, height (SHORT or LONG): 60000
                huge[at + 8] = 0x60; huge[at + 9] = 0xEA; huge[at + 10] = 0; huge[at + 11] = 0
            }
        }
        XCTAssertThrowsError(try Image(encoded: huge, name: "huge.tif")) {
            XCTAssertTrue("\($0)".contains("60000×60000, over the limit"), "\($0)")
        }
        for name in ["tiff-rgb.tif", "tiff-lzw.tif", "tiff-rgba.tif", "tiff-16bit.tif"] {
            XCTAssertGreaterThan(try refusedTruncations(of: name), 20, name)
        }
    }
}
