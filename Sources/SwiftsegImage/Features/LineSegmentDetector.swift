import Foundation

/// A straight edge found in an image: from `start` to `end` (pixel-edge coordinates of the image it was found in,
/// top-left origin), with the **brighter side on the left** when walking from start to end on screen.
public struct LineSegment: Sendable, Equatable {
    public var start: PixelPoint
    public var end: PixelPoint
    /// Width of the rectangle of aligned pixels, in the same pixels.
    public var width: Double
    /// −log10 of the number of false alarms: how unlikely the alignment is by chance (> 0 is meaningful).
    public var significance: Double

    public init(start: PixelPoint, end: PixelPoint, width: Double, significance: Double) {
        self.start = start; self.end = end; self.width = width; self.significance = significance
    }

    public var length: Double { start.distance(to: end) }
    /// The unit vector from start to end.
    public var direction: PixelPoint { (end - start) * (1 / max(length, 1e-12)) }
}

/// A line-segment detector after von Gioi, Jakubowicz, Morel and Randall, "LSD: a Line Segment Detector" (IPOL
/// 2012), written from the paper: Gaussian subsampling; 2 × 2 gradients; pixels whose gradient is too weak to
/// trust (quantisation error q = 2 gray levels) dropped; seeds taken in decreasing gradient order; regions grown
/// over 8-neighbours whose level-line angle is within τ of the region's; each region approximated by the
/// rectangle of its inertia; a rectangle kept when its number of false alarms under the a-contrario model (each
/// pixel aligned with probability τ / π, independently) is below ε = 1, after trying finer precisions and thinner
/// rectangles; regions too sparse for their rectangle regrown with half the tolerance.
///
/// ```swift
/// let segments = LineSegmentDetector().detect(GrayPlane(luminanceOf: photo))
/// let colour = LineSegmentDetector().detect(image: photo)   // on the colour channels: edges between hues too
/// ```
public struct LineSegmentDetector: Sendable {
    /// Subsampling factor before the gradient (the paper's 0.8 removes staircase aliasing).
    public var scale: Double = 0.8
    /// Gaussian σ of the subsampling, per unit of 1 / scale.
    public var sigmaScale: Double = 0.6
    /// Gray-level quantisation error q: gradients under q / sin τ are ignored.
    public var quantization: Double = 2
    /// Angle tolerance τ, radians.
    public var angleTolerance: Double = 22.5 * Double.pi / 180
    /// log10 of ε, the largest number of false alarms accepted.
    public var logEpsilon: Double = 0
    /// Smallest share of a rectangle's area its region must fill.
    public var densityThreshold: Double = 0.7
    /// Number of gradient bins for the pseudo-ordering of seeds.
    public var bins = 1024

    public init() {}

    public func detect(_ plane: GrayPlane) -> [LineSegment] { detect(planes: [plane]) }

    /// Segments in up to three planes of one image (the colour channels, say): at each pixel the gradient of the
    /// plane where it is strongest, so an edge between two colours of equal brightness is still an edge.
    public func detect(planes: [GrayPlane]) -> [LineSegment] {
        precondition((1...3).contains(planes.count)
                     && planes.allSatisfy { $0.width == planes[0].width && $0.height == planes[0].height },
                     "one to three planes of one size")
        let w = planes[0].width, h = planes[0].height
        var values = [SIMD4<Float>](repeating: .zero, count: w * h)
        for (k, plane) in planes.enumerated() { for i in 0..<(w * h) { values[i][k] = plane.values[i] } }
        return detect(Interleaved(width: w, height: h, values: values)).segments
    }

    /// Segments in an image's colour channels (gray: its one channel; alpha ignored), as `detect(planes:)`.
    public func detect(image: Image) -> [LineSegment] { detectWithField(image: image).segments }

