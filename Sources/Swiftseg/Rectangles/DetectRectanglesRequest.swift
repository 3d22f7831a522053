import SwiftsegImage

/// Find rectangles in a photo — documents, cards, prints, screens, signs — as Vision's
/// `VNDetectRectanglesRequest` does: quadrilaterals (a rectangle seen in perspective) whose corners are close to
/// square, filtered by aspect ratio and size, each with a confidence, best first. Classic image processing on
/// the image library alone: no network.
///
/// ```swift
/// var request = DetectRectanglesRequest()                                  // Vision's defaults
/// request.minimumAspectRatio = 0.6; request.maximumAspectRatio = 0.67   // an ID-1 card: 54 / 85.6 = 0.63
/// let cards = try request.perform(on: photo)                             // [RectangleObservation], best first
/// let crop = cards.first?.perspectiveCorrected(from: photo)              // the card, upright
/// ```
///
/// How it works (docs/ARCHITECTURE.md, PERF.md "Rectangles"): line segments (`LineSegmentDetector`, LSD, on the
/// colour channels) on the photo shrunk to about 400 pixels; collinear segments merged into lines; quads from two
/// pairs of roughly opposite lines and their intersections, so a side may be partly missing, ranked by how much
/// of each side the detector's gradient field shows as edge and by its corners; the best by a quick look at their
/// sides refined at full resolution to sub-pixel corners (within 0.5 px on sharp edges). The confidence is the
/// geometric mean over the four sides of the share of points the photo's edges support (weighted by their
/// contrast), times a corner weight, times a size weight from 0.55 (tiny) to 1 (the area of a square on the
/// photo's shorter side). The corner weight is what keeps each result one rectangle: a real rectangle's sides
/// reach its corners and stop there, while a quad mixing the sides of two (a printed grid's and its sheet's) has
/// a corner where one edge runs on past the other and a side whose edge stops short; a result whose side has
/// almost no edge next to a corner is dropped, and so is one whose side's own edge (the same two colours either
/// side) runs on past a corner. Nested rectangles (a sheet and the grid printed on it, a card
/// and its photo) come back apart; results come most prominent first: by confidence, except that an enclosing
/// rectangle at least 0.75 as confident as one it encloses comes before it.
public struct DetectRectanglesRequest: Sendable, Equatable {
    /// Smallest aspect ratio (shorter side / longer side, the mean of opposite sides), 0…1; default 0.5.
    public var minimumAspectRatio: Double = 0.5
    /// Largest aspect ratio, 0…1; default 1.
    public var maximumAspectRatio: Double = 1
    /// Degrees a corner may differ from 90°, 0…45; default 30.
    public var quadratureTolerance: Double = 30
    /// Smallest size: the quad's **longer** side (the mean of its two longer opposite sides) as a fraction of the
    /// image's shorter dimension, 0…1; default 0.2.
    public var minimumSize: Double = 0.2
    /// Results with a lower confidence are dropped, 0…1; default 0.
    public var minimumConfidence: Double = 0
    /// How many results at most; 0 = no limit; default 1.
    public var maximumObservations: Int = 1

    public init(minimumAspectRatio: Double = 0.5, maximumAspectRatio: Double = 1, quadratureTolerance: Double = 30,
                minimumSize: Double = 0.2, minimumConfidence: Double = 0, maximumObservations: Int = 1) {
        self.minimumAspectRatio = minimumAspectRatio
        self.maximumAspectRatio = maximumAspectRatio
        self.quadratureTolerance = quadratureTolerance
        self.minimumSize = minimumSize
        self.minimumConfidence = minimumConfidence
        self.maximumObservations = maximumObservations
    }

    /// Throws `RectangleDetectionError` naming the first parameter out of its range.
    public func validate() throws {
        func check(_ ok: Bool, _ message: @autoclosure () -> String) throws {
            if !ok { throw RectangleDetectionError(message()) }
        }
        try check((0...1).contains(minimumAspectRatio), "minimumAspectRatio must be in 0…1, not \(minimumAspectRatio)")
        try check((0...1).contains(maximumAspectRatio), "maximumAspectRatio must be in 0…1, not \(maximumAspectRatio)")
        try check(minimumAspectRatio <= maximumAspectRatio,
                  "minimumAspectRatio (\(minimumAspectRatio)) is larger than maximumAspectRatio (\(maximumAspectRatio))")
        try check((0...45).contains(quadratureTolerance), "quadratureTolerance must be in 0…45 degrees, not \(quadratureTolerance)")
        try check((0...1).contains(minimumSize), "minimumSize must be in 0…1, not \(minimumSize)")
        try check((0...1).contains(minimumConfidence), "minimumConfidence must be in 0…1, not \(minimumConfidence)")
        try check(maximumObservations >= 0, "maximumObservations must be 0 (no limit) or more, not \(maximumObservations)")
    }

    /// The rectangles in `image` (EXIF-upright already, as decoded), best first.
    public func perform(on image: Image) throws -> [RectangleObservation] {
        try perform(on: ReducedImage(image))
    }

    /// The rectangles in a photo decoded reduced (``ReducedImage``), as observations of the full photo: a JPEG
    /// decoded with `minimumLongerSide: DetectRectanglesRequest.photoSide` gives what the full decode gives
    /// (corners within the refinement's precision) at a fraction of the decoding time.
    ///
    /// ```swift
    /// let photo = try ReducedImage(contentsOfFile: "IMG_0042.jpg", minimumLongerSide: DetectRectanglesRequest.photoSide)
    /// let pages = try DetectRectanglesRequest().perform(on: photo)
    /// ```
    public func perform(on photo: ReducedImage) throws -> [RectangleObservation] {
        try validate()
        return RectangleDetector(request: self).detect(in: photo)
    }

    /// The longer side, in pixels, that detection reads of a photo: a larger one can be decoded reduced to
    /// about this (``ReducedImage``) with no loss.
    public static let photoSide = RectangleDetector.photoSide
}

/// A parameter of `DetectRectanglesRequest` out of its range.
public struct RectangleDetectionError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
