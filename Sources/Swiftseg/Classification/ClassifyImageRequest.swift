/// Classify a photo, as Vision's `VNCoreMLRequest` does with an image classifier: the photo is fitted to the
/// network's square input by `cropAndScale` (Vision's `imageCropAndScaleOption`), and the results are the
/// `maximumResults` most likely classes, most likely first.
///
/// ```swift
/// let classifier = try Classifier()                                  // built-in EfficientNet-Lite0
/// let results = try ClassifyImageRequest(maximumResults: 2).perform(on: photo, using: classifier)
/// print(results.map { "(\(String(format: "%.2f", $0.confidence))) \($0.identifier)" })   // ["(0.93) espresso", …]
/// ```
public struct ClassifyImageRequest: Sendable, Equatable {
    /// How a photo becomes the network's square input (Vision's `VNImageCropAndScaleOption`).
    public enum CropAndScale: String, Sendable, CaseIterable, Codable {
        /// The central square of side min(W, H) (top-left at ⌊(W − s)/2⌋, ⌊(H − s)/2⌋), resized: Vision's default
        /// for classifiers and what the ImageNet models were evaluated with.
        case centerCrop
        /// The whole photo resized to fit (sides rounded to the nearest pixel, ties to even) and centred on black
        /// (offsets rounded down).
        case scaleFit
        /// The whole photo resized to the square, aspect ignored.
        case scaleFill
    }

    public var cropAndScale: CropAndScale
    /// How many classes to return (at least 1; at most the model's).
    public var maximumResults: Int

    public init(cropAndScale: CropAndScale = .centerCrop, maximumResults: Int = 5) {
        precondition(maximumResults >= 1, "maximumResults must be at least 1")
        self.cropAndScale = cropAndScale
        self.maximumResults = maximumResults
    }

    /// The longer side a photo is decoded to at least for classification: a JPEG is decoded at the smallest of
    /// libjpeg-turbo's DCT scales (1/2, 1/4, 1/8) that keeps it (a 12 MP phone photo at 1/4, 1008×756), which
    /// the Lanczos fit to 224×224 then shrinks as it would the whole photo; a WebP at the same scales by libwebp's
    /// scaler (where they divide both sides); other formats decode whole.
    public static let photoSide = 1000

    /// A photo's bytes decoded for classification: reduced to ``photoSide`` (see there), or whole with
    /// `fullSize`; errors and limits as ``Image/init(encoded:name:options:)``.
    public static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions = DecodingOptions(),
                              fullSize: Bool = false) throws -> ReducedImage {
        fullSize ? ReducedImage(try Image(encoded: bytes, name: name, options: options))
                 : try ReducedImage(encoded: bytes, name: name, options: options, minimumLongerSide: photoSide)
    }

    /// Runs `classifier` on `image` (EXIF-upright already, as decoded) and returns the top classes.
    public func perform(on image: Image, using classifier: Classifier) -> [ClassificationObservation] {
        classifier.classify(image, request: self).observations
    }
}

/// One class the classifier found, as Vision's `VNClassificationObservation`.
public struct ClassificationObservation: Sendable, Equatable, Codable {
    /// The class's name in the model's labels ("cliff, drop, drop-off": ImageNet's synset words, as Core ML's
    /// ImageNet models report them).
    public let identifier: String
    /// Softmax probability, 0…1.
    public let confidence: Double
    /// The class's index in the model's output (0 ..< 1000 for ImageNet).
    public let classIndex: Int

    public init(identifier: String, confidence: Double, classIndex: Int) {
        self.identifier = identifier
        self.confidence = confidence
        self.classIndex = classIndex
    }
}
