import Foundation
import SwiftsegImage

/// The detection behind `DetectRectanglesRequest`: segments → lines → candidate quads → scored, refined,
/// de-duplicated observations. Units are full-resolution pixels throughout (the segment detector maps back).
struct RectangleDetector {
    let request: DetectRectanglesRequest
    /// The largest |cos| of a corner angle the request's quadrature tolerance allows, and the same with the slack
    /// unrefined candidates get.
    let maximumCosine: Double, maximumCosineWithSlack: Double
    /// The largest sine of the angle between a candidate's opposite sides (`maximumOppositeAngle`).
    let maximumOppositeSine: Double

    init(request: DetectRectanglesRequest) {
        self.request = request
        maximumCosine = sin(min(request.quadratureTolerance, 89.9) * Double.pi / 180)
        maximumCosineWithSlack = sin(min(request.quadratureTolerance + RectangleDetector.candidateSlack * 100, 89.9) * Double.pi / 180)
        maximumOppositeSine = sin(min(2 * request.quadratureTolerance, RectangleDetector.maximumOppositeAngle) * Double.pi / 180)
    }

    /// How much wider the filters are for candidates before refinement (a fraction; degrees / 100 for corners).
    static let candidateSlack = 0.03
    /// A candidate's lines must have edges along this much of its four sides together (of 4), and 30 % of each:
    /// enough to propose a quad whose sides are seen in pieces on a busy background (hits were the same from
    /// 0.08 and 0.8 to 0.4 and 2.4 on the tuning sets), few enough to keep the search short.
    static let minimumCoverageSum = 2.0
    static let minimumSideCoverage = 0.3

    /// Longest side of the image the segment detector sees: enough for sides of ≥ 10 % of the short dimension,
    /// small enough to stay within budget on large photos (400 beat 320, 448 and 512 on a tuning set: PERF.md).
    static let detectionSide = 400.0
    /// The longer side of the photo detection reads (`DetectRectanglesRequest.photoSide`): the segment detector
    /// needs 400 px, the refinement reads up to `EdgeSupport.maximumSide`; a 12 MP phone photo's quarter scale
    /// (1008 or 1152 px) is what the refinement read of it before photos were decoded reduced, and results on
    /// the full-size test photos stayed the same (PERF.md).
    static let photoSide = 1000
    /// Lines kept for pairing (the longest by support), candidates looked at (the best by segment coverage) and
    /// refined (the best by a quick look at their sides).
    /// (Ranked by edge coverage, the true quad is among the first 30 whenever it is proposed at all on the
    /// tuning sets; 40 leaves room. 64 lines found every hit that 100 did on the real grids, the full-size photos
    /// and the synthetic set, and one more synthetic one, with a fifth fewer instructions on 12 MP photos: PERF.md.)
    static let maximumCandidates = 40
    static let maximumLines = 64
    static let maximumRefined = 8
    /// A photo whose best result from those lines is under `secondLookBelow` confident (or that has none) gets a
    /// second look with `secondLookLines`: on gravel or grass, a hundred lines of stones' and stalks' edges can
    /// outrank a print's side (committed 053: none of the 64 lies within 14 px of the print's left side). Swept
    /// on the tuning sets (committed / `--seed 7` top-1): 96 lines below 0.3 / 0.35 / 0.45: 95.0 / 95.8 / 95.8
    /// and 96.7 each; 128 below 0.25 / 0.35 / 0.45 / 0.6: 94.2 / 95.0 / 95.0 / 93.3; 192 below 0.35: 95.0
    /// (PERF-HISTORY). Every photo with 96 lines: the same hits, 2.6 ms more at 640×480.
    static let secondLookBelow = 0.4
    static let secondLookLines = 96
    /// Near-duplicates of a shortlisted candidate kept to try in its place (2 found every hit 4 and 8 did on the
    /// synthetic sets).
    static let maximumAlternates = 2
    /// Two candidates overlapping more than this (Jaccard) are one for refinement. Not less: two quads sharing
    /// three sides and differing in the fourth by a few percent of the document (a print's edge and a line in
    /// the background just beyond it) overlap by 0.9 and up, and only refinement tells which side is real.
    static let sameCandidate = 0.95
    /// Opposite sides of a rectangle in strong perspective converge: by as much as the quadrature tolerance lets
    /// the two corners between them turn (twice it), at most this many degrees. (A fixed 40° missed a print
    /// whose sides converge by 41°, committed case 047; 45, 50 and 60 found the same hits.)
    static let maximumOppositeAngle = 60.0

