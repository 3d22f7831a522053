import Foundation
import SwiftsegImage

/// Scoring rectangle detection against exact ground truth, as the SmartDoc 2015 competition does: the found quad
/// is mapped by the homography that takes the true quad to the document's own rectangle, and the Jaccard index
/// (intersection over union) is taken there, so a few pixels on a small, steep document weigh as much as on a
/// large, flat one. A miss scores 0; a hit is J ≥ 0.9. Used by `swiftseg-bench --rectangles` and the tests, on
/// the set `Tools/make_rectangle_cases.py` writes (Tests/Fixtures/rectangles).
///
/// ```swift
/// let set = try RectangleTestSet(manifest: "Tests/Fixtures/rectangles/cases.json")
/// let j = set.cases[0].jaccard(of: found)   // found: [PixelPoint], top-left origin; 0…1
/// ```
public struct RectangleTestSet: Sendable {
    public struct Case: Sendable, Decodable {
        public let file: String
        public let kind: String
        public let subsets: [String]
        public let width: Int
        public let height: Int
        /// The true corners (TL, TR, BR, BL), pixels, top-left origin.
        public let corners: [[Double]]
        /// The document's own width and height (any unit).
        public let documentSize: [Double]

        public var truth: [PixelPoint] { corners.map { PixelPoint(x: $0[0], y: $0[1]) } }

        /// SmartDoc's Jaccard index of `found` (a convex quad, pixels, top-left origin); 0 when nil.
        public func jaccard(of found: [PixelPoint]?) -> Double {
            guard let found, found.count == 4 else { return 0 }
            let w = documentSize[0], h = documentSize[1]
            let page = [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)]
            guard let toPage = Homography(from: truth, to: page) else { return 0 }
            let mapped = found.map { toPage.apply($0) }
            guard mapped.allSatisfy({ $0.x.isFinite && $0.y.isFinite }), Polygon.isConvex(mapped) else { return 0 }
            return Polygon.jaccard(mapped, page)
        }
    }

    public let cases: [Case]
    /// The folder the case files are in.
    public let folder: String

    /// Reads a `cases.json` (`{"cases": [...]}`); the images are in `cases/` beside it.
    public init(manifest path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RectangleDetectionError("\(path): cannot read the test set's manifest")
        }
        struct File: Decodable { let cases: [Case] }
        do {
            cases = try JSONDecoder().decode(File.self, from: data).cases
        } catch {
            throw RectangleDetectionError("\(path): not a rectangle test set (\(error))")
        }
        folder = (path as NSString).deletingLastPathComponent + "/cases"
    }

    /// A hit is J ≥ 0.9, as SmartDoc counts it.
    public static let hitThreshold = 0.9
}
