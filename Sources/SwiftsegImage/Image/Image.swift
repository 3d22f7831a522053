/// An 8-bit image in memory: `channels` interleaved samples per pixel (1 = gray, 3 = RGB, 4 = RGBA), rows
/// top to bottom, no padding; and the colour profile its values are in, when its file had one. Two images are
/// equal when their pixels are (the profile is not compared).
///
/// ```swift
/// let photo = try Image(contentsOfFile: "photo.jpg")
/// print(photo.width, photo.height, photo.channels)
/// ```
public struct Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public var pixels: [UInt8]
    /// The ICC profile the pixel values are in, as the file it was decoded from carried it (nil: none given,
    /// sRGB by convention). Decoding keeps it, turns and conversions of the same picture keep it, and what
    /// swiftseg makes from a photo (cutouts, composites, crops, drawings) takes the photo's, so every output
    /// format that can hold a profile (PNG, JPEG, WebP) carries it: viewers then show the colours the camera
    /// meant. The pixel values themselves are never converted.
    public var iccProfile: [UInt8]?

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        precondition([1, 3, 4].contains(channels), "1, 3 or 4 channels")
        precondition(pixels.count == width * height * channels, "pixel count does not match dimensions")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public static func == (a: Image, b: Image) -> Bool {
        a.width == b.width && a.height == b.height && a.channels == b.channels && a.pixels == b.pixels
    }

    /// The same image in the profile `icc` (the pixels untouched).
    public func withProfile(_ icc: [UInt8]?) -> Image {
        var copy = self
        copy.iccProfile = icc
        return copy
    }

    /// The profile, when it can describe this image's channels: an RGB profile for RGB(A) images, a gray one for
    /// gray images (the ICC header's colour space); nil otherwise (a CMYK JPEG's profile once its pixels are
    /// RGB, an RGB photo's profile on a gray mask).
    public var fittingProfile: [UInt8]? {
        guard let icc = iccProfile, icc.count >= 128 else { return nil }
        let space = String(decoding: icc[16..<20], as: UTF8.self)
        return (channels == 1 ? space == "GRAY" : space == "RGB ") ? icc : nil
    }

    public var hasAlpha: Bool { channels == 4 }

    /// The RGB image (gray replicated, alpha dropped), as rembg's `img.convert("RGB")` does.
    public func rgb() -> Image {
        if channels == 3 { return self }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeBufferPointer { src in
            for i in 0..<(width * height) {
                for c in 0..<3 { out[3 * i + c] = channels == 1 ? src[i] : src[4 * i + c] }
            }
        }
        return Image(width: width, height: height, channels: 3, pixels: out).withProfile(iccProfile)
    }
}
