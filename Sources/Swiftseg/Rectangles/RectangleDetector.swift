import Foundation
import SwiftsegImage

/// The detection behind `DetectRectanglesRequest`: segments → lines → candidate quads → scored, refined,
/// de-duplicated observations. Units are full-resolution pixels throughout (the segment detector maps back).
struct RectangleDetector {
    let request: DetectRectanglesRequest
    /// The largest |cos| of a corner angle the request's quadrature tolerance allows, and the same with the slack
    /// unrefined candidates get.
    let maximumCosine: Double, maximumCosineWithSlack: Double

    init(request: DetectRectanglesRequest) {
        self.request = request
        maximumCosine = sin(min(request.quadratureTolerance, 89.9) * Double.pi / 180)
        maximumCosineWithSlack = sin(min(request.quadratureTolerance + RectangleDetector.candidateSlack * 100, 89.9) * Double.pi / 180)
    }

    /// How much wider the filters are for candidates before refinement (a fraction; degrees / 100 for corners).
    static let candidateSlack = 0.03
    /// A candidate's segments must cover this much of its four sides together (of 4), and 8 % of each: enough to
    /// propose a quad whose sides are seen in pieces on a busy background, few enough to look at every one.
    static let minimumCoverageSum = 0.8

    /// Longest side of the image the segment detector sees: enough for sides of ≥ 10 % of the short dimension,
    /// small enough to stay within budget on large photos (400 beat 320, 448 and 512 on a tuning set: PERF.md).
    static let detectionSide = 400.0
    /// Lines kept for pairing (the longest by support), candidates looked at (the best by segment coverage) and
    /// refined (the best by a quick look at their sides).
    static let maximumCandidates = 120
    static let maximumLines = 100
    static let maximumRefined = 8
    /// Opposite sides of a rectangle in strong perspective converge; this is how far.
    static let maximumOppositeAngle = 40 * Double.pi / 180

    func detect(in image: Image) -> [RectangleObservation] {
        let short = Double(min(image.width, image.height))
        // A large photo is box-shrunk first to about twice the detection size (the segment detector's Gaussian
        // then needs a few taps, not dozens), and the segments scaled back.
        let shrink = max(1, max(image.width, image.height) / Int(2 * RectangleDetector.detectionSide))
        let small = BoxDownscale.shrink(image, by: shrink)
        var lsd = LineSegmentDetector()
        lsd.scale = min(0.8, RectangleDetector.detectionSide / Double(max(small.width, small.height)))
        let s = Double(shrink)
        let segments = lsd.detect(image: small).map {
            LineSegment(start: $0.start * s, end: $0.end * s, width: $0.width * s, significance: $0.significance)
        }.filter { $0.length >= max(8, 0.02 * short) }
        let lines = RectangleDetector.lines(from: segments, short: short)
        let support = EdgeSupport(image: image, searchRadius: max(2, 1.5 * s / lsd.scale))
        var scored: [(corners: [PixelPoint], confidence: Double)] = []
        // A quick look at every candidate's sides, then refinement of the best few.
        var quick = candidates(lines: lines, width: image.width, height: image.height).map {
            (corners: $0, score: support.confidence(of: $0, samplesPerSide: 12) * RectangleDetector.sizePrior($0, short: short))
        }
        quick.sort { $0.score > $1.score }
        var shortlist: [[PixelPoint]] = []
        for c in quick where c.score > 0 && !shortlist.contains(where: { Polygon.jaccard($0, c.corners) > 0.9 }) {
            shortlist.append(c.corners)
            if shortlist.count == RectangleDetector.maximumRefined { break }
        }
        for candidate in shortlist {
            let refined = support.refine(candidate)
            guard passes(refined, width: image.width, height: image.height, slack: 0) else { continue }
            let confidence = support.confidence(of: refined) * RectangleDetector.sizePrior(refined, short: short)
            if confidence > 0 { scored.append((refined, confidence)) }
        }
        let kept = RectangleDetector.suppressDuplicates(scored)
        var out = kept.filter { $0.confidence >= request.minimumConfidence }.map {
            RectangleObservation(pixelCorners: $0.corners, width: image.width, height: image.height,
                                 confidence: $0.confidence)
        }
        if request.maximumObservations > 0 && out.count > request.maximumObservations {
            out.removeLast(out.count - request.maximumObservations)
        }
        return out
    }

