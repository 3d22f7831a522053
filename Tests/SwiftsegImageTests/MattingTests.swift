import Foundation
import SwiftsegImage
import XCTest

/// rembg's alpha matting: the trimap exactly, and the cutout against rembg's own (Tools/make_matting_fixtures.py:
/// pymatting's closed-form alpha and multi-level foreground) on photos with hair, fur and a lattice tower.
final class MattingTests: XCTestCase {
    static let cases = [("astronaut", "astronaut.png"), ("chelsea", "chelsea.png"), ("rocket", "rocket.jpg")]

    func testTheTrimapIsRembgsExactly() throws {
        for (name, _) in Self.cases {
            let mask = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
            let expected = try Image(contentsOfFile: Fixtures.path("matting/\(name).trimap.png"))
            XCTAssertEqual(Trimap(mask: mask).labels, expected.pixels, name)
        }
    }

    func testErosionMatchesScipysOffsetsAndBorders() {
        // a 12×1 line of trues: size 4 keeps offsets −2…1; outside is false for foreground, true for background
        let line = [Bool](repeating: true, count: 12)
        XCTAssertEqual(Trimap.erode(line, width: 12, height: 1, size: 4, outside: false), [Bool](repeating: false, count: 12),
                       "one row: every pixel has outside rows in its square")
        let wide = [Bool](repeating: true, count: 12 * 5)
        let eroded = Trimap.erode(wide, width: 12, height: 5, size: 4, outside: false)
        let middleRow: [Bool] = (0..<12).map { eroded[2 * 12 + $0] }
        let expectedRow: [Bool] = [false, false, true, true, true, true, true, true, true, true, true, false]
        XCTAssertEqual(middleRow, expectedRow, "size 4 keeps columns x − 2 … x + 1")
        XCTAssertEqual(Trimap.erode(wide, width: 12, height: 5, size: 4, outside: true), wide)
        var dot = [Bool](repeating: true, count: 25); dot[12] = false
        let cross = Trimap.erode(dot, width: 5, height: 5, size: 0, outside: true)
        XCTAssertEqual((0..<25).filter { !cross[$0] }, [7, 11, 12, 13, 17], "size 0: scipy's 3×3 cross")
    }

    /// The trimap's windowed minimum and maximum against the two erosions of the thresholded mask (the reference),
    /// on blotchy random masks: sizes odd and even, wider and narrower than a vector and than the square,
    /// thresholds at the ends of 0…255 (sizes past 32, and 0, take the erosions themselves).
    func testTheTrimapIsTheErosionsOfTheThresholdedMask() {
        var state: UInt64 = 7
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for (w, h) in [(1, 1), (5, 3), (16, 2), (17, 9), (40, 33), (33, 40)] {
            // blotches: a few levels, so that the thresholds cut regions larger than a pixel
            let levels: [UInt8] = [0, 5, 9, 10, 11, 128, 239, 240, 241, 255]
            var pixels = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h { for x in 0..<w {
                pixels[y * w + x] = (x / 3 + y / 4) % 3 == 0 ? 255 : levels[Int(next() % UInt64(levels.count))]
            } }
            let mask = Image(width: w, height: h, channels: 1, pixels: pixels)
            for size in [0, 1, 2, 3, 4, 10, 17, 31, 32, 33, 50] {
                for (ft, bt) in [(240, 10), (0, 0), (255, 255), (128, 128), (239, 11)] {
                    let foreground = Trimap.erode(pixels.map { Int($0) > ft }, width: w, height: h, size: size, outside: false)
                    let background = Trimap.erode(pixels.map { Int($0) < bt }, width: w, height: h, size: size, outside: true)
                    let expected = (0..<(w * h)).map { i in
                        background[i] ? Trimap.background : foreground[i] ? Trimap.foreground : Trimap.unknown
                    }
                    let labels = Trimap(mask: mask, foregroundThreshold: ft, backgroundThreshold: bt, erodeSize: size).labels
                    let differing = zip(labels, expected).filter { $0 != $1 }.count
                    XCTAssertEqual(differing, 0, "\(w)×\(h), size \(size), thresholds \(ft) \(bt): pixels labelled differently")
                }
            }
        }
    }

