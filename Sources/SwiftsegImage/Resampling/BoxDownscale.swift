/// Shrinking by a whole factor with a box filter (each output pixel the mean of factor × factor input pixels;
/// the last partial row and column dropped): the cheap first step before work that needs only a few hundred
/// pixels of a large photo, such as finding line segments.
///
/// ```swift
/// let small = BoxDownscale.shrink(photo, by: 4)   // 4032×3024 → 1008×756
/// ```
public enum BoxDownscale {
    public static func shrink(_ image: Image, by factor: Int) -> Image {
        precondition(factor >= 1, "factor must be at least 1")
        if factor == 1 { return image }
        let w = max(image.width / factor, 1), h = max(image.height / factor, 1), c = image.channels
        let fx = min(factor, image.width), fy = min(factor, image.height)
        var out = [UInt8](repeating: 0, count: w * h * c)
        let sums = UnsafeMutablePointer<Int>.allocate(capacity: w * c)
        defer { sums.deallocate() }
        let count = fx * fy, sw = image.width
        image.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    sums.initialize(repeating: 0, count: w * c)
                    for yy in (y * fy)..<(y * fy + fy) {
                        let row = px.baseAddress! + yy * sw * c
                        for x in 0..<w {
                            let from = row + x * fx * c, to = sums + x * c
                            for xx in 0..<fx { for k in 0..<c { to[k] &+= Int(from[xx * c + k]) } }
                        }
                    }
                    let dst = o.baseAddress! + y * w * c
                    for i in 0..<(w * c) { dst[i] = UInt8((sums[i] + count / 2) / count) }
                }
            }
        }
        return Image(width: w, height: h, channels: c, pixels: out)
    }
}
