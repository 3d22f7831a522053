import Foundation

/// Foreground colours under a matte (Germer, Uelwer, Conrad, Harmeling 2020, "Fast multi-level foreground
/// estimation"), as pymatting's `estimate_foreground_ml` computes them with its defaults: from a 1×1 image of
/// the mean foreground and background colours up to full size in ⌈log2(max(W, H))⌉ levels (each side
/// round(side^(level/levels)), nearest-neighbour resizing), at each level a few in-place sweeps (10 while both
/// sides are ≤ 32, else 2) that solve, per pixel, the 2×2 least-squares system of the compositing equation
/// with a smoothness term weighted by regularization (1e-5) + |Δα| toward the four neighbours.
///
/// ```swift
/// let rgb = ForegroundEstimation.foreground(rgb: photo, alpha: alpha)   // [Float] 0…1, 3 per pixel
/// ```
///
/// The sweeps run in raster order, updating in place, as pymatting's do; values are Float, as pymatting's are.
public enum ForegroundEstimation {
    public static func foreground(rgb image: Image, alpha input: [Double], regularization: Float = 1e-5,
                                  smallIterations: Int = 10, bigIterations: Int = 2, smallSize: Int = 32,
                                  gradientWeight: Float = 1) -> [Float] {
        let w0 = image.width, h0 = image.height, c = image.channels
        var rgb = [Float](repeating: 0, count: w0 * h0 * 3)
        for i in 0..<(w0 * h0) {
            for k in 0..<3 { rgb[3 * i + k] = Float(Double(image.pixels[i * c + (c < 3 ? 0 : k)]) / 255) }
        }
        let alpha0 = input.map { Float($0) }
        var fMean = [Float](repeating: 0, count: 3), bMean = [Float](repeating: 0, count: 3)
        var fCount = 0, bCount = 0
        for i in 0..<(w0 * h0) {
            if alpha0[i] > 0.9 { for k in 0..<3 { fMean[k] += rgb[3 * i + k] }; fCount += 1 }
            if alpha0[i] < 0.1 { for k in 0..<3 { bMean[k] += rgb[3 * i + k] }; bCount += 1 }
        }
        for k in 0..<3 {
            fMean[k] = Float(Double(fMean[k]) / (Double(fCount) + 1e-5))
            bMean[k] = Float(Double(bMean[k]) / (Double(bCount) + 1e-5))
        }
        var fPrev = fMean, bPrev = bMean, wPrev = 1, hPrev = 1
        let levels = Int(ceil(log2(Double(max(w0, h0)))))
        func resized(_ src: [Float], _ ws: Int, _ hs: Int, _ depth: Int, _ wd: Int, _ hd: Int) -> [Float] {
            var dst = [Float](repeating: 0, count: wd * hd * depth)
            for y in 0..<hd {
                let ys = max(0, min(hs - 1, y * hs / hd))
                for x in 0..<wd {
                    let xs = max(0, min(ws - 1, x * ws / wd))
                    for k in 0..<depth { dst[(y * wd + x) * depth + k] = src[(ys * ws + xs) * depth + k] }
                }
            }
            return dst
        }
        var F = fPrev, B = bPrev
        for level in 0...max(levels, 0) {
            let w = levels == 0 ? w0 : Int(pow(Double(w0), Double(level) / Double(levels)).rounded(.toNearestOrEven))
            let h = levels == 0 ? h0 : Int(pow(Double(h0), Double(level) / Double(levels)).rounded(.toNearestOrEven))
            let image = resized(rgb, w0, h0, 3, w, h)
            let alpha = resized(alpha0, w0, h0, 1, w, h)
            F = resized(fPrev, wPrev, hPrev, 3, w, h)
            B = resized(bPrev, wPrev, hPrev, 3, w, h)
            let iterations = w <= smallSize && h <= smallSize ? smallIterations : bigIterations
            for _ in 0..<iterations {
                for y in 0..<h {
                    for x in 0..<w {
                        let p = y * w + x
                        let a0 = alpha[p]
                        let a1 = 1.0 - Double(a0)
                        var a00 = a0 * a0
                        let a01 = Double(a0) * a1
                        var a11 = a1 * a1
                        var f0 = a0 * image[3 * p], f1 = a0 * image[3 * p + 1], f2 = a0 * image[3 * p + 2]
                        var g0 = Float(a1 * Double(image[3 * p])), g1 = Float(a1 * Double(image[3 * p + 1]))
                        var g2 = Float(a1 * Double(image[3 * p + 2]))
                        // the four neighbours, clamped at the border: left, right, up, down (pymatting's order)
                        for d in 0..<4 {
                            let x2 = d == 0 ? max(0, x - 1) : d == 1 ? min(w - 1, x + 1) : x
                            let y2 = d == 2 ? max(0, y - 1) : d == 3 ? min(h - 1, y + 1) : y
                            let q = y2 * w + x2
                            let da = regularization + gradientWeight * abs(a0 - alpha[q])
                            a00 += da
                            a11 += Double(da)
                            f0 += da * F[3 * q]; f1 += da * F[3 * q + 1]; f2 += da * F[3 * q + 2]
                            g0 += da * B[3 * q]; g1 += da * B[3 * q + 1]; g2 += da * B[3 * q + 2]
                        }
                        let determinant = Double(a00) * a11 - a01 * a01
                        let inverse = 1.0 / determinant
                        let m00 = inverse * a11, m01 = inverse * -a01, m11 = inverse * Double(a00)
                        func store(_ k: Int, _ first: Float, _ second: Float) {
                            let f = m00 * Double(first) + m01 * Double(second)
                            let b = m01 * Double(first) + m11 * Double(second)
                            F[3 * p + k] = Float(max(0, min(1, f)))
                            B[3 * p + k] = Float(max(0, min(1, b)))
                        }
                        store(0, f0, g0); store(1, f1, g1); store(2, f2, g2)
                    }
                }
            }
            fPrev = F; bPrev = B; wPrev = w; hPrev = h
        }
        return F
    }
}
