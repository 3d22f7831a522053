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
        var result: ExifOrientation?
        forEachSegment(b) { marker, start, end in
            guard marker == 0xE1, end - start >= 6, Array(b[start..<(start + 6)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return true }
            result = ExifOrientation.fromTIFF(b, start: start + 6, end: end)
            return false
        }
        return result
    }

    /// The marker segments before the picture's data: `body(marker, start, end)` for each (the segment's payload
    /// in `b[start..<end]`) until it returns false.
    static func forEachSegment(_ b: [UInt8], _ body: (UInt8, Int, Int) -> Bool) {
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xD9 || marker == 0xDA { return }  // end of image, start of scan
            if marker == 0x01 || (0xD0...0xD7).contains(marker) || marker == 0xFF { i += marker == 0xFF ? 1 : 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return }
            if !body(marker, i + 4, i + 2 + length) { return }
            i += 2 + length
        }
    }

    static let iccSignature = Array("ICC_PROFILE".utf8) + [0]

    /// The profile in the APP2 `ICC_PROFILE` segments (each: the signature, its number from 1, the count, a
    /// piece), put together in order; nil when absent or when pieces are missing or repeated.
    static func iccProfile(_ b: [UInt8]) -> [UInt8]? {
        var pieces: [Int: ArraySlice<UInt8>] = [:], count = 0
        forEachSegment(b) { marker, start, end in
            if marker == 0xE2, end - start > 14, Array(b[start..<(start + 12)]) == iccSignature {
                let number = Int(b[start + 12])
                count = Int(b[start + 13])
                if pieces[number] != nil { count = -1; return false }
                pieces[number] = b[(start + 14)..<end]
            }
            return true
        }
        guard count > 0, pieces.count == count, (1...count).allSatisfy({ pieces[$0] != nil }) else { return nil }
        return (1...count).flatMap { Array(pieces[$0]!) }
    }

    /// `profile` as APP2 `ICC_PROFILE` segments placed after the encoder's first segments (SOI, JFIF APP0), as
    /// libjpeg's `jpeg_write_icc_profile` places them: pieces of at most 65,519 bytes.
    static func insertingProfile(_ profile: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let pieceSize = 65_519
        let count = (profile.count + pieceSize - 1) / pieceSize
        guard count > 0, count < 256 else { return jpeg }
        var at = 2
        if jpeg.count > 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        var segments: [UInt8] = []
        for n in 0..<count {
            let piece = profile[(n * pieceSize)..<min(profile.count, (n + 1) * pieceSize)]
            let length = 2 + iccSignature.count + 2 + piece.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + iccSignature + [UInt8(n + 1), UInt8(count)]
            segments += piece
        }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }

    /// The image as JPEG bytes (``EncodingOptions/jpegQuality``), its profile in APP2 segments. JPEG has no
    /// alpha channel, so RGBA images are refused.
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
        let jpeg = Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        return image.fittingProfile.map { insertingProfile($0, into: jpeg) } ?? jpeg
    }
}
