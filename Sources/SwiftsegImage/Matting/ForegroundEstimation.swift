import Foundation
import Synchronization

/// Foreground colours under a matte (Germer, Uelwer, Conrad, Harmeling 2020, "Fast multi-level foreground
/// estimation"), as pymatting's `estimate_foreground_ml` computes them with its defaults: from a 1×1 image of
/// the mean foreground and background colours up to full size in ⌈log2(max(W, H))⌉ levels (each side
/// round(side^(level/levels)), nearest-neighbour resizing), at each level a few in-place sweeps (10 while both
/// sides are ≤ 32, else 2) that solve, per pixel, the 2×2 least-squares system of the compositing equation
/// with a smoothness term weighted by regularization (1e-5) + |Δα| toward the four neighbours.
///
/// ```swift
/// let rgb = ForegroundEstimation.foreground(rgb: photo, alpha: alpha)   // [Float] 0…1, 3 per pixel
/// ```
///
/// The sweeps run in raster order, updating in place, as pymatting's do, in Float; each pixel's solve is written
/// so that Float is enough (``solve(alpha:photo:weights:neighbours:)``), where pymatting needs Double for it:
/// against pymatting's colours, mean |Δ| 0.002–0.03 of 255 on the fixtures (MattingTests).
/// ``foregroundReference(rgb:alpha:regularization:smallIterations:bigIterations:smallSize:gradientWeight:)``
/// is that loop pixel by pixel; ``foreground(rgb:alpha:regularization:smallIterations:bigIterations:smallSize:gradientWeight:threads:isa:)``
/// gives its bytes four pixels at a time (``SkewedBands``), on any number of threads and in every build of its
/// loop (`isa`: the widest this CPU runs by default; ``MattingKernelSet``).
public enum ForegroundEstimation {
    /// pymatting's `estimate_foreground_ml` defaults, which rembg calls it with: every entry point's defaults.
    public static let defaults = (regularization: Float(1e-5), smallIterations: 10, bigIterations: 2, smallSize: 32,
                                  gradientWeight: Float(1))

    public static func foreground(rgb image: Image, alpha input: [Double], regularization: Float = defaults.regularization,
                                  smallIterations: Int = defaults.smallIterations, bigIterations: Int = defaults.bigIterations,
                                  smallSize: Int = defaults.smallSize, gradientWeight: Float = defaults.gradientWeight,
                                  threads: Int = 1, isa: KernelISA = .best) -> [Float] {
        SolverThreads.with(threads: threads) { pool in
            foreground(rgb: image, alpha: input, regularization: regularization, smallIterations: smallIterations,
                       bigIterations: bigIterations, smallSize: smallSize, gradientWeight: gradientWeight, pool: pool,
                       isa: isa)
        }
    }

    /// On a pool of the caller's (``AlphaMatting`` shares the solver's).
    static func foreground(rgb image: Image, alpha input: [Double], regularization: Float = defaults.regularization,
                           smallIterations: Int = defaults.smallIterations, bigIterations: Int = defaults.bigIterations,
                           smallSize: Int = defaults.smallSize, gradientWeight: Float = defaults.gradientWeight,
                           pool: SolverThreads?, isa: KernelISA = .best) -> [Float] {
        var out = [Float](repeating: 0, count: image.width * image.height * 3)   // the caller's: not a scratch array
        estimate(rgb: image, alpha: input, regularization: regularization, smallIterations: smallIterations,
                 bigIterations: bigIterations, smallSize: smallSize, gradientWeight: gradientWeight, pool: pool, isa: isa) {
            layout, storage in
            out.withUnsafeMutableBufferPointer { layout.copyForeground(storage, into: $0.baseAddress!, pixelStride: 3, pool: pool) { $0 } }
        }
        return out
    }

