import Foundation

/// Perspective correction, as Core Image's `CIPerspectiveCorrection`: a quadrilateral of a photo (a document,
/// a card) mapped onto an upright rectangle by the homography between them. Each output pixel averages n × n
/// bilinear samples, n the largest local shrink of the mapping rounded up (1 when nothing shrinks), so shrinking
/// is antialiased and enlarging stays smooth.
///
/// ```swift
/// let quad = [topLeft, topRight, bottomRight, bottomLeft]     // PixelPoints, top-left origin
/// let size = PerspectiveWarp.correctedSize(of: quad)           // max(top, bottom) × max(left, right)
/// let page = PerspectiveWarp.extract(photo, quad: quad, width: size.width, height: size.height)
/// ```
public enum PerspectiveWarp {
    /// The size `CIPerspectiveCorrection` gives: the longer of the top and bottom edges by the longer of the left
    /// and right edges, rounded, at least 1 × 1.
    public static func correctedSize(of quad: [PixelPoint]) -> (width: Int, height: Int) {
        precondition(quad.count == 4, "a quad has four corners: top-left, top-right, bottom-right, bottom-left")
        let top = quad[0].distance(to: quad[1]), bottom = quad[3].distance(to: quad[2])
        let left = quad[0].distance(to: quad[3]), right = quad[1].distance(to: quad[2])
        return (max(1, Int(max(top, bottom).rounded())), max(1, Int(max(left, right).rounded())))
    }

    /// The `quad` of `image` (corners top-left, top-right, bottom-right, bottom-left, in pixel-edge coordinates)
    /// as an upright `width × height` image with the same channels; points outside the photo take the nearest
    /// border pixel. Nil when the quad is degenerate.
    public static func extract(_ image: Image, quad: [PixelPoint], width: Int, height: Int) -> Image? {
        precondition(quad.count == 4 && width > 0 && height > 0, "four corners and a positive size")
        let w = Double(width), h = Double(height)
        let rect = [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)]
        guard let map = Homography(from: rect, to: quad) else { return nil }
        // The largest source distance one output pixel step covers, at the corners (a homography's scale is
        // monotonic along lines, so the extremes are there).
        var stretch = 1.0
        for corner in rect {
            let c = PixelPoint(x: min(max(corner.x, 0.5), w - 0.5), y: min(max(corner.y, 0.5), h - 0.5))
            let p = map.apply(c)
            stretch = max(stretch, map.apply(c + PixelPoint(x: 1, y: 0)).distance(to: p),
                          map.apply(c + PixelPoint(x: 0, y: 1)).distance(to: p))
        }
        guard stretch.isFinite else { return nil }
        let n = min(Int(stretch.rounded(.up)), 8)
        let channels = image.channels, sw = image.width, sh = image.height
        var out = [UInt8](repeating: 0, count: width * height * channels)
        var acc = [Float](repeating: 0, count: channels)
        let weight = 1 / Float(n * n)
        image.pixels.withUnsafeBufferPointer { src in
            for v in 0..<height {
                for u in 0..<width {
                    for c in 0..<channels { acc[c] = 0 }
                    for sy in 0..<n {
                        for sx in 0..<n {
                            let q = PixelPoint(x: Double(u) + (Double(sx) + 0.5) / Double(n),
                                               y: Double(v) + (Double(sy) + 0.5) / Double(n))
                            let p = map.apply(q)
                            let fx = p.x - 0.5, fy = p.y - 0.5
                            let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
                            let ax = Float(fx - Double(x0)), ay = Float(fy - Double(y0))
                            let xa = min(max(x0, 0), sw - 1), xb = min(max(x0 + 1, 0), sw - 1)
                            let ya = min(max(y0, 0), sh - 1), yb = min(max(y0 + 1, 0), sh - 1)
                            let i00 = (ya * sw + xa) * channels, i01 = (ya * sw + xb) * channels
                            let i10 = (yb * sw + xa) * channels, i11 = (yb * sw + xb) * channels
                            for c in 0..<channels {
                                let top = Float(src[i00 + c]) * (1 - ax) + Float(src[i01 + c]) * ax
                                let bottom = Float(src[i10 + c]) * (1 - ax) + Float(src[i11 + c]) * ax
                                acc[c] += top * (1 - ay) + bottom * ay
                            }
                        }
                    }
                    let o = (v * width + u) * channels
                    for c in 0..<channels { out[o + c] = UInt8(min(max(acc[c] * weight + 0.5, 0), 255)) }
                }
            }
        }
        return Image(width: width, height: height, channels: channels, pixels: out)
    }
}
