import Foundation

/// Closed-form alpha matting (Levin, Lischinski, Weiss 2008), as pymatting's `estimate_alpha_cf` computes it:
/// the matting Laplacian over 3×3 windows with ε = 1e-7, the linear system over the unknown pixels only
/// (L_UU α_U = −L_UK α_K), solved by conjugate gradients to a relative residual of 1e-7, then clipped to 0…1.
/// pymatting preconditions CG with an incomplete Cholesky factor (drop tolerance 1e-4); ours by default is a
/// two-level one over 8×8 aggregates (``AggregationPreconditioner``), whose memory is linear in the band and whose
/// iterations hardly grow with it, with the incomplete factor kept as the fallback.
///
/// ```swift
/// let alpha = try ClosedFormMatting.alpha(rgb: photo, trimap: trimap)   // [Double], one per pixel
/// var options = ClosedFormMatting.Options(); options.threads = 2          // the same bytes, sooner
/// let solution = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options)
/// ```
///
/// The solution matches pymatting's to the solver's tolerance (the system is the same; the preconditioner is
/// ours), so alphas agree to well under 1/255 on average (Tests/SwiftsegImageTests/MattingTests.swift).
public enum ClosedFormMatting {
    public struct Options: Sendable {
        public var epsilon = 1e-7
        public var relativeTolerance = 1e-7
        public var maximumIterations = 10_000
        public var preconditioner = Preconditioner.aggregation
        /// Threads for the solver's passes over the band; the result is the same bytes for any count.
        public var threads = 1
        /// Fill-in smaller than this in the incomplete Cholesky factor is dropped.
        public var dropTolerance = 1e-4
        /// Up to this many unknowns the aggregation preconditioner's fine level is IC(0) (``ZeroFillCholesky``:
        /// 1.6–2.8× fewer iterations), above it Jacobi: on bigger bands IC(0)'s two extra passes over memory per
        /// iteration cost what its fewer iterations save (4 MP: 3.8 s either way, and 75 MB more).
        public var zeroFillUnknowns = 500_000
        /// The build of the solver's loops (``MattingKernelSet``): the widest this CPU runs by default; every
        /// build gives the same bytes.
        public var isa = KernelISA.best
        public init() {}
    }

    public enum Preconditioner: Sendable {
        /// IC(0) or Jacobi plus a coarse correction over 8×8 aggregates (``AggregationPreconditioner``): memory linear in
        /// the band. Falls back to `.incompleteCholesky` if its coarse factor breaks down or CG does not converge.
        case aggregation
        /// An incomplete Cholesky factor of the whole system, as pymatting's `ichol` (memory ~3× the system's).
        case incompleteCholesky
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The linear system over the unknown pixels (rows and columns in raster order of the unknown pixels) and
    /// its right-hand side. A row couples an unknown to the unknowns of its 5×5 neighbourhood, so the matrix is
    /// stored as 25 coefficients per row (0 where the neighbour is known or off the image), and the product
    /// reads its vector from the photo's grid (padded by 2 all round, 0 off the unknowns): no column indices,
    /// 2/3 of a compressed-row matrix's bytes (at 12 MP, 565 against 847 MB), and the 25 reads of a row are
    /// five runs of five neighbours in memory.
    public struct System {
        public let width: Int
        public let height: Int
        public let unknown: [Int]           // pixel index of each unknown
        public let rhs: [Double]
        /// 25 per unknown, slot (dy + 2) · 5 + (dx + 2).
        var stencil: [Double]   // var: handed back to ``ScratchArrays`` when the solve is done
        /// Each unknown's index in the padded grid, (y + 2) · (width + 4) + x + 2.
        let gridIndex: [Int32]
        /// The padded grid: the unknown index at each pixel, or `unknown.count` for a known or off-image one.
        var neighbours: [Int32]   // var: handed back to ``ScratchArrays`` too
        /// The loops the solve runs on it (``MattingKernelSet``).
        let kernels: MattingKernelSet

        var paddedWidth: Int { width + 4 }
        var gridCount: Int { (width + 4) * (height + 4) }
        /// The grid offset of stencil slot k = (dy + 2) · 5 + (dx + 2).
        var slotOffsets: [Int] { (-2...2).flatMap { dy in (-2...2).map { dx in dy * paddedWidth + dx } } }

