/// An 8-bit image in memory: `channels` interleaved samples per pixel (1 = gray, 3 = RGB, 4 = RGBA), rows
/// top to bottom, no padding.
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

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        precondition([1, 3, 4].contains(channels), "1, 3 or 4 channels")
        precondition(pixels.count == width * height * channels, "pixel count does not match dimensions")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
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
        return Image(width: width, height: height, channels: 3, pixels: out)
    }
}