    // MARK: Lines

    /// A straight line through one or more collinear segments: its direction, a point on it, and the segments'
    /// extents along it (for the coverage of any stretch).
    struct Line {
        var point: PixelPoint
        var direction: PixelPoint
        var intervals: [(Double, Double)]   // along `direction` from `point`
        var support: Double                 // total segment length

        var normal: PixelPoint { PixelPoint(x: -direction.y, y: direction.x) }
        func distance(_ p: PixelPoint) -> Double { abs((p - point).dot(normal)) }
        func position(_ p: PixelPoint) -> Double { (p - point).dot(direction) }

        /// The line through `segments`' ends by length-weighted orthogonal least squares, keeping its direction's
        /// sense, and their extents along it.
        mutating func refit(_ segments: [LineSegment]) {
            var w = 0.0, c = PixelPoint(x: 0, y: 0)
            for s in segments { w += s.length; c = c + (s.start + s.end) * (s.length / 2) }
            c = c * (1 / max(w, 1e-12))
            var sxx = 0.0, syy = 0.0, sxy = 0.0
            for s in segments { for e in [s.start - c, s.end - c] { sxx += s.length * e.x * e.x; syy += s.length * e.y * e.y; sxy += s.length * e.x * e.y } }
            let angle = 0.5 * atan2(2 * sxy, sxx - syy)
            var d = PixelPoint(x: cos(angle), y: sin(angle))
            if d.dot(direction) < 0 { d = d * -1 }
            point = c; direction = d
            intervals = segments.map { s in
                let a = position(s.start), b = position(s.end)
                return (min(a, b), max(a, b))
            }
        }
    }

    /// Segments grouped into lines (longest first): a segment joins a line when both its ends are within a
    /// couple of pixels of it and its direction within 5° (a short segment's direction is only so precise); the
    /// line is re-fitted to its members' ends (weighted by length) as it grows, so a side broken into many short
    /// pieces becomes one line.
    static func lines(from segments: [LineSegment], short: Double) -> [Line] {
        let maxCross = sin(5 * Double.pi / 180)
        let maxDistance = 1.5 + 0.004 * short
        var lines: [Line] = []
        var members: [[LineSegment]] = []
        for s in segments.sorted(by: { $0.length > $1.length }) {
            let d = s.direction
            var joined = false
            for i in lines.indices {
                let l = lines[i]
                guard abs(l.direction.cross(d)) < maxCross,
                      l.distance(s.start) < maxDistance, l.distance(s.end) < maxDistance else { continue }
                members[i].append(s)
                lines[i].support += s.length
                lines[i].refit(members[i])
                joined = true
                break
            }
            if !joined {
                lines.append(Line(point: s.start, direction: d, intervals: [(0, s.length)], support: s.length))
                members.append([s])
            }
        }
        lines.sort { $0.support > $1.support }
        if lines.count > maximumLines { lines.removeLast(lines.count - maximumLines) }
        return lines
    }

    // MARK: Candidates