    /// The same foreground as 8-bit colours (``byte(_:)-swift.type.method``, as rembg converts them), written into
    /// `out`'s first three bytes of every `pixelStride` (3: RGB; 4: RGBA, the fourth left as it is).
    static func foregroundBytes(rgb image: Image, alpha input: [Double], into out: UnsafeMutablePointer<UInt8>,
                                pixelStride: Int, pool: SolverThreads?, isa: KernelISA = .best) {
        let d = defaults
        estimate(rgb: image, alpha: input, regularization: d.regularization, smallIterations: d.smallIterations,
                 bigIterations: d.bigIterations, smallSize: d.smallSize, gradientWeight: d.gradientWeight, pool: pool, isa: isa) {
            layout, storage in
            layout.copyForeground(storage, into: out, pixelStride: pixelStride, pool: pool) { byte($0) }
        }
    }

    /// The levels' fills and sweeps; `finish` reads the full-size level (its layout and storage) before the
    /// storage goes back to the scratch arrays.
    private static func estimate(rgb image: Image, alpha input: [Double], regularization: Float, smallIterations: Int,
                                 bigIterations: Int, smallSize: Int, gradientWeight: Float, pool: SolverThreads?,
                                 isa: KernelISA, finish: (SkewedBands, UnsafePointer<Float>) -> Void) {
        let kernels = MattingKernelSet(isa)
        let w0 = image.width, h0 = image.height
        let means = meanColours(image, input)
        let scratch = ScratchArrays.shared
        // The level before the first: 1×1, the mean colours.
        var previousLayout = SkewedBands(width: 1, height: 1)
        var previous = scratch.array(previousLayout.count, repeating: Float(0))
        for k in 0..<3 {
            previous[previousLayout.index(y: 0, x: 0, field: SkewedBands.foreground + k)] = means.foreground[k]
            previous[previousLayout.index(y: 0, x: 0, field: SkewedBands.background + k)] = means.background[k]
        }
        for (w, h) in levelSizes(width: w0, height: h0) {
            let layout = SkewedBands(width: w, height: h, kernels: kernels)
            var current = scratch.arrayToOverwrite(layout.count, of: Float(0))   // fill writes every position
            current.withUnsafeMutableBufferPointer { current in
                previous.withUnsafeBufferPointer { previous in
                    layout.fill(current.baseAddress!, photo: image, alpha: input, previous: previous.baseAddress!,
                                previousLayout: previousLayout, pool: pool)
                }
                let iterations = w <= smallSize && h <= smallSize ? smallIterations : bigIterations
                for _ in 0..<iterations {
                    layout.sweep(current.baseAddress!, regularization: regularization, gradientWeight: gradientWeight,
                                 pool: pool)
                }
            }
            scratch.recycle(&previous)
            previous = current
            previousLayout = layout
        }
        previous.withUnsafeBufferPointer { finish(previousLayout, $0.baseAddress!) }
        scratch.recycle(&previous)
    }

    /// The photo's channel `k` at pixel `i` as the sweeps see it: 0…1 in Float (gray: its one channel thrice).
    @inline(__always)
    static func photoValue(_ pixels: UnsafeBufferPointer<UInt8>, channels c: Int, pixel i: Int, channel k: Int) -> Float {
        photoValues[Int(pixels[i * c + (c < 3 ? 0 : k)])]
    }

    /// v / 255 in Double, rounded to Float, for v = 0…255 (as pymatting scales the photo).
    static let photoValues: [Float] = (0...255).map { Float(Double($0) / 255) }
    /// The same table in memory of its own, kept for the process, for loops that read it without bounds checks.
    nonisolated(unsafe) static let photoValueTable: UnsafePointer<Float> = {   // never written after
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        table.initialize(from: photoValues, count: 256)
        return UnsafePointer(table)
    }()