    func testTheCutoutMatchesRembgs() throws {
        for (name, file) in Self.cases {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let mask = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
            let expected = try Image(contentsOfFile: Fixtures.path("matting/\(name).cutout.png"))
            let cutout = try XCTUnwrap(try AlphaMatting().cutout(photo, mask: mask))
            XCTAssertEqual([cutout.width, cutout.height, cutout.channels], [expected.width, expected.height, 4])
            var alphaErrors: [Int] = [], colorError = 0, colorCount = 0
            for i in 0..<(photo.width * photo.height) {
                alphaErrors.append(abs(Int(cutout.pixels[4 * i + 3]) - Int(expected.pixels[4 * i + 3])))
                if expected.pixels[4 * i + 3] >= 26 {  // α ≥ 0.1
                    for k in 0..<3 { colorError += abs(Int(cutout.pixels[4 * i + k]) - Int(expected.pixels[4 * i + k])) }
                    colorCount += 3
                }
            }
            let mean = Double(alphaErrors.reduce(0, +)) / Double(alphaErrors.count)
            let p99 = alphaErrors.sorted()[alphaErrors.count * 99 / 100]
            let colorMean = Double(colorError) / Double(max(colorCount, 1))
            print("\(name): alpha mean |Δ| \(String(format: "%.3f", mean)), p99 \(p99), max \(alphaErrors.max()!); colour mean \(String(format: "%.3f", colorMean)) (of 255)")
            XCTAssertLessThanOrEqual(mean, 1, name)
            XCTAssertLessThanOrEqual(p99, 10, name)
            XCTAssertLessThanOrEqual(colorMean, 3, name)
        }
    }

