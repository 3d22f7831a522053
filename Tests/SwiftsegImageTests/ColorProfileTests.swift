@testable import SwiftsegImage
import XCTest

/// Colour profiles read from every format that holds one and written into every output format that can
/// (Tests/Fixtures/decode/profile-adobe-rgb.*, made by Tools/make_format_fixtures.py: upright.png carrying
/// Adobe RGB (1998), colord-data's profile, CC0).
final class ColorProfileTests: XCTestCase, ReadsDecodeFixtures {
    let adobeRGB = [UInt8](try! Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/adobe-rgb.icc"))))

    func testEveryFormatsProfileIsRead() throws {
        for ext in ["jpg", "png", "webp", "heic"] {
            XCTAssertTrue(try load("profile-adobe-rgb.\(ext)").iccProfile == adobeRGB, ext)
        }
        XCTAssertTrue(try load("webp-lossless.webp").iccProfile == nil, "no profile: nil")
        let turned = try ReducedImage(encoded: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/profile-adobe-rgb.jpg")))),
                                      name: "x", minimumLongerSide: 10)
        XCTAssertTrue(turned.image.iccProfile == adobeRGB, "a reduced decode keeps it")
    }

    /// JPEG with Adobe RGB in → PNG, JPEG and WebP (lossless and lossy) out with the same profile bytes; a gray
    /// image does not get an RGB profile; a profile over 64 KiB spans several JPEG segments and comes back whole.
    func testProfilesRoundTripThroughEveryOutput() throws {
        let photo = try load("profile-adobe-rgb.jpg")
        for (format, options) in [(ImageFormat.png, EncodingOptions()), (.jpeg, EncodingOptions()), (.webp, EncodingOptions()),
                                  (.webp, EncodingOptions(webpQuality: 80))] {
            let bytes = try photo.encoded(as: format, options: options)
            let back = try Image(encoded: bytes, name: "mem")
            XCTAssertTrue(back.iccProfile == adobeRGB, "\(format) \(options)")
            if format == .png || (format == .webp && options.webpQuality == nil) { XCTAssertEqual(back, photo, "\(format): lossless") }
        }
        let rgba = try load("rgba.png").withProfile(adobeRGB)
        XCTAssertEqual(try Image(encoded: try rgba.webpData(), name: "mem"), rgba, "lossless WebP with alpha and a profile")
        XCTAssertTrue(try Image(encoded: try rgba.webpData(), name: "mem").iccProfile == adobeRGB)
        let gray = try load("gray8.png").withProfile(adobeRGB)
        XCTAssertTrue(gray.fittingProfile == nil)
        for format in ImageFormat.writable {
            XCTAssertTrue(try Image(encoded: try gray.encoded(as: format), name: "mem").iccProfile == nil, "\(format): no RGB profile on gray")
        }
        var big = adobeRGB
        big += [UInt8](repeating: 7, count: 150_000)  // three APP2 segments
        let large = try Image(encoded: try photo.withProfile(big).jpegData(), name: "mem")
        XCTAssertTrue(large.iccProfile == big, "\(large.iccProfile?.count ?? 0) bytes back of \(big.count)")
        XCTAssertEqual(large.width, photo.width)
    }

    /// A corrupt or partial profile is no profile (the image still decodes).
    func testBrokenProfilesAreDropped() throws {
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/profile-adobe-rgb.png"))))
        let iccp = (8..<(png.count - 4)).first { Array(png[$0..<($0 + 4)]) == Array("iCCP".utf8) }!
        png[iccp + 30] ^= 0xFF  // inside the deflated profile
        XCTAssertTrue(PNGCodec.iccProfile(png) == nil)
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/profile-adobe-rgb.jpg"))))
        let app2 = (2..<(jpeg.count - 14)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xE2 }!
        jpeg[app2 + 4 + 13] = 2  // "one of two pieces", the second missing
        XCTAssertTrue(JPEGCodec.iccProfile(jpeg) == nil)
        XCTAssertEqual(try Image(encoded: jpeg, name: "x").width, 60)
    }
}
