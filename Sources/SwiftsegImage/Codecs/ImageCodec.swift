import Foundation

/// One image file format: its signature, a header probe that gives the size before any pixel memory is
/// allocated, its decoder, where its EXIF orientation lives, and its encoder. One file per format in this folder
/// (PNG.swift, JPEG.swift, WebP.swift, HEIF.swift, TIFF.swift, BMP.swift, GIF.swift); ``ImageFormat`` lists
/// them, and everything that depends on which formats exist (decoding, orientation, the service's 415, a batch's file extensions, the fuzz harness, help texts)
/// reads that list.
protocol ImageCodec {
    /// The format's name in messages and help texts ("PNG").
    static var name: String { get }
    /// File name extensions, lower case, the usual one first.
    static var extensions: [String] { get }
    /// The media type of its files ("image/png").
    static var mediaType: String { get }
    /// Whether swiftseg writes it (`encode` throws `unsupportedOutput` otherwise).
    static var isWritable: Bool { get }
    /// Whether `bytes` start the way this format's files start.
    static func matches(_ bytes: [UInt8]) -> Bool
    /// The size `decode` will give at full scale, read from the header alone (corrupt headers throw): the stored
    /// size, for HEIF after its own turns and crop.
    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int)
    /// The stored picture (before any orientation is applied), after the probe's size passed the limits:
    /// full size, or smaller when the format can decode smaller (JPEG's DCT scales, WebP's scaler) and `minimumLongerSide`
    /// allows it; `denominator` is how many times smaller.
    static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int)
    /// The EXIF orientation stored in the file, nil when there is none or it is malformed.
    static func orientation(_ bytes: [UInt8]) -> ExifOrientation?
    /// The ICC profile stored in the file, nil when there is none or it is malformed.
    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]?
    /// The image as this format's bytes (gray, RGB or RGBA, 8-bit), with its ``Image/fittingProfile`` where the
    /// format holds one.
    static func encode(_ image: Image, options: EncodingOptions, parts: ParallelParts) throws -> [UInt8]
    /// `decode` with the file's ICC profile in the image and its EXIF orientation beside it: what the decoding
    /// seam calls. By default the three functions one after the other; formats whose container must be opened
    /// for each (HEIF, TIFF) read all three in one opening.
    static func decodePicture(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              minimumLongerSide: Int?) throws -> (image: Image, denominator: Int, orientation: ExifOrientation?)
}

extension ImageCodec {
    static var isWritable: Bool { true }

    static func decodePicture(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              minimumLongerSide: Int?) throws -> (image: Image, denominator: Int, orientation: ExifOrientation?) {
        var (image, denominator) = try decode(bytes, name: name, options: options, minimumLongerSide: minimumLongerSide)
        image.iccProfile = iccProfile(bytes)
        return (image, denominator, orientation(bytes))
    }
}

/// A format whose file is opened once for pixels, profile and orientation together (TIFF, GIF): it implements
/// `decodePicture`, and `decode` is that without the profile.
protocol OneOpeningCodec: ImageCodec {}

extension OneOpeningCodec {
    static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        let picture = try decodePicture(bytes, name: name, options: options, minimumLongerSide: minimumLongerSide)
        return (picture.image.withProfile(nil), picture.denominator)
    }
}

/// A format swiftseg reads and does not write (HEIC, AVIF, TIFF, BMP, GIF): `encode` refuses with the formats
/// that are written.
protocol ReadOnlyCodec: ImageCodec {}

extension ReadOnlyCodec {
    static var isWritable: Bool { false }
    static func encode(_ image: Image, options: EncodingOptions, parts: ParallelParts) throws -> [UInt8] {
        throw ImageError(.unsupportedOutput, "swiftseg reads \(name) but does not write it: write a \(ImageFormat.writableExtensions)")
    }
}

/// The image file formats swiftseg reads, and of them those it writes (``isWritable``: PNG, JPEG, WebP).
///
/// ```swift
/// ImageFormat(path: "out.webp")                 // .webp: what a file's extension names
/// ImageFormat(sniffing: bytes)                  // .heic: what a file's first bytes say it is
/// ImageFormat.names()                           // "PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF"
/// ```
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp, heic, avif, tiff, bmp, gif

    var codec: any ImageCodec.Type {
        switch self {
        case .png: PNGCodec.self
        case .jpeg: JPEGCodec.self
        case .webp: WebPCodec.self
        case .heic: HEICCodec.self
        case .avif: AVIFCodec.self
        case .tiff: TIFFCodec.self
        case .bmp: BMPCodec.self
        case .gif: GIFCodec.self
        }
    }

    /// Whether swiftseg writes this format (PNG, JPEG, WebP); the others are read only.
    public var isWritable: Bool { codec.isWritable }
    /// The formats swiftseg writes.
    public static let writable = allCases.filter(\.isWritable)

    /// The format's name as messages and help texts spell it ("PNG", "JPEG", "WebP").
    public var name: String { codec.name }
    /// File name extensions, lower case, the usual one first ("jpg", "jpeg").
    public var extensions: [String] { codec.extensions }
    /// The media type of its files ("image/webp").
    public var mediaType: String { codec.mediaType }

    /// The format a path's extension names (case-insensitive: .png, .jpg, .jpeg, .webp, .heic, .heif, .avif, .tif,
    /// .tiff, .bmp, .dib, .gif), or nil.
    public init?(path: String) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let format = ImageFormat.allCases.first(where: { $0.extensions.contains(ext) }) else { return nil }
        self = format
    }

    /// The format `bytes` are in, by their signature, or nil when they are in none swiftseg reads.
    public init?(sniffing bytes: [UInt8]) {
        guard let format = ImageFormat.allCases.first(where: { $0.codec.matches(bytes) }) else { return nil }
        self = format
    }

    /// Every extension of every format, lower case (what a batch picks up in folders).
    public static let allExtensions: Set<String> = Set(allCases.flatMap(\.extensions))

    /// The formats' names for messages: "PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP or GIF" (`writable`: "PNG, JPEG or WebP").
    public static func names(_ formats: [ImageFormat] = allCases) -> String { spelled(formats.map(\.name)) }

    /// The written formats' usual extensions for messages: ".png, .jpg or .webp".
    public static var writableExtensions: String { spelled(writable.map { "." + $0.extensions[0] }) }

    /// "a, b or c".
    static func spelled(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
    }
}
