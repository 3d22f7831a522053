/// What ``ForegroundInstanceMaskRequest`` found: the soft mask, the instance label map and the instances,
/// all at the input image's resolution, and what can be made from them.
public struct ForegroundInstanceMaskObservation: Sendable {
    /// 8-bit soft mask at the image's size (rembg's mask; binary when post-processing was requested).
    public let softMask: Image
    /// Label map at the image's size: 0 background, 1…N instances.
    public let instanceMask: InstanceMask
    public let instances: [InstanceInfo]
    /// Each pixel's nearest instance, grown from the labels into the mask's soft edge, so that the soft
    /// mask can be split between instances: made when an instance subset is first asked for.
    var owners: [UInt32] { ownerMap.value }
    let ownerMap: OnDemand<[UInt32]>
    /// The threshold the instances were cut at.
    public let threshold: Double
    /// The network's saliency map and salient boxes.
    public let saliency: SaliencyObservation
    public let timings: ForegroundMask.Timings

    public var width: Int { softMask.width }
    public var height: Int { softMask.height }

    /// Every instance label, 1…N (empty when no subject was found).
    public var allInstances: [Int] { Array(instances.indices.map { $0 + 1 }) }

    func check(_ selection: [Int]) throws {
        for i in selection where !(1...max(instances.count, 1)).contains(i) || instances.isEmpty {
            throw SubjectLiftingError(instances.isEmpty ? "instance \(i) does not exist: no subject was found"
                                                        : "instance \(i) does not exist (instances are 1…\(instances.count))")
        }
    }

    /// The soft mask (0…1) at the image's resolution for the chosen instances: each pixel keeps its soft value
    /// if its nearest instance is chosen. Vision's `generateScaledMaskForImage(forInstances:from:)`.
    public func scaledMask(forInstances selection: [Int]) throws -> [Float] {
        try check(selection)
        var chosen = [Bool](repeating: false, count: instances.count + 1)
        for i in selection { chosen[i] = true }
        return softMask.pixels.indices.map { chosen[Int(owners[$0])] ? Float(softMask.pixels[$0]) / 255 : 0 }
    }

    /// The same as an 8-bit gray image.
    public func maskImage(forInstances selection: [Int]) throws -> Image {
        try check(selection)
        var chosen = [Bool](repeating: false, count: instances.count + 1)
        for i in selection { chosen[i] = true }
        let px = softMask.pixels.indices.map { chosen[Int(owners[$0])] ? softMask.pixels[$0] : 0 }
        return Image(width: width, height: height, channels: 1, pixels: px)
    }

    /// The union of the chosen instances' bounds.
    public func extent(ofInstances selection: [Int]) throws -> PixelRect {
        try check(selection)
        return selection.reduce(PixelRect(x: 0, y: 0, width: 0, height: 0)) { $0.union(instances[$1 - 1].bounds) }
    }

    /// The instance label at a tap (normalized, top-left origin); 0 on background.
    public func instance(at point: NormalizedPoint) throws -> Int {
        guard point.isInUnitSquare else {
            throw SubjectLiftingError("point (\(point.x), \(point.y)) is outside the image: coordinates are normalized to 0…1")
        }
        let (x, y) = VisionGeometry.pixel(for: point, width: instanceMask.width, height: instanceMask.height)
        return instanceMask[x: x, y: y]
    }

    /// What a tap selects: the tapped instance, or every instance when the tap is on background.
    public func instances(forTapAt point: NormalizedPoint) throws -> [Int] {
        let label = try instance(at: point)
        return label == 0 ? allInstances : [label]
    }

    /// VisionKit's `subject(at:)`: the subject under a tap, nil on background.
    public func subject(at point: NormalizedPoint, in image: Image) throws -> Subject? {
        let label = try instance(at: point)
        return label == 0 ? nil : try subjects(in: image)[label - 1]
    }

    /// The input with everything but the chosen instances transparent, optionally cropped to their extent.
    /// Vision's `generateMaskedImage(ofInstances:from:croppedToInstancesExtent:)`.
    public func maskedImage(ofInstances selection: [Int], from image: Image,
                            croppedToInstancesExtent crop: Bool) throws -> Image {
        precondition(image.width == width && image.height == height, "image must be the analysed one")
        let cutout = Compositing.cutout(image, alpha: try maskImage(forInstances: selection))
        return crop ? Compositing.crop(cutout, to: try extent(ofInstances: selection)) : cutout
    }

    /// VisionKit's `subjects`: each instance's bounds and its cropped cutout.
    public func subjects(in image: Image) throws -> [Subject] {
        try instances.map { info in
            Subject(index: info.index, bounds: info.bounds,
                    image: try maskedImage(ofInstances: [info.index], from: image, croppedToInstancesExtent: true))
        }
    }

    /// VisionKit's `image(for:)`: one image of several subjects, cropped to their joint extent.
    public func image(for subjects: [Subject], from image: Image) throws -> Image {
        try maskedImage(ofInstances: subjects.map(\.index), from: image, croppedToInstancesExtent: true)
    }
}

/// A lifted subject (VisionKit's `ImageAnalysisInteraction.Subject`).
public struct Subject: Sendable, Equatable {
    public let index: Int
    /// Bounds in the input image, pixels, top-left origin.
    public let bounds: PixelRect
    /// The subject alone, RGBA, cropped to `bounds`.
    public let image: Image
}
