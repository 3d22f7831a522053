import Foundation
import SwiftsegImage
import XCTest

/// The line-segment detector: the sides of a drawn quad found to sub-pixel precision, and next to nothing in
/// noise (the a-contrario validation allows about one false detection per image).
final class LineSegmentDetectorTests: XCTestCase {
    /// A bright convex quad on a dark background, antialiased by 8 × 8 supersampling, with seeded noise.
    func quadImage(_ corners: [PixelPoint], width: Int, height: Int, noise: Double) -> GrayPlane {
        var values = [Float](repeating: 0, count: width * height)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {  // SplitMix64 → [0, 1)
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        for y in 0..<height { for x in 0..<width {
            var inside = 0
            for s in 0..<64 {
                let p = PixelPoint(x: Double(x) + (Double(s % 8) + 0.5) / 8, y: Double(y) + (Double(s / 8) + 0.5) / 8)
                if (0..<4).allSatisfy({ (corners[($0 + 1) % 4] - corners[$0]).cross(p - corners[$0]) >= 0 }) { inside += 1 }
            }
            let n = (random() + random() + random() - 1.5) * 2 * noise
            values[y * width + x] = Float(40 + 160 * Double(inside) / 64 + n)
        } }
        return GrayPlane(width: width, height: height, values: values)
    }

    func testFindsEachSideOfAQuad() {
        let corners = [PixelPoint(x: 52.3, y: 40.1), PixelPoint(x: 250.7, y: 61.4), PixelPoint(x: 231.2, y: 201.9),
                       PixelPoint(x: 38.6, y: 180.2)]
        let plane = quadImage(corners, width: 300, height: 240, noise: 4)
        let segments = LineSegmentDetector().detect(plane)
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let d = (b - a) * (1 / a.distance(to: b)), n = PixelPoint(x: -d.y, y: d.x)
            // The longest segment along this side: both ends within 0.5 px of the true line, at least 70 % of it.
            let along = segments.filter { abs(($0.start - a).dot(n)) < 1.5 && abs(($0.end - a).dot(n)) < 1.5
                && abs($0.direction.cross(d)) < 0.05 }
            guard let best = along.max(by: { $0.length < $1.length }) else { return XCTFail("side \(i) not found") }
            XCTAssertLessThan(abs((best.start - a).dot(n)), 0.5, "side \(i)")
            XCTAssertLessThan(abs((best.end - a).dot(n)), 0.5, "side \(i)")
            XCTAssertGreaterThan(best.length, 0.7 * a.distance(to: b), "side \(i)")
            XCTAssertGreaterThan(best.significance, 0)
            // The quad is brighter, and the brighter side is on the segment's left (screen): the inside, which
            // is to the right of a clockwise side, means the segment runs against the side's direction.
            XCTAssertLessThan(best.direction.dot(d), 0, "side \(i): polarity")
        }
    }

    func testNoiseGivesAlmostNothing() {
        let plane = quadImage([PixelPoint(x: -10, y: -10), PixelPoint(x: -9, y: -10), PixelPoint(x: -9, y: -9),
                               PixelPoint(x: -10, y: -9)], width: 256, height: 256, noise: 25)
        XCTAssertLessThanOrEqual(LineSegmentDetector().detect(plane).count, 2)
    }

    /// Two colours of about equal brightness: nothing in the luminance, an edge in the channels.
    func testColourPlanesFindAnEdgeBetweenEqualBrightnesses() {
        let width = 120, height = 80
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height { for x in 0..<width {
            let rgb: [UInt8] = x < 60 ? [200, 90, 60] : [60, 140, 120]   // luminance ≈ 118 and 118
            for c in 0..<3 { px[(y * width + x) * 3 + c] = rgb[c] }
        } }
        let image = Image(width: width, height: height, channels: 3, pixels: px)
        XCTAssertTrue(LineSegmentDetector().detect(GrayPlane(luminanceOf: image)).isEmpty)
        let found = LineSegmentDetector().detect(planes: GrayPlane.channels(of: image))
        XCTAssertTrue(found.contains { abs($0.start.x - 60) < 0.6 && abs($0.end.x - 60) < 0.6 && $0.length > 60 }, "\(found)")
    }

    /// An image's rows go into the subsampling one at a time; the result is the same as from its planes.
    func testImageRowsGiveTheSameSegmentsAsItsPlanes() {
        let corners = [PixelPoint(x: 30.5, y: 22.2), PixelPoint(x: 170.1, y: 35.7), PixelPoint(x: 160.4, y: 120.8),
                       PixelPoint(x: 25.9, y: 110.3)]
        let plane = quadImage(corners, width: 200, height: 150, noise: 3)
        let px = plane.values.flatMap { v -> [UInt8] in
            let g = UInt8(max(0, min(255, v.rounded())))
            return [g, 255 - g, g / 2]
        }
        let image = Image(width: 200, height: 150, channels: 3, pixels: px)
        for scale in [0.8, 1] {
            var lsd = LineSegmentDetector()
            lsd.scale = scale
            let fromImage = lsd.detect(image: image)
            XCTAssertFalse(fromImage.isEmpty)
            XCTAssertEqual(fromImage, lsd.detect(planes: GrayPlane.channels(of: image)), "scale \(scale)")
        }
    }

    /// The level-line field: along each side of the quad an edge in the side's direction, none across it, none
    /// inside the flat quad or outside the grid.
    func testLevelLineFieldShowsTheSidesEdges() {
        let corners = [PixelPoint(x: 52.3, y: 40.1), PixelPoint(x: 250.7, y: 61.4), PixelPoint(x: 231.2, y: 201.9),
                       PixelPoint(x: 38.6, y: 180.2)]
        let plane = quadImage(corners, width: 300, height: 240, noise: 1)
        let px = plane.values.map { UInt8(max(0, min(255, $0.rounded()))) }
        let (_, field) = LineSegmentDetector().detectWithField(image: Image(width: 300, height: 240, channels: 1, pixels: px))
        let tolerance = Float(sin(22.5 * Double.pi / 180))
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let d = (b - a) * (1 / a.distance(to: b)), n = PixelPoint(x: -d.y, y: d.x)
            var along = 0, across = 0
            for k in 1...19 {
                let p = a + (b - a) * (Double(k) / 20)
                let near = [-1.0, 0, 1].contains { field.isEdge(along: d, at: p + n * $0, maximumSine: tolerance) }
                if near { along += 1 }
                if field.isEdge(along: n, at: p, maximumSine: tolerance) { across += 1 }
            }
            XCTAssertGreaterThanOrEqual(along, 18, "side \(i)")
            XCTAssertEqual(across, 0, "side \(i)")
        }
        let centre = corners.reduce(PixelPoint(x: 0, y: 0), +) * 0.25
        XCTAssertFalse(field.isEdge(along: PixelPoint(x: 1, y: 0), at: centre, maximumSine: 1))
        XCTAssertFalse(field.isEdge(along: PixelPoint(x: 1, y: 0), at: PixelPoint(x: -5, y: 10), maximumSine: 1))
        XCTAssertFalse(field.isEdge(along: PixelPoint(x: 1, y: 0), at: PixelPoint(x: 10, y: 400), maximumSine: 1))
    }
}