        /// Row `row`'s non-zero entries (column, value), columns ascending.
        public func entries(ofRow row: Int) -> [(column: Int, value: Double)] {
            let base = Int(gridIndex[row]), offsets = slotOffsets
            return (0..<25).compactMap { k in
                let j = Int(neighbours[base + offsets[k]]), v = stencil[25 * row + k]
                return j < unknown.count && v != 0 ? (j, v) : nil
            }
        }

        /// A x, through the solver's own product (x on the grid; one thread). For tests and readers.
        public func multiply(_ x: [Double]) -> [Double] {
            precondition(x.count == unknown.count)
            var grid = [Double](repeating: 0, count: gridCount), y = [Double](repeating: 0, count: unknown.count)
            for (k, g) in gridIndex.enumerated() { grid[Int(g)] = x[k] }
            _ = grid.withUnsafeBufferPointer { g in
                y.withUnsafeMutableBufferPointer { y in
                    multiply(grid: g.baseAddress!, into: y.baseAddress!, chunks: RowChunks(count: unknown.count, pool: nil))
                }
            }
            return y
        }

        /// The same matrix in compressed rows, for the incomplete Cholesky factor (the fallback).
        func compressedRows() -> SparseMatrix {
            var rowStart = [0], columns: [Int32] = [], values: [Double] = []
            for row in 0..<unknown.count {
                for (j, v) in entries(ofRow: row) { columns.append(Int32(j)); values.append(v) }
                rowStart.append(columns.count)
            }
            return SparseMatrix(rows: unknown.count, rowStart: rowStart, columns: columns, values: values)
        }

        /// y = A x, returning xᵀ y, with x on the padded grid (``gridIndex``; 0 everywhere else). The solver's hot
        /// loop (``MattingKernels/stencilProduct``): each row summed over its 25 slots in one fixed order.
        func multiply(grid x: UnsafePointer<Double>, into y: UnsafeMutablePointer<Double>, chunks: RowChunks) -> Double {
            let w = paddedWidth, product = kernels.stencilProduct
            return stencil.withUnsafeBufferPointer { stencil in
                gridIndex.withUnsafeBufferPointer { gridIndex in
                    chunks.sum { rows in product(stencil.baseAddress!, gridIndex.baseAddress!, x, w, rows, y) }
                }
            }
        }
    }

    /// What ``solve(rgb:trimap:options:)`` found.
    public struct Solution: Sendable {
        /// α for every pixel: the trimap's known values, and the solved ones in between, clipped to 0…1.
        public let alpha: [Double]
        /// CG iterations to the tolerance (0 when there is nothing to solve).
        public let iterations: Int
        /// The preconditioner that reached it (`.incompleteCholesky` after a fallback).
        public let preconditioner: Preconditioner
        /// With `.aggregation`: the coarse system's unknowns (from 1,024 its factor is ordered in two parts, solved at once on two threads from 8,192).
        public let coarseUnknowns: Int
    }

    /// α for every pixel: the trimap's known values, and the solved ones in between.
    public static func alpha(rgb image: Image, trimap: Trimap, options: Options = Options()) throws -> [Double] {
        try solve(rgb: image, trimap: trimap, options: options).alpha
    }

    public static func solve(rgb image: Image, trimap: Trimap, options: Options = Options()) throws -> Solution {
        try SolverThreads.with(threads: options.threads) { try solve(rgb: image, trimap: trimap, options: options, pool: $0) }
    }