    /// The segments, and the level-line field they were found in (for checking edges along lines of the caller's
    /// own, such as a side the segments cover only in part).
    public func detectWithField(image: Image) -> (segments: [LineSegment], field: LevelLineField) {
        let w = image.width, c = image.channels
        return image.pixels.withUnsafeBufferPointer { px in
            // One row at a time into the subsampling (no float copy of the whole photo).
            let input = RowSource(width: w, height: image.height) { y, row in
                let src = px.baseAddress! + y * w * c
                for x in 0..<w {
                    row[x] = c == 1 ? SIMD4(Float(src[x]), 0, 0, 0)
                                    : SIMD4(Float(src[c * x]), Float(src[c * x + 1]), Float(src[c * x + 2]), 0)
                }
            }
            return detect(input)
        }
    }

    /// Up to three planes interleaved, a pixel per SIMD4 (the fourth lane zero): every per-pixel step does all
    /// channels at once.
    struct Interleaved {
        let width: Int, height: Int
        var values: [SIMD4<Float>]
    }

    /// An image as rows of interleaved pixels, produced on demand.
    struct RowSource {
        let width: Int, height: Int
        let fill: (Int, UnsafeMutablePointer<SIMD4<Float>>) -> Void
    }

    func detect(_ input: Interleaved) -> (segments: [LineSegment], field: LevelLineField) {
        input.values.withUnsafeBufferPointer { v in
            detect(RowSource(width: input.width, height: input.height) { y, row in
                row.update(from: v.baseAddress! + y * input.width, count: input.width)
            })
        }
    }

    func detect(_ input: RowSource) -> (segments: [LineSegment], field: LevelLineField) {
        let scaled = LineSegmentDetector.gaussianSubsample(input, scale: scale, sigmaScale: sigmaScale)
        var state = State(input: scaled, detector: self)
        let sx = Double(input.width) / Double(scaled.width), sy = Double(input.height) / Double(scaled.height)
        // Grid point (x, y) is the 2 × 2 gradient at (x + 1, y + 1) in pixel-edge coordinates; back to the input.
        let segments = state.run().map { s in
            LineSegment(start: PixelPoint(x: (s.start.x + 1) * sx, y: (s.start.y + 1) * sy),
                        end: PixelPoint(x: (s.end.x + 1) * sx, y: (s.end.y + 1) * sy),
                        width: s.width * (sx + sy) / 2, significance: s.significance)
        }
        var levelLines = [SIMD2<Float>](repeating: SIMD2(repeating: .nan), count: state.width * state.height)
        for i in levelLines.indices where state.status[i] != State.undefined {
            levelLines[i] = SIMD2(state.cosines[i], state.sines[i])
        }
        let field = LevelLineField(width: state.width, height: state.height, scaleX: sx, scaleY: sy, levelLines: levelLines)
        return (segments, field)
    }

