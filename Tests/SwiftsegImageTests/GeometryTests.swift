import Foundation
import SwiftsegImage
import XCTest

/// Homographies, polygons, and the Vision coordinate conversions.
final class GeometryTests: XCTestCase {
    let square = [PixelPoint(x: 0, y: 0), PixelPoint(x: 1, y: 0), PixelPoint(x: 1, y: 1), PixelPoint(x: 0, y: 1)]
    let quad = [PixelPoint(x: 10, y: 20), PixelPoint(x: 300, y: 40), PixelPoint(x: 280, y: 250), PixelPoint(x: 30, y: 200)]

    func testHomographyMapsTheFourPointsAndInverts() throws {
        let h = try XCTUnwrap(Homography(from: square, to: quad))
        for (s, q) in zip(square, quad) {
            XCTAssertEqual(h.apply(s).distance(to: q), 0, accuracy: 1e-9)
        }
        let inverse = try XCTUnwrap(h.inverse)
        let p = PixelPoint(x: 0.3, y: 0.8)
        XCTAssertEqual(inverse.apply(h.apply(p)).distance(to: p), 0, accuracy: 1e-12)
        XCTAssertEqual(h.composed(after: try XCTUnwrap(Homography(from: quad, to: square))).apply(quad[2]).distance(to: quad[2]),
                       0, accuracy: 1e-9)
        // Three collinear points: no homography.
        XCTAssertNil(Homography(from: [square[0], square[1], PixelPoint(x: 2, y: 0), square[3]], to: quad))
    }

    func testPolygonAreaConvexityAndJaccard() {
        XCTAssertEqual(Polygon.area(square), 1, accuracy: 1e-12)
        XCTAssertGreaterThan(Polygon.signedArea(square), 0)   // clockwise on screen
        XCTAssertTrue(Polygon.isConvex(quad))
        XCTAssertFalse(Polygon.isConvex([quad[0], quad[2], quad[1], quad[3]]))  // a bow tie
        XCTAssertEqual(Polygon.jaccard(quad, quad), 1, accuracy: 1e-12)
        XCTAssertEqual(Polygon.jaccard(quad, Array(quad.reversed())), 1, accuracy: 1e-12)  // either winding
        let shifted = square.map { $0 + PixelPoint(x: 0.5, y: 0) }  // overlap 0.5, union 1.5
        XCTAssertEqual(Polygon.jaccard(square, shifted), 1.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(Polygon.jaccard(square, square.map { $0 + PixelPoint(x: 5, y: 5) }), 0)
        // A square rotated 45° inside another: the diamond through the edge midpoints, area 1/2.
        let diamond = [PixelPoint(x: 0.5, y: 0), PixelPoint(x: 1, y: 0.5), PixelPoint(x: 0.5, y: 1), PixelPoint(x: 0, y: 0.5)]
        XCTAssertEqual(Polygon.area(Polygon.clip(square, to: diamond)), 0.5, accuracy: 1e-12)
    }

    func testVisionPointConversionsRoundTrip() {
        let p = PixelPoint(x: 128.25, y: 96.5)
        let v = VisionGeometry.normalizedPoint(for: p, width: 640, height: 480)
        XCTAssertEqual(v.x, 128.25 / 640, accuracy: 1e-15)
        XCTAssertEqual(v.y, 1 - 96.5 / 480, accuracy: 1e-15)   // bottom-left origin
        XCTAssertEqual(VisionGeometry.imagePoint(for: v, width: 640, height: 480).distance(to: p), 0, accuracy: 1e-12)
        // The corners of the image.
        XCTAssertEqual(VisionGeometry.normalizedPoint(for: PixelPoint(x: 0, y: 0), width: 640, height: 480), VisionPoint(x: 0, y: 1))
        XCTAssertEqual(VisionGeometry.imagePoint(for: VisionPoint(x: 1, y: 0), width: 640, height: 480), PixelPoint(x: 640, y: 480))
    }
}

/// The perspective correction: an identity quad is a crop, a document warped into a photo comes back.
final class PerspectiveWarpTests: XCTestCase {
    /// A document-like test image: smooth gradients and dark blocks (text), 3 channels.
    func document(width: Int, height: Int) -> Image {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height { for x in 0..<width {
            let block = (x / 12 + y / 9) % 3 == 0 && x > 10 && x < width - 10 && y > 10 && y < height - 10
            let v = block ? 40 : 200 + (x * 40) / width
            px[(y * width + x) * 3] = UInt8(v); px[(y * width + x) * 3 + 1] = UInt8(v - (block ? 0 : y * 30 / height))
            px[(y * width + x) * 3 + 2] = UInt8(block ? 90 : 180)
        } }
        return Image(width: width, height: height, channels: 3, pixels: px)
    }

