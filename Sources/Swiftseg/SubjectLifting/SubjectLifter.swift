/// One photo in, one picture out: the choices `swiftseg infer` offers, as a library value, so the CLI, batch
/// jobs and services make the same picture from the same options.
///
/// ```swift
/// var options = LiftingOptions()
/// options.output = .composite(background: .color(RGB(255, 255, 255)), effect: nil)
/// options.selection = .point(NormalizedPoint(x: 0.5, y: 0.5))
/// options.crop = true
/// let lifted = try segmenter.lift(photo, options: options)
/// try AtomicFile.write(try lifted.image.pngData(), to: "subject.png")
/// ```
public struct LiftingOptions: Sendable {
    public enum Output: Sendable, Equatable {
        /// RGBA: the photo with the chosen subjects' mask as alpha.
        case cutout
        /// 8-bit gray soft mask of the chosen subjects.
        case mask
        /// The subjects over a background, with an optional effect.
        case composite(background: Background, effect: Effect?)
    }

    public enum Selection: Sendable, Equatable {
        /// Every subject, with the full soft mask (exactly rembg's mask).
        case all
        /// These instance indices (1…N).
        case instances([Int])
        /// The instance under a tap (normalized, top-left origin); background → all instances.
        case point(NormalizedPoint)
    }

    public var output: Output = .cutout
    public var selection: Selection = .all
    /// Crop to the chosen instances' extent.
    public var crop = false
    /// Make the cutout by rembg's alpha matting on the chosen subjects' mask (``AlphaMatting``: finer hair and
    /// fur edges, foreground colours without the background's fringe); the plain cutout when the mask has no
    /// sure foreground or background. Cutouts only.
    public var alphaMatting: AlphaMatting? = nil
    /// rembg 2.0.86's `-dc` (``Decontamination``): the cutout's or the composite's subject in the foreground
    /// colours estimated under the mask, so soft edges lose the background's fringe. With ``alphaMatting`` it
    /// makes the cutout only where matting cannot run (matting already estimates them, as rembg does). Not for
    /// masks.
    public var decontamination: Decontamination? = nil
    public var request = ForegroundInstanceMaskRequest()

    public init() {}
}

/// What ``Segmenter/lift(_:options:)`` made.
public struct LiftedSubject: Sendable {
    public let image: Image
    public let observation: ForegroundInstanceMaskObservation
    /// The instances the picture was made from.
    public let chosen: [Int]
    /// Time spent rendering, after the network and instance extraction.
    public let renderMs: Double
}

extension Segmenter {
    /// Runs the network once on `photo` and renders what `options` ask for.
    public func lift(_ photo: Image, options: LiftingOptions) throws -> LiftedSubject {
        try options.render(photo, observation: options.request.perform(on: photo, using: self))
    }
}

extension LiftingOptions {
    /// Renders what these options ask for from an observation already made (by ``Segmenter/lift(_:options:)``,
    /// or from a stored mask through ``ForegroundInstanceMaskRequest/observation(for:)``): no network.
    public func render(_ photo: Image, observation: ForegroundInstanceMaskObservation) throws -> LiftedSubject {
        let start = DispatchTime.now().uptimeNanoseconds
        let chosen: [Int]?
        switch selection {
        case .all: chosen = nil
        case .instances(let list): chosen = list
        case .point(let p): chosen = try observation.instances(forTapAt: p)
        }
        let mask = try chosen.map { try observation.maskImage(forInstances: $0) } ?? observation.softMask
        var image: Image
        switch output {
        case .mask: image = mask
        case .cutout:
            if let matting = alphaMatting, let matted = try matting.cutout(photo, mask: mask) {
                image = matted
            } else {
                image = Compositing.cutout(decontamination?.colours(of: photo, under: mask) ?? photo, alpha: mask)
            }
        case .composite(let background, let effect):
            var subject: Image? = nil
            if case .maskPreview? = effect {} else { subject = decontamination?.colours(of: photo, under: mask) }  // no subject there
            image = try Compositing.render(photo, mask: mask.pixels.map { Float($0) / 255 }, background: background,
                                           effect: effect, subject: subject)
        }
        if crop {
            let instances = chosen ?? observation.allInstances
            guard !instances.isEmpty else { throw SubjectLiftingError("nothing to crop to: no subject was found") }
            image = Compositing.crop(image, to: try observation.extent(ofInstances: instances))
        }
        if output != .mask { image.iccProfile = photo.iccProfile }  // the photo's colours; a mask's levels are none
        return LiftedSubject(image: image, observation: observation, chosen: chosen ?? observation.allInstances,
                             renderMs: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
}

import Dispatch