    /// Resampling by `scale` (< 1) with a Gaussian of σ = sigmaScale / scale input pixels, separable; at scale 1,
    /// the input as it is.
    static func gaussianSubsample(_ input: RowSource, scale: Double, sigmaScale: Double) -> Interleaved {
        let inW = input.width, inH = input.height
        if scale == 1 {
            var values = [SIMD4<Float>](repeating: .zero, count: inW * inH)
            values.withUnsafeMutableBufferPointer { v in
                for y in 0..<inH { input.fill(y, v.baseAddress! + y * inW) }
            }
            return Interleaved(width: inW, height: inH, values: values)
        }
        let outW = max(1, Int((Double(inW) * scale).rounded(.up)))
        let outH = max(1, Int((Double(inH) * scale).rounded(.up)))
        let sigma = scale < 1 ? sigmaScale / scale : sigmaScale
        let radius = Int((sigma * (2 * 3 * log(10.0)).squareRoot()).rounded(.up))
        let taps = 2 * radius + 1
        func weights(outSize: Int, inSize: Int) -> (first: [Int], w: [Float]) {
            var first = [Int](repeating: 0, count: outSize), w = [Float](repeating: 0, count: outSize * taps)
            let step = Double(inSize) / Double(outSize)
            for o in 0..<outSize {
                let center = (Double(o) + 0.5) * step - 0.5   // in input pixel-centre coordinates
                let c = Int(center.rounded(.down))
                first[o] = c - radius
                var sum = 0.0
                for t in 0..<taps {
                    let d = Double(c - radius + t) - center
                    let g = exp(-d * d / (2 * sigma * sigma))
                    w[o * taps + t] = Float(g); sum += g
                }
                for t in 0..<taps { w[o * taps + t] /= Float(sum) }
            }
            return (first, w)
        }
        let (fx, wx) = weights(outSize: outW, inSize: inW)
        let (fy, wy) = weights(outSize: outH, inSize: inH)
        // The horizontal pass row by row into a ring of `taps` rows (an output row reads `taps` consecutive input
        // rows, and the windows only move down), so a large photo's intermediate is never held whole: the same sums
        // in the same order as a full intermediate, a few hundred kB instead of megabytes to fault in.
        let ring = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: taps * outW)
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: inW)
        defer { ring.deallocate(); row.deallocate() }
        var out = [SIMD4<Float>](repeating: .zero, count: outW * outH)
        var filled = 0   // input rows filtered so far
        fx.withUnsafeBufferPointer { first in
            wx.withUnsafeBufferPointer { weight in
                out.withUnsafeMutableBufferPointer { dst in
                    for oy in 0..<outH {
                        let last = min(fy[oy] + taps - 1, inH - 1)
                        while filled <= last {
                            let y = filled
                            input.fill(y, row)
                            let m = ring + (y % taps) * outW
                            var o = 0
                            while o < outW {
                                let f = first[o], w = weight.baseAddress! + o * taps
                                if o + 4 <= outW && f >= 0 && first[o + 3] + taps <= inW {
                                    // four outputs at once: four independent sums (one sum's adds wait on each other),
                                    // each in the same order as alone
                                    let f1 = first[o + 1], f2 = first[o + 2], f3 = first[o + 3]
                                    var a0 = SIMD4<Float>.zero, a1 = a0, a2 = a0, a3 = a0
                                    for t in 0..<taps {
                                        a0 += w[t] * row[f &+ t]; a1 += w[taps &+ t] * row[f1 &+ t]
                                        a2 += w[2 &* taps &+ t] * row[f2 &+ t]; a3 += w[3 &* taps &+ t] * row[f3 &+ t]
                                    }
                                    m[o] = a0; m[o + 1] = a1; m[o + 2] = a2; m[o + 3] = a3
                                    o += 4
                                    continue
                                }
                                var acc = SIMD4<Float>.zero
                                if f >= 0 && f + taps <= inW {
                                    for t in 0..<taps { acc += w[t] * row[f + t] }
                                } else {
                                    for t in 0..<taps { acc += w[t] * row[min(max(f + t, 0), inW - 1)] }  // edges extended
                                }
                                m[o] = acc
                                o += 1
                            }
                            filled += 1
                        }
                        let dstRow = dst.baseAddress! + oy * outW
                        for t in 0..<taps {
                            let y = min(max(fy[oy] + t, 0), inH - 1)
                            let w = wy[oy * taps + t]
                            let srcRow = ring + (y % taps) * outW
                            for x in 0..<outW { dstRow[x] += w * srcRow[x] }
                        }
                    }
                }
            }
        }
        return Interleaved(width: outW, height: outH, values: out)
    }
}

extension LineSegmentDetector {
    /// The rectangle approximating a region, in gradient-grid coordinates.
    struct Rect {
        var start: PixelPoint, end: PixelPoint
        var center: PixelPoint
        var direction: PixelPoint      // unit, along the level lines
        var angle: Double
        var width: Double
        var precision: Double          // angle tolerance, radians
        var probability: Double        // of a pixel being aligned by chance

        var length: Double { start.distance(to: end) }
    }

    /// Working arrays of one detection: gradient angle and magnitude per grid point, and each point's status.
    struct State {
        static let unused: UInt8 = 0, used: UInt8 = 1, undefined: UInt8 = 2
        let width: Int, height: Int
        let detector: LineSegmentDetector
        /// The unit level-line vector (cos θ, sin θ) of each grid point: alignment is a dot product, no trigonometry.
        var cosines: [Float]
        var sines: [Float]
        var magnitudes: [Float]
        var status: [UInt8]
        var region: [Int32] = []
        let logNT: Double

