/// The fine level's smoother for ``AggregationPreconditioner`` on bands up to half a million unknowns: an
/// incomplete Cholesky factor with no fill (IC(0)), L Lᵀ ≈ A + s·diag(A) on A's own pattern, stored like the
/// system itself, as the 12 stencil slots before a pixel in raster order (slots 0..<12 of the 5×5 stencil,
/// 0 where the neighbour is known) and 1 / L_ii per unknown. With the coarse correction it needs 1.6–2.8× fewer
/// CG iterations than Jacobi does (astronaut 172 → 67, chelsea 178 → 62, rocket 123 → 47, chelsea at 1 MP
/// 176 → 102; PERF.md "Alpha matting").
///
/// The unknowns are cut into strips of whole pixel rows (their number fixed by the band's size, never by the
/// thread count), and the factor drops A's entries between strips: each strip is factored and solved on its
/// own, so the strips run on different threads and the result is the same bytes for any thread count.
/// The matting Laplacian is no M-matrix and IC(0) of it breaks down (a non-positive pivot) unless the diagonal
/// is raised: a strip tries s = 0.03 (best or near it on every photo tried), then larger shifts.
public struct ZeroFillCholesky: Sendable {
    static let lowerSlots = 12
    public static let unknownsPerStrip = 8_192, maximumStrips = 64
    public static let shifts = [0.03, 0.1, 0.3, 1, 3, 10, 100]

    /// Strips of unknown indices, each starting at a pixel row; the first two pixel rows of a strip (up to
    /// `interiorStart`) reach only as far up as the strip's own rows.
    public let strips: [Range<Int>]
    private let interiorStart: [Int], topRow: [Int]
    private let width: Int, paddedWidth: Int, gridCount: Int
    private let unknown: [Int]
    let gridIndex: [Int32]
    private let kernels: MattingKernelSet
    /// L's slots 0..<12 per unknown (Float: half the bytes each pass reads; the factor only shapes the preconditioner).
    private let factor: [Float]
    private let inverseDiagonal: [Double]
    /// For slot k, the pairs (m, m′), m < k, with m′ the slot of neighbour(m) as seen from neighbour(k): the
    /// entries L_im L_jm′ that IC(0) subtracts from A_ik (j = neighbour(k)), in a fixed order.
    private static let pairs: [[(Int, Int)]] = (0..<lowerSlots).map { k in
        (0..<k).compactMap { m in
            let ddy = m / 5 - k / 5, ddx = m % 5 - k % 5
            return abs(ddy) <= 2 && abs(ddx) <= 2 ? (m, (ddy + 2) * 5 + ddx + 2) : nil
        }
    }

    /// The shift each strip was factored with.
    public let stripShifts: [Double]

    init(_ s: ClosedFormMatting.System, unknownsPerStrip: Int = Self.unknownsPerStrip, pool: SolverThreads?) throws {
        let n = s.unknown.count
        width = s.width
        paddedWidth = s.paddedWidth
        gridCount = s.gridCount
        unknown = s.unknown
        gridIndex = s.gridIndex
        kernels = s.kernels
        // Strips of about equal size (an even number of them from two strips' worth, so that two threads get
        // equal shares), each cut where a pixel row starts: at the row with the fewest unknowns within an
        // eighth of a strip of the even cut, since the entries dropped between strips are the ones a cut row
        // and its neighbours share.
        let wanted = n / unknownsPerStrip
        let count = wanted == 0 ? 1 : min(Self.maximumStrips, 2 * ((wanted + 1) / 2))
        var rowStarts: [Int] = []          // index of each pixel row's first unknown, rows with unknowns only
        for i in 0..<n where i == 0 || s.unknown[i - 1] / width != s.unknown[i] / width { rowStarts.append(i) }
        rowStarts.append(n)
        var starts = [0]
        for k in 1..<max(count, 1) {
            let target = k * n / count, reach = n / count / 8
            var best = -1, bestSize = Int.max
            for r in 1..<(rowStarts.count - 1) where abs(rowStarts[r] - target) <= reach || best < 0 && rowStarts[r] >= target {
                let size = rowStarts[r + 1] - rowStarts[r]
                if size < bestSize { best = r; bestSize = size }
                if rowStarts[r] > target + reach { break }
            }
            if best > 0 && rowStarts[best] > starts.last! { starts.append(rowStarts[best]) }
        }
        starts.append(n)
        strips = (0..<(starts.count - 1)).map { starts[$0]..<starts[$0 + 1] }
        topRow = strips.map { s.unknown[$0.lowerBound] / s.width }
        interiorStart = zip(strips, topRow).map { strip, top in
            var i = strip.lowerBound
            while i < strip.upperBound && s.unknown[i] / s.width < top + 2 { i += 1 }
            return i
        }
        var lower = [Float](repeating: 0, count: Self.lowerSlots * n)
        var inverses = [Double](repeating: 0, count: n)
        var shiftUsed = [Double](repeating: .nan, count: strips.count)
        let strips = strips
        let failed = lower.withUnsafeMutableBufferPointer { L in
            inverses.withUnsafeMutableBufferPointer { D in
                s.stencil.withUnsafeBufferPointer { A in
                    s.neighbours.withUnsafeBufferPointer { neighbours in
                        shiftUsed.withUnsafeMutableBufferPointer { used in
                            let offsets = s.slotOffsets, pairs = Self.pairs
                            SolverThreads.each(strips.count, on: pool) { t in
                                let strip = strips[t]
                                used[t] = Self.shifts.first { shift in
                                    Self.factor(strip, shift: shift, A: A, neighbours: neighbours, gridIndex: s.gridIndex,
                                                offsets: offsets, pairs: pairs, unknowns: n, L: L, D: D)
                                } ?? .nan
                            }
                            return used.contains { $0.isNaN }
                        }
                    }
                }
            }
        }
        if failed { throw ClosedFormMatting.Failure(description: "alpha matting: the zero-fill Cholesky factor broke down") }
        factor = lower
        inverseDiagonal = inverses
        stripShifts = shiftUsed
    }