    /// Quads from two pairs of roughly opposite lines, kept when their corners are inside the photo, they pass
    /// the request's filters (with a little slack, as refinement moves them) and the segments cover every side;
    /// the best by coverage first.
    func candidates(lines: [Line], width: Int, height: Int) -> [[PixelPoint]] {
        let short = Double(min(width, height))
        let minimumSeparation = max(10, 0.7 * request.minimumSize * max(request.minimumAspectRatio, 0.1) * short)
        // Plain arrays for the inner loops (no reference counting of the lines' interval arrays there).
        let points = lines.map(\.point), directions = lines.map(\.direction)
        var pairs: [(Int, Int)] = []
        for i in lines.indices {
            for j in (i + 1)..<lines.count {
                let a = lines[i], b = lines[j]
                guard abs(a.direction.cross(b.direction)) < sin(RectangleDetector.maximumOppositeAngle) else { continue }
                let mid = b.point + b.direction * ((b.intervals.map(\.0).min()! + b.intervals.map(\.1).max()!) / 2)
                if a.distance(mid) >= minimumSeparation { pairs.append((i, j)) }
            }
        }
        func cross(_ i: Int, _ j: Int) -> PixelPoint? {
            let denom = directions[i].cross(directions[j])
            guard abs(denom) > 1e-6 else { return nil }
            return points[i] + directions[i] * ((points[j] - points[i]).cross(directions[j]) / denom)
        }
        // Which lines can be adjacent sides: crossing at 45° or more, at a point not far beyond either one's
        // segments (a side may be partly missing, but a corner is near what is seen of both sides).
        let extents = lines.map { l in (l.intervals.map(\.0).min()!, l.intervals.map(\.1).max()!) }
        let minimumCrossing = sin(45 * Double.pi / 180)
        var meets = [Bool](repeating: false, count: lines.count * lines.count)
        var corner = [PixelPoint](repeating: PixelPoint(x: 0, y: 0), count: lines.count * lines.count)
        for i in lines.indices {
            for j in lines.indices where j > i && abs(directions[i].cross(directions[j])) > minimumCrossing {
                guard let x = cross(i, j) else { continue }
                corner[i * lines.count + j] = x; corner[j * lines.count + i] = x
                var near = true
                for k in [i, j] {
                    let t = (x - points[k]).dot(directions[k]), (lo, hi) = extents[k]
                    let gap = max(lo - t, t - hi, 0)
                    if gap > 0.3 * short + (hi - lo) { near = false }
                }
                meets[i * lines.count + j] = near; meets[j * lines.count + i] = near
            }
        }
        // Each line's segments as one sorted union of intervals, flat (coverage in the inner loop then neither
        // allocates nor copies a line).
        var spanStart: [Double] = [], spanEnd: [Double] = [], spanRange: [Range<Int>] = []
        for l in lines {
            let first = spanStart.count
            var end = -Double.infinity
            for (a, b) in l.intervals.sorted(by: { $0.0 < $1.0 }) {
                if a > end { spanStart.append(a); spanEnd.append(b); end = b }
                else if b > end { spanEnd[spanEnd.count - 1] = b; end = b }
            }
            spanRange.append(first..<spanStart.count)
        }
        func coverage(_ line: Int, _ p0: PixelPoint, _ p1: PixelPoint) -> Double {
            let t0 = (p0 - points[line]).dot(directions[line]), t1 = (p1 - points[line]).dot(directions[line])
            let lo = min(t0, t1), hi = max(t0, t1)
            var total = 0.0
            for k in spanRange[line] { total += max(0, min(spanEnd[k], hi) - max(spanStart[k], lo)) }
            return min(total / max(hi - lo, 1), 1)
        }
        var found: [(corners: [PixelPoint], coverage: Double)] = []
        var corners = [PixelPoint](repeating: PixelPoint(x: 0, y: 0), count: 4)
        let n = lines.count
        var pairIndex = [Int](repeating: -1, count: n * n)
        for (k, (i, j)) in pairs.enumerated() { pairIndex[i * n + j] = k; pairIndex[j * n + i] = k }
        var both: [Int] = []
        for p in pairs.indices {
            let (a, b) = pairs[p]
            both.removeAll(keepingCapacity: true)
            for c in 0..<n where meets[a * n + c] && meets[b * n + c] { both.append(c) }
            guard both.count >= 2 else { continue }
            for ci in 0..<(both.count - 1) { for di in (ci + 1)..<both.count {
                let c = both[ci], d = both[di]
                guard pairIndex[c * n + d] > p else { continue }   // each quad once, from its first pair
                // Sides in order a, c, b, d; corners where consecutive sides meet.
                let ac = corner[a * n + c], cb = corner[c * n + b], bd = corner[b * n + d], da = corner[d * n + a]
                corners[0] = da; corners[1] = ac; corners[2] = cb; corners[3] = bd
                guard passes(corners, width: width, height: height, slack: RectangleDetector.candidateSlack) else { continue }
                var minCover = 1.0, sumCover = 0.0
                for (line, p0, p1) in [(a, da, ac), (c, ac, cb), (b, cb, bd), (d, bd, da)] {
                    let cover = coverage(line, p0, p1)
                    minCover = min(minCover, cover); sumCover += cover
                    if minCover < 0.08 { break }
                }
                guard minCover >= 0.08, sumCover >= RectangleDetector.minimumCoverageSum else { continue }
                found.append((corners, sumCover / 4 * RectangleDetector.sizePrior(corners, short: short)))
            } }
        }
        found.sort { $0.coverage > $1.coverage }
        return found.prefix(RectangleDetector.maximumCandidates).map(\.corners)
    }

