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
/// let grids = try RectangleTestSet(manifest: "../shared/data/rectangles-real/corners.csv")   // photos/ beside it
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

        public init(file: String, kind: String, subsets: [String], width: Int, height: Int, corners: [[Double]],
                    documentSize: [Double]) {
            self.file = file; self.kind = kind; self.subsets = subsets; self.width = width; self.height = height
            self.corners = corners; self.documentSize = documentSize
        }

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

        /// How many of `found`'s sides lie on a side of the true quad, judged in the document's own rectangle as
        /// `jaccard` is: both ends within `sideTolerance` of the document's shorter side from that side's line,
        /// and covering at least a fifth of it (a grid's top border as far as one of its inner lines). A quad that is no hit but has one to three sides on the truth mixes
        /// the true rectangle's sides with another's: a hybrid.
        public func sidesOnTruth(of found: [PixelPoint]) -> Int {
            guard found.count == 4 else { return 0 }
            let w = documentSize[0], h = documentSize[1]
            let page = [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)]
            guard let toPage = Homography(from: truth, to: page) else { return 0 }
            let mapped = found.map { toPage.apply($0) }
            guard mapped.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return 0 }
            let tolerance = RectangleTestSet.sideTolerance * min(w, h)
            var count = 0
            for i in 0..<4 {
                let a = mapped[i], b = mapped[(i + 1) % 4]
                let onSide = (0..<4).contains { j in
                    let p = page[j], q = page[(j + 1) % 4], length = p.distance(to: q)
                    let d = (q - p) * (1 / length), n = PixelPoint(x: -d.y, y: d.x)
                    guard abs((a - p).dot(n)) <= tolerance, abs((b - p).dot(n)) <= tolerance else { return false }
                    let s0 = (a - p).dot(d), s1 = (b - p).dot(d)
                    return min(max(s0, s1), length) - max(min(s0, s1), 0) >= 0.2 * length
                }
                if onSide { count += 1 }
            }
            return count
        }

        /// Whether `found` is a hybrid of the true rectangle and another: no hit, one to three sides on the truth.
        public func isHybrid(_ found: [PixelPoint]) -> Bool {
            (1...3).contains(sidesOnTruth(of: found)) && jaccard(of: found) < RectangleTestSet.hitThreshold
        }
    }

    public let cases: [Case]
    /// The folder the case files are in.
    public let folder: String

    /// Reads a `cases.json` (`{"cases": [...]}`; the images in `cases/` beside it), or a `corners.csv` of marked
    /// photos (`file,camera,width,height,tl_x,tl_y,tr_x,tr_y,br_x,br_y,bl_x,bl_y`; the images in `photos/` beside
    /// it; the kind is the camera, the document size the marked quad's mean side lengths).
    public init(manifest path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RectangleDetectionError("\(path): cannot read the test set's manifest")
        }
        if path.hasSuffix(".csv") {
            cases = try RectangleTestSet.markedPhotos(csv: String(decoding: data, as: UTF8.self), path: path)
            let beside = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            let photos = FileManager.default.fileExists(atPath: beside + "/photos", isDirectory: &isFolder) && isFolder.boolValue
            folder = photos ? beside + "/photos" : beside
            return
        }
        struct File: Decodable { let cases: [Case] }
        do {
            cases = try JSONDecoder().decode(File.self, from: data).cases
        } catch {
            throw RectangleDetectionError("\(path): not a rectangle test set (\(error))")
        }
        folder = (path as NSString).deletingLastPathComponent + "/cases"
    }

    static func markedPhotos(csv: String, path: String) throws -> [Case] {
        var lines = csv.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.isEmpty ? [] : lines.removeFirst().split(separator: ",").map(String.init)
        let columns = ["file", "camera", "width", "height", "tl_x", "tl_y", "tr_x", "tr_y", "br_x", "br_y", "bl_x", "bl_y"]
        guard header == columns else {
            throw RectangleDetectionError("\(path): expected the columns \(columns.joined(separator: ","))")
        }
        return try lines.enumerated().map { n, line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == columns.count, let w = Int(f[2]), let h = Int(f[3]) else {
                throw RectangleDetectionError("\(path): line \(n + 2) is not \(columns.count) fields")
            }
            let v = f[4...].compactMap(Double.init)
            guard v.count == 8 else { throw RectangleDetectionError("\(path): line \(n + 2) has a corner that is not a number") }
            let q = (0..<4).map { PixelPoint(x: v[2 * $0], y: v[2 * $0 + 1]) }
            let size = [(q[0].distance(to: q[1]) + q[3].distance(to: q[2])) / 2, (q[1].distance(to: q[2]) + q[0].distance(to: q[3])) / 2]
            return Case(file: f[0], kind: f[1], subsets: ["real"], width: w, height: h,
                        corners: (0..<4).map { [v[2 * $0], v[2 * $0 + 1]] }, documentSize: size)
        }
    }

    /// A hit is J ≥ 0.9, as SmartDoc counts it.
    public static let hitThreshold = 0.9
    /// How far (a share of the document's shorter side, in its own rectangle) a side may lie from a true side's
    /// line and still be on it: 3 %, about the spread of a hit's sides (J ≥ 0.9 allows ~5 % on one side).
    public static let sideTolerance = 0.03
}
