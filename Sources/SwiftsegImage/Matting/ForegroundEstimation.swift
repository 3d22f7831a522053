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
/// The sweeps run in raster order, updating in place, as pymatting's do; values are Float, as pymatting's are.
/// On several threads a sweep runs as a wavefront (rows dealt out in turn, each a block behind the row above),
/// which reads every neighbour in the state the raster order has it: the same bytes for any thread count.
public enum ForegroundEstimation {
    public static func foreground(rgb image: Image, alpha input: [Double], regularization: Float = 1e-5,
                                  smallIterations: Int = 10, bigIterations: Int = 2, smallSize: Int = 32,
                                  gradientWeight: Float = 1, threads: Int = 1) -> [Float] {
        SolverThreads.with(threads: threads) { pool in
            foreground(rgb: image, alpha: input, regularization: regularization, smallIterations: smallIterations,
                       bigIterations: bigIterations, smallSize: smallSize, gradientWeight: gradientWeight, pool: pool)
        }
    }

    /// On a pool of the caller's (``AlphaMatting`` shares the solver's), with the public defaults.
    static func foreground(rgb image: Image, alpha input: [Double], pool: SolverThreads?) -> [Float] {
        foreground(rgb: image, alpha: input, regularization: 1e-5, smallIterations: 10, bigIterations: 2, smallSize: 32,
                   gradientWeight: 1, pool: pool)
    }

    static func foreground(rgb image: Image, alpha input: [Double], regularization: Float, smallIterations: Int,
                           bigIterations: Int, smallSize: Int, gradientWeight: Float, pool: SolverThreads?) -> [Float] {
        let w0 = image.width, h0 = image.height, c = image.channels
        // 4 per pixel (the fourth 0) here and in F and B: a pixel's three channels are one SIMD value, worked on
        // lane by lane with the scalar operations, so the same bytes
        let scratch = ScratchArrays.shared
        var rgb = scratch.array(w0 * h0 * 4, repeating: Float(0))
        for i in 0..<(w0 * h0) {
            for k in 0..<3 { rgb[4 * i + k] = Float(Double(image.pixels[i * c + (c < 3 ? 0 : k)]) / 255) }
        }
        var alpha0 = scratch.array(w0 * h0, repeating: Float(0))
        for i in 0..<(w0 * h0) { alpha0[i] = Float(input[i]) }
        var fMean = [Float](repeating: 0, count: 3), bMean = [Float](repeating: 0, count: 3)
        var fCount = 0, bCount = 0
        for i in 0..<(w0 * h0) {
            if alpha0[i] > 0.9 { for k in 0..<3 { fMean[k] += rgb[4 * i + k] }; fCount += 1 }
            if alpha0[i] < 0.1 { for k in 0..<3 { bMean[k] += rgb[4 * i + k] }; bCount += 1 }
        }
        for k in 0..<3 {
            fMean[k] = Float(Double(fMean[k]) / (Double(fCount) + 1e-5))
            bMean[k] = Float(Double(bMean[k]) / (Double(bCount) + 1e-5))
        }
        var fPrev = fMean + [0], bPrev = bMean + [0], wPrev = 1, hPrev = 1
        let levels = Int(ceil(log2(Double(max(w0, h0)))))
        func resized(_ src: [Float], _ ws: Int, _ hs: Int, _ depth: Int, _ wd: Int, _ hd: Int) -> [Float] {
            // the source column of each destination column once, not a division per pixel
            let columns = (0..<wd).map { x in max(0, min(ws - 1, x * ws / wd)) * depth }
            var resized = scratch.array(wd * hd * depth, repeating: Float(0))
            resized.withUnsafeMutableBufferPointer { dst in
                src.withUnsafeBufferPointer { src in
                    for y in 0..<hd {
                        let row = src.baseAddress! + max(0, min(hs - 1, y * hs / hd)) * ws * depth
                        var out = dst.baseAddress! + y * wd * depth
                        for x in columns {
                            for k in 0..<depth { out[k] = row[x + k] }
                            out += depth
                        }
                    }
                }
            }
            return resized
        }
        var F = fPrev, B = bPrev
        for level in 0...max(levels, 0) {
            let w = levels == 0 ? w0 : Int(pow(Double(w0), Double(level) / Double(levels)).rounded(.toNearestOrEven))
            let h = levels == 0 ? h0 : Int(pow(Double(h0), Double(level) / Double(levels)).rounded(.toNearestOrEven))
            // at full size the photo and alpha are their own nearest-neighbour resizing: no copies
            let full = w == w0 && h == h0
            var image = full ? rgb : resized(rgb, w0, h0, 4, w, h)
            var alpha = full ? alpha0 : resized(alpha0, w0, h0, 1, w, h)
            defer { if !full { scratch.recycle(&image); scratch.recycle(&alpha) } }
            F = resized(fPrev, wPrev, hPrev, 4, w, h)
            B = resized(bPrev, wPrev, hPrev, 4, w, h)
            scratch.recycle(&fPrev)
            scratch.recycle(&bPrev)
            let iterations = w <= smallSize && h <= smallSize ? smallIterations : bigIterations
            image.withUnsafeBufferPointer { image in
                alpha.withUnsafeBufferPointer { alpha in
                    F.withUnsafeMutableBufferPointer { F in
                        B.withUnsafeMutableBufferPointer { B in
                            for _ in 0..<iterations {
                                sweep(image: image, alpha: alpha, F: F, B: B, width: w, height: h,
                                      regularization: regularization, gradientWeight: gradientWeight, pool: pool)
                            }
                        }
                    }
                }
            }
            fPrev = F; bPrev = B; wPrev = w; hPrev = h
        }
        var out = scratch.array(w0 * h0 * 3, repeating: Float(0))   // AlphaMatting hands it back after the cutout
        for i in 0..<(w0 * h0) { for k in 0..<3 { out[3 * i + k] = F[4 * i + k] } }
        fPrev = []; bPrev = []
        scratch.recycle(&F); scratch.recycle(&B); scratch.recycle(&rgb); scratch.recycle(&alpha0)
        return out
    }

