import Foundation
import SwiftsegImage

/// How well a photo's edges support a quad's sides, and the quad moved onto them. Both read the photo's colour
/// channels (at most `maximumSide` pixels on the longer side: finer gives no better corners) across each side:
/// at points along the side, a profile along the normal summed over three taps 1 px apart along the side (so
/// noise counts less); the contrast at an offset is the profile's difference over ±1 px, in the channel where it
/// is largest.
final class EdgeSupport {
    /// Smallest contrast across a side (levels of 0…255, over 2 px) that counts as an edge there.
    static let threshold: Float = 6
    /// Share of each end of a side left out (rounded corners, and where the neighbouring side's edge crosses).
    static let endMargin = 0.08
    /// The longer side of the copy the sides are read on.
    static let maximumSide = 1280
    static let step = 0.5
    /// Copies of at least this many bytes go on huge pages (see `init`; 640 × 480 is 4.9 MB).
    static let hugePagesFrom = 8 << 20
    /// The contrast at which a sample point counts fully; under it, in proportion (from one half at the
    /// threshold): a faint line in the background then weighs less than a document's edge (12 beat 0, 8, 20, 30
    /// on the tuning sets).
    static let fullContrast: Float = 12
    /// Two stretches of a side show the same edge when their colour differences across it (each channel, right
    /// minus left) are within this share of the first's length: the same two surfaces either side. (0.3 kept
    /// every hit on the tuning sets; 0.5 let a spoon's rim beyond a card's corner pass for the card's edge.)
    static let sameColours: Float = 0.3
    /// How far (copy px) from a side's line its edge may be on the stretch next to a corner and still count as
    /// reaching the corner: a real sheet's edge bows or curls a pixel or two off the straight side there (1 px
    /// dropped three of eight real sheet photos; 2 kept every hit on the synthetic and real-grid sets, 3 and 5
    /// let more hybrids through: PERF-HISTORY "Rectangles, 2026-12-07 evening").
    static let endTolerance = 2.0
    /// A corner's local fit (`refinedCorners`): each side re-fitted on its stretch from `localFitFrom` to
    /// `localFitTo` of its length from the corner (a card's rounded corner left out), looking within
    /// `localFitRadius` of its length (2 … 12 copy px) for the nearest edge of the side's polarity; the corner
    /// moves at most `localFitMove` of its shorter side.
    static let localFitFrom = 0.06, localFitTo = 0.35, localFitRadius = 0.02, localFitMove = 0.05
    /// Refinement's first pass keeps a side where it is when, within `cleanRadius` copy px of it, an edge of one
    /// polarity lies within 1 px of a straight line at `cleanShare` of its sample points. The wide search then
    /// corrects only sides that are off their edge (a grass stalk's line in place of a print's top), and a print's
    /// side on its outer edge is not pulled to its picture's edge, the stronger one, inside. (Share 0.75 / 0.8
    /// / 0.85 / 0.9 with radius 2: committed 95.0 / 95.0 / 93.3 / 94.2 %, `--seed 7` 95.8 / 95.8 / 96.7 / 96.7;
    /// radius 1.5 and 3 at 0.8 no better: PERF-HISTORY.)
    static let cleanRadius = 2.0, cleanShare = 0.9

    let width: Int, height: Int
    /// Photo pixels per copy pixel (an integer: the copy is a box average).
    let factor: Int
    /// RGB(+pad) per pixel, row-major, as SIMD4 for one load per bilinear corner.
    let pixels: UnsafeMutablePointer<SIMD4<Float>>
    /// Room for one point's profiles (`Profiles`): the support is used by one thread, one side at a time.
    let scratch: UnsafeMutablePointer<SIMD4<Float>>
    /// How far (photo px) refinement first looks on each side of a side for its edge.
    let searchRadius: Double