    /// The factor of `system`'s matrix on `threads` threads (the same bytes for any count). For tests and readers.
    public init(_ system: ClosedFormMatting.System, unknownsPerStrip: Int = Self.unknownsPerStrip, threads: Int) throws {
        self = try SolverThreads.with(threads: threads) { try ZeroFillCholesky(system, unknownsPerStrip: unknownsPerStrip, pool: $0) }
    }

    /// (L Lᵀ)⁻¹ r, per unknown, on `threads` threads. For tests and readers.
    public func solve(_ r: [Double], threads: Int) -> [Double] {
        precondition(r.count == unknown.count)
        var grid = [Double](repeating: 0, count: gridCount)
        SolverThreads.with(threads: threads) { pool in
            grid.withUnsafeMutableBufferPointer { g in solve(r, grid: g.baseAddress!, pool: pool) }
        }
        precondition(grid.allSatisfy(\.isFinite))
        return gridIndex.map { grid[Int($0)] }
    }

    /// One strip's rows of L at `shift`; false on a non-positive pivot. Entries reaching outside the strip
    /// (j < strip.lowerBound) stay 0: the strips' factors are independent.
    private static func factor(_ strip: Range<Int>, shift: Double, A: UnsafeBufferPointer<Double>,
                               neighbours: UnsafeBufferPointer<Int32>, gridIndex: [Int32], offsets: [Int],
                               pairs: [[(Int, Int)]], unknowns n: Int,
                               L: UnsafeMutableBufferPointer<Float>, D: UnsafeMutableBufferPointer<Double>) -> Bool {
        for i in strip {
            let base = Int(gridIndex[i])
            var diagonal = A[25 * i + 12] * (1 + shift)
            for k in 0..<lowerSlots {
                let j = Int(neighbours[base + offsets[k]])
                guard j < n, j >= strip.lowerBound, A[25 * i + k] != 0 else { L[lowerSlots * i + k] = 0; continue }
                var sum = A[25 * i + k]
                for (m, mj) in pairs[k] { sum -= Double(L[lowerSlots * i + m]) * Double(L[lowerSlots * j + mj]) }
                let value = Float(sum * D[j])
                L[lowerSlots * i + k] = value
                diagonal -= Double(value) * Double(value)
            }
            guard diagonal > 0, diagonal.isFinite else { return false }
            D[i] = 1 / diagonal.squareRoot()
        }
        return true
    }

    /// (L Lᵀ)⁻¹ r, written to the padded grid `g` at each unknown's position (``ClosedFormMatting/System``'s
    /// layout; 0 must stand everywhere else, and stays): each strip by ``MattingKernels/zeroFillSolve``, forward by
    /// rows, reading earlier rows from the grid, back by columns, subtracting each row's solved value from the
    /// earlier rows it touches, in place.
    func solve(_ r: UnsafePointer<Double>, grid g: UnsafeMutablePointer<Double>, pool: SolverThreads?) {
        SolverThreads.each(strips.count, on: pool) { t in solve(strip: t, r, grid: g, forward: true, back: true) }
    }

    /// Strip `t`'s forward sweep, back sweep or both (the back sweep only once the forward one is done), for a
    /// caller that schedules the strips' sweeps itself (``AggregationPreconditioner``).
    func solve(strip t: Int, _ r: UnsafePointer<Double>, grid g: UnsafeMutablePointer<Double>, forward: Bool, back: Bool) {
        factor.withUnsafeBufferPointer { L in
            inverseDiagonal.withUnsafeBufferPointer { D in
                gridIndex.withUnsafeBufferPointer { at in
                    unknown.withUnsafeBufferPointer { unknown in
                        kernels.zeroFillSolve(strips[t], interiorStart[t], topRow[t], L.baseAddress!, D.baseAddress!,
                                              at.baseAddress!, unknown.baseAddress!, width, paddedWidth, r, g, forward, back)
                    }
                }
            }
        }
    }
}