    func psnr(_ a: Image, _ b: Image) -> Double {
        var se = 0.0
        for (x, y) in zip(a.pixels, b.pixels) { let d = Double(x) - Double(y); se += d * d }
        let mse = se / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    func testAnAxisAlignedQuadIsACrop() throws {
        let image = document(width: 60, height: 40)
        let quad = [PixelPoint(x: 5, y: 7), PixelPoint(x: 45, y: 7), PixelPoint(x: 45, y: 32), PixelPoint(x: 5, y: 32)]
        let size = PerspectiveWarp.correctedSize(of: quad)
        XCTAssertEqual(size.width, 40); XCTAssertEqual(size.height, 25)
        let out = try XCTUnwrap(PerspectiveWarp.extract(image, quad: quad, width: size.width, height: size.height))
        XCTAssertEqual(out, Compositing.crop(image, to: PixelRect(x: 5, y: 7, width: 40, height: 25)))
    }

    /// A document put into a photo through a perspective (by the inverse mapping, supersampled) and extracted
    /// again: the same size and aspect, and close in PSNR.
    func testADocumentInPerspectiveComesBackUpright() throws {
        let page = document(width: 210, height: 297)
        let corners = [PixelPoint(x: 124.4, y: 5.5), PixelPoint(x: 367.8, y: 70.7), PixelPoint(x: 269.6, y: 410.5), PixelPoint(x: 32.2, y: 349.3)]
        // The photo: each pixel of a 400×420 gray background that falls in the quad takes the page's colour there.
        let toPage = try XCTUnwrap(Homography(from: corners, to: [PixelPoint(x: 0, y: 0), PixelPoint(x: 210, y: 0),
                                                                 PixelPoint(x: 210, y: 297), PixelPoint(x: 0, y: 297)]))
        let photoWidth = 400, photoHeight = 420
        var px = [UInt8](repeating: 90, count: photoWidth * photoHeight * 3)
        for y in 0..<photoHeight { for x in 0..<photoWidth {
            var acc = [0.0, 0.0, 0.0]
            for s in 0..<16 {
                let p = toPage.apply(PixelPoint(x: Double(x) + (Double(s % 4) + 0.5) / 4, y: Double(y) + (Double(s / 4) + 0.5) / 4))
                let inside = p.x >= 0 && p.y >= 0 && p.x < 210 && p.y < 297
                for c in 0..<3 { acc[c] += inside ? Double(page.pixels[(Int(p.y) * 210 + Int(p.x)) * 3 + c]) : 90 }
            }
            for c in 0..<3 { px[(y * photoWidth + x) * 3 + c] = UInt8((acc[c] / 16).rounded()) }
        } }
        let photo = Image(width: photoWidth, height: photoHeight, channels: 3, pixels: px)
        let size = PerspectiveWarp.correctedSize(of: corners)
        let out = try XCTUnwrap(PerspectiveWarp.extract(photo, quad: corners, width: size.width, height: size.height))
        // max(top, bottom) × max(left, right): the aspect of the page within a few percent at this mild perspective
        // (rotated 15°, one corner pulled in).
        XCTAssertEqual(Double(out.width) / Double(out.height), 210.0 / 297, accuracy: 0.02)
        let back = LanczosResampler.resize(out, width: 210, height: 297)
        XCTAssertGreaterThan(psnr(back, page), 20)
        // The wrong corner order (a mirror image) is far worse: the test can tell.
        let mirrored = try XCTUnwrap(PerspectiveWarp.extract(photo, quad: [corners[1], corners[0], corners[3], corners[2]],
                                                             width: size.width, height: size.height))
        XCTAssertLessThan(psnr(LanczosResampler.resize(mirrored, width: 210, height: 297), page), 15)
    }
}
