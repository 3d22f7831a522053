import Foundation
@testable import Swiftseg
import XCTest

/// `EdgeSupport`'s profiles across a side: the unclamped bilinear sampler used when a profile lies wholly inside
/// the copy against the clamping one it stands in for.
final class EdgeSupportTests: XCTestCase {
    func testProfilesInsideTheCopyEqualTheClampedSamplesAndBorderProfilesStillClamp() {
        var rng = SystemRandomNumberGenerator()
        let width = 37, height = 23
        let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let support = EdgeSupport(image: Image(width: width, height: height, channels: 3, pixels: pixels), searchRadius: 5)
        XCTAssertEqual(support.factor, 1)
        // Points strictly inside: the two samplers agree bit for bit.
        for _ in 0..<2000 {
            let x = Double.random(in: 0.5..<(Double(width) - 0.5)), y = Double.random(in: 0.5..<(Double(height) - 0.5))
            XCTAssertEqual(support.sampleInside(x, y), support.sample(x, y), "at (\(x), \(y))")
        }
        // Whole profiles, some wholly inside and some crossing the border (which must take the clamped path).
        var t = EdgeSupport.Profiles(base: support.scratch)
        var crossing = 0
        for _ in 0..<500 {
            let p = PixelPoint(x: Double.random(in: -2...Double(width + 2)), y: Double.random(in: -2...Double(height + 2)))
            let angle = Double.random(in: 0..<(2 * Double.pi))
            let d = PixelPoint(x: cos(angle), y: sin(angle)), n = PixelPoint(x: -d.y, y: d.x)
            let reach = Double.random(in: 1.5...8)
            support.profiles(p, d, n, reach: reach, into: &t)
            for k in 0..<3 {
                let base = p + d * Double(k - 1) - n * reach
                for j in 0..<t.count {
                    let o = Double(j) * EdgeSupport.step, q = PixelPoint(x: base.x + n.x * o, y: base.y + n.y * o)
                    if q.x < 0.5 || q.y < 0.5 || q.x >= Double(width) - 0.5 || q.y >= Double(height) - 0.5 { crossing += 1 }
                    XCTAssertEqual(t[k, j], support.sample(q.x, q.y))
                }
            }
        }
        XCTAssertGreaterThan(crossing, 0, "some profiles must reach past the border")
    }
}
