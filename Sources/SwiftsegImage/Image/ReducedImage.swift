/// A photo decoded only as far as some work needs: `image` is the photo, turned upright, at 1/`denominator` of
/// its full size (1, 2, 4 or 8; JPEGs are decoded smaller in the DCT itself, other formats in full), with
/// what it takes to report results in the full photo's pixels. Rectangle detection and classification need a
/// few hundred to a thousand pixels of a 12-megapixel photo, and decoding all of it costs more than they do.
///
/// ```swift
/// let photo = try ReducedImage(contentsOfFile: "IMG_0042.jpg", minimumLongerSide: 1000)  // 4032×3024 → 1008×756
/// let corner = photo.photoPoint(PixelPoint(x: 500, y: 300))                            // in the 4032×3024 photo
/// ```
public struct ReducedImage: Sendable {
    /// The decoded picture, upright (EXIF orientation applied unless the decoding options say otherwise).
    public let image: Image
    /// The full photo's size, upright.
    public let fullWidth: Int
    public let fullHeight: Int
    /// Full-photo pixels per `image` pixel along each axis.
    public let denominator: Int
    /// Where `image`'s origin lies in the full photo: 0 unless the photo was turned upright from a stored side
    /// that the reduced size rounds up (libjpeg's scaled sizes round up, so the last pixel of a row covers less
    /// of the photo; turned, that pixel can come first).
    let origin: PixelPoint

    /// A photo already decoded in full.
    public init(_ image: Image) {
        self.image = image
        fullWidth = image.width
        fullHeight = image.height
        denominator = 1
        origin = PixelPoint(x: 0, y: 0)
    }

    /// A stored (not yet upright) picture at 1/`denominator` of a stored `fullWidth × fullHeight` photo, turned by
    /// `orientation`.
    init(stored: Image, fullWidth: Int, fullHeight: Int, denominator: Int, orientation: ExifOrientation) {
        image = orientation == .up ? stored : stored.applying(orientation)
        self.fullWidth = orientation.swapsDimensions ? fullHeight : fullWidth
        self.fullHeight = orientation.swapsDimensions ? fullWidth : fullHeight
        self.denominator = denominator
        // Upright full = d · upright reduced + origin, read off where the stored origin goes under each.
        let zero = PixelPoint(x: 0, y: 0)
        origin = orientation.uprightPoint(zero, width: fullWidth, height: fullHeight)
            - orientation.uprightPoint(zero, width: stored.width, height: stored.height) * Double(denominator)
    }

    /// Reads an image file (any ``ImageFormat``), a JPEG at the smallest DCT scale (1/8, 1/4, 1/2) whose longer side is still at
    /// least `minimumLongerSide` (a WebP likewise, through libwebp's scaler, where the scale divides both sides); limits and errors as `Image(contentsOfFile:options:)`.
    public init(contentsOfFile path: String, options: DecodingOptions = DecodingOptions(), minimumLongerSide: Int) throws {
        self = try Image.decode(try Image.fileBytes(path, options: options), name: path, options: options,
                                minimumLongerSide: minimumLongerSide)
    }

    /// The same from encoded bytes; `name` is used in error messages.
    public init(encoded bytes: [UInt8], name: String, options: DecodingOptions = DecodingOptions(),
                minimumLongerSide: Int) throws {
        self = try Image.decode(bytes, name: name, options: options, minimumLongerSide: minimumLongerSide)
    }

    /// A point of `image` (pixel-edge coordinates, top-left origin) in the full photo's pixels.
    public func photoPoint(_ p: PixelPoint) -> PixelPoint { p * Double(denominator) + origin }
}
