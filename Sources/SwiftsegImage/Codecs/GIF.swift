import _CGIF

/// GIF through giflib: the first frame (the rest of an animation is not read), placed on the logical screen as
/// Pillow places it — the canvas is the screen, grown to hold the frame; outside the frame, the transparent
/// index where the frame has one, else palette index 0. RGBA when the first frame's graphic control extension
/// names a transparent index (alpha 0 there), else RGB; interlaced frames de-interlaced; the ICC profile of an
/// `ICCRGBG1` application extension. GIF has no orientation. Read only.
enum GIFCodec: OneOpeningCodec, ReadOnlyCodec {
    static let name = "GIF"
    static let extensions = ["gif"]
    static let mediaType = "image/gif"

    static func matches(_ b: [UInt8]) -> Bool {
        b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8))
    }

    /// What precedes the first frame's pixels.
    struct Frame {
        var canvasWidth = 0, canvasHeight = 0
        var left = 0, top = 0, width = 0, height = 0
        var interlaced = false
        /// The transparent index of the first frame's graphic control extension.
        var transparent: Int?
        var profile: [UInt8]?
    }

    static func failure(_ name: String, _ code: Int32) -> ImageError {
        let text = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        return ImageError(.unreadableImage, "\(name): corrupt or truncated GIF: \(text.prefix(1).lowercased() + text.dropFirst())")
    }

    /// Opens the GIF and reads its records up to the first image's descriptor; `body` gets the open file, ready
    /// for that image's rows, and what came before them.
    static func withFirstFrame<T>(_ bytes: [UInt8], name: String,
                                  _ body: (UnsafeMutablePointer<GifFileType>, Frame) throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { data in
            var memory = swiftseg_gif_memory(data: data.baseAddress, size: data.count, position: 0)
            return try withUnsafeMutablePointer(to: &memory) { m in
                var error: Int32 = 0
                guard let gif = swiftseg_gif_open(m, &error) else { throw failure(name, error) }
                defer { var closing: Int32 = 0; DGifCloseFile(gif, &closing) }
                var frame = Frame()
                records: while true {
                    var type = UNDEFINED_RECORD_TYPE
                    guard DGifGetRecordType(gif, &type) == GIF_OK else { throw failure(name, gif.pointee.Error) }
                    switch type {
                    case IMAGE_DESC_RECORD_TYPE:
                        guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(name, gif.pointee.Error) }
                        break records
                    case EXTENSION_RECORD_TYPE:
                        var code: Int32 = 0
                        var block: UnsafeMutablePointer<GifByteType>?
                        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(name, gif.pointee.Error) }
                        // Each block starts with its length.
                        if let b = block, code == GRAPHICS_EXT_FUNC_CODE, b[0] >= 4 {
                            frame.transparent = b[1] & 1 != 0 ? Int(b[4]) : nil
                        }
                        let isProfile = block.map { b in
                            code == APPLICATION_EXT_FUNC_CODE && b[0] == 11
                                && Array(UnsafeBufferPointer(start: b + 1, count: 11)) == Array("ICCRGBG1012".utf8)
                        } ?? false
                        var profile: [UInt8] = []
                        while block != nil {
                            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(name, gif.pointee.Error) }
                            if isProfile, let b = block { profile += UnsafeBufferPointer(start: b + 1, count: Int(b[0])) }
                        }
                        if isProfile, !profile.isEmpty { frame.profile = profile }
                    case TERMINATE_RECORD_TYPE:
                        throw ImageError(.unreadableImage, "\(name): corrupt GIF: it holds no image")
                    default:
                        throw ImageError(.unreadableImage, "\(name): corrupt GIF: an unknown record")
                    }
                }
                let image = gif.pointee.Image
                frame.left = Int(image.Left); frame.top = Int(image.Top)
                frame.width = Int(image.Width); frame.height = Int(image.Height)
                frame.interlaced = image.Interlace
                frame.canvasWidth = max(Int(gif.pointee.SWidth), frame.left + frame.width)
                frame.canvasHeight = max(Int(gif.pointee.SHeight), frame.top + frame.height)
                guard frame.width > 0, frame.height > 0 else {
                    throw ImageError(.unreadableImage, "\(name): image has no pixels (\(frame.width)×\(frame.height))")
                }
                return try body(gif, frame)
            }
        }
    }

    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        try withFirstFrame(bytes, name: name) { _, frame in (frame.canvasWidth, frame.canvasHeight) }
    }

    /// The first frame on its canvas, with its profile, from one opening of the file.
    static func decodePicture(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              minimumLongerSide: Int?) throws -> (image: Image, denominator: Int, orientation: ExifOrientation?) {
        try withFirstFrame(bytes, name: name) { gif, f in
            try Image.checkLimits(width: f.canvasWidth, height: f.canvasHeight, name: name, limits: options)
            // The frame's palette, its own or the file's; none (allowed by the format): the grays, as Pillow reads it.
            var palette = [UInt8](repeating: 0, count: 3 * 256)
            if let map = gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap, let colours = map.pointee.Colors {
                for i in 0..<min(256, Int(map.pointee.ColorCount)) {
                    palette[3 * i] = colours[i].Red; palette[3 * i + 1] = colours[i].Green; palette[3 * i + 2] = colours[i].Blue
                }
            } else {
                for i in 0..<256 { palette[3 * i] = UInt8(i); palette[3 * i + 1] = UInt8(i); palette[3 * i + 2] = UInt8(i) }
            }
            // Rows in the order they are stored: interlaced frames in four passes.
            var order: [Int] = []
            if f.interlaced {
                for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] { order += stride(from: start, to: f.height, by: step) }
            } else {
                order = Array(0..<f.height)
            }
            let background = UInt8(f.transparent ?? 0)
            var indices = [UInt8](repeating: background, count: f.canvasWidth * f.canvasHeight)
            var line = [GifPixelType](repeating: 0, count: f.width)
            for y in order {
                guard line.withUnsafeMutableBufferPointer({ DGifGetLine(gif, $0.baseAddress, Int32(f.width)) }) == GIF_OK else {
                    throw failure(name, gif.pointee.Error)
                }
                let at = (f.top + y) * f.canvasWidth + f.left
                indices.replaceSubrange(at..<(at + f.width), with: line)
            }
            let channels = f.transparent == nil ? 3 : 4
            var pixels = [UInt8](repeating: 255, count: indices.count * channels)
            for (i, index) in indices.enumerated() {
                let p = Int(index)
                pixels[channels * i] = palette[3 * p]; pixels[channels * i + 1] = palette[3 * p + 1]
                pixels[channels * i + 2] = palette[3 * p + 2]
                if channels == 4, p == f.transparent { pixels[4 * i + 3] = 0 }
            }
            let image = Image(width: f.canvasWidth, height: f.canvasHeight, channels: channels, pixels: pixels)
            return (image.withProfile(f.profile), 1, nil)
        }
    }

    static func orientation(_ bytes: [UInt8]) -> ExifOrientation? { nil }

    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        (try? withFirstFrame(bytes, name: "") { _, frame in frame.profile }) ?? nil
    }
}