    /// The rectangles in `photo.image`, as observations of the full photo.
    func detect(in photo: ReducedImage) -> [RectangleObservation] {
        let image = photo.image
        let short = Double(min(image.width, image.height))
        let (allLines, coverage, searchRadius) = RectangleDetector.lines(in: image)
        let lines = Array(allLines.prefix(RectangleDetector.maximumLines))
        let proposed = candidates(lines: lines, edges: coverage(lines), width: image.width, height: image.height)
        let support = EdgeSupport(image: image, searchRadius: searchRadius)
        var scored: [(corners: [PixelPoint], confidence: Double)] = []
        // A quick look at every candidate's sides, then refinement of the best few.
        func quickLook(_ candidates: [[PixelPoint]]) -> [(corners: [PixelPoint], score: Double)] {
            candidates.map {
                (corners: $0, score: support.confidence(of: $0, samplesPerSide: 12) * RectangleDetector.sizePrior($0, short: short))
            }.sorted { $0.score > $1.score }
        }
        let quick = quickLook(proposed)
        // Near-duplicates (`sameCandidate`) are one entry, refined once (entries by their index in `quick`).
        func same(_ a: [PixelPoint], _ b: [PixelPoint]) -> Bool { Polygon.jaccard(a, b) > RectangleDetector.sameCandidate }
        func entries(_ quick: [(corners: [PixelPoint], score: Double)]) -> [Int] {
            var entries: [Int] = []
            for (i, c) in quick.enumerated() where c.score > 0 && !entries.contains(where: { same(quick[$0].corners, c.corners) }) {
                entries.append(i)
                if entries.count == RectangleDetector.maximumRefined { break }
            }
            return entries
        }
        let shortlist = entries(quick)
        // But while nothing has passed, a failed entry's near-duplicates are refined in turn: a print's side and a
        // spoon's edge beside it make two such candidates, and the better-covered one can be the one mixing them.
        // Those after it in `quick` that are no entry and no near-duplicate of an earlier entry, looked for only
        // then (on most photos the first entry passes).
        func alternates(of k: Int) -> [[PixelPoint]] {
            var found: [[PixelPoint]] = []
            for i in (shortlist[k] + 1)..<quick.count where quick[i].score > 0 && !shortlist.contains(i) {
                let c = quick[i].corners
                guard same(quick[shortlist[k]].corners, c), !shortlist[..<k].contains(where: { same(quick[$0].corners, c) }) else { continue }
                found.append(c)
                if found.count == RectangleDetector.maximumAlternates { break }
            }
            return found
        }
        func fits(_ q: [PixelPoint]) -> Bool { passes(q, width: image.width, height: image.height, slack: 0) }
        /// The candidate refined, with its confidence, if it passes the filters and the corner tests.
        func passing(_ candidate: [PixelPoint]) -> (corners: [PixelPoint], confidence: Double)? {
            var refined = support.refine(candidate)
            guard fits(refined) else { return nil }
            var corners = support.cornerFactor(of: refined)
            // Sides that miss a corner: a hybrid, or a real sheet whose edges bow; its corners fitted locally
            // tell which (fitted on every result, they cost synthetic hits: PERF-HISTORY).
            if !RectangleDetector.isOneRectangle(corners) && !corners.runsOn {
                let local = support.refinedCorners(refined)
                if fits(local) { refined = local; corners = support.cornerFactor(of: local) }
            }
            guard RectangleDetector.isOneRectangle(corners) else { return nil }
            let confidence = support.confidence(of: refined) * corners.factor * RectangleDetector.sizePrior(refined, short: short)
            return confidence > 0 ? (refined, confidence) : nil
        }
        for k in shortlist.indices {
            if let r = passing(quick[shortlist[k]].corners) {
                scored.append(r)
            } else if scored.isEmpty, let r = alternates(of: k).lazy.compactMap(passing).first {
                scored.append(r)
            }
        }
        // The second look (`secondLookBelow`): candidates from more lines, those not refined already.
        if (scored.map(\.confidence).max() ?? 0) < RectangleDetector.secondLookBelow && allLines.count > lines.count {
            let refined = shortlist.map { quick[$0].corners }
            let more = quickLook(candidates(lines: allLines, edges: coverage(allLines), width: image.width, height: image.height)
                .filter { c in !refined.contains { same($0, c) } })
            for i in entries(more) { if let r = passing(more[i].corners) { scored.append(r) } }
        }
        var kept = RectangleDetector.suppressDuplicates(scored)
        // Every result after the first must also pass the corner tests with its corners fitted locally: one
        // rectangle keeps its corners, a quad mixing sides (a grid's border with one of its inner lines) does not.
        // Not the first: there it cost hits (the local fit lands on a print's picture or a card's rounded corner),
        // and with one result asked for nothing changes, so it is skipped.
        if request.maximumObservations != 1 && kept.count > 1 {
            kept = [kept[0]] + kept.dropFirst().filter { result in
                let local = support.refinedCorners(result.corners)
                return fits(local) && RectangleDetector.isOneRectangle(support.cornerFactor(of: local))
            }
            // A result with a side along a better one's side is no rectangle of its own: a mix of the better
            // one's sides with another's, the better one cut by an inner line or stretched past its corner, or a
            // background rectangle closed by the better one's edge (never the first, so this too is skipped when
            // one result is asked for).
            var apart: [(corners: [PixelPoint], confidence: Double)] = []
            for b in kept where !apart.contains(where: { RectangleDetector.liesAlong(b.corners, $0.corners, short: short) }) {
                apart.append(b)
            }
            kept = apart
        }
        var out = kept.filter { $0.confidence >= request.minimumConfidence }.map {
            RectangleObservation(pixelCorners: $0.corners.map(photo.photoPoint), width: photo.fullWidth,
                                 height: photo.fullHeight, confidence: $0.confidence)
        }
        if request.maximumObservations > 0 && out.count > request.maximumObservations {
            out.removeLast(out.count - request.maximumObservations)
        }
        return out
    }