    init(image: Image, searchRadius: Double) {
        factor = max(1, (max(image.width, image.height) + EdgeSupport.maximumSide - 1) / EdgeSupport.maximumSide)
        width = image.width / factor
        height = image.height / factor
        self.searchRadius = searchRadius
        // A large copy on huge pages (`LargeBuffer`): a 12 MP photo's is 16 MB, whose 4,000 first-touch faults
        // were a sixth of a cold run's detection; a small one where it was (reused from the heap run to run).
        let bytes = width * height * MemoryLayout<SIMD4<Float>>.stride
        pixels = (bytes >= EdgeSupport.hugePagesFrom ? LargeBuffer.allocate(byteCount: bytes)
                  : UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16))
            .bindMemory(to: SIMD4<Float>.self, capacity: width * height)
        scratch = .allocate(capacity: 3 * EdgeSupport.maximumProfile)
        let copy = BoxDownscale.shrink(image, by: factor), c = copy.channels
        copy.pixels.withUnsafeBufferPointer { px in
            for i in 0..<(width * height) {
                let p = i * c
                pixels[i] = c == 1 ? SIMD4(Float(px[p]), Float(px[p]), Float(px[p]), 0)
                                   : SIMD4(Float(px[p]), Float(px[p + 1]), Float(px[p + 2]), 0)
            }
        }
    }

    deinit { pixels.deallocate(); scratch.deallocate() }

    /// Bilinear sample at a point of the copy's pixel-edge grid, borders extended.
    @inline(__always)
    func sample(_ x: Double, _ y: Double) -> SIMD4<Float> {
        let (x0, y0, fx, fy) = cell(x, y)
        let xa = min(max(x0, 0), width - 1), xb = min(max(x0 + 1, 0), width - 1)
        let ya = min(max(y0, 0), height - 1), yb = min(max(y0 + 1, 0), height - 1)
        return blend(ya * width + xa, ya * width + xb, yb * width + xa, yb * width + xb, fx, fy)
    }

    /// The pixel whose centre is up and left of (x, y), and the point's fractions towards the next ones.
    @inline(__always)
    func cell(_ x: Double, _ y: Double) -> (x0: Int, y0: Int, fx: Float, fy: Float) {
        let u = x - 0.5, v = y - 0.5
        let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
        return (x0, y0, Float(u - Double(x0)), Float(v - Double(y0)))
    }

    /// The bilinear blend of four pixels (by index: top left, top right, bottom left, bottom right).
    @inline(__always)
    func blend(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ fx: Float, _ fy: Float) -> SIMD4<Float> {
        let top = pixels[a] * (1 - fx) + pixels[b] * fx
        let bottom = pixels[c] * (1 - fx) + pixels[d] * fx
        return top * (1 - fy) + bottom * fy
    }

    /// Three profiles across a side (one per tap), `count` colours each, in the support's scratch memory.
    struct Profiles {
        let base: UnsafeMutablePointer<SIMD4<Float>>
        var count = 0
        @inline(__always) subscript(_ k: Int, _ j: Int) -> SIMD4<Float> { base[k * count + j] }
    }

    /// The longest profile (entries): a search radius of 30 px.
    static let maximumProfile = Int(2 * 31.5 / step) + 1

    /// Fills `t` with the per-tap profiles across the side at `p` (copy coordinates; unit direction `d`, normal
    /// `n`): entry (k, j) is the colour at p + (k − 1) d + (j · step − reach) n.
    @inline(__always)
    func profiles(_ p: PixelPoint, _ d: PixelPoint, _ n: PixelPoint, reach: Double, into t: inout Profiles) {
        let count = min(Int((2 * reach / EdgeSupport.step).rounded()) + 1, EdgeSupport.maximumProfile)
        t.count = count
        // The samples span a parallelogram: when its corners are inside, so is every sample and none needs the
        // border clamped (the same values either way).
        let last = Double(count - 1) * EdgeSupport.step
        let w = Double(width) - 0.5, h = Double(height) - 0.5
        @inline(__always) func within(_ q: PixelPoint) -> Bool { q.x >= 0.5 && q.y >= 0.5 && q.x < w && q.y < h }
        let inside = within(p - d - n * reach) && within(p - d + n * (last - reach))
            && within(p + d - n * reach) && within(p + d + n * (last - reach))
        for k in 0..<3 {
            let base = p + d * Double(k - 1) - n * reach
            for j in 0..<count {
                let o = Double(j) * EdgeSupport.step
                t.base[k * count + j] = inside ? sampleInside(base.x + n.x * o, base.y + n.y * o)
                                               : sample(base.x + n.x * o, base.y + n.y * o)
            }
        }
    }

    /// `sample` at a point whose four neighbours are all inside the copy.
    @inline(__always)
    func sampleInside(_ x: Double, _ y: Double) -> SIMD4<Float> {
        let (x0, y0, fx, fy) = cell(x, y)
        let i = y0 * width + x0
        return blend(i, i + 1, i + width, i + width + 1, fx, fy)
    }

    /// The contrast at profile index j (offset j · step − reach): the largest channel of the tap-averaged
    /// difference between j + 2 and j − 2 (±1 px), signed as the sum of the channels' differences (so that a
    /// colour edge keeps one polarity when its strongest channel changes).
    @inline(__always)
    static func contrast(_ t: Profiles, _ j: Int) -> Float { contrast(of: colours(t, j)) }

    /// The same from the colour difference itself (``colours(_:_:)``).
    @inline(__always)
    static func contrast(of diff: SIMD4<Float>) -> Float {
        let largest = largestMagnitude(diff)
        return diff[0] + diff[1] + diff[2] < 0 ? -largest : largest
    }

    /// The largest |lane| (what `pointwiseMax(v, -v).max()` gives, without the generic call it compiles to).
    @inline(__always)
    static func largestMagnitude(_ v: SIMD4<Float>) -> Float {
        max(max(abs(v[0]), abs(v[1])), max(abs(v[2]), abs(v[3])))
    }

    /// Points along the side p0 → p1 (copy coordinates, ends left out), about every 3 px, 8 to `maximum` of them.
    static func samples(_ p0: PixelPoint, _ p1: PixelPoint, maximum: Int) -> [PixelPoint] {
        let length = p0.distance(to: p1)
        let count = min(max(Int(length / 3), 8), maximum)
        let span = 1 - 2 * endMargin
        return (0..<count).map { i in p0 + (p1 - p0) * (endMargin + span * (Double(i) + 0.5) / Double(count)) }
    }

    func toCopy(_ q: [PixelPoint]) -> [PixelPoint] { q.map { $0 * (1 / Double(factor)) } }

    /// The geometric mean over the four sides of the share of sample points with an edge within 1 px: contrast
    /// across the side over the threshold (either polarity: a card may be brighter than the table on one part of
    /// a side and darker on another) and at least twice the contrast along it (texture has edges in every
    /// direction), a point counting fully from `fullContrast` up. 0 when a side has none. `samplesPerSide` caps
    /// the work (a quick look for ranking).
    func confidence(of quad: [PixelPoint], samplesPerSide: Int = 80) -> Double {
        var product = 1.0
        for i in 0..<4 { product *= sideSupport(quad[i], quad[(i + 1) % 4], samples: samplesPerSide) }
        return product > 0 ? product.squareRoot().squareRoot() : 0
    }

    /// The product of the quad's corner scores (`RectangleDetector.cornerScore`) read on the photo: at each
    /// corner, each side's edge share over its last eighth before the corner, and over as much of its line past
    /// the corner the share of points where the same edge runs on — the same polarity, at least half its contrast
    /// (texture beyond a corner has edges of either polarity and any strength), those with other colours either
    /// side counting `RectangleDetector.otherColoursWeight` — a few pixels at the corner itself left out.
    /// Also the least share of edge on any side's stretch next to a corner (`weakestEnd`): a quad whose side
    /// stops short of a corner is not one rectangle (`RectangleDetector.minimumEnd`); and whether at some corner
    /// a side's own edge — the same two colours either side of it — runs on past the corner
    /// (`RectangleDetector.maximumRunOn`): that side belongs to a larger rectangle than the side it meets there.
    func cornerFactor(of quad: [PixelPoint]) -> (factor: Double, weakestEnd: Double, runsOn: Bool) {
        var product = 1.0, weakest = 1.0, runsOn = false
        for i in 0..<4 {
            let corner = quad[i], before = quad[(i + 3) % 4], after = quad[(i + 1) % 4]
            func ends(_ from: PixelPoint) -> RectangleDetector.CornerEnds {
                let length = from.distance(to: corner), d = (corner - from) * (1 / max(length, 1e-9))
                let e = max(6, RectangleDetector.cornerStretch * length), gap = 2.0 * Double(factor)
                let end = sideSupport(corner - d * e, corner - d * gap, samples: 12, like: nil, likeColours: nil,
                                      within: EdgeSupport.endTolerance)
                guard end.meanContrast != 0 else { return RectangleDetector.CornerEnds(end: 0, beyond: 0) }
                let beyond = sideSupport(corner + d * gap, corner + d * e, samples: 12, like: end.meanContrast)
                var ends = RectangleDetector.CornerEnds(end: end.share, beyond: beyond.share)
                if beyond.share >= RectangleDetector.sameColoursFrom {
                    ends.sameEdgeBeyond = sideSupport(corner + d * gap, corner + d * e, samples: 12, like: end.meanContrast,
                                                      likeColours: end.meanColours).share
                    ends.beyond = ends.sameEdgeBeyond + RectangleDetector.otherColoursWeight * (beyond.share - ends.sameEdgeBeyond)
                }
                return ends
            }
            let p = ends(before), q = ends(after)
            product *= RectangleDetector.cornerScore(p, q)
            weakest = min(weakest, p.end, q.end)
            if max(p.sameEdgeBeyond, q.sameEdgeBeyond) >= RectangleDetector.maximumRunOn { runsOn = true }
        }
        return (product, weakest, runsOn)
    }

    /// One side's share of supported points (photo coordinates, weighted by contrast), at most `samples` of them.
    func sideSupport(_ a: PixelPoint, _ b: PixelPoint, samples: Int) -> Double {
        sideSupport(a, b, samples: samples, like: nil).share
    }

    /// The same, and the mean signed contrast (across the side, positive when brighter to its left in the
    /// photo's coordinates) of the supported points; with `like`, only points whose contrast has that sign and
    /// at least half its size count.
    func sideSupport(_ a: PixelPoint, _ b: PixelPoint, samples: Int, like: Float?) -> (share: Double, meanContrast: Float) {
        let r = sideSupport(a, b, samples: samples, like: like, likeColours: nil)
        return (r.share, r.meanContrast)
    }

    /// The same, also the mean colour difference across the side (right minus left, per channel) of the
    /// supported points; with `likeColours`, only points whose colour difference is within `sameColours` of
    /// it count: the same edge, the same two colours either side of it. `within`: how far from the side (copy
    /// px) an edge may lie and count.
    func sideSupport(_ a: PixelPoint, _ b: PixelPoint, samples: Int, like: Float?, likeColours: SIMD4<Float>?,
                     within: Double = 1) -> (share: Double, meanContrast: Float, meanColours: SIMD4<Float>) {
        let p0 = a * (1 / Double(factor)), p1 = b * (1 / Double(factor))
        let d = (p1 - p0) * (1 / max(p0.distance(to: p1), 1e-9)), n = PixelPoint(x: -d.y, y: d.x)
        let points = EdgeSupport.samples(p0, p1, maximum: samples)
        var t = Profiles(base: scratch)
        var supported = 0.0, sum: Float = 0, count = 0, colours = SIMD4<Float>(repeating: 0)
        let minimum = max(EdgeSupport.threshold, abs(like ?? 0) / 2)
        let tolerance = likeColours.map { EdgeSupport.sameColours * EdgeSupport.sameColours * ($0 * $0).sum() } ?? 0
        for p in points {
            profiles(p, d, n, reach: within + 1, into: &t)   // offsets −within … within at indices 2 … count − 3
            var best: Float = 0, signed: Float = 0, bestColours = SIMD4<Float>(repeating: 0)
            for j in 2...(t.count - 3) {
                let diff = EdgeSupport.colours(t, j), c = EdgeSupport.contrast(of: diff), across = abs(c)
                guard across >= minimum, like.map({ ($0 > 0) == (c > 0) }) ?? true else { continue }
                let delta = t[2, j] - t[0, j]; let along = EdgeSupport.largestMagnitude(delta)
                guard across >= 2 * along, across > best else { continue }
                if let likeColours {
                    let e = diff - likeColours
                    guard (e * e).sum() <= tolerance else { continue }
                }
                best = across; signed = c; bestColours = diff
            }
            if best > 0 {
                supported += Double(min(1, best / EdgeSupport.fullContrast)); sum += signed; colours += bestColours; count += 1
            }
        }
        return (supported / Double(points.count), count > 0 ? sum / Float(count) : 0,
                count > 0 ? colours / Float(count) : colours)
    }

    /// The tap-averaged colour difference at profile index j over ±1 px (what `contrast` reduces to one number).
    @inline(__always)
    static func colours(_ t: Profiles, _ j: Int) -> SIMD4<Float> {
        ((t[0, j + 2] - t[0, j - 2]) + (t[1, j + 2] - t[1, j - 2]) + (t[2, j + 2] - t[2, j - 2])) / 3
    }

    /// The quad with each side re-fitted to the strongest edge near it (sub-pixel, least squares with outliers
    /// trimmed) and the corners re-intersected; twice, the second time within 1.5 px. The first time, a side
    /// that already lies on a clean edge (`cleanRadius`, `cleanShare`) stays on it rather than moving to the
    /// strongest edge within the search radius: a print's outer edge, not its picture's a few pixels inside.
    func refine(_ quad: [PixelPoint]) -> [PixelPoint] {
        var q = toCopy(quad)
        for radius in [max(searchRadius / Double(factor), 1.5), 1.5] {
            var sides: [(point: PixelPoint, direction: PixelPoint)] = []
            for i in 0..<4 {
                let p0 = q[i], p1 = q[(i + 1) % 4]
                let d = (p1 - p0) * (1 / max(p0.distance(to: p1), 1e-9))
                if radius > EdgeSupport.cleanRadius, let clean = fitSide(p0, p1, radius: EdgeSupport.cleanRadius,
                                                                          requiredShare: EdgeSupport.cleanShare) {
                    sides.append(clean)
                } else {
                    sides.append(fitSide(p0, p1, radius: radius) ?? (p0, d))
                }
            }
            var next: [PixelPoint] = []
            for i in 0..<4 {
                let a = sides[(i + 3) % 4], b = sides[i]
                let denom = a.direction.cross(b.direction)
                guard abs(denom) > 1e-6 else { return quad }
                next.append(a.point + a.direction * ((b.point - a.point).cross(b.direction) / denom))
            }
            q = next
        }
        return q.map { $0 * Double(factor) }
    }

    /// The refined quad (photo coordinates) with each corner moved to where its two sides' edges meet next to
    /// it: each side re-fitted on its stretch near the corner only. A sheet whose edges bow (a fold, a curl) has
    /// its corners off the straight sides' crossings, and a straight side there misses the corner's edges; the
    /// local fit finds them. A corner whose sides cannot be fitted there, or that would move far, stays.
    func refinedCorners(_ quad: [PixelPoint]) -> [PixelPoint] {
        let q = toCopy(quad), f = Double(factor)
        var out = q
        for i in 0..<4 {
            let corner = q[i], before = q[(i + 3) % 4], after = q[(i + 1) % 4]
            func local(_ from: PixelPoint) -> (point: PixelPoint, direction: PixelPoint)? {
                let length = from.distance(to: corner)
                // The side's polarity, read along the same direction as the fit (from the far corner).
                let polarity = sideSupport(from * f, corner * f, samples: 24, like: nil).meanContrast
                guard polarity != 0 else { return nil }
                return fitSide(corner + (from - corner) * EdgeSupport.localFitTo, corner + (from - corner) * EdgeSupport.localFitFrom,
                               radius: min(12, max(2, EdgeSupport.localFitRadius * length)), polarity: polarity > 0 ? 1 : -1)
            }
            guard let a = local(before), let b = local(after) else { continue }
            let denom = a.direction.cross(b.direction)
            guard abs(denom) > 0.5 else { continue }   // sides crossing at 30° or more
            let x = a.point + a.direction * ((b.point - a.point).cross(b.direction) / denom)
            if x.distance(to: corner) <= EdgeSupport.localFitMove * min(corner.distance(to: before), corner.distance(to: after)) {
                out[i] = x
            }
        }
        return out.map { $0 * f }
    }

    /// The side p0 → p1 re-fitted to the edge points found within `radius` of it; nil when too few. The polarity
    /// is the one most sample points show, so the fit follows one edge and not the other side of a thin line.
    /// With `polarity` (±1), each point takes the edge of that polarity nearest the side instead of the strongest
    /// (a corner's local fit stays on a print's outer edge and does not jump to its picture's). With
    /// `requiredShare`, nil unless that share of the sample points lie within 1 px of the fit: a clean edge.
    func fitSide(_ p0: PixelPoint, _ p1: PixelPoint, radius: Double, polarity: Float? = nil, requiredShare: Double? = nil)
        -> (point: PixelPoint, direction: PixelPoint)? {
        let d = (p1 - p0) * (1 / max(p0.distance(to: p1), 1e-9)), n = PixelPoint(x: -d.y, y: d.x)
        let points = EdgeSupport.samples(p0, p1, maximum: 40)
        let reach = (min(radius, 30) / EdgeSupport.step).rounded() * EdgeSupport.step + 1.5
        var t = Profiles(base: scratch)
        var peaks: [(offset: Double, value: Float, point: PixelPoint)] = []
        var values = [Float](repeating: 0, count: EdgeSupport.maximumProfile)
        var positive = 0
        for p in points {
            profiles(p, d, n, reach: reach, into: &t)
            let last = t.count - 3
            var best: Float = 0, bestJ = -1
            for j in 2...last {
                values[j] = EdgeSupport.contrast(t, j)
                if abs(values[j]) > abs(best) { best = values[j]; bestJ = j }
            }
            if let polarity {
                best = 0; bestJ = -1
                let middle = (t.count - 1) / 2
                var nearest = Int.max
                for j in 3..<last where values[j] * polarity >= EdgeSupport.threshold && abs(j - middle) < nearest
                    && abs(values[j]) >= abs(values[j - 1]) && abs(values[j]) >= abs(values[j + 1]) {
                    nearest = abs(j - middle); best = values[j]; bestJ = j
                }
            }
            guard bestJ >= 0, abs(best) >= EdgeSupport.threshold else { continue }
            if best > 0 { positive += 1 }
            // Parabola through the peak and its neighbours.
            var shift = 0.0
            if bestJ > 2 && bestJ < last {
                let l = abs(values[bestJ - 1]), c = abs(best), r = abs(values[bestJ + 1])
                let curvature = l - 2 * c + r
                if curvature < 0 { shift = Double(max(-0.5, min(0.5, (l - r) / (2 * curvature)))) }
            }
            let offset = (Double(bestJ) + shift) * EdgeSupport.step - reach
            peaks.append((offset, best, p + n * offset))
        }
        let sign: Float = 2 * positive >= peaks.count ? 1 : -1
        let edge = peaks.filter { $0.value * sign > 0 }.map(\.point)
        guard edge.count >= max(5, points.count / 4), var fit = EdgeSupport.fitLine(edge) else { return nil }
        // Once more without the points far from the first fit (text touching the edge, a corner's other side).
        let near = edge.filter { abs(($0 - fit.point).cross(fit.direction)) <= 1.0 }
        if near.count >= max(5, points.count / 4), let refit = EdgeSupport.fitLine(near) { fit = refit }
        if let requiredShare, Double(near.count) < requiredShare * Double(points.count) { return nil }
        if fit.direction.dot(d) < 0 { fit.direction = fit.direction * -1 }
        return fit
    }

    /// Orthogonal least squares: the centroid and the principal direction.
    static func fitLine(_ points: [PixelPoint]) -> (point: PixelPoint, direction: PixelPoint)? {
        guard points.count >= 2 else { return nil }
        let c = points.reduce(PixelPoint(x: 0, y: 0), +) * (1 / Double(points.count))
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for p in points { let q = p - c; sxx += q.x * q.x; syy += q.y * q.y; sxy += q.x * q.y }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (c, PixelPoint(x: cos(angle), y: sin(angle)))
    }
}
