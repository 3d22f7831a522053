/// Combining images with masks.
public enum Compositing {
    /// RGBA image whose colour is `image`'s and whose alpha is `alpha` (× `image`'s alpha, if any): rembg's
    /// `naive_cutout`.
    public static func cutout(_ image: Image, alpha: Image) -> Image {
        precondition(alpha.channels == 1 && alpha.width == image.width && alpha.height == image.height,
                     "mask must be a gray image of the photo's size")
        let n = image.width * image.height
        var out = [UInt8](repeating: 0, count: n * 4)
        image.pixels.withUnsafeBufferPointer { px in
            alpha.pixels.withUnsafeBufferPointer { a in
                for i in 0..<n {
                    switch image.channels {
                    case 1:
                        out[4 * i] = px[i]; out[4 * i + 1] = px[i]; out[4 * i + 2] = px[i]
                        out[4 * i + 3] = a[i]
                    case 3:
                        out[4 * i] = px[3 * i]; out[4 * i + 1] = px[3 * i + 1]; out[4 * i + 2] = px[3 * i + 2]
                        out[4 * i + 3] = a[i]
                    default:
                        out[4 * i] = px[4 * i]; out[4 * i + 1] = px[4 * i + 1]; out[4 * i + 2] = px[4 * i + 2]
                        out[4 * i + 3] = UInt8((Int(a[i]) * Int(px[4 * i + 3]) + 127) / 255)
                    }
                }
            }
        }
        return Image(width: image.width, height: image.height, channels: 4, pixels: out)
    }
}
