import _CTurboJPEG

/// JPEG through libjpeg-turbo's TurboJPEG API: decoded at full size or at a DCT scale (1/2, 1/4, 1/8), CMYK
/// turned into RGB as Pillow turns it; orientation from the APP1 `Exif` segment.
enum JPEGCodec: ImageCodec {
    static let name = "JPEG"
    static let extensions = ["jpg", "jpeg"]
    static let mediaType = "image/jpeg"

    static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0xFF, 0xD8, 0xFF]) }

    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        guard let handle = tjInitDecompress() else { throw ImageError(.codecFailure, "\(name): cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw ImageError(.unreadableImage, "\(name): corrupt JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        return (Int(width), Int(height))
    }

    /// The JPEG at full size, or with `minimumLongerSide` at the smallest of libjpeg-turbo's DCT scales (1/8,
    /// 1/4, 1/2) whose longer side is still that long: the decoder then skips most of the work (and memory) of
    /// the full picture. Returns the picture and the scale's denominator.
    static func decode(_ bytes: [UInt8], name: String, options limits: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        guard let handle = tjInitDecompress() else { throw ImageError(.codecFailure, "\(name): cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        func message() -> String { String(cString: tjGetErrorStr2(handle)) }
        var fullWidth: Int32 = 0, fullHeight: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &fullWidth, &fullHeight, &subsampling, &colorspace)
        }
        guard header == 0 else { throw ImageError(.unreadableImage, "\(name): corrupt JPEG: \(message())") }
        try Image.checkLimits(width: Int(fullWidth), height: Int(fullHeight), name: name, limits: limits)
        let longer = Int(max(fullWidth, fullHeight))
        let denominator = minimumLongerSide.flatMap { side in
            [8, 4, 2].first { (longer + $0 - 1) / $0 >= side }
        } ?? 1
        // libjpeg-turbo's scaled size (TJSCALED): each side divided, rounded up.
        let width = (fullWidth + Int32(denominator) - 1) / Int32(denominator)
        let height = (fullHeight + Int32(denominator) - 1) / Int32(denominator)
        // CMYK (and YCCK, which libjpeg turns into CMYK) come out as four inks, turned into RGB below
        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * (isCMYK ? 4 : 3))
        let status = bytes.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress, width, 0, height,
                              Int32((isCMYK ? TJPF_CMYK : TJPF_RGB).rawValue), 0)
            }
        }
        // Most warnings (e.g. stray bytes before a marker, common in camera files) leave a complete image;
        // a premature end means the rest of the picture is missing, so that is an error like a fatal one.
        if status != 0 {
            let text = message()
            if tjGetErrorCode(handle) == Int32(TJERR_FATAL.rawValue) || text.contains("Premature end") {
                throw ImageError(.unreadableImage, "\(name): corrupt or truncated JPEG: \(text)")
            }
        }
        if isCMYK { rgbInPlace(fromAdobeCMYK: &pixels) }
        return (Image(width: Int(width), height: Int(height), channels: 3, pixels: pixels), denominator)
    }

    /// Pillow's RGB of a CMYK JPEG, in place (the RGB pixels written over the CMYK ones they come from, the
    /// array then cut to three quarters). Pillow reads every CMYK JPEG with Adobe's convention, inks stored
    /// inverted (as Photoshop writes them), so with libjpeg's samples s: ink c = 255 − s_c, and with
    /// nk = 255 − k = s_k each channel is nk − round(c · nk / 255), the product rounded as Pillow's `MULDIV255`
    /// rounds it: the same bytes as `Image.open(f).convert("RGB")` (a test holds them to Pillow's). No colour
    /// profile is applied, as Pillow applies none.
    static func rgbInPlace(fromAdobeCMYK pixels: inout [UInt8]) {
        let count = pixels.count / 4
        pixels.withUnsafeMutableBufferPointer { p in
            for i in 0..<count {
                let nk = Int(p[4 * i + 3])
                for c in 0..<3 {
                    let t = (255 - Int(p[4 * i + c])) * nk + 128
                    p[3 * i + c] = UInt8(nk - (((t >> 8) + t) >> 8))  // ≥ 0: the product is at most nk
                }
            }
        }
        pixels.removeLast(pixels.count - 3 * count)
    }

    static func orientation(_ b: [UInt8]) -> ExifOrientation? {
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image, start of scan: no EXIF before data
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            if marker == 0xE1, length >= 8, Array(b[(i + 4)..<(i + 10)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return ExifOrientation.fromTIFF(b, start: i + 10, end: i + 2 + length)
            }
            i += 2 + length
        }
        return nil
    }

    /// The image as JPEG bytes (``EncodingOptions/jpegQuality``). JPEG has no alpha channel, so RGBA images are
    /// refused.
    static func encode(_ image: Image, options: EncodingOptions, parts: ParallelParts) throws -> [UInt8] {
        try encode(image, quality: options.jpegQuality)
    }

    static func encode(_ image: Image, quality: Int) throws -> [UInt8] {
        guard image.channels != 4 else {
            throw ImageError(.unsupportedOutput, "JPEG has no alpha channel: write a .png, or give the cutout a --background")
        }
        guard let handle = tjInitCompress() else { throw ImageError(.codecFailure, "cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let format = image.channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        let sampling = image.channels == 1 ? Int32(TJSAMP_GRAY.rawValue) : Int32(TJSAMP_420.rawValue)
        let status = image.pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), format, &buffer, &size,
                        sampling, Int32(min(max(quality, 1), 100)), 0)
        }
        defer { tjFree(buffer) }
        guard status == 0, let buffer else { throw ImageError(.codecFailure, "cannot encode JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