        init(input: Interleaved, detector: LineSegmentDetector) {
            width = input.width; height = input.height
            self.detector = detector
            let n = width * height
            cosines = [Float](repeating: 0, count: n)
            sines = [Float](repeating: 0, count: n)
            magnitudes = [Float](repeating: 0, count: n)
            status = [UInt8](repeating: State.undefined, count: n)
            logNT = 5 * (log10(Double(width)) + log10(Double(height))) / 2 + log10(11.0)
            let threshold = Float(detector.quantization / sin(detector.angleTolerance))
            let w = width
            input.values.withUnsafeBufferPointer { img in
                magnitudes.withUnsafeMutableBufferPointer { mag in
                    cosines.withUnsafeMutableBufferPointer { cosines in
                        sines.withUnsafeMutableBufferPointer { sines in
                            status.withUnsafeMutableBufferPointer { status in
                                for y in 0..<max(height - 1, 0) {
                                    for x in 0..<(w - 1) {
                                        let i = y * w + x
                                        let com1 = img[i + w + 1] - img[i], com2 = img[i + 1] - img[i + w]
                                        let gx = com1 + com2, gy = com1 - com2
                                        let m2 = gx * gx + gy * gy
                                        // The strongest channel, signed by the sum of the channels' gradients: a
                                        // teal card on gray gravel is darker in red and brighter in blue, and the
                                        // strongest channel must not flip the direction from pixel to pixel.
                                        let k = m2[0] >= m2[1] ? (m2[0] >= m2[2] ? 0 : 2) : (m2[1] >= m2[2] ? 1 : 2)
                                        let m = (m2[k] / 4).squareRoot()
                                        mag[i] = m
                                        guard m > threshold else { continue }
                                        let flip: Float = gx[k] * gx.sum() + gy[k] * gy.sum() < 0 ? -1 : 1
                                        // θ = atan2(gx, −gy): the level line is the gradient turned a quarter turn.
                                        let r = 2 * m
                                        cosines[i] = -flip * gy[k] / r
                                        sines[i] = flip * gx[k] / r
                                        status[i] = State.unused
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Grid points in decreasing gradient order (a counting sort into `bins` levels).
        func seeds() -> [Int32] {
            var maxMag: Float = 0
            for (i, m) in magnitudes.enumerated() where status[i] == State.unused { maxMag = max(maxMag, m) }
            guard maxMag > 0 else { return [] }
            let bins = detector.bins
            var counts = [Int](repeating: 0, count: bins + 1)
            let k = Float(bins - 1) / maxMag
            for (i, m) in magnitudes.enumerated() where status[i] == State.unused { counts[bins - 1 - Int(m * k)] += 1 }
            var offset = 0
            for b in 0..<bins { let c = counts[b]; counts[b] = offset; offset += c }
            var order = [Int32](repeating: 0, count: offset)
            for (i, m) in magnitudes.enumerated() where status[i] == State.unused {
                let b = bins - 1 - Int(m * k)
                order[counts[b]] = Int32(i); counts[b] += 1
            }
            return order
        }

        mutating func run() -> [LineSegment] {
            let tau = detector.angleTolerance
            let p = tau / Double.pi
            let minRegionSize = Int((-logNT / log10(p)).rounded(.down))
            var out: [LineSegment] = []
            for seed in seeds() where status[Int(seed)] == State.unused {
                growRegion(from: Int(seed), tolerance: tau)
                if region.count < minRegionSize { continue }
                guard var rect = rectangle(tolerance: tau, probability: p) else { continue }
                if !dense(rect) {
                    // Too sparse for its rectangle (an edge grown into texture, two edges joined at a corner): regrow
                    // with the tolerance the points near the seed show (twice their angles' deviation), then shrink
                    // the region around its seed until it is dense enough.
                    let tolerance = seedTolerance(seed: Int(seed), rect: rect)
                    for i in region { status[Int(i)] = State.unused }
                    growRegion(from: Int(seed), tolerance: tolerance)
                    guard let tighter = shrinkUntilDense(seed: Int(seed), tolerance: tolerance, probability: tolerance / Double.pi,
                                                         minimumSize: minRegionSize) else { continue }
                    rect = tighter
                }
                let (best, significance) = improve(rect)
                guard significance > detector.logEpsilon else { continue }
                out.append(LineSegment(start: best.start, end: best.end, width: best.width, significance: significance))
            }
            return out
        }

        /// Grows `region` from `seed` over unused 8-neighbours aligned with the running mean direction.
        mutating func growRegion(from seed: Int, tolerance: Double) {
            region.removeAll(keepingCapacity: true)
            region.append(Int32(seed))
            status[seed] = State.used
            var sumX = cosines[seed], sumY = sines[seed]
            var cx = sumX, cy = sumY
            let minimumDot = Float(cos(tolerance))
            let w = width, h = height
            var next = 0
            cosines.withUnsafeBufferPointer { cosines in
                sines.withUnsafeBufferPointer { sines in
                    status.withUnsafeMutableBufferPointer { status in
                        while next < region.count {
                            let i = Int(region[next]); next += 1
                            let y = i / w, x = i - y * w
                            for yy in max(y - 1, 0)...min(y + 1, h - 1) {
                                for xx in max(x - 1, 0)...min(x + 1, w - 1) {
                                    let j = yy * w + xx
                                    if status[j] != State.unused || cosines[j] * cx + sines[j] * cy < minimumDot { continue }
                                    status[j] = State.used
                                    region.append(Int32(j))
                                    sumX += cosines[j]; sumY += sines[j]
                                    let norm = 1 / max((sumX * sumX + sumY * sumY).squareRoot(), 1e-12)
                                    cx = sumX * norm; cy = sumY * norm
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The rectangle of the region's gradient-weighted inertia, oriented along the region's level lines.
        func rectangle(tolerance: Double, probability: Double) -> Rect? {
            var sw = 0.0, sx = 0.0, sy = 0.0, sumCos = 0.0, sumSin = 0.0
            for r in region {
                let i = Int(r), m = Double(magnitudes[i])
                sw += m; sx += m * Double(i % width); sy += m * Double(i / width)
                sumCos += Double(cosines[i]); sumSin += Double(sines[i])
            }
            guard sw > 0 else { return nil }
            let cx = sx / sw, cy = sy / sw
            var sxx = 0.0, syy = 0.0, sxy = 0.0
            for r in region {
                let i = Int(r), m = Double(magnitudes[i])
                let dx = Double(i % width) - cx, dy = Double(i / width) - cy
                sxx += m * dx * dx; syy += m * dy * dy; sxy += m * dx * dy
            }
            var theta = 0.5 * atan2(2 * sxy, sxx - syy)
            if cos(theta) * sumCos + sin(theta) * sumSin < 0 { theta += Double.pi }   // along the level lines
            let d = PixelPoint(x: cos(theta), y: sin(theta)), n = PixelPoint(x: -d.y, y: d.x)
            var lMin = 0.0, lMax = 0.0, wMin = 0.0, wMax = 0.0
            for r in region {
                let i = Int(r)
                let q = PixelPoint(x: Double(i % width) - cx, y: Double(i / width) - cy)
                let l = q.dot(d), w = q.dot(n)
                lMin = min(lMin, l); lMax = max(lMax, l); wMin = min(wMin, w); wMax = max(wMax, w)
            }
            let c = PixelPoint(x: cx, y: cy) + n * ((wMin + wMax) / 2)
            return Rect(start: c + d * lMin, end: c + d * lMax, center: c, direction: d, angle: theta,
                        width: max(wMax - wMin, 1), precision: tolerance, probability: probability)
        }

        /// The angle tolerance for regrowing a sparse region: twice the deviation of the level-line angles of its
        /// points within the rectangle's width of the seed, from their mean.
        func seedTolerance(seed: Int, rect: Rect) -> Double {
            let sx = Double(seed % width), sy = Double(seed / width)
            var sum = 0.0, sum2 = 0.0, count = 0.0
            let theta = Double(atan2f(sines[seed], cosines[seed]))
            for r in region {
                let i = Int(r)
                let dx = Double(i % width) - sx, dy = Double(i / width) - sy
                guard (dx * dx + dy * dy).squareRoot() < rect.width else { continue }
                var a = Double(atan2f(sines[i], cosines[i])) - theta
                while a <= -Double.pi { a += 2 * Double.pi }
                while a > Double.pi { a -= 2 * Double.pi }
                sum += a; sum2 += a * a; count += 1
            }
            guard count > 1 else { return detector.angleTolerance / 2 }
            let mean = sum / count
            return min(max(2 * (sum2 / count - mean * mean).squareRoot(), 2 * Double.pi / 180), detector.angleTolerance)
        }

        /// The paper's region-radius reduction: drop the points farthest from the seed (radius × 0.75 each time)
        /// until the rectangle is dense enough; the dropped points are free for later seeds.
        mutating func shrinkUntilDense(seed: Int, tolerance: Double, probability: Double, minimumSize: Int) -> Rect? {
            let sx = Double(seed % width), sy = Double(seed / width)
            while region.count >= max(minimumSize, 2) {
                guard let rect = rectangle(tolerance: tolerance, probability: probability) else { return nil }
                if dense(rect) { return rect }
                var radius = 0.0
                for r in region {
                    let dx = Double(Int(r) % width) - sx, dy = Double(Int(r) / width) - sy
                    radius = max(radius, (dx * dx + dy * dy).squareRoot())
                }
                let limit = radius * 0.75
                region.removeAll { r in
                    let dx = Double(Int(r) % width) - sx, dy = Double(Int(r) / width) - sy
                    let far = (dx * dx + dy * dy).squareRoot() > limit
                    if far { status[Int(r)] = State.unused }
                    return far
                }
            }
            return nil
        }

        func dense(_ rect: Rect) -> Bool {
            Double(region.count) / max(rect.length * rect.width, 1) >= detector.densityThreshold
        }

        /// Grid points inside the rectangle, and how many of them are aligned with it.
        func alignment(_ rect: Rect) -> (points: Int, aligned: Int) {
            let n = PixelPoint(x: -rect.direction.y, y: rect.direction.x) * (rect.width / 2)
            let corners = [rect.start - n, rect.end - n, rect.end + n, rect.start + n]
            let y0 = max(Int(corners.map(\.y).min()!.rounded(.up)), 0)
            let y1 = min(Int(corners.map(\.y).max()!.rounded(.down)), height - 1)
            guard y0 <= y1 else { return (0, 0) }
            let dx = Float(cos(rect.angle)), dy = Float(sin(rect.angle)), minimumDot = Float(cos(rect.precision))
            var points = 0, aligned = 0
            for y in y0...y1 {
                // The row's span inside the convex quad: the extreme crossings of its four edges.
                let fy = Double(y)
                var xMin = Double.infinity, xMax = -Double.infinity
                for e in 0..<4 {
                    let a = corners[e], b = corners[(e + 1) % 4]
                    if (a.y <= fy && fy <= b.y) || (b.y <= fy && fy <= a.y) {
                        let x = a.y == b.y ? min(a.x, b.x) : a.x + (fy - a.y) / (b.y - a.y) * (b.x - a.x)
                        let x2 = a.y == b.y ? max(a.x, b.x) : x
                        xMin = min(xMin, x); xMax = max(xMax, x2)
                    }
                }
                guard xMin <= xMax else { continue }
                let x0 = max(Int(xMin.rounded(.up)), 0), x1 = min(Int(xMax.rounded(.down)), width - 1)
                guard x0 <= x1 else { continue }
                points += x1 - x0 + 1
                for x in x0...x1 {
                    let i = y * width + x
                    if status[i] != State.undefined && cosines[i] * dx + sines[i] * dy >= minimumDot { aligned += 1 }
                }
            }
            return (points, aligned)
        }

        /// −log10(NFA) of the rectangle: the binomial tail of its aligned points, times the number of tests.
        func significance(_ rect: Rect) -> Double {
            let (n, k) = alignment(rect)
            return State.significance(points: n, aligned: k, probability: rect.probability, logNT: logNT)
        }

        static func significance(points n: Int, aligned k: Int, probability p: Double, logNT: Double) -> Double {
            if n == 0 || k == 0 || Double(k) <= Double(n) * p { return -logNT }
            if n == k { return -logNT - Double(n) * log10(p) }
            let nd = Double(n), kd = Double(k)
            let logFirst = lgamma(nd + 1) - lgamma(kd + 1) - lgamma(nd - kd + 1) + kd * log(p) + (nd - kd) * log(1 - p)
            // The tail's later terms relative to the first; they fall off fast since k > n p here.
            var term = 1.0, sum = 1.0
            var i = k + 1
            while i <= n {
                term *= (nd - Double(i) + 1) / Double(i) * p / (1 - p)
                sum += term
                if term < sum * 1e-12 { break }
                i += 1
            }
            return -(logFirst / log(10.0) + log10(sum)) - logNT
        }

        /// The paper's rectangle improvement: finer precisions, then thinner rectangles, keeping the most significant.
        func improve(_ rect: Rect) -> (Rect, Double) {
            var best = rect, bestSig = significance(rect)
            if bestSig > detector.logEpsilon { return (best, bestSig) }
            var r = rect
            for _ in 0..<5 {
                r.probability /= 2; r.precision = r.probability * Double.pi
                let s = significance(r)
                if s > bestSig { best = r; bestSig = s }
            }
            r = best
            for _ in 0..<5 where r.width - 0.5 >= 0.5 {
                r.width -= 0.5
                let s = significance(r)
                if s > bestSig { best = r; bestSig = s }
            }
            return (best, bestSig)
        }
    }
}

/// The level-line field a `LineSegmentDetector` worked on: at each grid point of its subsampled image, whether the
/// gradient was strong enough to trust (over q / sin τ) and the unit level-line vector (the gradient turned a
/// quarter turn). Coordinates are the detector's input pixels (pixel-edge, top-left origin).
///
/// ```swift
/// let (segments, field) = LineSegmentDetector().detectWithField(image: photo)
/// field.isEdge(along: side.direction, at: PixelPoint(x: 120, y: 80), maximumSine: 0.38)
/// ```
public struct LevelLineField: Sendable {
    public let width: Int, height: Int
    /// Input pixels per grid step.
    public let scaleX: Double, scaleY: Double
    /// (cos θ, sin θ) of the level line at each grid point; NaN where the gradient is too weak to trust (every
    /// comparison with it is false).
    @usableFromInline let levelLines: [SIMD2<Float>]

    init(width: Int, height: Int, scaleX: Double, scaleY: Double, levelLines: [SIMD2<Float>]) {
        self.width = width; self.height = height; self.scaleX = scaleX; self.scaleY = scaleY
        self.levelLines = levelLines
    }

    /// Whether the grid point nearest `p` (input pixels) has a trusted gradient whose level line is within
    /// asin(maximumSine) of `direction` (a unit vector, either sense): an edge running along `direction` there.
    @inlinable
    public func isEdge(along direction: PixelPoint, at p: PixelPoint, maximumSine: Float) -> Bool {
        // The nearest grid point: grid (x, y) is at input ((x + 1) scaleX, (y + 1) scaleY); truncation is the
        // floor once the value is known to be non-negative (no call to a rounding function in this hot path).
        let u = p.x / scaleX - 0.5, v = p.y / scaleY - 0.5
        guard u >= 0, v >= 0 else { return false }
        let x = Int(u), y = Int(v)
        guard x < width - 1, y < height - 1 else { return false }
        let l = levelLines[y * width + x]
        return abs(l.x * Float(direction.y) - l.y * Float(direction.x)) <= maximumSine
    }
}