    /// A value 0…1 as rembg writes it: × 255, clipped, truncated.
    @inline(__always)
    static func byte(_ v: Double) -> UInt8 { UInt8(truncatingIfNeeded: Int(min(255, max(0, v * 255)))) }
    @inline(__always)
    static func byte(_ v: Float) -> UInt8 { byte(Double(v)) }
    /// The mean colours where α > 0.9 and where α < 0.1 (pymatting's start, the 1×1 level): the bytes summed
    /// exactly as integers, then scaled, where pymatting sums the 0…1 values in Float (its means are within
    /// Float's rounding of these).
    static func meanColours(_ image: Image, _ alpha: [Double]) -> (foreground: [Float], background: [Float]) {
        // foreground r, g, b, count; background r, g, b, count (in locals: the loop keeps them in registers)
        var fr = 0, fg = 0, fb = 0, fn = 0, br = 0, bg = 0, bb = 0, bn = 0
        let c = image.channels, g = c < 3 ? 0 : 1, b = c < 3 ? 0 : 2
        image.pixels.withUnsafeBufferPointer { pixels in
            alpha.withUnsafeBufferPointer { alpha in
                var p = pixels.baseAddress!
                for a in alpha {
                    let a = Float(a)
                    if a > 0.9 {
                        fr &+= Int(p[0]); fg &+= Int(p[g]); fb &+= Int(p[b]); fn &+= 1
                    } else if a < 0.1 {
                        br &+= Int(p[0]); bg &+= Int(p[g]); bb &+= Int(p[b]); bn &+= 1
                    }
                    p += c
                }
            }
        }
        func mean(_ sums: [Int], _ count: Int) -> [Float] { sums.map { Float(Double($0) / 255 / (Double(count) + 1e-5)) } }
        return (mean([fr, fg, fb], fn), mean([br, bg, bb], bn))
    }

    /// The levels' sizes, 1×1 up to the photo's.
    static func levelSizes(width w0: Int, height h0: Int) -> [(width: Int, height: Int)] {
        let levels = Int(ceil(log2(Double(max(w0, h0)))))
        guard levels > 0 else { return [(w0, h0)] }
        return (0...levels).map { level in
            (Int(pow(Double(w0), Double(level) / Double(levels)).rounded(.toNearestOrEven)),
             Int(pow(Double(h0), Double(level) / Double(levels)).rounded(.toNearestOrEven)))
        }
    }

    // MARK: The reference

    /// pymatting's loop as written, pixel by pixel and channel by channel in raster order on one thread: what the
    /// fast path is tested against.
    public static func foregroundReference(rgb image: Image, alpha input: [Double],
                                           regularization: Float = defaults.regularization,
                                           smallIterations: Int = defaults.smallIterations,
                                           bigIterations: Int = defaults.bigIterations, smallSize: Int = defaults.smallSize,
                                           gradientWeight: Float = defaults.gradientWeight) -> [Float] {
        let w0 = image.width, h0 = image.height
        var rgb = [Float](repeating: 0, count: w0 * h0 * 3)
        image.pixels.withUnsafeBufferPointer { pixels in
            for i in 0..<(w0 * h0) {
                for k in 0..<3 { rgb[3 * i + k] = photoValue(pixels, channels: image.channels, pixel: i, channel: k) }
            }
        }
        let alpha0 = input.map { Float($0) }
        let means = meanColours(image, input)
        var F = means.foreground, B = means.background, wPrev = 1, hPrev = 1
        func resized(_ src: [Float], _ ws: Int, _ hs: Int, _ depth: Int, _ wd: Int, _ hd: Int) -> [Float] {
            var resized = [Float](repeating: 0, count: wd * hd * depth)
            for y in 0..<hd {
                for x in 0..<wd {
                    let source = max(0, min(hs - 1, y * hs / hd)) * ws + max(0, min(ws - 1, x * ws / wd))
                    for k in 0..<depth { resized[(y * wd + x) * depth + k] = src[source * depth + k] }
                }
            }
            return resized
        }
        for (w, h) in levelSizes(width: w0, height: h0) {
            let image = resized(rgb, w0, h0, 3, w, h), alpha = resized(alpha0, w0, h0, 1, w, h)
            F = resized(F, wPrev, hPrev, 3, w, h)
            B = resized(B, wPrev, hPrev, 3, w, h)
            let iterations = w <= smallSize && h <= smallSize ? smallIterations : bigIterations
            for _ in 0..<iterations {
                image.withUnsafeBufferPointer { image in
                    alpha.withUnsafeBufferPointer { alpha in
                        F.withUnsafeMutableBufferPointer { F in
                            B.withUnsafeMutableBufferPointer { B in
                                for y in 0..<h {
                                    referenceRow(image: image, alpha: alpha, F: F, B: B, width: w, height: h, row: y,
                                                 regularization: regularization, gradientWeight: gradientWeight)
                                }
                            }
                        }
                    }
                }
            }
            wPrev = w; hPrev = h
        }
        return F
    }

