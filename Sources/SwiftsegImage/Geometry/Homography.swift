import Foundation

/// A point in image pixels with a **top-left** origin, on the continuous grid where the image spans
/// [0, width] × [0, height] (pixel (i, j) covers [i, i + 1) × [j, j + 1), its centre is (i + 0.5, j + 0.5)).
public struct PixelPoint: Sendable, Equatable, Codable, CustomStringConvertible {
    public var x: Double, y: Double
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    @inlinable public static func + (a: PixelPoint, b: PixelPoint) -> PixelPoint { PixelPoint(x: a.x + b.x, y: a.y + b.y) }
    @inlinable public static func - (a: PixelPoint, b: PixelPoint) -> PixelPoint { PixelPoint(x: a.x - b.x, y: a.y - b.y) }
    @inlinable public static func * (a: PixelPoint, s: Double) -> PixelPoint { PixelPoint(x: a.x * s, y: a.y * s) }
    @inlinable public func dot(_ o: PixelPoint) -> Double { x * o.x + y * o.y }
    /// The z component of the cross product (positive when `o` turns clockwise from `self` on screen).
    @inlinable public func cross(_ o: PixelPoint) -> Double { x * o.y - y * o.x }
    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
    @inlinable public func distance(to o: PixelPoint) -> Double { (self - o).length }

    public var description: String { String(format: "(%.2f, %.2f)", x, y) }
}

/// A plane projective transform (3 × 3, row-major, h[8] normalised to 1 when possible): maps points of one
/// image plane to another, as a photo of a flat document relates to the document itself.
///
/// ```swift
/// let square = [PixelPoint(x: 0, y: 0), PixelPoint(x: 1, y: 0), PixelPoint(x: 1, y: 1), PixelPoint(x: 0, y: 1)]
/// let h = Homography(from: square, to: quad)!     // nil when the points are degenerate (three collinear)
/// let corner = h.apply(PixelPoint(x: 1, y: 1))   // quad[2], within 1e-9 relative
/// ```
public struct Homography: Sendable, Equatable {
    public var m: [Double]

    public init(_ m: [Double]) {
        precondition(m.count == 9, "a homography has nine entries")
        self.m = m
    }

    public static let identity = Homography([1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// The homography taking the four points `src` to `dst` (in order), or nil when they are degenerate. Solves
    /// the 8 × 8 direct linear system with partial pivoting in Double.
    public init?(from src: [PixelPoint], to dst: [PixelPoint]) {
        precondition(src.count == 4 && dst.count == 4, "four point pairs")
        var a = [Double](repeating: 0, count: 8 * 9)  // augmented matrix, 8 rows of 8 + 1
        for i in 0..<4 {
            let (x, y, u, v) = (src[i].x, src[i].y, dst[i].x, dst[i].y)
            let r0 = 2 * i * 9, r1 = (2 * i + 1) * 9
            a[r0 + 0] = x; a[r0 + 1] = y; a[r0 + 2] = 1
            a[r0 + 6] = -u * x; a[r0 + 7] = -u * y; a[r0 + 8] = u
            a[r1 + 3] = x; a[r1 + 4] = y; a[r1 + 5] = 1
            a[r1 + 6] = -v * x; a[r1 + 7] = -v * y; a[r1 + 8] = v
        }
        guard let h = Homography.solve8(&a) else { return nil }
        self.init(h + [1])
    }

    /// Gaussian elimination with partial pivoting on an 8 × 9 augmented matrix.
    static func solve8(_ a: inout [Double]) -> [Double]? {
        let n = 8
        var scale = 0.0
        for v in a { scale = max(scale, abs(v)) }
        guard scale > 0 else { return nil }
        for col in 0..<n {
            var pivot = col
            for r in col..<n where abs(a[r * 9 + col]) > abs(a[pivot * 9 + col]) { pivot = r }
            guard abs(a[pivot * 9 + col]) > 1e-12 * scale else { return nil }
            if pivot != col { for k in 0...n { a.swapAt(col * 9 + k, pivot * 9 + k) } }
            for r in 0..<n where r != col {
                let f = a[r * 9 + col] / a[col * 9 + col]
                if f == 0 { continue }
                for k in col...n { a[r * 9 + k] -= f * a[col * 9 + k] }
            }
        }
        return (0..<n).map { a[$0 * 9 + n] / a[$0 * 9 + $0] }
    }

    /// The image of `p`; points on the line at infinity come back with infinite coordinates.
    public func apply(_ p: PixelPoint) -> PixelPoint {
        let w = m[6] * p.x + m[7] * p.y + m[8]
        return PixelPoint(x: (m[0] * p.x + m[1] * p.y + m[2]) / w, y: (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }

    /// The inverse transform (adjugate over determinant), or nil when singular.
    public var inverse: Homography? {
        let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let adj = [e * i - f * h, c * h - b * i, b * f - c * e,
                   f * g - d * i, a * i - c * g, c * d - a * f,
                   d * h - e * g, b * g - a * h, a * e - b * d]
        let det = a * adj[0] + b * adj[3] + c * adj[6]
        var scale = 0.0
        for v in m { scale = max(scale, abs(v)) }
        guard abs(det) > 1e-15 * scale * scale * scale else { return nil }
        let norm = abs(adj[8]) > 1e-12 * abs(det) ? adj[8] : det
        return Homography(adj.map { $0 / norm })
    }

    /// `self` after `first`: p ↦ self(first(p)).
    public func composed(after first: Homography) -> Homography {
        var r = [Double](repeating: 0, count: 9)
        for row in 0..<3 { for col in 0..<3 {
            r[row * 3 + col] = (0..<3).reduce(0) { $0 + m[row * 3 + $1] * first.m[$1 * 3 + col] }
        } }
        return Homography(r)
    }
}
