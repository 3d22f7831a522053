import Foundation
import _CPNG
import _CTurboJPEG

/// How images are read: limits checked against the file and the header before any pixel memory is
/// allocated, and whether EXIF orientation is applied.
public struct DecodingOptions: Sendable, Equatable {
    /// Largest width × height accepted (default 100 megapixels).
    public var maxPixels: Int = 100_000_000
    /// Largest width or height accepted (default 65 535).
    public var maxDimension: Int = 65_535
    /// Largest encoded file accepted (default 512 MiB).
    public var maxFileBytes: Int = 512 << 20
    /// Turn the picture upright by its EXIF orientation (default true), so masks and cutouts match what
    /// viewers show.
    public var appliesOrientation = true
    /// Which code reads PNG files (default ``PNGReaderChoice/swiftseg``); the pixels are the same either way.
    public var pngReader: PNGReaderChoice = .swiftseg

    public init(maxPixels: Int = 100_000_000, maxDimension: Int = 65_535, maxFileBytes: Int = 512 << 20,
                appliesOrientation: Bool = true, pngReader: PNGReaderChoice = .swiftseg) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxFileBytes = maxFileBytes
        self.appliesOrientation = appliesOrientation
        self.pngReader = pngReader
    }
}

/// Which code reads PNG files (``DecodingOptions/pngReader``). Both give the same pixels and, for a file they
/// refuse, the same error (libpng's); `swiftseg-bench --decode` times them side by side.
///
/// ```swift
/// let image = try Image(contentsOfFile: "shot.png", options: DecodingOptions(pngReader: .libpng))
/// ```
public enum PNGReaderChoice: String, Sendable, Equatable, CaseIterable {
    /// swiftseg's own reader for 8-bit gray, RGB, gray + alpha and RGBA files, not interlaced, with no palette,
    /// tRNS, gAMA or cHRM chunk (most photos and product shots); libpng for every other file.
    case swiftseg
    /// libpng's simplified API for every file.
    case libpng
}

extension Image {
    /// Reads a PNG or JPEG file.
    ///
    /// ```swift
    /// let image = try Image(contentsOfFile: "photo.jpg")
    /// ```
    public init(contentsOfFile path: String, options: DecodingOptions = DecodingOptions()) throws {
        try self.init(encoded: try Image.fileBytes(path, options: options), name: path, options: options)
    }

    /// A file's bytes, refused over the size limit before they are read; errors as `init(contentsOfFile:)`.
    public static func fileBytes(_ path: String, options: DecodingOptions) throws -> [UInt8] {
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > options.maxFileBytes {
            throw ImageError(.tooLarge, "\(path): file is \(size) bytes, over the limit of \(options.maxFileBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
                throw ImageError(.fileSystem, isDir.boolValue ? "\(path): is a directory" : "\(path): cannot read file (permission denied?)")
            }
            throw ImageError(.fileSystem, "\(path): no such file")
        }
        return [UInt8](data)
    }

    /// Decodes PNG or JPEG bytes; `name` is used in error messages. PNGs with alpha (or tRNS) decode to RGBA,
    /// gray ones to gray, others to RGB (16-bit samples are reduced to 8, palettes expanded, interlacing
    /// undone); JPEGs (baseline or progressive, colour, grayscale or CMYK) to RGB, CMYK as Pillow converts it.
    /// The EXIF orientation is applied unless `options` say otherwise.
    public init(encoded bytes: [UInt8], name: String, options: DecodingOptions = DecodingOptions()) throws {
        self = try Image.decode(bytes, name: name, options: options, minimumLongerSide: nil).image
    }

    /// Decodes at the scale `minimumLongerSide` allows (nil: full size), then turns the picture upright.
    static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> ReducedImage {
        if bytes.isEmpty { throw ImageError(.unreadableImage, "\(name): file is empty") }
        if bytes.count > options.maxFileBytes {
            throw ImageError(.tooLarge, "\(name): \(bytes.count) bytes, over the limit of \(options.maxFileBytes)")
        }
        let image: Image, fullWidth: Int, fullHeight: Int, denominator: Int
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            image = try Image.decodePNG(bytes, name: name, limits: options)
            (fullWidth, fullHeight, denominator) = (image.width, image.height, 1)
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            (image, fullWidth, fullHeight, denominator) = try Image.decodeJPEG(bytes, name: name, limits: options,
                                                                               minimumLongerSide: minimumLongerSide)
        } else {
            throw ImageError(.unreadableImage, "\(name): not a PNG or JPEG image")
        }
        return ReducedImage(stored: image, fullWidth: fullWidth, fullHeight: fullHeight, denominator: denominator,
                            orientation: options.appliesOrientation ? ExifOrientation.read(from: bytes) ?? .up : .up)
    }

    static func checkLimits(width: Int, height: Int, name: String, limits: DecodingOptions) throws {
        guard width > 0, height > 0 else { throw ImageError(.unreadableImage, "\(name): image has no pixels (\(width)×\(height))") }
        if width > limits.maxDimension || height > limits.maxDimension || width * height > limits.maxPixels {
            throw ImageError(.tooLarge, "\(name): image is \(width)×\(height), over the limit of \(limits.maxPixels) pixels / \(limits.maxDimension) per side")
        }
    }

    static func decodePNG(_ bytes: [UInt8], name: String, limits: DecodingOptions) throws -> Image {
        // Size from IHDR first, so an absurd header is refused before libpng reads (or allocates) anything.
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw ImageError(.unreadableImage, "\(name): corrupt PNG: no image header")
        }
        func be32(_ i: Int) -> Int { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        try checkLimits(width: be32(16), height: be32(20), name: name, limits: limits)
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
        try checkLimits(width: width, height: height, name: name, limits: limits)
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

    /// The JPEG at full size, or with `minimumLongerSide` at the smallest of libjpeg-turbo's DCT scales (1/8,
    /// 1/4, 1/2) whose longer side is still that long: the decoder then skips most of the work (and memory) of
    /// the full picture. Returns the picture, the full size and the scale's denominator.
    static func decodeJPEG(_ bytes: [UInt8], name: String, limits: DecodingOptions,
                           minimumLongerSide: Int? = nil) throws -> (image: Image, fullWidth: Int, fullHeight: Int, denominator: Int) {
        guard let handle = tjInitDecompress() else { throw ImageError(.codecFailure, "\(name): cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        func message() -> String { String(cString: tjGetErrorStr2(handle)) }
        var fullWidth: Int32 = 0, fullHeight: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &fullWidth, &fullHeight, &subsampling, &colorspace)
        }
        guard header == 0 else { throw ImageError(.unreadableImage, "\(name): corrupt JPEG: \(message())") }
        try checkLimits(width: Int(fullWidth), height: Int(fullHeight), name: name, limits: limits)
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
        return (Image(width: Int(width), height: Int(height), channels: 3, pixels: pixels),
                Int(fullWidth), Int(fullHeight), denominator)
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
}