    /// Row `y`, left to right: per pixel, the 2×2 least-squares solve for its foreground and background colours
    /// given its neighbours' (left, right, up, down, clamped at the border): ``solve(alpha:photo:weights:neighbours:)``.
    private static func referenceRow(image: UnsafeBufferPointer<Float>, alpha: UnsafeBufferPointer<Float>,
                                     F: UnsafeMutableBufferPointer<Float>, B: UnsafeMutableBufferPointer<Float>,
                                     width w: Int, height h: Int, row y: Int,
                                     regularization: Float, gradientWeight: Float) {
        for x in 0..<w {
            let p = y * w + x
            // left, right, up, down
            let q = [y * w + max(0, x - 1), y * w + min(w - 1, x + 1), max(0, y - 1) * w + x, min(h - 1, y + 1) * w + x]
            let weights = q.map { regularization + gradientWeight * abs(alpha[p] - alpha[$0]) }
            for k in 0..<3 {
                let (f, b) = solve(alpha: alpha[p], photo: image[3 * p + k], weights: weights,
                                   neighbours: q.map { (F: F[3 * $0 + k], B: B[3 * $0 + k]) })
                F[3 * p + k] = f
                B[3 * p + k] = b
            }
        }
    }

    /// One pixel's channel: the minimiser of (α·F + (1 − α)·B − I)² + Σ wᵢ·((F − Fᵢ)² + (B − Bᵢ)²) over the
    /// neighbours i (left, right, up, down), clamped to 0…1. pymatting solves the 2×2 normal equations
    /// [α² + S, α(1 − α); α(1 − α), (1 − α)² + S] (S = Σ wᵢ) by their inverse in Double; their determinant and
    /// products cancel to 1e-4 where the weights are near the regularization (flat α), which Float cannot
    /// afford. The same solution written without the cancelling terms — det = S·(α² + (1 − α)²) + S²,
    /// F = ((1 − α)·A + S·f) / det, B = (S·g − α·A) / det with P = Σ wᵢFᵢ, Q = Σ wᵢBᵢ, f = α·I + P,
    /// g = (1 − α)·I + Q, A = (1 − α)·P − α·Q (the photo's terms cancel exactly in A) — is accurate in Float
    /// (within 3e-7 of each pixel's exact solution, where pymatting's mixed arithmetic errs by up to 4e-4; PERF.md).
    /// ``SkewedBands``' step takes the same operations in the same order on four lanes: its bytes are these.
    static func solve(alpha a0: Float, photo: Float, weights w: [Float], neighbours n: [(F: Float, B: Float)]) -> (Float, Float) {
        let a1 = 1 - a0
        let sum = w[0] + w[1] + w[2] + w[3]
        // the left neighbour last: in the fast path it is the pixel solved just before, still in registers
        let P = w[1] * n[1].F + w[2] * n[2].F + w[3] * n[3].F + w[0] * n[0].F
        let Q = w[1] * n[1].B + w[2] * n[2].B + w[3] * n[3].B + w[0] * n[0].B
        let f = a0 * photo + P, g = a1 * photo + Q
        let A = a1 * P - a0 * Q
        let determinant = sum * (a0 * a0 + a1 * a1) + sum * sum
        let inverse = 1 / determinant
        return (clamped((a1 * A + sum * f) * inverse), clamped((sum * g - a0 * A) * inverse))
    }

    /// max(0, min(1, v)), in the order of the SIMD version's two selects.
    static func clamped(_ v: Float) -> Float {
        let below = v > 1 ? 1 : v
        return below < 0 ? 0 : below
    }

