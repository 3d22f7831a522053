import Foundation

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
    /// Reads an image file in any of the ``ImageFormat``s.
    ///
    /// ```swift
    /// let image = try Image(contentsOfFile: "photo.jpg")
    /// ```
    public init(contentsOfFile path: String, options: DecodingOptions = DecodingOptions()) throws {
        try self.init(encoded: try Image.fileBytes(path, options: options), name: path, options: options)
    }

    /// A file's bytes, refused over the size limit before they are read; errors as `init(contentsOfFile:)`.
    public static func fileBytes(_ path: String, options: DecodingOptions) throws -> [UInt8] {
        // Read straight into the array, not through Data and a copy: a 12 MP photo's megabyte is touched once
        // (page faults are a tenth of a small photo's whole run).
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw ImageError(.fileSystem, code == ENOENT || code == ENOTDIR ? "\(path): no such file"
                             : "\(path): cannot read file (\(String(cString: strerror(code))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ImageError(.fileSystem, "\(path): cannot read file") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ImageError(.fileSystem, "\(path): is a directory") }
        func tooLarge(_ size: Int) -> ImageError {
            ImageError(.tooLarge, "\(path): file is \(size) bytes, over the limit of \(options.maxFileBytes)")
        }
        if Int(info.st_size) > options.maxFileBytes { throw tooLarge(Int(info.st_size)) }
        var failure: Int32 = 0
        /// Reads into `base` until the end of the file, an error or `room` bytes; how many it read.
        func fill(_ base: UnsafeMutablePointer<UInt8>, _ room: Int) -> Int {
            var total = 0
            while total < room {
                let n = read(fd, base + total, room - total)
                if n > 0 { total += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno }
                break
            }
            return total
        }
        // The size stat gives and one byte more (the end is then seen in one pass); a pipe or a file that grew
        // goes on in doubling chunks, to the limit.
        var chunk = max(Int(info.st_size) + 1, 1 << 16)
        var bytes = [UInt8](unsafeUninitializedCapacity: chunk) { buffer, count in count = fill(buffer.baseAddress!, chunk) }
        var last = bytes.count
        while failure == 0 && last == chunk {
            if bytes.count > options.maxFileBytes { throw tooLarge(bytes.count) }
            chunk *= 2
            let more = [UInt8](unsafeUninitializedCapacity: chunk) { buffer, count in count = fill(buffer.baseAddress!, chunk) }
            last = more.count
            bytes += more
        }
        if failure != 0 { throw ImageError(.fileSystem, "\(path): cannot read file (\(String(cString: strerror(failure))))") }
        if bytes.count > options.maxFileBytes { throw tooLarge(bytes.count) }
        return bytes
    }

    /// Decodes the bytes of any ``ImageFormat``; `name` is used in error messages. PNGs with alpha (or tRNS) decode
    /// to RGBA, gray ones to gray, others to RGB (16-bit samples are reduced to 8, palettes expanded, interlacing
    /// undone); JPEGs (baseline or progressive, colour, grayscale or CMYK) to RGB, CMYK as Pillow converts it;
    /// WebPs (lossy or lossless; an animation's first frame), HEICs and AVIFs (8-bit) and TIFFs (the first page) to
    /// RGBA when they have alpha, else RGB (gray TIFFs to gray). The EXIF orientation (TIFF's Orientation tag) is
    /// applied unless `options` say otherwise; a HEIF's own turns and crop always are. The file's ICC profile, if
    /// any, comes along in ``Image/iccProfile``.
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
        guard let format = ImageFormat(sniffing: bytes) else {
            throw ImageError(.unreadableImage, "\(name): not a \(ImageFormat.names()) image")
        }
        let codec = format.codec
        let (fullWidth, fullHeight) = try codec.probe(bytes, name: name, options: options)
        try checkLimits(width: fullWidth, height: fullHeight, name: name, limits: options)
        // The stored picture with its profile (the turn below keeps it) and its orientation.
        let (image, denominator, orientation) = try codec.decodePicture(bytes, name: name, options: options,
                                                                        minimumLongerSide: minimumLongerSide)
        // At full scale the picture is the truth (a damaged HEIF's header can promise another size than its
        // decoder makes); reduced (JPEG's DCT scaling, WebP's scaler), the full size is the header's.
        if denominator == 1 { try checkLimits(width: image.width, height: image.height, name: name, limits: options) }
        return ReducedImage(stored: image, fullWidth: denominator == 1 ? image.width : fullWidth,
                            fullHeight: denominator == 1 ? image.height : fullHeight, denominator: denominator,
                            orientation: options.appliesOrientation ? orientation ?? .up : .up)
    }

    static func checkLimits(width: Int, height: Int, name: String, limits: DecodingOptions) throws {
        guard width > 0, height > 0 else { throw ImageError(.unreadableImage, "\(name): image has no pixels (\(width)×\(height))") }
        if width > limits.maxDimension || height > limits.maxDimension || width * height > limits.maxPixels {
            throw ImageError(.tooLarge, "\(name): image is \(width)×\(height), over the limit of \(limits.maxPixels) pixels / \(limits.maxDimension) per side")
        }
    }
}
