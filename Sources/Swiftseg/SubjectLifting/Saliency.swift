/// Vision's saliency, from U²-Net's raw output: a heat map (the sigmoid d0 at the network's resolution) and
/// the boxes of its salient regions.
public struct SaliencyObservation: Sendable {
    /// d0, `size × size` values in 0…1, row-major; the network saw the whole image stretched to this square.
    public let values: [Float]
    public let size: Int
    /// Boxes of the connected regions with d0 ≥ threshold (at least 0.1 % of the map), normalized with
    /// Vision's bottom-left origin, so they apply to the image whatever its aspect ratio. Found on first use.
    public var salientObjects: [NormalizedRect] { boxes.value }
    private let boxes: OnDemand<[NormalizedRect]>

    init(values: [Float], size: Int, threshold: Double) {
        self.values = values
        self.size = size
        boxes = OnDemand { SaliencyObservation.salientBoxes(values, size: size, threshold: threshold) }
    }

    static func salientBoxes(_ values: [Float], size: Int, threshold: Double) -> [NormalizedRect] {
        let (labels, count, _) = ConnectedComponents.label(values.map { Double($0) >= threshold }, width: size,
                                                           height: size, minimumArea: max(1, size * size / 1000))
        var boxes = [PixelRect](repeating: PixelRect(x: 0, y: 0, width: 0, height: 0), count: count)
        for i in labels.indices where labels[i] != 0 {
            boxes[Int(labels[i]) - 1] = boxes[Int(labels[i]) - 1].union(PixelRect(x: i % size, y: i / size, width: 1, height: 1))
        }
        return boxes.map { VisionGeometry.normalizedRect(for: $0, width: size, height: size) }
    }

    /// The heat map as an 8-bit gray image of `width × height` (value × 255, Lanczos-resized).
    public func heatMap(width: Int, height: Int) -> Image {
        let px = values.map { UInt8(min(max($0, 0), 1) * 255 + 0.5) }
        return LanczosResampler.resize(Image(width: size, height: size, channels: 1, pixels: px), width: width, height: height)
    }
}