    // MARK: Lines

    /// The photo's lines, their edge coverage, and how far refinement should look for a side: a candidate's side
    /// can be a few grid steps off its edge at the ends (its line is fitted to segments up to ~3 px apart, and a
    /// degree over 300 px is 5 px), so 3.75 grid steps, at least 5 px (1.5 steps lost a fifth of the hits that
    /// refinement could win on the tuning sets; 6 steps jumped to neighbouring edges). The lines are the
    /// `secondLookLines` longest by support, best first; `coverage` builds the edge coverage of some of them (the
    /// segment detector's buffers are gone when this returns, but for its level-line field at detection size).
    static func lines(in image: Image) -> (lines: [Line], coverage: ([Line]) -> EdgeCoverage, searchRadius: Double) {
        let short = Double(min(image.width, image.height))
        // A large photo is box-shrunk first to about twice the detection size (the segment detector's Gaussian
        // then needs a few taps, not dozens), and the segments scaled back.
        let shrink = max(1, max(image.width, image.height) / Int(2 * RectangleDetector.detectionSide))
        let small = BoxDownscale.shrink(image, by: shrink)
        var lsd = LineSegmentDetector()
        lsd.scale = min(0.8, RectangleDetector.detectionSide / Double(max(small.width, small.height)))
        let s = Double(shrink)
        let (found, field) = lsd.detectWithField(image: small)
        let segments = found.map {
            LineSegment(start: $0.start * s, end: $0.end * s, width: $0.width * s, significance: $0.significance)
        }.filter { $0.length >= max(8, 0.02 * short) && !RectangleDetector.onBorder($0, width: image.width, height: image.height) }
        let lines = RectangleDetector.lines(from: segments, short: short)
        let (width, height) = (image.width, image.height)
        return (lines, { EdgeCoverage(lines: $0, field: field, fieldScale: s, width: width, height: height) }, max(5, 3.75 * s / lsd.scale))
    }

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

