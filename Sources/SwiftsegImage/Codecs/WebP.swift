import _CWebP

/// WebP through libwebp: lossy and lossless, with or without alpha; an animation's first frame (composited on
/// its canvas by libwebp's animation decoder); orientation from the `EXIF` chunk. Written lossless by default
/// (the same pixels back, the colour under fully transparent pixels included), or lossy at a quality.
enum WebPCodec: ImageCodec {
    static let name = "WebP"
    static let extensions = ["webp"]
    static let mediaType = "image/webp"
    /// The largest side a WebP file can hold.
    static let maximumSide = 16_383
    /// libwebp's lossless effort preset (0 fastest … 9 smallest) for lossless output.
    static let losslessLevel: Int32 = 0

    static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8)
    }

    static func features(_ bytes: [UInt8], name: String) throws -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else {
            throw ImageError(.unreadableImage, "\(name): corrupt or truncated WebP: \(describe(status))")
        }
        return features
    }

    /// The canvas size from the header (VP8, VP8L or VP8X), before anything is decoded.
    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        let f = try features(bytes, name: name)
        return (Int(f.width), Int(f.height))
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        let f = try features(bytes, name: name)
        let width = Int(f.width), height = Int(f.height), channels = f.has_alpha != 0 ? 4 : 3
        if f.has_animation != 0 {
            return (try firstFrame(bytes, name: name, width: width, height: height, channels: channels), 1)
        }
        if let denominator = scaleDenominator(width: width, height: height, minimumLongerSide: minimumLongerSide) {
            let image = try scaled(bytes, name: name, width: width / denominator, height: height / denominator, channels: channels)
            return (image, denominator)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let decoded = bytes.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                channels == 4
                    ? WebPDecodeRGBAInto(src.baseAddress, src.count, dst.baseAddress, dst.count, Int32(width * 4))
                    : WebPDecodeRGBInto(src.baseAddress, src.count, dst.baseAddress, dst.count, Int32(width * 3))
            }
        }
        guard decoded != nil else { throw ImageError(.unreadableImage, "\(name): corrupt or truncated WebP") }
        return (Image(width: width, height: height, channels: channels, pixels: pixels), 1)
    }

    /// With `minimumLongerSide`, the largest of 8, 4 and 2 that divides both sides and leaves the longer one that
    /// long: libwebp's scaler then averages each d×d block into one pixel, so the reduced picture is 1/d of the
    /// photo exactly (sides not divisible are decoded whole rather than stretched by a fraction). Unlike JPEG's
    /// DCT scaling the whole picture is still decoded, but not converted to RGB nor stored at full size: about
    /// half the time of a 12 MP file's full decode (PERF.md).
    static func scaleDenominator(width: Int, height: Int, minimumLongerSide: Int?) -> Int? {
        guard let side = minimumLongerSide else { return nil }
        return [8, 4, 2].first { width % $0 == 0 && height % $0 == 0 && max(width, height) / $0 >= side }
    }

    /// The still picture decoded by libwebp's scaler into `width × height`.
    static func scaled(_ bytes: [UInt8], name: String, width: Int, height: Int, channels: Int) throws -> Image {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImageError(.codecFailure, "\(name): cannot start the WebP decoder") }
        config.options.use_scaling = 1
        config.options.scaled_width = Int32(width)
        config.options.scaled_height = Int32(height)
        config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = bytes.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                config.output.u.RGBA.rgba = dst.baseAddress
                config.output.u.RGBA.stride = Int32(width * channels)
                config.output.u.RGBA.size = dst.count
                defer { WebPFreeDecBuffer(&config.output) }
                return WebPDecode(src.baseAddress, src.count, &config)
            }
        }
        guard status == VP8_STATUS_OK else {
            throw ImageError(.unreadableImage, "\(name): corrupt or truncated WebP: \(describe(status))")
        }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// An animation's first frame, as libwebp's animation decoder composites it on the canvas.
    static func firstFrame(_ bytes: [UInt8], name: String, width: Int, height: Int, channels: Int) throws -> Image {
        try bytes.withUnsafeBufferPointer { src in
            var data = WebPData(bytes: src.baseAddress, size: src.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else {
                throw ImageError(.codecFailure, "\(name): cannot start the WebP animation decoder")
            }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                throw ImageError(.unreadableImage, "\(name): corrupt WebP animation")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            var frame: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == width,
                  Int(info.canvas_height) == height, WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0,
                  let frame else {
                throw ImageError(.unreadableImage, "\(name): corrupt or truncated WebP animation")
            }
            let canvas = Image(width: width, height: height, channels: 4,
                               pixels: Array(UnsafeBufferPointer(start: frame, count: width * height * 4)))
            return channels == 4 ? canvas : canvas.rgb()
        }
    }

    /// The RIFF chunks after the `WEBP` tag: `body(fourCC, dataRange)` until it returns false.
    static func forEachChunk(_ b: [UInt8], _ body: (String, Range<Int>) -> Bool) {
        var i = 12
        while i + 8 <= b.count {
            let size = Int(b[i + 4]) | Int(b[i + 5]) << 8 | Int(b[i + 6]) << 16 | Int(b[i + 7]) << 24
            guard size <= b.count - i - 8 else { return }
            if !body(String(decoding: b[i..<(i + 4)], as: UTF8.self), (i + 8)..<(i + 8 + size)) { return }
            i += 8 + size + (size & 1)
        }
    }

    /// The orientation in the `EXIF` chunk (a TIFF structure, sometimes after an `Exif\0\0` prefix).
    static func orientation(_ b: [UInt8]) -> ExifOrientation? {
        var result: ExifOrientation?
        forEachChunk(b) { type, range in
            guard type == "EXIF" else { return true }
            let prefixed = b[range].starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0])
            result = ExifOrientation.fromTIFF(b, start: range.lowerBound + (prefixed ? 6 : 0), end: range.upperBound)
            return false
        }
        return result
    }

    /// The profile in the `ICCP` chunk (a VP8X file's), nil when there is none.
    static func iccProfile(_ b: [UInt8]) -> [UInt8]? {
        var result: [UInt8]?
        forEachChunk(b) { type, range in
            guard type == "ICCP" else { return true }
            result = range.isEmpty ? nil : Array(b[range])
            return false
        }
        return result
    }

    static func encode(_ image: Image, options: EncodingOptions, parts: ParallelParts) throws -> [UInt8] {
        try encode(image, quality: options.webpQuality)
    }

    /// `webp` with `profile` in an `ICCP` chunk (libwebpmux makes the file an extended one, VP8X).
    static func addingProfile(_ profile: [UInt8], to webp: [UInt8]) throws -> [UInt8] {
        try webp.withUnsafeBufferPointer { file in
            try profile.withUnsafeBufferPointer { icc in
                var bitstream = WebPData(bytes: file.baseAddress, size: file.count)
                guard let mux = WebPMuxCreate(&bitstream, 0) else { throw ImageError(.codecFailure, "cannot add the colour profile to the WebP") }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: icc.baseAddress, size: icc.count)
                var assembled = WebPData()
                defer { WebPDataClear(&assembled) }
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK, WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK,
                      let bytes = assembled.bytes else {
                    throw ImageError(.codecFailure, "cannot add the colour profile to the WebP")
                }
                return Array(UnsafeBufferPointer(start: bytes, count: assembled.size))
            }
        }
    }

    /// Lossless with `quality` nil (the exact colour under transparent pixels kept too; the fastest effort),
    /// else lossy at `quality` 0…100 with libwebp's other defaults (as cwebp and Pillow). Gray images are written
    /// as RGB (WebP has no gray mode).
    static func encode(_ image: Image, quality: Int?) throws -> [UInt8] {
        guard image.width <= maximumSide, image.height <= maximumSide else {
            throw ImageError(.unsupportedOutput, "WebP holds at most \(maximumSide)×\(maximumSide) pixels, not \(image.width)×\(image.height): write a .png")
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImageError(.codecFailure, "cannot start the WebP encoder") }
        if let quality {
            config.quality = Float(min(max(quality, 0), 100))
        } else {
            // Effort level 0 of 9: on the sample cutouts 1.6× PNG `fast`'s time for files 15 % smaller; the
            // libwebp default (cwebp's, Pillow's) takes 14× longer again for 17 % less (PERF.md).
            guard WebPConfigLosslessPreset(&config, losslessLevel) != 0 else {
                throw ImageError(.codecFailure, "cannot start the WebP encoder")
            }
            config.exact = 1
        }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageError(.codecFailure, "cannot start the WebP encoder") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = 1
        let source = image.channels == 1 ? image.rgb() : image
        let imported = source.pixels.withUnsafeBufferPointer { p in
            source.channels == 4 ? WebPPictureImportRGBA(&picture, p.baseAddress, Int32(source.width * 4))
                                 : WebPPictureImportRGB(&picture, p.baseAddress, Int32(source.width * 3))
        }
        guard imported != 0 else { throw ImageError(.codecFailure, "cannot encode WebP: out of memory") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { w in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(w)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let memory = writer.mem else {
            throw ImageError(.codecFailure, "cannot encode WebP: encoder error \(picture.error_code.rawValue)")
        }
        let webp = Array(UnsafeBufferPointer(start: memory, count: writer.size))
        // A gray image is stored as RGB here, so neither its gray profile nor any other describes the file.
        let profile = image.channels == 1 ? nil : image.fittingProfile
        return try profile.map { try addingProfile($0, to: webp) } ?? webp
    }

    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "the file ends early"
        default: "status \(status.rawValue)"
        }
    }
}