    static func solve(rgb image: Image, trimap: Trimap, options: Options, pool: SolverThreads?) throws -> Solution {
        var clock = MattingPhases.Clock("alpha")
        var system = buildSystem(rgb: image, trimap: trimap, epsilon: options.epsilon, pool: pool, kernels: MattingKernelSet(options.isa))
        clock.lap("system")
        defer { ScratchArrays.shared.recycle(&system.stencil); ScratchArrays.shared.recycle(&system.neighbours) }
        var alpha = ScratchArrays.shared.array(trimap.labels.count, repeating: 0.0)
        for (i, label) in trimap.labels.enumerated() {
            alpha[i] = label == Trimap.foreground ? 1.0 : label == Trimap.background ? 0.0 : Double(label) / 255
        }
        guard !system.unknown.isEmpty else {
            return Solution(alpha: alpha, iterations: 0, preconditioner: options.preconditioner, coarseUnknowns: 0)
        }
        var solved: (x: [Double], iterations: Int)? = nil
        var used = options.preconditioner, coarseUnknowns = 0
        if options.preconditioner == .aggregation {
            // A breakdown of the coarse factor or of CG leaves the incomplete factor of the whole system to try.
            // It needs 45–200 iterations on photos from 0.1 to 12 MP; 10× that means something is wrong.
            var bounded = options
            bounded.maximumIterations = min(options.maximumIterations, 2_000)
            if let twoLevel = try? AggregationPreconditioner(system, rgb: image, zeroFillUnknowns: options.zeroFillUnknowns, pool: pool) {
                clock.lap("setup")
                solved = try? conjugateGradients(system, preconditioner: twoLevel, options: bounded, pool: pool)
                coarseUnknowns = twoLevel.coarseCount
                clock.lap("cg")
            }
        }
        if solved == nil {
            used = .incompleteCholesky
            coarseUnknowns = 0
            solved = try conjugateGradients(
                system, preconditioner: IncompleteCholesky(system.compressedRows(), dropTolerance: options.dropTolerance),
                options: options, pool: pool)
        }
        for (k, pixel) in system.unknown.enumerated() { alpha[pixel] = min(1, max(0, solved!.x[k])) }
        return Solution(alpha: alpha, iterations: solved!.iterations, preconditioner: used, coarseUnknowns: coarseUnknowns)
    }

    /// The pixel values as pymatting reads them, v / 255, RGB (gray repeated, alpha ignored), indexed as a
    /// 3-per-pixel array.
    struct UnitRGB {
        let pixels: [UInt8]
        let channels: Int
        // × (1 / 255): a multiply instead of a divide per read, within an ulp of pymatting's v / 255
        init(_ image: Image) { pixels = image.pixels; channels = image.channels }
        @inline(__always) subscript(_ q: Int) -> Double {
            if channels == 3 { return Double(pixels[q]) * (1.0 / 255) }
            let p = q / 3
            return Double(pixels[p * channels + (channels < 3 ? 0 : q - 3 * p)]) * (1.0 / 255)
        }
    }

    /// The pixel values as pymatting reads them: v / 255, RGB (gray repeated, alpha ignored).
    static func channels(_ image: Image) -> [Double] {
        var out = [Double](repeating: 0, count: image.width * image.height * 3)
        let c = image.channels
        for i in 0..<(image.width * image.height) {
            for k in 0..<3 { out[3 * i + k] = Double(image.pixels[i * c + (c < 3 ? 0 : k)]) / 255 }
        }
        return out
    }

    /// L_UU and −L_UK α_K. A 3×3 window (centred on an interior pixel) adds, for each pair i, j of its pixels,
    /// δ_ij − (1 + (I_i − μ)ᵀ (Σ + ε/9 · 1)⁻¹ (I_j − μ)) / 9; windows with no unknown pixel add nothing to either.
    /// Each unknown's row is gathered from the windows that contain it (up to nine), into 25 slots for its 5×5
    /// neighbourhood.
    public static func buildSystem(rgb image: Image, trimap: Trimap, epsilon: Double, threads: Int = 1) -> System {
        SolverThreads.with(threads: threads) { buildSystem(rgb: image, trimap: trimap, epsilon: epsilon, pool: $0) }
    }