    /// Whether a segment runs along the photo's own border (both ends within 1.2 % of the short side, at least
    /// 3 px, of the same edge): a letterbox, a frame grabber's black rows, a scan's margin. The photo itself is
    /// not a rectangle anyone asks for, and a quad with such a side would be the photo, or cut off by it.
    static func onBorder(_ s: LineSegment, width: Int, height: Int) -> Bool {
        let margin = max(3, 0.012 * Double(min(width, height))), w = Double(width), h = Double(height)
        let ends = [s.start, s.end]
        return ends.allSatisfy { $0.x < margin } || ends.allSatisfy { $0.x > w - margin }
            || ends.allSatisfy { $0.y < margin } || ends.allSatisfy { $0.y > h - margin }
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
        if lines.count > secondLookLines { lines.removeLast(lines.count - secondLookLines) }
        return lines
    }

    // MARK: Candidates

    /// Each line's edge support along its length, from the segment detector's level-line field: a point of the
    /// line is supported when the field has a trusted gradient along the line within one grid step of it (the
    /// segments alone miss stretches of a side that the detector grew into a neighbouring region or found too
    /// short to be significant). Prefix sums, so the coverage of any stretch costs two reads.
    struct EdgeCoverage {
        var start: [Double] = [], first: [Int] = [], count: [Int] = []
        var prefix: [Int32] = []
        let step: Double

        init(lines: [Line], field: LevelLineField, fieldScale s: Double, width: Int, height: Int) {
            step = s * (field.scaleX + field.scaleY) / 2
            let maximumSine = Float(sin(22.5 * Double.pi / 180))
            let w = Double(width), h = Double(height)
            for l in lines {
                // The stretch of the line inside the photo.
                var lo = -Double.infinity, hi = Double.infinity
                for (p, d, size) in [(l.point.x, l.direction.x, w), (l.point.y, l.direction.y, h)] {
                    if abs(d) < 1e-9 { if p < 0 || p > size { lo = 0; hi = -1 }; continue }
                    let a = -p / d, b = (size - p) / d
                    lo = max(lo, min(a, b)); hi = min(hi, max(a, b))
                }
                start.append(lo); first.append(prefix.count)
                let n = hi > lo ? Int((hi - lo) / step) + 1 : 0
                count.append(n)
                // In the field's input pixels (the photo shrunk by s).
                let normal = l.normal * (step / s), origin = l.point * (1 / s), along = l.direction * (step / s)
                var total: Int32 = 0
                prefix.append(0)
                for k in 0..<n {
                    let p = origin + along * (lo / step + Double(k))
                    if field.isEdge(along: l.direction, at: p, maximumSine: maximumSine)
                        || field.isEdge(along: l.direction, at: p + normal, maximumSine: maximumSine)
                        || field.isEdge(along: l.direction, at: p - normal, maximumSine: maximumSine) { total += 1 }
                    prefix.append(total)
                }
            }
        }

        /// At the corner at station `s` of a side that runs from station `other`: the share of the side's last
        /// stretch before the corner that has an edge (`end`), and of the line's run on past the corner (`beyond`),
        /// each over an eighth of the side, the step at the corner itself left out.
        @inline(__always)
        func ends(_ line: Int, _ s: Double, from other: Double) -> CornerEnds {
            let sign: Double = s >= other ? 1 : -1, e = max(3, RectangleDetector.cornerStretch * abs(s - other))
            return CornerEnds(end: coverage(line, s - sign * e, s - sign), beyond: coverage(line, s + sign, s + sign * e))
        }

        /// Position t along line `line` (from its point, along its direction) in this table's steps.
        func station(_ line: Int, _ t: Double) -> Double { (t - start[line]) / step }