    /// max(0, min(1, v)) lane by lane.
    @inline(__always)
    private static func clamped(_ v: SIMD4<Double>) -> SIMD4<Double> {
        let below = v.replacing(with: 1, where: v .> 1)
        return below.replacing(with: 0, where: below .< 0)
    }

    /// A row's progress in a wavefront sweep: `row · blocks + blocks done` of the last row it worked on.
    private final class Progress: @unchecked Sendable { let value = Atomic<Int>(0) }

    /// One in-place sweep in raster order. With a pool, thread t takes rows t, t + T, …, and starts a row's
    /// block b only once the row above has finished it: its up neighbours are then new, its down neighbours
    /// still old (the row below waits for this one), as in the raster order.
    private static func sweep(image: UnsafeBufferPointer<Float>, alpha: UnsafeBufferPointer<Float>,
                              F: UnsafeMutableBufferPointer<Float>, B: UnsafeMutableBufferPointer<Float>,
                              width w: Int, height h: Int, regularization: Float, gradientWeight: Float,
                              pool: SolverThreads?) {
        let block = 64, blocks = (w + block - 1) / block
        func pixels(_ y: Int, _ xs: Range<Int>) {
            sweep(image: image, alpha: alpha, F: F, B: B, width: w, height: h, row: y, columns: xs,
                  regularization: regularization, gradientWeight: gradientWeight)
        }
        guard let pool, h > 1, blocks > 1 else {
            for y in 0..<h { pixels(y, 0..<w) }
            return
        }
        let threads = pool.count
        let progress = (0..<threads).map { _ in Progress() }
        pool.run { t in
            var y = t
            while y < h {
                for b in 0..<blocks {
                    if y > 0 {
                        let above = progress[(y - 1) % threads], needed = (y - 1) * blocks + b + 1
                        var spins = 0
                        while above.value.load(ordering: .acquiring) < needed {
                            spins += 1
                            if spins > 20_000 { sched_yield() }
                        }
                    }
                    pixels(y, (b * block)..<min(w, (b + 1) * block))
                    progress[t].value.store(y * blocks + b + 1, ordering: .releasing)
                }
                y += threads
            }
        }
    }

    /// Row `y`'s pixels `columns`, left to right: per pixel, the 2×2 least-squares solve for its foreground and
    /// background colours given its neighbours' (left, right, up, down, clamped at the border), with pymatting's
    /// mix of Float and Double arithmetic, except that the left neighbour's term is added last: it is the pixel
    /// solved just before, kept in registers, and the chain from one pixel to the next is then one multiply and
    /// one add instead of four adds and a round trip through memory (pymatting's sums to within a rounding).
    @inline(__always)
    private static func sweep(image: UnsafeBufferPointer<Float>, alpha: UnsafeBufferPointer<Float>,
                              F: UnsafeMutableBufferPointer<Float>, B: UnsafeMutableBufferPointer<Float>,
                              width w: Int, height h: Int, row y: Int, columns: Range<Int>,
                              regularization: Float, gradientWeight: Float) {
        guard !columns.isEmpty else { return }
        image.withMemoryRebound(to: SIMD4<Float>.self) { image in
            F.withMemoryRebound(to: SIMD4<Float>.self) { F in
                B.withMemoryRebound(to: SIMD4<Float>.self) { B in
                    // the left neighbour of the first pixel: itself (old) at the border, else the one before
                    let first = y * w + max(0, columns.lowerBound - 1)
                    var leftF = F[first], leftB = B[first]
                    for x in columns {
                        let p = y * w + x
                        let a0 = alpha[p]
                        let a1 = 1.0 - Double(a0)
                        var a00 = a0 * a0
                        let a01 = Double(a0) * a1
                        var a11 = a1 * a1
                        var f = a0 * image[p]
                        var g = SIMD4<Float>(a1 * SIMD4<Double>(image[p]))
                        let left = y * w + max(0, x - 1)
                        let others = (y * w + min(w - 1, x + 1), max(0, y - 1) * w + x, min(h - 1, y + 1) * w + x)
                        let daLeft = regularization + gradientWeight * abs(a0 - alpha[left])
                        a00 += daLeft
                        a11 += Double(daLeft)
                        for q in [others.0, others.1, others.2] {
                            let da = regularization + gradientWeight * abs(a0 - alpha[q])
                            a00 += da
                            a11 += Double(da)
                            f += da * F[q]
                            g += da * B[q]
                        }
                        f += daLeft * leftF
                        g += daLeft * leftB
                        let determinant = Double(a00) * a11 - a01 * a01
                        let inverse = 1.0 / determinant
                        let m00 = inverse * a11, m01 = inverse * -a01, m11 = inverse * Double(a00)
                        let fd = SIMD4<Double>(f), gd = SIMD4<Double>(g)
                        let newF = SIMD4<Float>(clamped(m00 * fd + m01 * gd))
                        let newB = SIMD4<Float>(clamped(m01 * fd + m11 * gd))
                        F[p] = newF
                        B[p] = newB
                        leftF = newF
                        leftB = newB
                    }
                }
            }
        }
    }
}
