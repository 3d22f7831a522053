/// A rectangle in image pixels, origin at the **top-left** (image and UI convention).
public struct PixelRect: Sendable, Equatable, Codable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The smallest rectangle containing both.
    public func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}

/// A rectangle in normalized coordinates ([0, 1]²), origin at the **bottom-left**, as Vision reports them.
public struct NormalizedRect: Sendable, Equatable, Codable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A point in normalized coordinates ([0, 1]²) with a **top-left** origin: how a UI reports a tap
/// (x = 0.5, y = 0.1 is near the top centre).
public struct NormalizedPoint: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// Whether both coordinates are in [0, 1].
    public var isInUnitSquare: Bool { (0...1).contains(x) && (0...1).contains(y) }
}

/// Conversions between Vision's normalized, bottom-left rectangles and top-left pixel rectangles.
///
/// ```swift
/// let px = VisionGeometry.imageRect(for: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.25),
///                                   width: 640, height: 480)   // PixelRect(x: 0, y: 360, width: 320, height: 120)
/// let back = VisionGeometry.normalizedRect(for: px, width: 640, height: 480)   // the original rect
/// ```
public enum VisionGeometry {
    /// `VNImageRectForNormalizedRect`, flipped to a top-left origin, rounded outward to whole pixels.
    public static func imageRect(for rect: NormalizedRect, width: Int, height: Int) -> PixelRect {
        let x0 = rect.x * Double(width), x1 = (rect.x + rect.width) * Double(width)
        let top = (1 - rect.y - rect.height) * Double(height), bottom = (1 - rect.y) * Double(height)
        let ix0 = Int((x0 + 1e-9).rounded(.down)), iy0 = Int((top + 1e-9).rounded(.down))
        let ix1 = Int((x1 - 1e-9).rounded(.up)), iy1 = Int((bottom - 1e-9).rounded(.up))
        return PixelRect(x: ix0, y: iy0, width: ix1 - ix0, height: iy1 - iy0)
    }

    /// `VNNormalizedRectForImageRect` from a top-left pixel rectangle.
    public static func normalizedRect(for rect: PixelRect, width: Int, height: Int) -> NormalizedRect {
        NormalizedRect(x: Double(rect.x) / Double(width),
                       y: Double(height - rect.maxY) / Double(height),
                       width: Double(rect.width) / Double(width),
                       height: Double(rect.height) / Double(height))
    }

    /// The pixel (column, row) a top-left normalized point falls in, on a `width × height` grid; 1.0 maps to
    /// the last pixel.
    public static func pixel(for point: NormalizedPoint, width: Int, height: Int) -> (x: Int, y: Int) {
        (min(Int(point.x * Double(width)), width - 1), min(Int(point.y * Double(height)), height - 1))
    }
}

/// A point in normalized coordinates ([0, 1]²) with a **bottom-left** origin, as Vision reports a rectangle's
/// corners (`VNRectangleObservation.topLeft` …).
public struct VisionPoint: Sendable, Equatable, Codable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

extension VisionGeometry {
    /// `VNImagePointForNormalizedPoint`, flipped to a top-left origin: the pixel-grid point (not rounded).
    public static func imagePoint(for point: VisionPoint, width: Int, height: Int) -> PixelPoint {
        PixelPoint(x: point.x * Double(width), y: (1 - point.y) * Double(height))
    }

    /// `VNNormalizedPointForImagePoint` from a top-left pixel-grid point.
    public static func normalizedPoint(for point: PixelPoint, width: Int, height: Int) -> VisionPoint {
        VisionPoint(x: point.x / Double(width), y: 1 - point.y / Double(height))
    }
}