    static func buildSystem(rgb image: Image, trimap: Trimap, epsilon: Double, pool: SolverThreads?,
                            kernels: MattingKernelSet = .best) -> System {
        var clock = MattingPhases.Clock("alpha.system")
        let w = image.width, h = image.height
        let I = UnitRGB(image)  // v / 255 read on the fly: no Double copy of a whole (12 MP: 288 MB) photo
        let labels = trimap.labels
        var unknown: [Int] = []
        var windowIndex = ScratchArrays.shared.array(w * h, repeating: Int32(-1))
        defer { ScratchArrays.shared.recycle(&windowIndex) }
        var centres: [Int32] = []
        labels.withUnsafeBufferPointer { labels in
            let labels = labels.baseAddress!
            // the unknowns, counted first so that the list is made in one allocation
            var count = 0
            for p in 0..<(w * h) { count += labels[p] == Trimap.unknown ? 1 : 0 }
            unknown.reserveCapacity(count)
            for p in 0..<(w * h) where labels[p] == Trimap.unknown { unknown.append(p) }
            guard w >= 3 && h >= 3 else { return }
            // A window touches an unknown pixel when its column of three above and below does, or a neighbour's.
            // Rows with no unknown pixel in reach are skipped whole.
            centres.reserveCapacity(min(w * h, 9 * count))
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: w) { column in
                let column = column.baseAddress!
                windowIndex.withUnsafeMutableBufferPointer { windowIndex in
                    for y in 1..<(h - 1) {
                        let up = labels + (y - 1) * w, middle = up + w, down = middle + w
                        var any: UInt8 = 0
                        for x in 0..<w {
                            let touched = (up[x] == Trimap.unknown ? 1 : 0) | (middle[x] == Trimap.unknown ? 1 : 0)
                                | (down[x] == Trimap.unknown ? 1 : 0) as UInt8
                            column[x] = touched
                            any |= touched
                        }
                        guard any != 0 else { continue }
                        for x in 1..<(w - 1) where column[x - 1] | column[x] | column[x + 1] != 0 {
                            windowIndex[y * w + x] = Int32(centres.count)
                            centres.append(Int32(y * w + x))
                        }
                    }
                }
            }
        }
        var means = ScratchArrays.shared.array(3 * centres.count, repeating: 0.0)       // per window: μ
        var inverses = ScratchArrays.shared.array(6 * centres.count, repeating: 0.0)    // (Σ + ε/9)⁻¹: m00 m01 m02 m11 m12 m22
        defer { ScratchArrays.shared.recycle(&means); ScratchArrays.shared.recycle(&inverses) }
        means.withUnsafeMutableBufferPointer { means in
            inverses.withUnsafeMutableBufferPointer { inverses in
                RowChunks(count: centres.count, pool: pool).forEach { windows in
                    for win in windows {
                        let centre = Int(centres[win])
                        var m0 = 0.0, m1 = 0.0, m2 = 0.0
                        for dy in -1...1 { for dx in -1...1 {
                            let q = 3 * (centre + dy * w + dx)
                            m0 += I[q]; m1 += I[q + 1]; m2 += I[q + 2]
                        } }
                        m0 /= 9; m1 /= 9; m2 /= 9
                        var a00 = epsilon, a01 = 0.0, a02 = 0.0, a11 = epsilon, a12 = 0.0, a22 = epsilon
                        for dy in -1...1 {
                            for dx in -1...1 {
                                let q = 3 * (centre + dy * w + dx)
                                let c0 = I[q] - m0, c1 = I[q + 1] - m1, c2 = I[q + 2] - m2
                                a00 += c0 * c0; a01 += c0 * c1; a02 += c0 * c2
                                a11 += c1 * c1; a12 += c1 * c2; a22 += c2 * c2
                            }
                        }
                        a00 /= 9; a01 /= 9; a02 /= 9; a11 /= 9; a12 /= 9; a22 /= 9
                        let det = a00 * (a11 * a22 - a12 * a12) - a01 * (a01 * a22 - a12 * a02) + a02 * (a01 * a12 - a11 * a02)
                        means[3 * win] = m0; means[3 * win + 1] = m1; means[3 * win + 2] = m2
                        inverses[6 * win] = (a11 * a22 - a12 * a12) / det; inverses[6 * win + 1] = (a02 * a12 - a01 * a22) / det
                        inverses[6 * win + 2] = (a01 * a12 - a02 * a11) / det; inverses[6 * win + 3] = (a00 * a22 - a02 * a02) / det
                        inverses[6 * win + 4] = (a01 * a02 - a00 * a12) / det; inverses[6 * win + 5] = (a00 * a11 - a01 * a01) / det
                    }
                }
            }
        }
        centres = []
        clock.lap("windows")
        let paddedWidth = w + 4
        var neighbours = ScratchArrays.shared.array(paddedWidth * (h + 4), repeating: Int32(unknown.count))
        let gridIndex = unknown.map { Int32(($0 / w + 2) * paddedWidth + $0 % w + 2) }
        for k in unknown.indices { neighbours[Int(gridIndex[k])] = Int32(k) }
        var stencil = ScratchArrays.shared.array(25 * unknown.count, repeating: 0.0)
        var rhs = [Double](repeating: 0, count: unknown.count)
        stencil.withUnsafeMutableBufferPointer { stencil in
            rhs.withUnsafeMutableBufferPointer { rhs in
                RowChunks(count: unknown.count, pool: pool).forEach { rows in
                    // per row: its 25 slots, and the colours of its 5×5 neighbourhood read once (not nine times
                    // per window); each entry's arithmetic as before, so the same bytes
                    withUnsafeTemporaryAllocation(of: Double.self, capacity: 25 + 75) { buffer in
                    let slots = buffer.baseAddress!, colours = slots + 25
                    for row in rows {
                        let p = unknown[row]
                        let px = p % w, py = p / w
                        for k in 0..<25 { slots[k] = 0 }
                        for dy in -2...2 where py + dy >= 0 && py + dy < h {
                            for dx in -2...2 where px + dx >= 0 && px + dx < w {
                                let q = 3 * ((py + dy) * w + px + dx), o = 3 * ((dy + 2) * 5 + dx + 2)
                                colours[o] = I[q]; colours[o + 1] = I[q + 1]; colours[o + 2] = I[q + 2]
                            }
                        }
                        let own = colours + 3 * 12
                        for cy in (py - 1)...(py + 1) {
                            for cx in (px - 1)...(px + 1) {
                                guard cx >= 1, cy >= 1, cx < w - 1, cy < h - 1 else { continue }
                                let win = Int(windowIndex[cy * w + cx])
                                guard win >= 0 else { continue }
                                let mu = (means[3 * win], means[3 * win + 1], means[3 * win + 2])
                                let v = 6 * win
                                let ci = (own[0] - mu.0, own[1] - mu.1, own[2] - mu.2)
                                let u0 = inverses[v] * ci.0 + inverses[v + 1] * ci.1 + inverses[v + 2] * ci.2
                                let u1 = inverses[v + 1] * ci.0 + inverses[v + 3] * ci.1 + inverses[v + 4] * ci.2
                                let u2 = inverses[v + 2] * ci.0 + inverses[v + 4] * ci.1 + inverses[v + 5] * ci.2
                                for jy in (cy - 1)...(cy + 1) {
                                    for jx in (cx - 1)...(cx + 1) {
                                        let slot = (jy - py + 2) * 5 + (jx - px + 2), c = colours + 3 * slot
                                        let t = u0 * (c[0] - mu.0) + u1 * (c[1] - mu.1) + u2 * (c[2] - mu.2)
                                        let value = (slot == 12 ? 1.0 : 0.0) - (1 + t) * (1.0 / 9)
                                        slots[slot] += value
                                    }
                                }
                            }
                        }
                        for dy in -2...2 {
                            for dx in -2...2 {
                                let v = slots[(dy + 2) * 5 + dx + 2]
                                let jx = px + dx, jy = py + dy
                                guard v != 0, jx >= 0, jy >= 0, jx < w, jy < h else { continue }
                                let j = jy * w + jx
                                if labels[j] == Trimap.unknown {
                                    stencil[25 * row + (dy + 2) * 5 + dx + 2] = v
                                } else if labels[j] == Trimap.foreground {
                                    rhs[row] -= v
                                }
                            }
                        }
                    }
                    }
                }
            }
        }
        clock.lap("rows")
        return System(width: w, height: h, unknown: unknown, rhs: rhs, stencil: stencil, gridIndex: gridIndex,
                      neighbours: neighbours, kernels: kernels)
    }