    /// The request's geometric filters: corners in the photo, convex, corner angles, aspect ratio, size. `slack`
    /// (0 or `candidateSlack`) widens each a little for unrefined candidates.
    func passes(_ q: [PixelPoint], width: Int, height: Int, slack: Double) -> Bool {
        let w = Double(width), h = Double(height), margin = slack * min(w, h) + 0.5
        for p in q where p.x < -margin || p.y < -margin || p.x > w + margin || p.y > h + margin { return false }
        // Convex, and each corner within the tolerance of square: |cos| ≤ sin(tolerance).
        let maxCos = slack == 0 ? maximumCosine : maximumCosineWithSlack
        var turn = 0.0
        for i in 0..<4 {
            let u = q[(i + 3) % 4] - q[i], v = q[(i + 1) % 4] - q[i]
            let z = v.cross(u)
            if z == 0 || !z.isFinite || (turn != 0 && (z > 0) != (turn > 0)) { return false }
            turn = z
            let dot = u.dot(v)
            if dot * dot > maxCos * maxCos * u.dot(u) * v.dot(v) { return false }   // no square roots
        }
        let horizontal = (q[0].distance(to: q[1]) + q[2].distance(to: q[3])) / 2
        let vertical = (q[1].distance(to: q[2]) + q[3].distance(to: q[0])) / 2
        let longer = max(horizontal, vertical), aspect = min(horizontal, vertical) / max(longer, 1e-12)
        guard aspect >= request.minimumAspectRatio - slack, aspect <= request.maximumAspectRatio + slack else { return false }
        return longer >= (request.minimumSize - slack) * min(w, h)
    }

    // MARK: Ranking

    /// The share of the confidence that is size: 0.55 for a tiny quad rising to 1 for one whose area is that of a
    /// square on the photo's shorter side. Of two quads with all sides supported, the larger is more likely the
    /// document the photo was taken of (and not a window behind it, or the paragraph box printed on it).
    static func sizePrior(_ q: [PixelPoint], short: Double) -> Double {
        0.55 + 0.45 * min(1, Polygon.area(q).squareRoot() / short)
    }

    /// Best first; a quad overlapping a better one (Jaccard ≥ 0.5) is dropped.
    static func suppressDuplicates(_ quads: [(corners: [PixelPoint], confidence: Double)])
        -> [(corners: [PixelPoint], confidence: Double)] {
        var kept: [(corners: [PixelPoint], confidence: Double)] = []
        for q in quads.sorted(by: { $0.confidence > $1.confidence })
        where !kept.contains(where: { Polygon.jaccard(q.corners, $0.corners) >= 0.5 }) {
            kept.append(q)
        }
        return kept.sorted { $0.confidence > $1.confidence }
    }
}
