/// EXIF orientation (tag 0x0112): how the stored pixels must be turned to show the picture upright.
/// Phones store photos sideways and set this tag; ignoring it gives sideways masks and cutouts.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Whether applying it swaps width and height (values 5…8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Where a point of the stored `width × height` picture (pixel-edge coordinates, top-left origin) is once
    /// the picture is turned upright: the same turn as `Image.applying(_:)` makes of its pixels.
    public func uprightPoint(_ p: PixelPoint, width: Int, height: Int) -> PixelPoint {
        let w = Double(width), h = Double(height)
        switch self {
        case .up: return p
        case .upMirrored: return PixelPoint(x: w - p.x, y: p.y)
        case .down: return PixelPoint(x: w - p.x, y: h - p.y)
        case .downMirrored: return PixelPoint(x: p.x, y: h - p.y)
        case .leftMirrored: return PixelPoint(x: p.y, y: p.x)
        case .right: return PixelPoint(x: h - p.y, y: p.x)
        case .rightMirrored: return PixelPoint(x: h - p.y, y: w - p.x)
        case .left: return PixelPoint(x: p.y, y: w - p.x)
        }
    }

    /// Reads the orientation from the bytes of any ``ImageFormat`` (PNG's `eXIf` chunk, JPEG's APP1 `Exif`,
    /// WebP's `EXIF` chunk); nil when absent or malformed.
    public static func read(from bytes: [UInt8]) -> ExifOrientation? {
        ImageFormat(sniffing: bytes)?.codec.orientation(bytes)
    }

    /// Orientation from a TIFF structure (the EXIF payload) in `b[start..<end]`: IFD0's tag 0x0112.
    static func fromTIFF(_ b: [UInt8], start: Int, end: Int) -> ExifOrientation? {
        guard end - start >= 8, end <= b.count else { return nil }
        let little: Bool
        switch (b[start], b[start + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, start + o + 2 <= end else { return nil }
            let x = Int(b[start + o]), y = Int(b[start + o + 1])
            return little ? x | y << 8 : x << 8 | y
        }
        func u32(_ o: Int) -> Int? {
            guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for e in 0..<min(count, 512) {
            let entry = ifd + 2 + 12 * e
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }  // type SHORT
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}

extension Image {
    /// The image turned upright according to `orientation` (EXIF semantics, as Pillow's `exif_transpose`).
    public func applying(_ orientation: ExifOrientation) -> Image {
        if orientation == .up { return self }
        let w = width, h = height, c = channels
        let ow = orientation.swapsDimensions ? h : w, oh = orientation.swapsDimensions ? w : h
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<oh {
                    for x in 0..<ow {
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let s = (sy * w + sx) * c, d = (y * ow + x) * c
                        for k in 0..<c { dst[d + k] = src[s + k] }
                    }
                }
            }
        }
        return Image(width: ow, height: oh, channels: c, pixels: out).withProfile(iccProfile)
    }
}
