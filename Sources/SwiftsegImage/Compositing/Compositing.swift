/// Combining images with masks.
public enum Compositing {
    /// RGBA image whose colour is `image`'s and whose alpha is `alpha` (× `image`'s alpha, if any), with
    /// fully transparent pixels stored as 0, 0, 0, 0 — as rembg's `naive_cutout` and Vision's masked images
    /// store them. Partly transparent pixels keep their colour unchanged (straight alpha, as PNG defines it).
    /// Zeroing the invisible colour also makes the PNG about half the size and faster to compress.
    ///
    /// ```swift
    /// let rgba = Compositing.cutout(photo, alpha: mask)
    /// ```
    public static func cutout(_ image: Image, alpha: Image) -> Image {
        precondition(alpha.channels == 1 && alpha.width == image.width && alpha.height == image.height,
                     "mask must be a gray image of the photo's size")
        let n = image.width * image.height, channels = image.channels
        var out = [UInt8](repeating: 0, count: n * 4)
        image.pixels.withUnsafeBufferPointer { px in
            alpha.pixels.withUnsafeBufferPointer { a in
                out.withUnsafeMutableBufferPointer { o in
                    for i in 0..<n {
                        let value: UInt8 = channels == 4 ? UInt8((Int(a[i]) * Int(px[4 * i + 3]) + 127) / 255) : a[i]
                        guard value > 0 else { continue }  // stays 0, 0, 0, 0
                        if channels == 1 {
                            o[4 * i] = px[i]; o[4 * i + 1] = px[i]; o[4 * i + 2] = px[i]
                        } else {
                            o[4 * i] = px[channels * i]; o[4 * i + 1] = px[channels * i + 1]; o[4 * i + 2] = px[channels * i + 2]
                        }
                        o[4 * i + 3] = value
                    }
                }
            }
        }
        return Image(width: image.width, height: image.height, channels: 4, pixels: out)
    }
}

extension Compositing {
    /// The part of `image` inside `rect` (clipped to the image).
    public static func crop(_ image: Image, to rect: PixelRect) -> Image {
        let x0 = max(rect.x, 0), y0 = max(rect.y, 0)
        let x1 = min(rect.maxX, image.width), y1 = min(rect.maxY, image.height)
        precondition(x1 > x0 && y1 > y0, "crop rectangle \(rect) is outside the image")
        let c = image.channels, rowBytes = (x1 - x0) * c
        var out = [UInt8]()
        out.reserveCapacity(rowBytes * (y1 - y0))
        for y in y0..<y1 {
            let start = (y * image.width + x0) * c
            out += image.pixels[start..<(start + rowBytes)]
        }
        return Image(width: x1 - x0, height: y1 - y0, channels: c, pixels: out)
    }

    /// `foreground` over `background` through `mask` (0…1 per pixel): CIBlendWithMask. Both images must be
    /// RGB (or are converted); the result is RGB.
    public static func blend(_ foreground: Image, over background: Image, mask: [Float]) -> Image {
        let fg = foreground.rgb(), bg = background.rgb()
        precondition(fg.width == bg.width && fg.height == bg.height && mask.count == fg.width * fg.height,
                     "blend needs images and mask of one size")
        var out = [UInt8](repeating: 0, count: fg.pixels.count)
        for i in 0..<mask.count {
            let m = mask[i]
            for c in 0..<3 {
                let v = Float(fg.pixels[3 * i + c]) * m + Float(bg.pixels[3 * i + c]) * (1 - m)
                out[3 * i + c] = UInt8(min(max(v + 0.5, 0), 255))
            }
        }
        return Image(width: fg.width, height: fg.height, channels: 3, pixels: out)
    }
}

extension Compositing {
    /// `image` copied onto a `width × height` canvas of `background` with its top-left corner at (`x`, `y`),
    /// clipped to the canvas; the canvas has `image`'s channels.
    ///
    /// ```swift
    /// let letterboxed = Compositing.paste(scaled, width: 224, height: 224, x: 0, y: 37)   // black bars
    /// ```
    public static func paste(_ image: Image, width: Int, height: Int, x: Int, y: Int, background: UInt8 = 0) -> Image {
        let c = image.channels
        var out = [UInt8](repeating: background, count: width * height * c)
        let x0 = max(x, 0), x1 = min(x + image.width, width)
        guard x1 > x0 else { return Image(width: width, height: height, channels: c, pixels: out) }
        for row in max(y, 0)..<min(y + image.height, height) {
            let src = ((row - y) * image.width + (x0 - x)) * c, dst = (row * width + x0) * c
            out.replaceSubrange(dst..<(dst + (x1 - x0) * c), with: image.pixels[src..<(src + (x1 - x0) * c)])
        }
        return Image(width: width, height: height, channels: c, pixels: out)
    }
}
