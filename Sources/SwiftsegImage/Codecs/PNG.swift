import _CPNG

/// PNG: swiftseg's own reader for the common files and libpng's simplified API for the rest (``PNGReaderChoice``),
/// swiftseg's own encoder (``PNGEncoder``); orientation from an `eXIf` chunk.
enum PNGCodec: ImageCodec {
    static let name = "PNG"
    static let extensions = ["png"]
    static let mediaType = "image/png"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    /// The size from IHDR, so an absurd header is refused before libpng reads (or allocates) anything.
    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw ImageError(.unreadableImage, "\(name): corrupt PNG: no image header")
        }
        func be32(_ i: Int) -> Int { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    static func decode(_ bytes: [UInt8], name: String, options limits: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        (try decode(bytes, name: name, limits: limits), 1)
    }

    static func decode(_ bytes: [UInt8], name: String, limits: DecodingOptions) throws -> Image {
        // libpng's simplified API takes 16-bit samples without gamma information as linear light and would
        // brighten them on the way to 8-bit sRGB; read those as 16-bit (passed through untouched) and keep
        // the high byte, as other tools do.
        if limits.pngReader == .swiftseg, let image = PNGReader.read(bytes, limits: limits) { return image }
        let sixteenBit = bytes[24] == 16 && !PNGChunks.hasColorSpaceInformation(bytes)
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&png) }
        func message() -> String {
            withUnsafeBytes(of: png.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let ok = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw ImageError(.unreadableImage, "\(name): corrupt PNG: \(message())") }
        let width = Int(png.width), height = Int(png.height)
        try Image.checkLimits(width: width, height: height, name: name, limits: limits)
        let hasAlpha = png.format & PNGFormat.alphaFlag != 0
        let isGray = png.format & PNGFormat.colorFlag == 0
        let channels = hasAlpha ? 4 : isGray ? 1 : 3
        png.format = (hasAlpha ? PNGFormat.rgba : isGray ? PNGFormat.gray : PNGFormat.rgb)
            | (sixteenBit ? PNGFormat.linearFlag : 0)
        let count = width * height * channels
        if sixteenBit {
            var wide = [UInt16](repeating: 0, count: count)
            let done = wide.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, 0, nil) }
            guard done != 0 else { throw ImageError(.unreadableImage, "\(name): corrupt PNG: \(message())") }
            if hasAlpha {  // linear RGBA comes premultiplied; undo it
                for p in stride(from: 0, to: count, by: 4) where wide[p + 3] != 0 {
                    let a = UInt32(wide[p + 3])
                    for c in 0..<3 { wide[p + c] = UInt16(min(65535, (UInt32(wide[p + c]) * 65535 + a / 2) / a)) }
                }
            }
            return Image(width: width, height: height, channels: channels,
                         pixels: wide.map { UInt8((UInt32($0) * 255 + 32767) / 65535) })
        }
        var pixels = [UInt8](repeating: 0, count: count)
        let done = pixels.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, 0, nil) }
        guard done != 0 else { throw ImageError(.unreadableImage, "\(name): corrupt PNG: \(message())") }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }


    static func orientation(_ b: [UInt8]) -> ExifOrientation? {
        var result: ExifOrientation?
        PNGChunks.forEach(b) { type, range in
            if type == "eXIf" { result = ExifOrientation.fromTIFF(b, start: range.lowerBound, end: range.upperBound); return false }
            return true
        }
        return result
    }

    static func encode(_ image: Image, options: EncodingOptions, parts: ParallelParts) throws -> [UInt8] {
        try PNGEncoder.encode(width: image.width, height: image.height, channels: image.channels, bitDepth: 8,
                              rows: image.pixels, compression: options.pngCompression, parts: parts,
                              iccProfile: image.fittingProfile)
    }

    /// The profile of the `iCCP` chunk (a name, compression method 0, a zlib stream), inflated; nil when there
    /// is none or it does not inflate (to at most 64 MiB).
    static func iccProfile(_ b: [UInt8]) -> [UInt8]? {
        var compressed: ArraySlice<UInt8>?
        PNGChunks.forEach(b) { type, range in
            if type == "iCCP", let nul = b[range].prefix(80).firstIndex(of: 0), nul + 2 <= range.upperBound, b[nul + 1] == 0 {
                compressed = b[(nul + 2)..<range.upperBound]
                return false
            }
            return type != "IDAT"
        }
        return compressed.flatMap { inflateZlib(Array($0), limit: 64 << 20) }
    }

    /// A whole zlib stream inflated, nil if it is corrupt, truncated or would exceed `limit` bytes.
    static func inflateZlib(_ data: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard swiftseg_inflateInit(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: min(limit, max(4096, data.count * 4)))
        var status = Z_OK
        data.withUnsafeBufferPointer { src in
            stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
            stream.avail_in = UInt32(src.count)
            while status == Z_OK {
                if Int(stream.total_out) == out.count {
                    guard out.count < limit else { status = Z_BUF_ERROR; return }
                    out += [UInt8](repeating: 0, count: min(limit, out.count * 2) - out.count)
                }
                let done = Int(stream.total_out)
                status = out.withUnsafeMutableBufferPointer { dst in
                    stream.next_out = dst.baseAddress! + done
                    stream.avail_out = UInt32(dst.count - done)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { return }  // truncated
                if status == Z_BUF_ERROR { status = Z_OK }  // the output was full: grow it
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(out.prefix(Int(stream.total_out)))
    }
}

// PNG details libpng's simplified API does not expose: its format codes (C macros Swift does not import)
// and the file's chunk list.

/// libpng's simplified-API format codes (macros Swift does not import).
enum PNGFormat {
    static let gray: UInt32 = 0       // PNG_FORMAT_GRAY
    static let alphaFlag: UInt32 = 1  // PNG_FORMAT_FLAG_ALPHA
    static let colorFlag: UInt32 = 2  // PNG_FORMAT_FLAG_COLOR
    static let rgb: UInt32 = 2        // PNG_FORMAT_RGB = PNG_FORMAT_FLAG_COLOR
    static let rgba: UInt32 = 3       // PNG_FORMAT_RGBA
    static let linearFlag: UInt32 = 4 // PNG_FORMAT_FLAG_LINEAR: 16-bit samples
}

/// Walking a PNG's chunks (libpng's simplified API does not expose them).
enum PNGChunks {
    /// Calls `body(type, dataRange)` for each complete chunk until it returns false or IEND.
    static func forEach(_ b: [UInt8], _ body: (String, Range<Int>) -> Bool) {
        var i = 8
        while i + 12 <= b.count {
            let length = b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            guard length >= 0, length <= b.count, i + 12 + length <= b.count else { return }
            if !body(type, (i + 8)..<(i + 8 + length)) || type == "IEND" { return }
            i += 12 + length
        }
    }

    /// Whether the file says how its samples are encoded (gAMA, sRGB, iCCP or cHRM).
    static func hasColorSpaceInformation(_ b: [UInt8]) -> Bool {
        var found = false
        forEach(b) { type, _ in
            if ["gAMA", "sRGB", "iCCP", "cHRM"].contains(type) { found = true }
            return !found && type != "IDAT"
        }
        return found
    }
}