    /// max(0, min(1, v)) lane by lane.
    @inline(__always)
    static func clamped(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let below = v.replacing(with: 1, where: v .> 1)
        return below.replacing(with: 0, where: below .< 0)
    }
}

/// The foreground sweeps' layout: the rows in bands of four, each band stored by steps s, where step s holds
/// the band's rows 0, 1, 2, 3 at columns s, s − 1, s − 2, s − 3 — one SIMD4 lane per row, ten SIMD4 per step
/// (α; the photo's r, g, b; F's r, g, b; B's r, g, b). In raster order a pixel's left and up neighbours are
/// already new and its right and down ones still old; on such a diagonal no pixel is another's neighbour, so
/// a step solves four pixels at once, and every neighbour is a lane of the steps beside it: left the step just
/// solved, up that step moved one lane down (lane 0 from the band above, three steps on), right the next step,
/// down that step moved one lane up (lane 3 from the band below, three steps back). Each pixel gets the
/// reference's operations in the reference's order: the same bytes.
///
/// Borders, where the reference reads the pixel itself: each lane's row is stored from column −4 to W + 7
/// with the edge columns' values repeated, and the last band's rows past the image copies of its last row; α
/// is constant, and F and B's copies at column W and below the last row are refreshed before each sweep (a
/// step overwrites them after they are read); the left of column 0 is the pixel itself, put into the step's
/// left value.
struct SkewedBands {
    static let lanes = 4, fields = 10
    static let alpha = 0, photo = 1, foreground = 4, background = 7
    let width: Int, height: Int, bands: Int
    /// Steps stored per band: columns −4 ..< W + 8 of lane 0.
    let length: Int
    /// The build of the sweep's loop (``MattingKernels/foregroundSweep``).
    let kernels: MattingKernelSet

    init(width: Int, height: Int, kernels: MattingKernelSet = .best) {
        self.width = width
        self.height = height
        self.kernels = kernels
        bands = (height + 3) / 4
        length = width + 12
    }

    var count: Int { bands * length * Self.fields * 4 }
    /// Steps a sweep takes per band, until lane 3 has done column W − 1.
    var steps: Int { width + 3 }

    /// The Float index of band `b`'s step `s`, field 0, lane 0.
    @inline(__always)
    func record(band b: Int, step s: Int) -> Int { (b &* length &+ s &+ 4) &* (Self.fields &* 4) }

    /// The Float index of pixel (y, x)'s `field`.
    @inline(__always)
    func index(y: Int, x: Int, field: Int) -> Int {
        let j = y & 3
        return record(band: y >> 2, step: x &+ j) &+ field &* 4 &+ j
    }

