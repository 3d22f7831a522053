/// Filters on 8-bit masks.
public enum MaskFilters {
    /// rembg's `post_process`: morphological opening with a 3×3 cross (OpenCV's 3×3 ellipse), a 5×5 Gaussian
    /// blur with σ = 2 (reflect-101 borders), then a re-threshold (< 127 → 0, else 255). Smooths the boundary
    /// and removes one-pixel specks; the result is binary.
    public static func rembgPostProcess(_ mask: Image) -> Image {
        precondition(mask.channels == 1)
        let w = mask.width, h = mask.height
        let cross = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]
        func morph(_ src: [UInt8], erode: Bool) -> [UInt8] {
            var out = src
            for y in 0..<h {
                for x in 0..<w {
                    var v: UInt8 = erode ? 255 : 0
                    for (dx, dy) in cross {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }  // borders ignored, as OpenCV's
                        v = erode ? min(v, src[ny * w + nx]) : max(v, src[ny * w + nx])
                    }
                    out[y * w + x] = v
                }
            }
            return out
        }
        let opened = morph(morph(mask.pixels, erode: true), erode: false)
        let kernel: [Double] = {
            let k = (-2...2).map { exp(-Double($0 * $0) / 8) }
            let s = k.reduce(0, +)
            return k.map { $0 / s }
        }()
        func reflect(_ i: Int, _ n: Int) -> Int {
            if n == 1 { return 0 }
            var i = i
            while i < 0 || i >= n { i = i < 0 ? -i : 2 * n - 2 - i }
            return i
        }
        var horizontal = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for k in -2...2 { s += kernel[k + 2] * Double(opened[y * w + reflect(x + k, w)]) }
                horizontal[y * w + x] = s
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for k in -2...2 { s += kernel[k + 2] * horizontal[reflect(y + k, h) * w + x] }
                out[y * w + x] = s.rounded() < 127 ? 0 : 255
            }
        }
        return Image(width: w, height: h, channels: 1, pixels: out)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
