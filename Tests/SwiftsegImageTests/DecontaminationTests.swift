import XCTest
@testable import SwiftsegImage

/// rembg 2.0.86's `-dc` (Tools/make_decontaminate_fixtures.py: rembg's own `decontaminate_cutout` on the committed
/// photos and their committed rembg masks).
final class DecontaminationTests: XCTestCase {
    static let cases = [("astronaut", "astronaut.png"), ("chelsea", "chelsea.png"), ("rocket", "rocket.jpg")]

    /// The alpha is the mask exactly; the colours where alpha > 0 within 1/255 of rembg's on average; and they
    /// are not the photo's own on the soft edge (what the flag is for).
    func testTheCutoutMatchesRembgs() throws {
        for (name, file) in Self.cases {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let mask = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
            let expected = try Image(contentsOfFile: Fixtures.path("matting/\(name).decontaminated.png"))
            let colours = Decontamination().colours(of: photo, under: mask)
            let cutout = Compositing.cutout(colours, alpha: mask)
            XCTAssertEqual([cutout.width, cutout.height, cutout.channels], [expected.width, expected.height, 4])
            var error = 0, count = 0, moved = 0, soft = 0
            for i in 0..<(photo.width * photo.height) {
                XCTAssertEqual(cutout.pixels[4 * i + 3], expected.pixels[4 * i + 3], "\(name): alpha at \(i)")
                guard expected.pixels[4 * i + 3] > 0 else { continue }
                for k in 0..<3 { error += abs(Int(cutout.pixels[4 * i + k]) - Int(expected.pixels[4 * i + k])) }
                count += 3
                if expected.pixels[4 * i + 3] < 255 {
                    soft += 1
                    if (0..<3).contains(where: { cutout.pixels[4 * i + $0] != photo.pixels[photo.channels * i + $0] }) { moved += 1 }
                }
            }
            let mean = Double(error) / Double(count)
            print("\(name): colour mean |Δ| \(String(format: "%.4f", mean)) of 255 over \(count / 3) pixels; \(moved) of \(soft) soft-edge pixels recoloured")
            XCTAssertLessThanOrEqual(mean, 1, name)
            XCTAssertGreaterThan(moved, soft / 2, name)
        }
    }

    /// Any thread count gives the same bytes.
    func testTheThreadCountDoesNotChangeTheColours() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/chelsea.png"))
        let mask = try Image(contentsOfFile: Fixtures.path("photos/chelsea.rembg-mask.png"))
        let one = Decontamination(threads: 1).colours(of: photo, under: mask)
        XCTAssertEqual(Decontamination(threads: 3).colours(of: photo, under: mask), one)
    }
}
