import Dispatch

/// Finds the subjects in a photo: Vision's `VNGenerateForegroundInstanceMaskRequest` for Linux.
///
/// The network's soft mask (rembg-compatible, at the image's resolution) is thresholded, and each
/// 8-connected component of at least `minimumArea` of the image becomes one instance: touching objects are
/// one subject, separate ones are separate.
///
/// ```swift
/// let segmenter = try Segmenter()
/// let photo = try Image(contentsOfFile: "cups.jpg")
/// let observation = ForegroundInstanceMaskRequest().perform(on: photo, using: segmenter)
/// print(observation.allInstances)                            // [1, 2, 3]
/// let tapped = try observation.instances(forTapAt: NormalizedPoint(x: 0.3, y: 0.6))
/// let cutout = try observation.maskedImage(ofInstances: tapped, from: photo, croppedToInstancesExtent: true)
/// ```
public struct ForegroundInstanceMaskRequest: Sendable {
    /// Soft-mask level (0…1) at or above which a pixel is foreground. Default 0.5.
    public var threshold: Double = 0.5
    /// Smallest instance, as a fraction of the image's pixels; smaller components are specks, not
    /// subjects. Default 0.001 (0.1 %).
    public var minimumArea: Double = 0.001
    /// Apply rembg's mask post-processing (morphological open, blur, re-threshold) first.
    public var postProcess = false

    public init(threshold: Double = 0.5, minimumArea: Double = 0.001, postProcess: Bool = false) {
        self.threshold = threshold
        self.minimumArea = minimumArea
        self.postProcess = postProcess
    }

    /// Runs the network once and extracts the instances.
    public func perform(on image: Image, using segmenter: Segmenter) -> ForegroundInstanceMaskObservation {
        observation(for: segmenter.foregroundMask(for: image))
    }

    /// Extracts instances from an already computed mask (no network run).
    public func observation(for mask: ForegroundMask) -> ForegroundInstanceMaskObservation {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let soft = postProcess ? MaskFilters.rembgPostProcess(mask.image) : mask.image
        let w = soft.width, h = soft.height
        // A pixel is foreground when value/255 ≥ threshold (a cut above 255 leaves none).
        let cut = Int((threshold * 255).rounded(.up))
        let minPixels = max(1, Int((minimumArea * Double(w * h)).rounded(.up)))
        let (labels, count, areas) = cut > 255
            ? ([UInt32](repeating: 0, count: w * h), 0, [])
            : ConnectedComponents.label(soft.pixels, atLeast: UInt8(max(0, cut)), width: w, height: h,
                                        minimumArea: minPixels)
        var bounds = [(x0: Int, y0: Int, x1: Int, y1: Int)](repeating: (Int.max, Int.max, -1, -1), count: count)
        var confidence = [Int](repeating: 0, count: count)
        labels.withUnsafeBufferPointer { labels in
            soft.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<h {
                    for x in 0..<w {
                        let l = Int(labels[y &* w &+ x])
                        guard l > 0 else { continue }
                        var b = bounds[l &- 1]
                        b.x0 = min(b.x0, x); b.y0 = min(b.y0, y); b.x1 = max(b.x1, x); b.y1 = max(b.y1, y)
                        bounds[l &- 1] = b
                        confidence[l &- 1] &+= Int(pixels[y &* w &+ x])
                    }
                }
            }
        }
        let instances = (0..<count).map { i -> InstanceInfo in
            let b = bounds[i]
            let rect = PixelRect(x: b.x0, y: b.y0, width: b.x1 - b.x0 + 1, height: b.y1 - b.y0 + 1)
            return InstanceInfo(index: i + 1, bounds: rect,
                                normalizedBounds: VisionGeometry.normalizedRect(for: rect, width: w, height: h),
                                area: areas[i], score: Double(confidence[i]) / Double(areas[i]) / 255)
        }
        // Who owns the soft edge is only needed to split the mask between instances: grown on first use.
        let owners = OnDemand { ConnectedComponents.grow(labels, into: soft.pixels, width: w, height: h) }
        var timings = mask.timings
        timings.instancesMs = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        return ForegroundInstanceMaskObservation(
            softMask: soft, instanceMask: InstanceMask(width: w, height: h, count: count, labels: labels),
            instances: instances, ownerMap: owners, threshold: threshold,
            saliency: SaliencyObservation(values: mask.saliency, size: mask.saliencySize, threshold: threshold),
            timings: timings)
    }
}

/// One subject found by ``ForegroundInstanceMaskRequest``.
public struct InstanceInfo: Sendable, Equatable, Codable {
    /// Its label in the instance mask (1…N).
    public let index: Int
    /// Tight bounds in pixels, top-left origin.
    public let bounds: PixelRect
    /// The same bounds normalized, bottom-left origin (Vision's convention).
    public let normalizedBounds: NormalizedRect
    /// Pixels in the instance.
    public let area: Int
    /// Mean soft-mask confidence over the instance's pixels (0…1).
    public let score: Double
}