    /// This level's α and photo (nearest-neighbour from the full size, as the reference resizes them) and F and B
    /// (nearest-neighbour from the level before), every stored position, the border copies included.
    func fill(_ storage: UnsafeMutablePointer<Float>, photo: Image, alpha: [Double], previous: UnsafePointer<Float>,
              previousLayout: SkewedBands, pool: SolverThreads?) {
        let w0 = photo.width, h0 = photo.height, wp = previousLayout.width, hp = previousLayout.height
        let w = width, h = height, c = photo.channels, stride = Self.fields * 4
        // per column: its photo pixel, and its F's offset from column 0 in the level before (raw memory, as the
        // photo's value table: the loop below reads them without bounds checks)
        let photoColumns = UnsafeMutablePointer<Int>.allocate(capacity: 2 * w), previousSteps = photoColumns + w
        defer { photoColumns.deallocate() }
        for x in 0..<w {
            photoColumns[x] = max(0, min(w0 - 1, x * w0 / w))
            previousSteps[x] = max(0, min(wp - 1, x * wp / w)) * stride
        }
        let values = ForegroundEstimation.photoValueTable
        let threads = pool == nil || bands < 8 ? 1 : pool!.count
        photo.pixels.withUnsafeBufferPointer { pixels in
            alpha.withUnsafeBufferPointer { alpha in
                SolverThreads.each(threads, on: pool) { t in
                    for b in Swift.stride(from: t, to: bands, by: threads) {
                        // the band's four rows: photo, α, and F in the level before
                        @inline(__always) func rows(_ j: Int) -> (UnsafePointer<UInt8>, UnsafePointer<Double>, UnsafePointer<Float>) {
                            let y = min(b * 4 + j, h - 1)
                            let yFull = max(0, min(h0 - 1, y * h0 / h)), yPrevious = max(0, min(hp - 1, y * hp / h))
                            return (pixels.baseAddress! + yFull * w0 * c, alpha.baseAddress! + yFull * w0,
                                    previous + previousLayout.index(y: yPrevious, x: 0, field: Self.foreground))
                        }
                        let r0 = rows(0), r1 = rows(1), r2 = rows(2), r3 = rows(3)
                        typealias Lane = (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)
                        @inline(__always) func lane(_ r: (UnsafePointer<UInt8>, UnsafePointer<Double>, UnsafePointer<Float>),
                                                    _ i: Int, _ j: Int) -> Lane {
                            let x = max(0, min(w - 1, i - 4 - j)), column = photoColumns[x]
                            let pixel = r.0 + column * c, from = r.2 + previousSteps[x]
                            return (Float(r.1[column]), values[Int(pixel[0])], values[Int(pixel[c < 3 ? 0 : 1])],
                                    values[Int(pixel[c < 3 ? 0 : 2])], from[0], from[4], from[8], from[12], from[16], from[20])
                        }
                        // a step's ten vectors built in registers and stored whole
                        let out = UnsafeMutableRawPointer(storage + record(band: b, step: -4))
                            .assumingMemoryBound(to: SIMD4<Float>.self)
                        for i in 0..<length {
                            let l0 = lane(r0, i, 0), l1 = lane(r1, i, 1), l2 = lane(r2, i, 2), l3 = lane(r3, i, 3)
                            let o = out + i * Self.fields
                            o[0] = SIMD4(l0.0, l1.0, l2.0, l3.0); o[1] = SIMD4(l0.1, l1.1, l2.1, l3.1)
                            o[2] = SIMD4(l0.2, l1.2, l2.2, l3.2); o[3] = SIMD4(l0.3, l1.3, l2.3, l3.3)
                            o[4] = SIMD4(l0.4, l1.4, l2.4, l3.4); o[5] = SIMD4(l0.5, l1.5, l2.5, l3.5)
                            o[6] = SIMD4(l0.6, l1.6, l2.6, l3.6); o[7] = SIMD4(l0.7, l1.7, l2.7, l3.7)
                            o[8] = SIMD4(l0.8, l1.8, l2.8, l3.8); o[9] = SIMD4(l0.9, l1.9, l2.9, l3.9)
                        }
                    }
                }
            }
        }
    }

    /// F of every pixel, converted by `convert`, into `out` in raster order, `pixelStride` values a pixel. The
    /// storage is read once, in order: band by band, step by step, each step's four lanes (four rows) at once
    /// (a row at a time read every band four times, from memory on large photos); bands t, t + T, … on worker t.
    /// (Converting a step's four lanes as SIMD4 vectors was twice as slow: the vector conversions to Double and
    /// to integers went lane by lane.)
    func copyForeground<T>(_ storage: UnsafePointer<Float>, into out: UnsafeMutablePointer<T>, pixelStride: Int,
                           pool: SolverThreads?, _ convert: (Float) -> T) {
        let w = width, h = height, step = Self.fields * 4
        let threads = pool?.count ?? 1
        SolverThreads.each(threads, on: pool) { t in
            for b in Swift.stride(from: t, to: bands, by: threads) {
                let rows = min(4, h - 4 * b)
                var from = storage + record(band: b, step: 0) + Self.foreground * 4
                for s in 0..<(w + 3) {   // lane j holds column s − j
                    for j in 0..<rows where s - j >= 0 && s - j < w {
                        let to = out + ((4 * b + j) * w + s - j) * pixelStride
                        to[0] = convert(from[j]); to[1] = convert(from[4 + j]); to[2] = convert(from[8 + j])
                    }
                    from += step
                }
            }
        }
    }

