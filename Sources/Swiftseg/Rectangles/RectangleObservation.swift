import Foundation
import SwiftsegImage

/// One rectangle found in a photo, as Vision's `VNRectangleObservation`: four corners in normalized coordinates
/// with a **bottom-left** origin, their bounding box, and a confidence (0…1: how much of the four sides the
/// photo's edges support, weighted toward larger quads; `DetectRectanglesRequest` says how). `topLeft` is the corner at the top left as the photo is displayed, for a rectangle
/// within ±45° of upright; the corners go clockwise on screen.
///
/// ```swift
/// let box = observation.pixelCorners(width: photo.width, height: photo.height)   // top-left origin, pixels
/// print(box.topLeft, observation.confidence)
/// ```
public struct RectangleObservation: Sendable, Equatable {
    public let topLeft: VisionPoint
    public let topRight: VisionPoint
    public let bottomRight: VisionPoint
    public let bottomLeft: VisionPoint
    public let confidence: Double

    public init(topLeft: VisionPoint, topRight: VisionPoint, bottomRight: VisionPoint, bottomLeft: VisionPoint,
                confidence: Double) {
        self.topLeft = topLeft; self.topRight = topRight; self.bottomRight = bottomRight; self.bottomLeft = bottomLeft
        self.confidence = confidence
    }

    /// From pixel corners (top-left origin, any order of a convex quad: they are put in display order here).
    public init(pixelCorners: [PixelPoint], width: Int, height: Int, confidence: Double) {
        let q = RectangleObservation.displayOrder(pixelCorners).map {
            VisionGeometry.normalizedPoint(for: $0, width: width, height: height)
        }
        self.init(topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3], confidence: confidence)
    }

    /// The corners in display order.
    public var corners: [VisionPoint] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The smallest normalized rectangle (bottom-left origin) holding the four corners.
    public var boundingBox: NormalizedRect {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return NormalizedRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    /// The corners in a `width × height` image's pixel grid, top-left origin (what apps compute with
    /// `VNImagePointForNormalizedPoint` and a flip).
    public func pixelCorners(width: Int, height: Int) -> PixelQuad {
        let p = corners.map { VisionGeometry.imagePoint(for: $0, width: width, height: height) }
        return PixelQuad(topLeft: p[0], topRight: p[1], bottomRight: p[2], bottomLeft: p[3])
    }

    /// The rectangle's content, upright, as `CIPerspectiveCorrection` gives it: max(top, bottom) ×
    /// max(left, right) pixels, antialiased when shrinking. Nil for a degenerate quad.
    public func perspectiveCorrected(from image: Image) -> Image? {
        let quad = pixelCorners(width: image.width, height: image.height).points
        let size = PerspectiveWarp.correctedSize(of: quad)
        return PerspectiveWarp.extract(image, quad: quad, width: size.width, height: size.height)
    }

    /// A convex quad's corners from the top-left one, clockwise on screen: the top-left corner begins the side
    /// whose direction is closest to pointing right, so a page rotated up to 45° either way keeps its corners.
    static func displayOrder(_ points: [PixelPoint]) -> [PixelPoint] {
        precondition(points.count == 4, "a quad has four corners")
        let c = points.reduce(PixelPoint(x: 0, y: 0), +) * 0.25
        // Clockwise on screen (y down) is increasing atan2(y, x).
        let sorted = points.sorted { atan2($0.y - c.y, $0.x - c.x) < atan2($1.y - c.y, $1.x - c.x) }
        var best = 0, bestCos = -2.0
        for i in 0..<4 {
            let d = sorted[(i + 1) % 4] - sorted[i]
            let cosine = d.x / max(d.length, 1e-12)
            if cosine > bestCos { bestCos = cosine; best = i }
        }
        return (0..<4).map { sorted[(best + $0) % 4] }
    }
}

/// A quad's corners in pixels, top-left origin, in display order.
public struct PixelQuad: Sendable, Equatable, Codable {
    public var topLeft: PixelPoint, topRight: PixelPoint, bottomRight: PixelPoint, bottomLeft: PixelPoint

    public init(topLeft: PixelPoint, topRight: PixelPoint, bottomRight: PixelPoint, bottomLeft: PixelPoint) {
        self.topLeft = topLeft; self.topRight = topRight; self.bottomRight = bottomRight; self.bottomLeft = bottomLeft
    }

    public var points: [PixelPoint] { [topLeft, topRight, bottomRight, bottomLeft] }
}