    /// A small photo-like patch and a trimap with every kind of pixel.
    private func smallCase(seed: UInt64) -> (Image, Trimap) {
        var state = seed
        func next() -> UInt8 { state = state &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: state >> 56) }
        let w = 11, h = 9
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for k in 0..<3 {
            pixels[(y * w + x) * 3 + k] = UInt8(clamping: (x < 5 ? 40 : 200) + Int(next() % 40) + k * 5)
        } } }
        var labels = [UInt8](repeating: Trimap.unknown, count: w * h)
        for y in 0..<h { for x in 0..<w where x < 3 || x > 8 { labels[y * w + x] = x < 3 ? Trimap.background : Trimap.foreground } }
        labels[4 * w + 5] = Trimap.foreground  // a known pixel inside the band
        return (Image(width: w, height: h, channels: 3, pixels: pixels), Trimap(width: w, height: h, labels: labels))
    }

    func testTheSystemIsTheReferenceLaplaciansRestrictionToTheUnknowns() {
        for seed in [1, 2, 3] as [UInt64] {
            let (image, trimap) = smallCase(seed: seed)
            let L = ClosedFormMatting.referenceLaplacian(rgb: image, epsilon: 1e-7)
            let s = ClosedFormMatting.buildSystem(rgb: image, trimap: trimap, epsilon: 1e-7)
            let scale = L.joined().map(abs).max()!
            for (row, p) in s.unknown.enumerated() {
                var dense = [Double](repeating: 0, count: s.unknown.count)
                for (column, value) in s.entries(ofRow: row) { dense[column] = value }
                for (column, q) in s.unknown.enumerated() {
                    XCTAssertEqual(dense[column], L[p][q], accuracy: 1e-9 * scale, "L[\(p)][\(q)]")
                }
                let rhs = -(0..<(image.width * image.height)).filter { trimap.labels[$0] == Trimap.foreground }.map { L[p][$0] }.reduce(0, +)
                XCTAssertEqual(s.rhs[row], rhs, accuracy: 1e-9 * scale)
            }
        }
    }

    func testTheProductIsTheDenseMatrixTimesTheVector() {
        for seed in [6, 7] as [UInt64] {
            let (image, trimap) = smallCase(seed: seed)
            let s = ClosedFormMatting.buildSystem(rgb: image, trimap: trimap, epsilon: 1e-7)
            let x = (0..<s.unknown.count).map { sin(Double($0) * 0.7 + Double(seed)) }
            let y = s.multiply(x)
            for row in 0..<s.unknown.count {
                let expected = s.entries(ofRow: row).map { $0.value * x[$0.column] }.reduce(0, +)
                XCTAssertEqual(y[row], expected, accuracy: 1e-12 * max(1, abs(expected)), "row \(row)")
            }
        }
    }

    /// The default preconditioner (aggregation) and pymatting's kind (an incomplete factor) solve the same
    /// system to the same tolerance: the alphas agree far inside the parity bound, on real photos' bands.
    func testBothPreconditionersReachTheSameAlpha() throws {
        for (name, file) in Self.cases {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let mask = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
            let trimap = AlphaMatting().trimap(for: mask)
            var options = ClosedFormMatting.Options()
            let aggregation = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
            options.preconditioner = .incompleteCholesky
            let factor = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
            XCTAssertEqual(aggregation.preconditioner, .aggregation, "\(name): no fallback")
            XCTAssertEqual(factor.preconditioner, .incompleteCholesky)
            let differences = zip(aggregation.alpha, factor.alpha).map { abs($0 - $1) }
            let mean = differences.reduce(0, +) / Double(differences.count)
            print("\(name): aggregation \(aggregation.iterations) iterations, factor \(factor.iterations); α |Δ| mean \(mean * 255)/255, max \(differences.max()! * 255)/255")
            XCTAssertLessThan(mean, 0.05 / 255, name)
            XCTAssertLessThan(differences.max()!, 1.0 / 255, name)
        }
    }

    /// The solver cuts its vectors into fixed chunks and adds their sums in order, and a big coarse system is
    /// factored in two parts whose updates are added part by part: any thread count gives the same bytes. On
    /// chelsea scaled up (many chunks, a coarse system split in two parts), checked against the incomplete
    /// factor of the whole system too.
    /// The fixtures' coarse systems are solved on one thread beside IC(0)'s strip sweeps, which the workers take as
    /// they come free (AggregationPreconditioner.solve): whoever runs what, the same alpha, bit for bit.
    func testTheCoarseSolveBesideTheStripsGivesTheSameAlphaOnAnyThreadCount() throws {
        for (name, file) in Self.cases {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let trimap = AlphaMatting().trimap(for: try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png")))
            var options = ClosedFormMatting.Options()
            options.threads = 1
            let single = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
            XCTAssertEqual(single.preconditioner, .aggregation, name)
            XCTAssertLessThan(single.coarseUnknowns, 8192, "\(name): a coarse system solved on one thread")
            for threads in [2, 3] {
                options.threads = threads
                for _ in 0..<3 {   // the items go to the workers differently from one run to the next
                    let many = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
                    XCTAssertEqual(many.iterations, single.iterations, "\(name), \(threads) threads")
                    XCTAssertTrue(many.alpha == single.alpha, "\(name), \(threads) threads: the same alpha, bit for bit")
                }
            }
        }
    }

    func testTheThreadCountDoesNotChangeTheAlpha() throws {
        let photo0 = try Image(contentsOfFile: Fixtures.path("photos/chelsea.png"))
        let mask0 = try Image(contentsOfFile: Fixtures.path("photos/chelsea.rembg-mask.png"))
        let photo = LanczosResampler.resize(photo0, width: 2 * photo0.width, height: 2 * photo0.height)
        let mask = LanczosResampler.resize(mask0, width: 2 * photo0.width, height: 2 * photo0.height)
        let trimap = AlphaMatting().trimap(for: mask)
        var options = ClosedFormMatting.Options()
        var one: ClosedFormMatting.Solution! = nil
        // the fine level as IC(0) in strips (this size's default), and as Jacobi (the default from a million)
        for zeroFillUnknowns in [options.zeroFillUnknowns, 0] {
            options.zeroFillUnknowns = zeroFillUnknowns
            options.threads = 1
            let single = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
            XCTAssertEqual(single.preconditioner, .aggregation)
            XCTAssertGreaterThanOrEqual(single.coarseUnknowns, 8192, "a coarse system big enough for its two parts to be solved on two threads")
            for threads in [2, 3] {
                options.threads = threads
                let many = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
                XCTAssertEqual(many.iterations, single.iterations, "\(threads) threads")
                XCTAssertTrue(many.alpha == single.alpha, "\(threads) threads: the same alpha, bit for bit")
            }
            if one == nil { one = single }
        }
        options.preconditioner = .incompleteCholesky
        let factor = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
        let differences = zip(one.alpha, factor.alpha).map { abs($0 - $1) }
        let mean = differences.reduce(0, +) / Double(differences.count)
        print("chelsea ×2: \(one.coarseUnknowns) coarse unknowns, \(one.iterations) iterations (factor: \(factor.iterations)); α |Δ| mean \(mean * 255)/255, max \(differences.max()! * 255)/255")
        XCTAssertLessThan(mean, 0.05 / 255)
        XCTAssertLessThan(differences.max()!, 1.0 / 255)
    }

    /// The fine level's IC(0) (``ZeroFillCholesky``) against the textbook algorithm on a dense copy of each
    /// strip's block of A (entries between strips dropped) at the shift the strip took — the first of the list
    /// whose pivots stay positive — and its solve against dense substitution (to a Float's precision, the
    /// factor's); on one thread and on two, the same bytes.
    /// The solver's loops are compiled for the baseline CPU, AVX2 and AVX-512 (SwiftsegImageKernels): each build
    /// does the same operations in the same order, so the same alpha bit for bit, on both fine levels.
    func testEveryBuildOfTheSolversLoopsGivesTheSameAlpha() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/chelsea.png"))
        let trimap = AlphaMatting().trimap(for: try Image(contentsOfFile: Fixtures.path("photos/chelsea.rembg-mask.png")))
        let builds = KernelISA.allCases.filter(\.isSupported)
        if builds.count == 1 { print("only the baseline build runs on this CPU: nothing to compare") }
        var options = ClosedFormMatting.Options()
        options.threads = 2
        for zeroFillUnknowns in [options.zeroFillUnknowns, 0] {
            options.zeroFillUnknowns = zeroFillUnknowns
            options.isa = .baseline
            let baseline = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
            XCTAssertEqual(baseline.preconditioner, .aggregation)
            for isa in builds.dropFirst() {
                options.isa = isa
                let other = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
                XCTAssertEqual(other.iterations, baseline.iterations, "\(isa)")
                XCTAssertTrue(other.alpha == baseline.alpha, "\(isa): the baseline's alpha, bit for bit")
            }
        }
    }

    func testTheZeroFillFactorIsTheDenseOneOnEachStrip() throws {
        var state: UInt64 = 7
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        let w = 23, h = 19
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for i in pixels.indices { pixels[i] = UInt8((i / 3 % w) * 9 % 200 + next() % 50) }
        var labels = [UInt8](repeating: Trimap.unknown, count: w * h)
        for y in 0..<h { for x in 0..<w where x < 3 || x > 19 || (x + 2 * y) % 13 == 0 { labels[y * w + x] = x < 3 ? Trimap.background : Trimap.foreground } }
        let s = ClosedFormMatting.buildSystem(rgb: Image(width: w, height: h, channels: 3, pixels: pixels),
                                              trimap: Trimap(width: w, height: h, labels: labels), epsilon: 1e-7)
        let n = s.unknown.count
        let ic = try ZeroFillCholesky(s, unknownsPerStrip: 70, threads: 1)
        XCTAssertGreaterThanOrEqual(ic.strips.count, 3)
        var A = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n { for (j, v) in s.entries(ofRow: i) { A[i][j] = v } }
        var L = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for (t, strip) in ic.strips.enumerated() {
            let shift = ZeroFillCholesky.shifts.first { shift in
                for i in strip {
                    for j in strip.lowerBound..<i where A[i][j] != 0 {
                        var v = A[i][j]
                        for k in strip.lowerBound..<j { v -= L[i][k] * L[j][k] }
                        L[i][j] = Double(Float(v / L[j][j]))   // stored as Float, as ours is
                    }
                    var d = A[i][i] * (1 + shift)
                    for k in strip.lowerBound..<i { d -= L[i][k] * L[i][k] }
                    guard d > 0 else { return false }
                    L[i][i] = d.squareRoot()
                }
                return true
            }
            XCTAssertEqual(shift, ic.stripShifts[t], "strip \(t)")
        }
        let r = (0..<n).map { _ in Double(next() % 2001) / 1000 - 1 }
        var y = r
        for i in 0..<n { for k in 0..<i { y[i] -= L[i][k] * y[k] }; y[i] /= L[i][i] }
        for i in (0..<n).reversed() { for k in (i + 1)..<n { y[i] -= L[k][i] * y[k] }; y[i] /= L[i][i] }
        let scale = y.map(abs).max()!
        let single = ic.solve(r, threads: 1)
        // to a Float's precision: the two round L_ij after a division and after a multiplication by 1 / L_jj
        for i in 0..<n { XCTAssertEqual(single[i], y[i], accuracy: 1e-6 * scale, "unknown \(i)") }
        let two = try ZeroFillCholesky(s, unknownsPerStrip: 70, threads: 2)
        XCTAssertEqual(two.stripShifts, ic.stripShifts)
        XCTAssertTrue(two.solve(r, threads: 2) == single, "two threads: the same bytes")
    }

    /// Bands of every shape over several 8×8 aggregates, on noise and on smooth gradients (flat blocks, whose
    /// colour columns the coarse space drops): the default solver against a dense solve of the same system.
    func testTheAggregationSolverOnOddBandsReachesTheDenseSolution() throws {
        var state: UInt64 = 99
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        for trial in 0..<12 {
            let w = 6 + next() % 19, h = 5 + next() % 17
            var pixels = [UInt8](repeating: 0, count: w * h * 3)
            for y in 0..<h { for x in 0..<w { for k in 0..<3 {
                let smooth = (x * 9 + y * 5 + k * 40) % 256
                pixels[(y * w + x) * 3 + k] = UInt8(trial % 3 == 0 ? smooth : (trial % 3 == 1 ? next() % 256 : (smooth + next() % 9) % 256))
            } } }
            var labels = [UInt8](repeating: Trimap.unknown, count: w * h)
            let shape = trial % 4
            for y in 0..<h {
                for x in 0..<w {
                    switch shape {
                    case 0: labels[y * w + x] = x < w / 3 ? Trimap.background : x > w - 3 ? Trimap.foreground : Trimap.unknown
                    case 1: labels[y * w + x] = x == w / 2 ? Trimap.unknown : (x < w / 2 ? Trimap.background : Trimap.foreground)
                    case 2: labels[y * w + x] = (x + y) % 7 == 0 ? Trimap.foreground : (x * y) % 11 == 1 ? Trimap.background : Trimap.unknown
                    default: labels[y * w + x] = y == 0 ? Trimap.background : y == h - 1 ? Trimap.foreground : Trimap.unknown
                    }
                }
            }
            let image = Image(width: w, height: h, channels: 3, pixels: pixels)
            let trimap = Trimap(width: w, height: h, labels: labels)
            let s = ClosedFormMatting.buildSystem(rgb: image, trimap: trimap, epsilon: 1e-7)
            let n = s.unknown.count
            let x = Self.denseSolution(s)
            let solution = try ClosedFormMatting.solve(rgb: image, trimap: trimap)
            XCTAssertEqual(solution.preconditioner, .aggregation, "trial \(trial): no fallback")
            var worst = 0.0
            for (k, p) in s.unknown.enumerated() { worst = max(worst, abs(solution.alpha[p] - min(1, max(0, x[k])))) }
            XCTAssertLessThan(worst, 1e-5, "trial \(trial) (\(w)×\(h), band shape \(shape), \(n) unknowns)")
        }
    }

    /// Mattings started at once from Dispatch's threads (as a folder's lanes and a server's requests run): each
    /// runs on its own solver threads, those on all the cores one at a time, and all give the bytes of one alone.
    func testMattingsAtOnceGiveTheBytesOfOneAlone() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/rocket.jpg"))
        let mask = try Image(contentsOfFile: Fixtures.path("photos/rocket.rembg-mask.png"))
        let alone = try XCTUnwrap(try AlphaMatting().cutout(photo, mask: mask))
        var single = AlphaMatting()
        single.threads = 1
        let settings = [AlphaMatting(), single, AlphaMatting(), single]
        let results = UnsafeMutableBufferPointer<Image?>.allocate(capacity: settings.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        let slots = UncheckedResults(results)
        DispatchQueue.concurrentPerform(iterations: settings.count) { i in
            slots.buffer[i] = try? settings[i].cutout(photo, mask: mask)
        }
        for i in 0..<settings.count { XCTAssertEqual(results[i]?.pixels, alone.pixels, "matting \(i)") }
    }

    /// The solver keeps its big arrays for the next matting (``ScratchArrays``, internal): photos of other
    /// sizes in turn, on kept arrays bigger than they need, give the bytes they gave the first time.
    func testMattingsInTurnOnKeptArraysGiveTheSameBytes() throws {
        var first: [String: [UInt8]] = [:]
        for round in 0..<2 {
            for (name, file) in Self.cases {
                let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
                let mask = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
                let pixels = try XCTUnwrap(try AlphaMatting().cutout(photo, mask: mask)).pixels
                if round == 0 { first[name] = pixels } else { XCTAssertTrue(pixels == first[name], name) }
            }
        }
    }

    /// The foreground four pixels at a time (skewed bands, wavefront on 2 or 3 threads, every build of the sweep's
    /// loop): the bytes of the reference's raster order, pixel by pixel, on a real photo and matte.
    func testTheForegroundIsTheReferencesOnAPhoto() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("photos/astronaut.png"))
        let mask = try Image(contentsOfFile: Fixtures.path("photos/astronaut.rembg-mask.png"))
        let alpha = mask.pixels.map { Double($0) / 255 }
        let reference = ForegroundEstimation.foregroundReference(rgb: photo, alpha: alpha)
        for threads in [1, 2, 3] {
            for isa in KernelISA.allCases where isa.isSupported {
                XCTAssertTrue(ForegroundEstimation.foreground(rgb: photo, alpha: alpha, threads: threads, isa: isa) == reference,
                              "\(threads) threads, \(isa)")
            }
            // decontamination's bytes, written straight from the estimator's layout: the reference's, × 255 and truncated
            let bytes = reference.map { UInt8(min(255, max(0, Double($0) * 255))) }
            XCTAssertTrue(Decontamination(threads: threads).colours(of: photo, under: mask).pixels == bytes, "\(threads) threads")
        }
    }

    /// The same on sizes that meet every border case: one row or column, partial last bands (height mod 4 of
    /// 1, 2, 3), bands narrower than a step's skew, gray photos, and wavefronts over several blocks.
    func testTheForegroundIsTheReferencesOnEverySize() {
        var state: UInt64 = 9
        func next() -> UInt8 { state = state &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: state >> 56) }
        let sizes = [(1, 1), (1, 7), (7, 1), (2, 3), (3, 2), (5, 4), (4, 5), (9, 6), (13, 11), (37, 14), (200, 9), (150, 38)]
        for (w, h) in sizes {
            for channels in [3, 1] {
                let pixels = (0..<(w * h * channels)).map { _ in next() }
                // a matte with sure regions and soft edges, like a real one
                let alpha = (0..<(w * h)).map { i -> Double in
                    let x = i % w, v = Double(next()) / 255
                    return x < w / 3 ? (v < 0.5 ? 0 : v * 0.2) : x > 2 * w / 3 ? (v < 0.5 ? 1 : 0.8 + v * 0.2) : v
                }
                let photo = Image(width: w, height: h, channels: channels, pixels: pixels)
                let reference = ForegroundEstimation.foregroundReference(rgb: photo, alpha: alpha)
                for threads in [1, 2, 3] {
                    for isa in KernelISA.allCases where isa.isSupported {
                        let fast = ForegroundEstimation.foreground(rgb: photo, alpha: alpha, threads: threads, isa: isa)
                        XCTAssertTrue(fast == reference, "\(w)×\(h), \(channels) channels, \(threads) threads, \(isa)")
                    }
                }
            }
        }
    }

    private struct UncheckedResults: @unchecked Sendable { let buffer: UnsafeMutableBufferPointer<Image?>; init(_ b: UnsafeMutableBufferPointer<Image?>) { buffer = b } }

    func testTheSolverReachesTheDenseSolution() throws {
        for seed in [4, 5] as [UInt64] {
            let (image, trimap) = smallCase(seed: seed)
            let s = ClosedFormMatting.buildSystem(rgb: image, trimap: trimap, epsilon: 1e-7)
            let x = Self.denseSolution(s)
            let alpha = try ClosedFormMatting.alpha(rgb: image, trimap: trimap)
            for (k, p) in s.unknown.enumerated() {
                XCTAssertEqual(alpha[p], min(1, max(0, x[k])), accuracy: 1e-5, "pixel \(p)")
            }
        }
    }

    /// L_UU x = b by dense Gaussian elimination with partial pivoting: the plain reference for the solver.
    private static func denseSolution(_ s: ClosedFormMatting.System) -> [Double] {
        let n = s.unknown.count
        var a = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for row in 0..<n {
            for (column, value) in s.entries(ofRow: row) { a[row][column] = value }
            a[row][n] = s.rhs[row]
        }
        for c in 0..<n {
            let pivot = (c..<n).max { abs(a[$0][c]) < abs(a[$1][c]) }!
            a.swapAt(c, pivot)
            for r in (c + 1)..<max(c + 1, n) where a[r][c] != 0 {
                let f = a[r][c] / a[c][c]
                for k in c...n { a[r][k] -= f * a[c][k] }
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            x[r] = (a[r][n] - ((r + 1)..<max(r + 1, n)).map { a[r][$0] * x[$0] }.reduce(0, +)) / a[r][r]
        }
        return x
    }
}
