/// Plane polygons as lists of vertices (either winding): area, convexity, clipping and the Jaccard index
/// (intersection over union) — what rectangle detection ranks and de-duplicates quads with, and how the test set
/// scores them (SmartDoc 2015's measure).
///
/// ```swift
/// let j = Polygon.jaccard(found, truth)   // 1 for the same quad, 0 for disjoint ones; convex polygons only
/// ```
public enum Polygon {
    /// The signed area (shoelace): positive for clockwise vertices on screen (y down).
    @inlinable public static func signedArea(_ p: [PixelPoint]) -> Double {
        guard p.count >= 3 else { return 0 }
        var s = 0.0
        for i in 0..<p.count { s += p[i].cross(p[(i + 1) % p.count]) }
        return s / 2
    }

    @inlinable public static func area(_ p: [PixelPoint]) -> Double { abs(signedArea(p)) }

    /// Whether the vertices turn the same way at every corner (strictly, no three collinear).
    public static func isConvex(_ p: [PixelPoint]) -> Bool {
        guard p.count >= 3 else { return false }
        var sign = 0.0
        for i in 0..<p.count {
            let a = p[i], b = p[(i + 1) % p.count], c = p[(i + 2) % p.count]
            let turn = (b - a).cross(c - b)
            if turn == 0 || !turn.isFinite { return false }
            if sign == 0 { sign = turn } else if (turn > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// `subject` clipped to the convex polygon `clip` (Sutherland–Hodgman); the subject may be any simple polygon.
    public static func clip(_ subject: [PixelPoint], to clip: [PixelPoint]) -> [PixelPoint] {
        guard clip.count >= 3 else { return [] }
        let orientation: Double = signedArea(clip) >= 0 ? 1 : -1
        var output = subject
        for i in 0..<clip.count {
            let a = clip[i], b = clip[(i + 1) % clip.count]
            let edge = b - a
            func inside(_ p: PixelPoint) -> Bool { orientation * edge.cross(p - a) >= 0 }
            let input = output
            output = []
            guard !input.isEmpty else { break }
            for j in 0..<input.count {
                let cur = input[j], prev = input[(j + input.count - 1) % input.count]
                let curIn = inside(cur), prevIn = inside(prev)
                if curIn != prevIn {
                    let d = cur - prev
                    let denom = edge.cross(d)
                    if denom != 0 {
                        let t = edge.cross(a - prev) / denom
                        output.append(prev + d * t)
                    }
                }
                if curIn { output.append(cur) }
            }
        }
        return output
    }

    /// Intersection over union of two convex polygons (0 when either is empty).
    public static func jaccard(_ a: [PixelPoint], _ b: [PixelPoint]) -> Double {
        let inter = area(clip(a, to: b))
        let union = area(a) + area(b) - inter
        return union > 0 ? inter / union : 0
    }
}