        /// The share of line `line` between two stations that has an edge; what lies outside the photo counts as
        /// none.
        @inline(__always)
        func coverage(_ line: Int, _ s0: Double, _ s1: Double) -> Double {
            let n = count[line], base = first[line]
            let a = min(s0, s1), b = max(s0, s1)
            // Clamped as doubles first (a corner far outside the photo may be beyond Int's range; NaN gives 0).
            let i0 = a >= 0 ? (a < Double(n) ? Int(a) : n) : 0, i1 = b >= 0 ? (b < Double(n) ? Int(b) : n) : 0
            let covered = Double(prefix[base + i1] - prefix[base + i0])
            return min(covered / max(b - a, 1), 1)
        }
    }

    /// Quads from two pairs of roughly opposite lines, kept when their corners are inside the photo, they pass
    /// the request's filters (with a little slack, as refinement moves them) and the segments cover every side;
    /// the best by coverage first.
    func candidates(lines: [Line], edges: EdgeCoverage, width: Int, height: Int) -> [[PixelPoint]] {
        let short = Double(min(width, height))
        let minimumSeparation = max(10, 0.7 * request.minimumSize * max(request.minimumAspectRatio, 0.1) * short)
        // Plain arrays for the inner loops (no reference counting of the lines' interval arrays there).
        let points = lines.map(\.point), directions = lines.map(\.direction)
        var pairs: [(Int, Int)] = []
        for i in lines.indices {
            for j in (i + 1)..<lines.count {
                let a = lines[i], b = lines[j]
                guard abs(a.direction.cross(b.direction)) < maximumOppositeSine else { continue }
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
        // Where on line k its corner with line j is, in the edge coverage's steps: (k · n + j).
        var station = [Double](repeating: 0, count: lines.count * lines.count)
        for i in lines.indices {
            for j in lines.indices where j > i && abs(directions[i].cross(directions[j])) > minimumCrossing {
                guard let x = cross(i, j) else { continue }
                corner[i * lines.count + j] = x; corner[j * lines.count + i] = x
                var near = true
                for (k, other) in [(i, j), (j, i)] {
                    let t = (x - points[k]).dot(directions[k]), (lo, hi) = extents[k]
                    let gap = max(lo - t, t - hi, 0)
                    if gap > 0.3 * short + (hi - lo) { near = false }
                    station[k * lines.count + other] = edges.station(k, t)
                }
                meets[i * lines.count + j] = near; meets[j * lines.count + i] = near
            }
        }
        // Quads as the indices of their sides (no array per quad in the loop), each scored by its sides' edge
        // coverage (cheap, so it comes before the geometric filters) and size.
        var found: [(sides: SIMD4<Int32>, score: Double)] = []
        let keep = RectangleDetector.maximumCandidates
        var worst = 0
        found.reserveCapacity(keep)
        var corners = [PixelPoint](repeating: PixelPoint(x: 0, y: 0), count: 4)
        let n = lines.count
        var pairIndex = [Int](repeating: -1, count: n * n)
        for (k, (i, j)) in pairs.enumerated() { pairIndex[i * n + j] = k; pairIndex[j * n + i] = k }
        let minimumSide = RectangleDetector.minimumSideCoverage, minimumSum = RectangleDetector.minimumCoverageSum
        // For a pair (a, b), the lines meeting both, with their coverage between a and b (which is that side's
        // coverage in every quad of the pair), those under `minimumSide` left out, best first: two sides'
        // coverage then bounds every quad still to come from the pair, and the loops stop at the list's worst.
        var both: [(line: Int, cover: Double)] = []
        for p in pairs.indices {
            let (a, b) = pairs[p]
            both.removeAll(keepingCapacity: true)
            for c in 0..<n where meets[a * n + c] && meets[b * n + c] {
                let cover = edges.coverage(c, station[c * n + a], station[c * n + b])
                if cover >= minimumSide { both.append((c, cover)) }
            }
            guard both.count >= 2 else { continue }
            both.sort { $0.cover > $1.cover }
            for ci in 0..<(both.count - 1) {
                for di in (ci + 1)..<both.count {
                    // c the lower line index of the two, as the quad's corner order has always been.
                    let (first, second) = both[ci].line < both[di].line ? (both[ci], both[di]) : (both[di], both[ci])
                    let c = first.line, d = second.line, coverC = first.cover, coverD = second.cover
                    // The best quad left from here has sides a and b fully covered (the corners and the size
                    // weigh at most 1 each).
                    let bar = found.count == keep ? 4 * found[worst].score : 0
                    guard coverC + coverD + 2 > bar else { break }
                    guard pairIndex[c * n + d] > p else { continue }   // each quad once, from its first pair
                    // Sides in order a, c, b, d; corners where consecutive sides meet.
                    let ac = corner[a * n + c], cb = corner[c * n + b], bd = corner[b * n + d], da = corner[d * n + a]
                    // Once the list is full, a quad whose sides cannot lift it over the worst is left at the first
                    // side that shows it (the size weight and the corners are at most 1).
                    let coverA = edges.coverage(a, station[a * n + d], station[a * n + c]); guard coverA >= minimumSide, coverA + coverC + coverD + 1 > bar else { continue }
                    let coverB = edges.coverage(b, station[b * n + c], station[b * n + d]); guard coverB >= minimumSide else { continue }
                    let sum = coverA + coverB + coverC + coverD
                    guard sum >= minimumSum else { continue }
                    corners[0] = da; corners[1] = ac; corners[2] = cb; corners[3] = bd
                    // The filters and the corners are read only for a quad that could make the list (the corners'
                    // product is at most 1).
                    let base = sum / 4 * RectangleDetector.sizePrior(corners, short: short)
                    if found.count == keep && base <= found[worst].score { continue }
                    guard passes(corners, width: width, height: height, slack: RectangleDetector.candidateSlack) else { continue }
                    // Each corner: do both sides' edges reach it, and stop there?
                    let sa = (station[a * n + d], station[a * n + c]), sc = (station[c * n + a], station[c * n + b])
                    let sb = (station[b * n + c], station[b * n + d]), sd = (station[d * n + b], station[d * n + a])
                    // Corner by corner, each weighing at most 1: a quad that falls to the list's worst is left there.
                    let floor = found.count == keep ? found[worst].score : -1
                    var score = base * RectangleDetector.cornerScore(edges.ends(a, sa.1, from: sa.0), edges.ends(c, sc.0, from: sc.1))
                    guard score > floor else { continue }
                    score *= RectangleDetector.cornerScore(edges.ends(c, sc.1, from: sc.0), edges.ends(b, sb.0, from: sb.1))
                    guard score > floor else { continue }
                    score *= RectangleDetector.cornerScore(edges.ends(b, sb.1, from: sb.0), edges.ends(d, sd.0, from: sd.1))
                    guard score > floor else { continue }
                    score *= RectangleDetector.cornerScore(edges.ends(d, sd.1, from: sd.0), edges.ends(a, sa.0, from: sa.1))
                    let quad = (sides: SIMD4(Int32(a), Int32(c), Int32(b), Int32(d)), score: score)
                    // The best `maximumCandidates` so far, kept without sorting (on a busy photo tens of thousands
                    // of quads pass): once full, a better quad replaces the worst.
                    if found.count < keep {
                        found.append(quad)
                        if found.count == keep { worst = found.indices.min { found[$0].score < found[$1].score }! }
                    } else if score > found[worst].score {
                        found[worst] = quad
                        worst = found.indices.min { found[$0].score < found[$1].score }!
                    }
                }
            }
        }
        found.sort { $0.score > $1.score }
        return found.map { q in
            let a = Int(q.sides[0]), c = Int(q.sides[1]), b = Int(q.sides[2]), d = Int(q.sides[3])
            return [corner[d * n + a], corner[a * n + c], corner[c * n + b], corner[b * n + d]]
        }
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

    /// How much of a side next to a corner, and of its line's run past the corner, the corner tests read.
    static let cornerStretch = 0.125
    /// How much a corner loses when an edge runs on past it (0.35 and 0.7 were worse on the real grids and the
    /// synthetic sets together), and how much of it rests on both sides reaching it (0.7 was worse).
    static let runOnWeight = 0.6
    static let reachWeight = 0.5

    /// A result's every side has edges on at least this share of its stretch next to each corner: a side that
    /// stops short of its corner belongs to another rectangle than the side it meets there. (0.25 when the
    /// edge had to be within 1 px; with `EdgeSupport.endTolerance` 2 px, 0.4 had fewer hybrids on every set at
    /// one synthetic hit, 0.3 and 0.55 were worse.)
    static let minimumEnd = 0.4

    /// The corner tests on a result's `EdgeSupport.cornerFactor`: every side's edge reaches both its corners
    /// (`minimumEnd`) and none runs on past one (`maximumRunOn`).
    static func isOneRectangle(_ corners: (factor: Double, weakestEnd: Double, runsOn: Bool)) -> Bool {
        corners.weakestEnd >= minimumEnd && !corners.runsOn
    }

    /// A result's sides' edges stop at its corners: when a side's own edge (the same two colours either side)
    /// runs on past a corner over this share of the stretch the corner test reads, the side belongs to a larger
    /// rectangle, met there by another's side (a sheet's edge and a line of text, a grid's border and one of its
    /// inner lines), and the quad is dropped. Found on the tuning sets (PERF.md "Rectangles"): on the 80 real
    /// grids, photos with such a result among all went from 61 to 14 at no hit lost.
    static let maximumRunOn = 0.8
    /// Past a corner, an edge of the side's polarity but other colours either side (a card's top edge lined up
    /// with a bench behind it) is less likely the side running on than one of the same colours: from this share
    /// of the stretch up, such points count `otherColoursWeight` (0 and 1 were worse on the tuning sets; PERF-HISTORY).
    static let sameColoursFrom = 0.5
    static let otherColoursWeight = 0.5

    /// What a corner test reads of one side: edge share on the side's last stretch (`end`) and past the corner.
    struct CornerEnds {
        var end: Double, beyond: Double
        /// Past the corner, the share where the side's own edge runs on (read when `beyond` reaches `sameColoursFrom`).
        var sameEdgeBeyond = 0.0
    }

    /// A corner's weight from its two sides: a real rectangle's sides both reach the corner and stop there; a
    /// quad that mixes sides of two rectangles has a corner where one edge runs on past the other, or where a
    /// side's edge stops short.
    @inline(__always)
    static func cornerScore(_ p: CornerEnds, _ q: CornerEnds) -> Double {
        (1 - runOnWeight * max(p.beyond, q.beyond)) * (1 - reachWeight + reachWeight * min(p.end, q.end))
    }

    /// The share of the confidence that is size: 0.55 for a tiny quad rising to 1 for one whose area is that of a
    /// square on the photo's shorter side. Of two quads with all sides supported, the larger is more likely the
    /// document the photo was taken of (and not a window behind it, or the paragraph box printed on it).
    static func sizePrior(_ q: [PixelPoint], short: Double) -> Double {
        0.55 + 0.45 * min(1, Polygon.area(q).squareRoot() / short)
    }

    /// Two results overlapping this much (Jaccard) are one rectangle found twice; less, and they are two: a
    /// sheet and the grid printed on it, a card and its photo.
    static let sameRectangle = 0.9
    /// An enclosing rectangle ranks before the one it encloses when its confidence is at least this share of
    /// the inner one's: the card before its photo, the print before the picture inside its white border.
    static let enclosingShare = 0.75

    /// Best first; a quad overlapping a better one by `sameRectangle` or more is dropped; then each enclosing
    /// rectangle nearly as confident as one it encloses moves before it.
    static func suppressDuplicates(_ quads: [(corners: [PixelPoint], confidence: Double)])
        -> [(corners: [PixelPoint], confidence: Double)] {
        var kept: [(corners: [PixelPoint], confidence: Double)] = []
        for q in quads.sorted(by: { $0.confidence > $1.confidence })
        where !kept.contains(where: { Polygon.jaccard(q.corners, $0.corners) >= sameRectangle }) {
            kept.append(q)
        }
        // Outer before inner: a strict order (the outer is larger), so this ends; bounded all the same.
        var moves = 0
        outer: while moves < kept.count * kept.count {
            for i in kept.indices {
                for j in (i + 1)..<kept.count where kept[j].confidence >= enclosingShare * kept[i].confidence
                    && encloses(kept[j].corners, kept[i].corners) {
                    kept.insert(kept.remove(at: j), at: i)
                    moves += 1
                    continue outer
                }
            }
            break
        }
        return kept
    }

    /// How far (a share of the photo's shorter side, at least 2 px) a side may be from another quad's side, at
    /// both ends of the stretch they share, and still lie along it (`liesAlong`).
    static let onSide = 0.01
    /// How much of the shorter of two sides they must share to lie along each other (`liesAlong`).
    static let sharedStretch = 0.2

    /// Whether a side of quad `b` lies along a side of the better result `a` (within `onSide` at both ends of
    /// the stretch they share, over at least `sharedStretch` of the shorter side), with `b` either on `a`'s
    /// inner side of that line or ending inside `a`'s side. Two real rectangles do not share an edge that way:
    /// nested ones (a sheet and its printed grid, a card and its photo) lie apart by a margin, and a result
    /// inside `a` along one of its sides mixes `a`'s sides with another's (a grid's border and one of its cell
    /// lines, a print's edge and a line of its picture), while one outside it that stretches a side past `a`'s
    /// corner, or one on the other side that ends along `a`'s side (a shelf behind a card, closed by the card's
    /// edge), has a corner where `a`'s edge runs on or stops. Only a neighbour on the other side whose side
    /// covers all of `a`'s (two prints butting edge to edge) is kept. On the synthetic sets, cases with such a
    /// result among all went from 29 / 28 / 27 to 5 / 2 / 2 (the rest are top results), at no top-1 hit lost
    /// (PERF-HISTORY "Rectangles, 2026-12-07 night").
    static func liesAlong(_ b: [PixelPoint], _ a: [PixelPoint], short: Double) -> Bool {
        let tolerance = max(2, onSide * short)
        let centreA = (a[0] + a[1] + a[2] + a[3]) * 0.25, centreB = (b[0] + b[1] + b[2] + b[3]) * 0.25
        for i in 0..<4 {
            let p = b[i], q = b[(i + 1) % 4]
            for j in 0..<4 {
                let s0 = a[j], s1 = a[(j + 1) % 4], length = s0.distance(to: s1)
                guard length > 0 else { continue }
                let d = (s1 - s0) * (1 / length), n = PixelPoint(x: -d.y, y: d.x)
                // b's side in a's side's frame: positions along it and distances from it.
                let t0 = (p - s0).dot(d), t1 = (q - s0).dot(d), h0 = (p - s0).dot(n), h1 = (q - s0).dot(n)
                let from = max(min(t0, t1), 0), to = min(max(t0, t1), length)
                guard abs(t1 - t0) > 1e-9, to - from >= sharedStretch * min(length, p.distance(to: q)) else { continue }
                func distance(at t: Double) -> Double { abs(h0 + (h1 - h0) * (t - t0) / (t1 - t0)) }
                guard distance(at: from) <= tolerance, distance(at: to) <= tolerance else { continue }
                let sameSide = ((centreA - s0).dot(n) > 0) == ((centreB - s0).dot(n) > 0)
                if sameSide || [t0, t1].contains(where: { $0 > 2 * tolerance && $0 < length - 2 * tolerance }) { return true }
            }
        }
        return false
    }

    /// Whether quad `a` holds nearly all of quad `b` and is larger.
    static func encloses(_ a: [PixelPoint], _ b: [PixelPoint]) -> Bool {
        let areaB = Polygon.area(b)
        return Polygon.area(a) > 1.05 * areaB && Polygon.area(Polygon.clip(b, to: a)) >= 0.97 * areaB
    }
}
