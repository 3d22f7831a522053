/// Antialiased outlines and dots drawn onto images: how a detected quad is shown on its photo.
///
/// ```swift
/// var shown = photo.rgb()
/// Drawing.strokePolygon(quad, on: &shown, lineWidth: 3, color: (255, 200, 0))
/// ```
public enum Drawing {
    /// Strokes the closed polygon through `points` (pixel-edge coordinates) with round joins. Each pixel takes the
    /// largest coverage of any edge, so joins are not drawn twice. Gray images get the colour's luminance; alpha
    /// is left as it is.
    public static func strokePolygon(_ points: [PixelPoint], on image: inout Image, lineWidth: Double,
                                     color: (UInt8, UInt8, UInt8)) {
        guard points.count >= 2 else { return }
        let segments = (0..<points.count).map { (points[$0], points[($0 + 1) % points.count]) }
        paint(segments: segments, radius: lineWidth / 2, on: &image, color: color)
    }

    /// Fills a disc (drawn as a zero-length stroke of the given radius).
    public static func fillDisc(center: PixelPoint, radius: Double, on image: inout Image, color: (UInt8, UInt8, UInt8)) {
        paint(segments: [(center, center)], radius: radius, on: &image, color: color)
    }

    /// Row by row: each capsule's coverage (1 inside, falling linearly to 0 over one pixel at its border), the
    /// maximum over capsules, blended once.
    static func paint(segments: [(PixelPoint, PixelPoint)], radius: Double, on image: inout Image,
                      color: (UInt8, UInt8, UInt8)) {
        let reach = radius + 1
        let ys = segments.flatMap { [$0.0.y, $0.1.y] }, xs = segments.flatMap { [$0.0.x, $0.1.x] }
        let y0 = max(Int((ys.min()! - reach).rounded(.down)), 0), y1 = min(Int((ys.max()! + reach).rounded(.up)), image.height)
        let xLo = max(Int((xs.min()! - reach).rounded(.down)), 0), xHi = min(Int((xs.max()! + reach).rounded(.up)), image.width)
        guard y0 < y1, xLo < xHi else { return }
        let channels = image.channels, width = image.width
        let rgb = [Float(color.0), Float(color.1), Float(color.2)]
        let gray = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
        var coverage = [Float](repeating: 0, count: xHi - xLo)
        for y in y0..<y1 {
            let py = Double(y) + 0.5
            for i in coverage.indices { coverage[i] = 0 }
            var touched = false
            for (a, b) in segments {
                // The capsule meets this row only where the segment comes within `reach` of it.
                guard min(a.y, b.y) - reach <= py && py <= max(a.y, b.y) + reach else { continue }
                let d = b - a, len2 = d.dot(d)
                var sx0 = min(a.x, b.x) - reach, sx1 = max(a.x, b.x) + reach
                if abs(d.y) > 1e-9 {
                    // x where the centre line crosses the band [py − reach, py + reach], widened by the slope.
                    let ta = (py - reach - a.y) / d.y, tb = (py + reach - a.y) / d.y
                    let lo = max(min(ta, tb), 0), hi = min(max(ta, tb), 1)
                    if lo > hi { continue }
                    let xa = a.x + lo * d.x, xb = a.x + hi * d.x
                    sx0 = max(sx0, min(xa, xb) - reach); sx1 = min(sx1, max(xa, xb) + reach)
                }
                let ix0 = max(Int(sx0.rounded(.down)), xLo), ix1 = min(Int(sx1.rounded(.up)), xHi)
                if ix0 >= ix1 { continue }
                for x in ix0..<ix1 {
                    let p = PixelPoint(x: Double(x) + 0.5, y: py)
                    let t = len2 > 0 ? min(max((p - a).dot(d) / len2, 0), 1) : 0
                    let dist = p.distance(to: a + d * t)
                    let c = Float(min(max(radius + 0.5 - dist, 0), 1))
                    if c > coverage[x - xLo] { coverage[x - xLo] = c; touched = true }
                }
            }
            guard touched else { continue }
            for x in xLo..<xHi where coverage[x - xLo] > 0 {
                let a = coverage[x - xLo], o = (y * width + x) * channels
                if channels == 1 {
                    image.pixels[o] = UInt8(Float(image.pixels[o]) * (1 - a) + gray * a + 0.5)
                } else {
                    for c in 0..<3 { image.pixels[o + c] = UInt8(Float(image.pixels[o + c]) * (1 - a) + rgb[c] * a + 0.5) }
                }
            }
        }
    }
}
