/// A single-channel float image (rows top to bottom, no padding): the luminance that classic vision works on.
///
/// ```swift
/// let gray = GrayPlane(luminanceOf: photo)          // 0…255, Rec. 601 weights, as Pillow's convert("L")
/// let segments = LineSegmentDetector().detect(gray)
/// ```
public struct GrayPlane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(width > 0 && height > 0 && values.count == width * height, "plane size does not match")
        self.width = width
        self.height = height
        self.values = values
    }

    /// The luminance 0.299 R + 0.587 G + 0.114 B (gray images as they are; alpha ignored).
    public init(luminanceOf image: Image) {
        let n = image.width * image.height, c = image.channels
        var out = [Float](repeating: 0, count: n)
        image.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                if c == 1 {
                    for i in 0..<n { o[i] = Float(px[i]) }
                } else {
                    for i in 0..<n {
                        o[i] = 0.299 * Float(px[c * i]) + 0.587 * Float(px[c * i + 1]) + 0.114 * Float(px[c * i + 2])
                    }
                }
            }
        }
        self.init(width: image.width, height: image.height, values: out)
    }

    /// Each colour channel as a plane (one plane for a gray image; alpha ignored).
    public static func channels(of image: Image) -> [GrayPlane] {
        let n = image.width * image.height, c = image.channels
        let count = c == 1 ? 1 : 3
        return (0..<count).map { k in
            var out = [Float](repeating: 0, count: n)
            image.pixels.withUnsafeBufferPointer { px in
                for i in 0..<n { out[i] = Float(px[c * i + k]) }
            }
            return GrayPlane(width: image.width, height: image.height, values: out)
        }
    }
}
