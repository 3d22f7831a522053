import _CTIFF

/// TIFF through libtiff: the first image of the file (a scan, an export), any bit depth, gray, RGB, palette,
/// CMYK or YCbCr as libtiff's RGBA reader converts them, with or without alpha; 16-bit samples reduced to 8;
/// orientation from its Orientation tag (the values EXIF uses), profile from its ICC tag. Read only.
enum TIFFCodec: OneOpeningCodec, ReadOnlyCodec {
    static let name = "TIFF"
    static let extensions = ["tif", "tiff"]
    static let mediaType = "image/tiff"

    static func matches(_ b: [UInt8]) -> Bool {
        b.starts(with: [0x49, 0x49, 0x2A, 0x00]) || b.starts(with: [0x4D, 0x4D, 0x00, 0x2A])  // classic, either byte order
            || b.starts(with: [0x49, 0x49, 0x2B, 0x00]) || b.starts(with: [0x4D, 0x4D, 0x00, 0x2B])  // BigTIFF
    }

    /// The open file's first image, given to `body`; libtiff's single allocations bounded by what the limits
    /// allow a picture (so a hostile strip size is refused by libtiff, not attempted).
    static func withFile<T>(_ bytes: [UInt8], name: String, options: DecodingOptions,
                            _ body: (OpaquePointer, UnsafeMutablePointer<swiftseg_tiff_memory>) throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { data in
            var memory = swiftseg_tiff_memory()
            memory.data = data.baseAddress
            memory.size = UInt64(data.count)
            return try withUnsafeMutablePointer(to: &memory) { m in
                let limit = min(Int(Int32.max), max(1 << 20, options.maxPixels * 4 + (1 << 16)))
                guard let tif = swiftseg_tiff_open(m, tmsize_t(limit)) else {
                    throw ImageError(.unreadableImage, "\(name): corrupt TIFF: \(message(m))")
                }
                defer { TIFFClose(tif) }
                return try body(tif, m)
            }
        }
    }

    static func message(_ m: UnsafeMutablePointer<swiftseg_tiff_memory>) -> String {
        let text = withUnsafeBytes(of: m.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? "unreadable" : text
    }

    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        try withFile(bytes, name: name, options: options) { tif, _ in
            (Int(swiftseg_tiff_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH))), Int(swiftseg_tiff_u32(tif, UInt32(TIFFTAG_IMAGELENGTH))))
        }
    }

    /// The stored pixels (orientation applied by the caller, from the tag), its Orientation tag and its profile
    /// from one opening of the file: libtiff's RGBA raster asked for in the file's own orientation, so it neither
    /// flips nor turns; alpha un-premultiplied (libtiff premultiplies it), gray files to one channel.
    static func decodePicture(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              minimumLongerSide: Int?) throws -> (image: Image, denominator: Int, orientation: ExifOrientation?) {
        try withFile(bytes, name: name, options: options) { tif, m in
            let width = Int(swiftseg_tiff_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH)))
            let height = Int(swiftseg_tiff_u32(tif, UInt32(TIFFTAG_IMAGELENGTH)))
            try Image.checkLimits(width: width, height: height, name: name, limits: options)
            let stored = Int32(swiftseg_tiff_u16(tif, UInt32(TIFFTAG_ORIENTATION), UInt16(ORIENTATION_TOPLEFT)))
            let photometric = Int32(swiftseg_tiff_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_MINISBLACK)))
            let alpha = swiftseg_tiff_has_alpha(tif) != 0
            let gray = !alpha && (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE)
            var raster = [UInt32](repeating: 0, count: width * height)
            let ok = raster.withUnsafeMutableBufferPointer {
                TIFFReadRGBAImageOriented(tif, UInt32(width), UInt32(height), $0.baseAddress, (1...8).contains(stored) ? stored : ORIENTATION_TOPLEFT, 1)
            }
            // Stop at the first error, and count one libtiff reported and read past (a strip cut short) as one.
            guard ok != 0, m.pointee.message.0 == 0 else { throw ImageError(.unreadableImage, "\(name): corrupt or unsupported TIFF: \(message(m))") }
            let channels = alpha ? 4 : gray ? 1 : 3
            var pixels = [UInt8](repeating: 0, count: width * height * channels)
            raster.withUnsafeBufferPointer { src in
                pixels.withUnsafeMutableBufferPointer { dst in
                    for i in 0..<(width * height) {
                        let v = src[i]  // ABGR: R in the low byte
                        let r = UInt8(v & 0xFF), g = UInt8(v >> 8 & 0xFF), b = UInt8(v >> 16 & 0xFF), a = UInt8(v >> 24)
                        switch channels {
                        case 1: dst[i] = r
                        case 3: dst[3 * i] = r; dst[3 * i + 1] = g; dst[3 * i + 2] = b
                        default:
                            let unpremultiply = { (c: UInt8) -> UInt8 in
                                a == 0 ? 0 : UInt8(min(255, (Int(c) * 255 + Int(a) / 2) / Int(a)))
                            }
                            dst[4 * i] = unpremultiply(r); dst[4 * i + 1] = unpremultiply(g)
                            dst[4 * i + 2] = unpremultiply(b); dst[4 * i + 3] = a
                        }
                    }
                }
            }
            return (Image(width: width, height: height, channels: channels, pixels: pixels).withProfile(profile(tif)), 1,
                    ExifOrientation(rawValue: Int(stored)))
        }
    }

    /// The Orientation tag (274; EXIF's values), nil when absent or unreadable.
    static func orientation(_ bytes: [UInt8]) -> ExifOrientation? {
        guard let value = try? withFile(bytes, name: "", options: DecodingOptions(), { tif, _ in
            Int(swiftseg_tiff_u16(tif, UInt32(TIFFTAG_ORIENTATION), 0))
        }) else { return nil }
        return ExifOrientation(rawValue: value)
    }

    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        (try? withFile(bytes, name: "", options: DecodingOptions()) { tif, _ in profile(tif) }) ?? nil
    }

    static func profile(_ tif: OpaquePointer) -> [UInt8]? {
        var data: UnsafeRawPointer?
        let count = Int(swiftseg_tiff_icc(tif, &data))
        guard count > 0, let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }
}
