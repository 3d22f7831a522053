@testable import SwiftsegImage
import XCTest

/// HEIC and AVIF in (Tests/Fixtures/decode/heic*, avif*, made by Tools/make_format_fixtures.py with Debian's
/// heif-enc; the references are pillow-heif's and Pillow's decodes of the same files).
final class HEIFTests: XCTestCase, ReadsDecodeFixtures {
    let upright = try! Image(contentsOfFile: Fixtures.path("decode/upright.png"))

    /// The largest and the mean difference of any sample (∞ when the shapes differ).
    func diff(_ a: Image, _ b: Image) -> (max: Int, mean: Double) {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return (.max, .infinity) }
        let d = zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }
        return (d.max() ?? 0, Double(d.reduce(0, +)) / Double(max(d.count, 1)))
    }

    func testEachKindDecodesAsPillowDecodesIt() throws {
        for (file, reference, channels) in [("heic.heic", "heic-pillow.png", 3), ("heic-alpha.heic", "heic-alpha-pillow.png", 4),
                                            ("avif.avif", "avif-pillow.png", 3)] {
            let image = try load(file)
            XCTAssertEqual(image.channels, channels, file)
            let d = diff(image, try load(reference))
            print("\(file): max \(d.max), mean \(d.mean) against \(reference)")
            XCTAssertLessThanOrEqual(d.max, 2, "\(file): another libheif's YCbCr → RGB rounds alike to within 2")
            XCTAssertLessThan(d.mean, 0.5, file)
        }
        // 4:2:0 AVIF: libavif (Pillow) upsamples the chroma bilinearly, libheif 1.15 repeats each sample, so near
        // edges they differ by more than rounding; both are the photo.
        let avif420 = try load("avif-420.avif")
        let d420 = diff(avif420, try load("avif-420-pillow.png"))
        print("avif-420.avif: max \(d420.max), mean \(d420.mean) against avif-420-pillow.png; against the photo \(diff(avif420, upright).mean)")
        XCTAssertLessThan(d420.mean, 2, "4:2:0 AVIF: Pillow's decode but for the chroma's upsampling")
        XCTAssertLessThan(diff(avif420, upright).mean, 4, "4:2:0 AVIF: the photo")
        let tenBit = try load("heic-10bit.heic")
        XCTAssertEqual(tenBit.channels, 3)
        XCTAssertLessThan(diff(tenBit, upright).mean, 4, "10-bit HEIC as 8-bit: the photo")
        XCTAssertEqual(ImageFormat(sniffing: try bytes("heic.heic")), .heic)
        XCTAssertEqual(ImageFormat(sniffing: try bytes("avif.avif")), .avif)
    }

    /// A HEIC as iPhones store photos: HEVC tiles composed by a `grid` item and cropped to the photo (2×2 tiles of
    /// 64 px holding 120×80, from Tools/make_heic_grid.py); libheif decodes the tiles on several threads.
    func testGridsOfTilesAreComposed() throws {
        let grid = try load("heic-grid.heic")
        XCTAssertEqual([grid.width, grid.height, grid.channels], [120, 80, 3])
        let d = diff(grid, try load("heic-grid-pillow.png"))
        XCTAssertLessThanOrEqual(d.max, 2, "pillow-heif's decode, within the YCbCr → RGB rounding")
        XCTAssertLessThan(d.mean, 0.5)
        // Each tile in its place: the photo doubled (nearest), within the codec's loss.
        var doubled = [UInt8](repeating: 0, count: 120 * 80 * 3)
        for y in 0..<80 { for x in 0..<120 { for c in 0..<3 { doubled[(y * 120 + x) * 3 + c] = upright.pixels[((y / 2) * 60 + x / 2) * 3 + c] } } }
        XCTAssertLessThan(diff(grid, Image(width: 120, height: 80, channels: 3, pixels: doubled)).mean, 3)
        XCTAssertThrowsError(try load("heic-grid.heic", options: DecodingOptions(maxPixels: 9_000))) {
            XCTAssertTrue("\($0)".contains("120×80, over the limit"), "\($0)")
        }
    }

    /// HEIF's own turns (`irot`, `imir`), as iPhones store photos, bring all eight orientations upright; they
    /// are part of the image (with the crop that takes the coded picture's padding off), so applied even when
    /// EXIF orientation is ignored.
    func testHEIFTransformationsComeOutUpright() throws {
        for o in 1...8 {
            let image = try load("heic-orientation-\(o).heic")
            XCTAssertEqual([image.width, image.height], [60, 40], "\(o)")
            XCTAssertLessThan(diff(image, upright).mean, 3, "orientation \(o)")
        }
        let stored = try load("heic-orientation-6.heic", options: DecodingOptions(appliesOrientation: false))
        XCTAssertEqual(stored, try load("heic-orientation-6.heic"))
        let reduced = try ReducedImage(encoded: try bytes("heic-orientation-6.heic"), name: "x", minimumLongerSide: 10)
        XCTAssertEqual([reduced.fullWidth, reduced.fullHeight, reduced.denominator], [60, 40, 1])
    }

    /// Limits from the container before any pixels; truncated and corrupt files are one clear error; HEIF
    /// is read, not written.
    func testLimitsTruncationsAndOutput() throws {
        XCTAssertThrowsError(try load("heic.heic", options: DecodingOptions(maxPixels: 100))) {
            XCTAssertTrue("\($0)".contains("60×40, over the limit of 100 pixels"), "\($0)")
        }
        XCTAssertThrowsError(try load("avif.avif", options: DecodingOptions(maxDimension: 50))) {
            XCTAssertEqual(($0 as? ImageError)?.kind, .tooLarge, "\($0)")
        }
        for name in ["heic.heic", "heic-alpha.heic", "avif.avif", "heic-orientation-6.heic"] {
            let whole = try bytes(name)
            for length in stride(from: 16, to: whole.count, by: max(1, whole.count / 61)) {
                XCTAssertThrowsError(try Image(encoded: Array(whole.prefix(length)), name: "cut"), "\(name) cut at \(length)") {
                    XCTAssertEqual(($0 as? ImageError)?.kind, .unreadableImage, "\(name) cut at \(length): \($0)")
                }
            }
        }
        XCTAssertThrowsError(try upright.encoded(as: .heic)) { XCTAssertEqual(($0 as? ImageError)?.kind, .unsupportedOutput) }
        XCTAssertFalse(ImageFormat.avif.isWritable)
        XCTAssertEqual(ImageFormat(path: "IMG_0042.HEIC"), .heic)
    }

    /// A tag's s15Fixed16 numbers (after its 8-byte type and reserved field) from an ICC profile's tag table.
    func tagNumbers(_ icc: [UInt8], _ signature: String, count: Int) -> [Double]? {
        func u32(_ o: Int) -> Int { Int(icc[o]) << 24 | Int(icc[o + 1]) << 16 | Int(icc[o + 2]) << 8 | Int(icc[o + 3]) }
        for t in 0..<u32(128) where Array(icc[(132 + 12 * t)..<(136 + 12 * t)]) == Array(signature.utf8) {
            let offset = u32(136 + 12 * t)
            return (0..<count).map { Double(Int32(bitPattern: UInt32(u32(offset + 8 + 4 * $0)))) / 65536 }
        }
        return nil
    }

    /// An `nclx` colour description (H.273 code points, no profile) becomes the ICC profile that says the same:
    /// Display P3's colorants are those of Apple's Display P3 profile; a space built from Adobe RGB (1998)'s
    /// primaries and curve has the colorants of Adobe's own profile (the committed adobe-rgb.icc) to their last
    /// bits; sRGB needs none, and PQ's high dynamic range has no ICC matrix/TRC profile.
    func testNCLXColourDescriptionsBecomeProfiles() throws {
        let p3 = try Image(contentsOfFile: Fixtures.path("decode/heic-nclx-p3.heic"))
        let icc = try XCTUnwrap(p3.iccProfile)
        XCTAssertEqual(icc, ColourSpace(primaries: 12, transfer: 13)?.iccProfile)
        XCTAssertEqual(Array(icc[36..<40]), Array("acsp".utf8))
        XCTAssertEqual(Int(icc[0]) << 24 | Int(icc[1]) << 16 | Int(icc[2]) << 8 | Int(icc[3]), icc.count)
        let apple: [String: [Double]] = ["rXYZ": [0.515121, 0.241196, -0.001053], "gXYZ": [0.291977, 0.692245, 0.041885],
                                         "bXYZ": [0.157104, 0.066574, 0.784073]]
        for (tag, xyz) in apple {
            let ours = try XCTUnwrap(tagNumbers(icc, tag, count: 3))
            for k in 0..<3 { XCTAssertEqual(ours[k], xyz[k], accuracy: 1e-4, tag) }
        }
        XCTAssertEqual(tagNumbers(icc, "rTRC", count: 6)?.map { ($0 * 1e4).rounded() / 1e4 },
                       [3, 2.4, 0.9479, 0.0521, 0.0774, 0.0405])   // 'para' of type 3 (read as 3.0): sRGB's curve

        let adobe = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc"))))
        let space = ColourSpace(red: .init(0.64, 0.33), green: .init(0.21, 0.71), blue: .init(0.15, 0.06),
                                white: .init(0.3127, 0.3290), transfer: .gamma(563.0 / 256))
        for (c, tag) in ["rXYZ", "gXYZ", "bXYZ"].enumerated() {
            let theirs = try XCTUnwrap(tagNumbers(adobe, tag, count: 3))
            for k in 0..<3 { XCTAssertEqual(space.colorantsD50[c][k], theirs[k], accuracy: 2e-4, tag) }
        }

        XCTAssertNil(try Image(contentsOfFile: Fixtures.path("decode/heic-nclx-pq.heic")).iccProfile)
        XCTAssertTrue(ColourSpace(primaries: 2, transfer: 2)?.isSRGB == true)
        XCTAssertNil(ColourSpace(primaries: 9, transfer: 18))   // HLG
        // the profile goes out with the picture, as an embedded one does
        let png = try Image(encoded: p3.pngData(), name: "p3.png")
        XCTAssertEqual(png.iccProfile, icc)
    }
}
