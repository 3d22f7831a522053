/// Gaussian blur of float planes, approximated by three box blurs per axis (within a few percent of a true
/// Gaussian, constant time per pixel whatever the radius). Edges are clamped.
public enum GaussianBlur {
    /// Box widths whose three passes approximate a Gaussian of standard deviation `sigma`.
    static func boxSizes(sigma: Double) -> [Int] {
        let ideal = (12 * sigma * sigma / 3 + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let m = ((12 * sigma * sigma - 3 * Double(lower * lower) - 12 * Double(lower) - 9) / Double(-4 * lower - 4)).rounded()
        return (0..<3).map { Double($0) < m ? max(lower, 1) : upper }
    }

    /// Blurs a `width × height` plane in place with standard deviation `sigma` pixels (≤ 0: unchanged).
    public static func blur(_ plane: inout [Float], width: Int, height: Int, sigma: Double) {
        guard sigma > 0 else { return }
        var scratch = [Float](repeating: 0, count: max(width, height))
        for box in boxSizes(sigma: sigma) {
            let r = box / 2
            guard r > 0 else { continue }
            for y in 0..<height { boxPass(&plane, start: y * width, stride: 1, count: width, radius: r, scratch: &scratch) }
            for x in 0..<width { boxPass(&plane, start: x, stride: width, count: height, radius: r, scratch: &scratch) }
        }
    }

    /// One running-sum box filter along a line of `count` samples.
    static func boxPass(_ p: inout [Float], start: Int, stride: Int, count: Int, radius r: Int, scratch: inout [Float]) {
        for i in 0..<count { scratch[i] = p[start + i * stride] }
        let norm = 1 / Float(2 * r + 1)
        var sum: Float = 0
        for k in -r...r { sum += scratch[min(max(k, 0), count - 1)] }
        for i in 0..<count {
            p[start + i * stride] = sum * norm
            sum += scratch[min(i + r + 1, count - 1)] - scratch[max(i - r, 0)]
        }
    }
}