    /// The plain reference: the whole matting Laplacian as a dense matrix, each 3×3 window's 9×9 block added
    /// from the paper's formula (the covariance inverted by cofactors), every window, known or not. For tests
    /// on small images.
    public static func referenceLaplacian(rgb image: Image, epsilon: Double) -> [[Double]] {
        let w = image.width, h = image.height, n = w * h
        let I = channels(image)
        var L = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        guard w >= 3, h >= 3 else { return L }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let pixels = (-1...1).flatMap { dy in (-1...1).map { dx in (y + dy) * w + x + dx } }
                let mean = (0..<3).map { k in pixels.map { I[3 * $0 + k] }.reduce(0, +) / 9 }
                var cov = [[Double]](repeating: [0, 0, 0], count: 3)
                for a in 0..<3 { for b in 0..<3 {
                    cov[a][b] = pixels.map { (I[3 * $0 + a] - mean[a]) * (I[3 * $0 + b] - mean[b]) }.reduce(0, +) / 9
                        + (a == b ? epsilon / 9 : 0)
                } }
                let det = cov[0][0] * (cov[1][1] * cov[2][2] - cov[1][2] * cov[2][1])
                    - cov[0][1] * (cov[1][0] * cov[2][2] - cov[1][2] * cov[2][0])
                    + cov[0][2] * (cov[1][0] * cov[2][1] - cov[1][1] * cov[2][0])
                var inverse = [[Double]](repeating: [0, 0, 0], count: 3)
                for a in 0..<3 { for b in 0..<3 {
                    let r = [0, 1, 2].filter { $0 != b }, c = [0, 1, 2].filter { $0 != a }
                    let minor = cov[r[0]][c[0]] * cov[r[1]][c[1]] - cov[r[0]][c[1]] * cov[r[1]][c[0]]
                    inverse[a][b] = ((a + b) % 2 == 0 ? 1 : -1) * minor / det
                } }
                for i in pixels {
                    for j in pixels {
                        var t = 0.0
                        for a in 0..<3 { for b in 0..<3 { t += (I[3 * i + a] - mean[a]) * inverse[a][b] * (I[3 * j + b] - mean[b]) } }
                        L[i][j] += (i == j ? 1 : 0) - (1 + t) / 9
                    }
                }
            }
        }
        return L
    }

    /// Preconditioned conjugate gradients from x = 0, stopping at ‖r‖ < tolerance · ‖b‖ (pymatting's rule).
    /// Throws if the preconditioner turns out indefinite (rᵀz ≤ 0) or CG does not converge. The vectors are
    /// worked on in fixed chunks of rows (``RowChunks``): the same bytes on any number of threads.
    static func conjugateGradients(_ s: System, preconditioner: some MattingPreconditioner, options: Options,
                                   pool: SolverThreads?) throws -> (x: [Double], iterations: Int) {
        let n = s.unknown.count
        let chunks = RowChunks(count: n, pool: pool)
        var solution = [Double](repeating: 0, count: n), iterations = 0
        var workArray = ScratchArrays.shared.array(3 * n + s.gridCount, repeating: 0.0)
        defer { ScratchArrays.shared.recycle(&workArray) }
        try workArray.withUnsafeMutableBufferPointer { work in
            // p, the product's input, lives on the padded grid (``System/multiply(grid:into:chunks:)``)
            let r = work.baseAddress!, z = r + n, q = z + n, grid = q + n
            s.rhs.withUnsafeBufferPointer { b in r.update(from: b.baseAddress!, count: n) }
            let normB = chunks.sum { rows in var t = 0.0; for i in rows { t += r[i] * r[i] }; return t }.squareRoot()
            if normB == 0 { return }
            try solution.withUnsafeMutableBufferPointer { solution in
                try s.gridIndex.withUnsafeBufferPointer { at in
                    let x = solution.baseAddress!
                    var rz = preconditioner.solve(r, into: z, chunks: chunks)
                    chunks.forEach { rows in for i in rows { grid[Int(at[i])] = z[i] } }
                    var clock = MattingPhases.Clock("alpha.cg")
                    for iteration in 0..<options.maximumIterations {
                        let step = rz / s.multiply(grid: grid, into: q, chunks: chunks)   // A p, and returns pᵀ A p
                        clock.lap("product")
                        let rr = chunks.sum { rows in s.kernels.step(step, grid, q, at.baseAddress!, rows, x, r) }
                        clock.lap("vectors")
                        if rr.squareRoot() < options.relativeTolerance * normB {
                            iterations = iteration + 1
                            return
                        }
                        let next = preconditioner.solve(r, into: z, chunks: chunks)
                        clock.lap("preconditioner")
                        guard next > 0, next.isFinite else {
                            throw Failure(description: "alpha matting: the preconditioner is not positive definite for this photo")
                        }
                        let beta = next / rz
                        rz = next
                        chunks.forEach { rows in s.kernels.direction(beta, z, at.baseAddress!, rows, grid) }
                        clock.lap("vectors")
                    }
                    throw Failure(description: "alpha matting: conjugate gradients did not converge in \(options.maximumIterations) iterations")
                }
            }
        }
        return (solution, iterations)
    }
}
