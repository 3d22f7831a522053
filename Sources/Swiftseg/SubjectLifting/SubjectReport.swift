/// The `swiftseg infer --json` report: a stable contract for scripts.
///
/// ```json
/// {"width": 640, "height": 427, "model": "u2netp", "threshold": 0.5, "minArea": 0.001,
///  "instances": [{"index": 1, "bounds": {"x": 266, "y": 126, "width": 114, "height": 301},
///                 "normalizedBounds": {"x": 0.41, "y": 0.0, "width": 0.17, "height": 0.70},
///                 "area": 20304, "score": 0.93}],
///  "selected": [1], "salientObjects": [...], "timingsMs": {"network": 480.1, …}}
/// ```
/// Pixel bounds have a top-left origin in the (upright) input; `normalizedBounds` use Vision's bottom-left
/// origin; `index` is the instance's value in the `--instances` PNG.
public struct SubjectReport: JSONReport, Sendable {
    public var input: String?
    public var width: Int
    public var height: Int
    public var model: String
    public var threshold: Double
    public var minArea: Double
    public var instances: [InstanceInfo]
    /// The instances the outputs were made from (all when none were chosen).
    public var selected: [Int]
    public var salientObjects: [NormalizedRect]
    public var timingsMs: [String: Double]

    public init(input: String?, observation: ForegroundInstanceMaskObservation, model: String, minArea: Double,
                selected: [Int], timingsMs: [String: Double]) {
        self.input = input
        width = observation.width
        height = observation.height
        self.model = model
        threshold = observation.threshold
        self.minArea = minArea
        instances = observation.instances
        self.selected = selected
        salientObjects = observation.saliency.salientObjects
        self.timingsMs = timingsMs
    }
}

import Foundation