    /// F and B's border copies (column W of every row, and the rows below the image) from the values now.
    private func refreshBorders(_ storage: UnsafeMutablePointer<Float>) {
        for b in 0..<bands {
            for j in 0..<4 {
                let from = record(band: b, step: width - 1 + j) + j, to = from + Self.fields * 4
                for k in 0..<6 { storage[to + 4 * (Self.foreground + k)] = storage[from + 4 * (Self.foreground + k)] }
            }
        }
        let last = height - 1 - (bands - 1) * 4
        for j in (last + 1)..<4 {
            for x in 0...width {
                let from = record(band: bands - 1, step: x + last) + last, to = record(band: bands - 1, step: x + j) + j
                for k in 0..<6 { storage[to + 4 * (Self.foreground + k)] = storage[from + 4 * (Self.foreground + k)] }
            }
        }
    }

    /// A band's progress in a wavefront sweep: `band · steps + steps done` of the last band it worked on.
    private final class Progress: @unchecked Sendable { let value = Atomic<Int>(0) }

    /// One in-place sweep in raster order. With a pool, thread t takes bands t, t + T, …, and starts a block of
    /// steps once the band above is three steps past the block's end: its lane 0's up neighbours are then new,
    /// and the band above has read the old values it needs from this band's lane 0.
    func sweep(_ storage: UnsafeMutablePointer<Float>, regularization: Float, gradientWeight: Float, pool: SolverThreads?) {
        refreshBorders(storage)
        let block = 64, n = steps
        guard let pool, bands > 1, n >= 2 * block else {
            // two bands at a time, the lower four steps behind (``MattingKernels/foregroundSweepPair``)
            var b = 0
            while b + 1 < bands {
                kernels.foregroundSweepPair(storage + record(band: b, step: 0), storage + up(band: b), storage + down(band: b),
                                            storage + record(band: b + 1, step: 0), storage + up(band: b + 1),
                                            storage + down(band: b + 1), steps, regularization, gradientWeight)
                b += 2
            }
            if b < bands { sweep(storage, band: b, regularization: regularization, gradientWeight: gradientWeight) { _ in } }
            return
        }
        let threads = pool.count
        let progress = (0..<threads).map { _ in Progress() }
        pool.run { t in
            var b = t
            while b < bands {
                let above = b > 0 ? progress[(b - 1) % threads] : nil, mine = progress[t], band = b
                sweep(storage, band: b, block: block, regularization: regularization, gradientWeight: gradientWeight) { end in
                    if let above {
                        let needed = (band - 1) * n + min(n, end + 3)
                        var spins = 0
                        while above.value.load(ordering: .acquiring) < needed {
                            spins += 1
                            if spins > 20_000 { sched_yield() }
                        }
                    }
                } done: { end in
                    mine.value.store(band * n + end, ordering: .releasing)
                }
                b += threads
            }
        }
    }

    private func sweep(_ storage: UnsafeMutablePointer<Float>, band b: Int, block: Int = .max,
                       regularization: Float, gradientWeight: Float, ready: (Int) -> Void, done: (Int) -> Void = { _ in }) {
        kernels.foregroundSweep(storage + record(band: b, step: 0), storage + up(band: b), storage + down(band: b), steps,
                                block, regularization, gradientWeight, ready, done)
    }

    /// Where band `b`'s sweep reads its up neighbours: the band above's lane 3 three steps on (band 0: its own
    /// lane 0, the pixel itself).
    private func up(band b: Int) -> Int { b > 0 ? record(band: b - 1, step: 3) + 3 : record(band: b, step: 0) }
    /// Where it reads its down neighbours: the band below's lane 0 three steps back (the last band: its own lane 3).
    private func down(band b: Int) -> Int { b < bands - 1 ? record(band: b + 1, step: -3) : record(band: b, step: 0) + 3 }
}
