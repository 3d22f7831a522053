import Foundation
import Synchronization

/// A symmetric sparse matrix in compressed rows (each row whole, both triangles): the coarse matrix, and the
/// fine one when the solver falls back to an incomplete factor of it.
struct SparseMatrix {
    let rows: Int
    let rowStart: [Int]
    let columns: [Int32]
    let values: [Double]
}

/// z ≈ A⁻¹ r for conjugate gradients. A fixed linear, symmetric positive definite map, so CG stays CG.
protocol MattingPreconditioner {
    /// Writes z and returns rᵀz, summed in `chunks`' order (CG's next scalar, without a pass of its own).
    func solve(_ r: UnsafePointer<Double>, into z: UnsafeMutablePointer<Double>, chunks: RowChunks) -> Double
}

/// A two-level preconditioner whose memory is linear in the unknown band: a fine-level smoother S on the
/// unknowns (IC(0) in strips, ``ZeroFillCholesky``, up to half a million unknowns; Jacobi, D⁻¹, above) plus a
/// coarse correction over aggregates (the unknowns of each 8×8 block of pixels) spanned, per aggregate, by 1 and
/// the pixels' R, G, B: the functions locally affine in colour that the matting Laplacian nearly annihilates
/// (its near-null space, Levin et al. 2008), and so the errors a local smoother cannot reduce. Additive
/// (two-level additive Schwarz):
///
///     z = S r + P A_c⁻¹ Pᵀ r,   A_c = Pᵀ A P,
///
/// with A_c⁻¹ applied through an incomplete Cholesky factor of the coarse matrix (~16× fewer unknowns). SPD
/// for any SPD A, and one matrix product per CG iteration (the symmetric two-grid cycle needs half the
/// iterations but three products each). The iterations hardly grow with the band (45–105 with IC(0) from 15
/// thousand to 0.7 million unknowns, 120–200 with Jacobi up to 2.8 million), where an incomplete factor of the
/// whole system needs a shifted diagonal and ever more of them from one megapixel up (PERF.md "Alpha matting").
final class AggregationPreconditioner: MattingPreconditioner {
    /// The fine level S: IC(0) in strips up to `zeroFillUnknowns` unknowns (``ClosedFormMatting/Options``), else
    /// Jacobi (1 / A_ii per unknown).
    private let zeroFill: ZeroFillCholesky?
    private let smoother: [Double]
    private var zeroFillGrid: [Double]
    /// Per unknown: its aggregate's first coarse unknown, and its four basis values (P's row; unused columns 0;
    /// Float: P only shapes the preconditioner, and Pᵀ and P use the same rounded values).
    private let coarseOffset: [Int32]
    private let basis: [Float]
    /// The unknowns of each aggregate (`members[memberStart[a]..<memberStart[a + 1]]`), its first coarse
    /// unknown and its number of basis columns: Pᵀ r is summed aggregate by aggregate, so in parallel.
    private let members: [Int32], memberStart: [Int32], aggregateOffset: [Int32], columnCount: [UInt8]
    private let coarse: IncompleteCholesky
    let coarseCount: Int
    /// From this many coarse unknowns the coarse factor is ordered in two parts (the order shapes the factor, so
    /// the iterations: it stays where it was when it also meant two threads).
    static let twoPartCoarseUnknowns = 1024
    /// From this many coarse unknowns the two parts are solved on two threads at once; below, one after the
    /// other on one (the same bytes): their hand-offs cost more than the halved work saves (astronaut's 2,350:
    /// 6.6 against 10 ms of its solves; chelsea at 2 MP, 33,000: 3.0 s in all against 3.5–3.9).
    static let parallelCoarseUnknowns = 8192
    // scratch, reused by every application (one CG solve at a time uses this instance)
    private var coarseResidual: [Double], coarseCorrection: [Double]
    private let kernels: MattingKernelSet
    /// The next item of an application's coarse part and strip sweeps, and the strips whose forward sweep is done.
    private let nextItem = Atomic<Int>(0), forwardsDone = Atomic<UInt64>(0)

    init(_ s: ClosedFormMatting.System, rgb image: Image, blockSize: Int = 8, coarseDropTolerance: Double = 1e-4,
         zeroFillUnknowns: Int, pool: SolverThreads? = nil) throws {
        precondition(blockSize >= 2, "the 5×5 stencil must reach no further than the neighbouring blocks")
        var clock = MattingPhases.Clock("alpha.setup")
        let width = s.width
        let n = s.unknown.count
        kernels = s.kernels
        let usesZeroFill = n <= zeroFillUnknowns
        if usesZeroFill {
            zeroFillGrid = ScratchArrays.shared.array(s.gridCount, repeating: 0.0)
            smoother = []
        } else {
            zeroFillGrid = []
            smoother = (0..<n).map { 1 / s.stencil[25 * $0 + 12] }   // slot 12: (0, 0)
        }

        // Aggregates: the unknowns of each blockSize × blockSize block, numbered in raster order of the blocks.
        let blocksAcross = (width + blockSize - 1) / blockSize
        let blocksDown = ((s.unknown.last ?? 0) / width) / blockSize + 1
        var aggregateOfBlock = [Int32](repeating: -1, count: blocksAcross * blocksDown)
        var aggregate = [Int32](repeating: 0, count: n)
        var blockX: [Int32] = [], blockY: [Int32] = []
        // the unknowns ascend, so their pixel row only moves down; a table of block columns (no division per unknown)
        let blockColumn = (0..<width).map { $0 / blockSize }
        var pixelRow = 0, pixelRowStart = 0, by = 0
        for (k, p) in s.unknown.enumerated() {
            while p >= pixelRowStart + width { pixelRowStart += width; pixelRow += 1; by = pixelRow / blockSize }
            let bx = blockColumn[p - pixelRowStart]
            let block = by * blocksAcross + bx
            if aggregateOfBlock[block] >= 0 { aggregate[k] = aggregateOfBlock[block]; continue }
            let a = Int32(blockX.count)
            aggregateOfBlock[block] = a
            blockX.append(Int32(bx)); blockY.append(Int32(by))
            aggregate[k] = a
        }
        let aggregates = blockX.count
        // Renumbered in two parts and a separator: the aggregates above one block row, those below it, then that
        // row's. The coarse stencil joins only neighbouring blocks, so the coarse factor has no entry between the
        // parts and its triangular solves run them on two threads (``IncompleteCholesky/Parts``). The row
        // splits the unknowns about in half.
        var perBlockRow = [Int](repeating: 0, count: blocksDown)
        for k in 0..<n { perBlockRow[Int(blockY[Int(aggregate[k])])] += 1 }
        var separatorRow = -1, running = 0
        for row in 0..<blocksDown {
            running += perBlockRow[row]
            if 2 * running >= n { separatorRow = row; break }
        }
        var part = [Int](repeating: 0, count: aggregates)   // 0 above, 1 below, 2 separator
        for a in 0..<aggregates { part[a] = Int(blockY[a]) < separatorRow ? 0 : Int(blockY[a]) > separatorRow ? 1 : 2 }
        var partCounts = [0, 0, 0]
        for a in 0..<aggregates { partCounts[part[a]] += 1 }
        var renumbered = [Int32](repeating: 0, count: aggregates)
        var next = [0, partCounts[0], partCounts[0] + partCounts[1]]
        for a in 0..<aggregates { renumbered[a] = Int32(next[part[a]]); next[part[a]] += 1 }
        for k in 0..<n { aggregate[k] = renumbered[Int(aggregate[k])] }
        var movedX = blockX, movedY = blockY
        for a in 0..<aggregates { movedX[Int(renumbered[a])] = blockX[a]; movedY[Int(renumbered[a])] = blockY[a] }
        blockX = movedX; blockY = movedY
        // Per aggregate: the colour mean, then the Gram matrix of [1, R − R̄, G − Ḡ, B − B̄] over its unknowns. On raw
        // pointers, each unknown's colour read once into `colours`, each mean divided once (the same quotients the
        // features used to divide out per unknown).
        let I = ClosedFormMatting.UnitRGB(image)
        var colours = [Double](repeating: 0, count: 3 * n)
        var sums = [Double](repeating: 0, count: aggregates * 4)
        var means = [Double](repeating: 0, count: aggregates * 3)
        var gram = [Double](repeating: 0, count: aggregates * 16)
        colours.withUnsafeMutableBufferPointer { colours in
            sums.withUnsafeMutableBufferPointer { sums in
                means.withUnsafeMutableBufferPointer { means in
                    gram.withUnsafeMutableBufferPointer { gram in
                        aggregate.withUnsafeBufferPointer { aggregate in
                            s.unknown.withUnsafeBufferPointer { unknown in
                                for k in 0..<n {
                                    let a = Int(aggregate[k]), p = unknown[k]
                                    sums[4 * a] += 1
                                    for c in 0..<3 {
                                        colours[3 * k + c] = I[3 * p + c]
                                        sums[4 * a + 1 + c] += colours[3 * k + c]
                                    }
                                }
                                for a in 0..<aggregates {
                                    for c in 0..<3 { means[3 * a + c] = sums[4 * a + 1 + c] / sums[4 * a] }
                                }
                                for k in 0..<n {
                                    let a = Int(aggregate[k])
                                    let v = SIMD4(1, colours[3 * k] - means[3 * a], colours[3 * k + 1] - means[3 * a + 1],
                                                  colours[3 * k + 2] - means[3 * a + 2])
                                    for r in 0..<4 { for c in 0..<4 { gram[16 * a + 4 * r + c] += v[r] * v[c] } }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Orthonormal columns by a Cholesky factor of the Gram matrix (G = Rᵀ R, Q = F R⁻¹), dropping a colour
        // column whose part independent of the earlier ones is below 1e-3 per pixel (a flat block): the kept
        // columns' transform T = R⁻¹ (upper triangular), packed left.
        var transform = [Double](repeating: 0, count: aggregates * 16)   // T[feature][kept column]
        var kept = [Int](repeating: 0, count: aggregates)
        gram.withUnsafeBufferPointer { gram in
            transform.withUnsafeMutableBufferPointer { transform in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 16 + 4) { scratch in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 4) { keptFeatures in
                    let R = scratch.baseAddress!, t = R + 16   // R[kept][feature], rows of kept columns only; a column of T
                    let keptFeature = keptFeatures.baseAddress!   // the kept features, in order
                    for a in 0..<aggregates {
                        let g = gram.baseAddress! + 16 * a
                        let m = g[0]
                        R.initialize(repeating: 0, count: 16)
                        var q = 0
                        for f in 0..<4 {
                            var d = g[5 * f]
                            for r in 0..<q { d -= R[4 * r + f] * R[4 * r + f] }
                            guard d > 1e-6 * m else { continue }   // (1e-3)² · m
                            let pivot = d.squareRoot()
                            R[4 * q + f] = pivot
                            for f2 in (f + 1)..<4 {
                                var e = g[4 * f + f2]
                                for r0 in 0..<q { e -= R[4 * r0 + f] * R[4 * r0 + f2] }
                                R[4 * q + f2] = e / pivot
                            }
                            keptFeature[q] = f
                            q += 1
                        }
                        // T = R⁻¹ restricted to the kept features: solve R T = I on the kept columns (back substitution).
                        for c in stride(from: q - 1, through: 0, by: -1) {
                            // column c of T: T[f_c][c] = 1 / R[c][f_c]; rows above from R's upper part
                            t.initialize(repeating: 0, count: 4)
                            t[keptFeature[c]] = 1 / R[4 * c + keptFeature[c]]
                            for r in stride(from: c - 1, through: 0, by: -1) {
                                var sum = 0.0
                                for r2 in (r + 1)...c { sum += R[4 * r + keptFeature[r2]] * t[keptFeature[r2]] }
                                t[keptFeature[r]] = -sum / R[4 * r + keptFeature[r]]
                            }
                            for f in 0..<4 { transform[16 * a + 4 * f + c] = t[f] }
                        }
                        kept[a] = q
                    }
                }
                }
            }
        }
        var offsets = [Int32](repeating: 0, count: aggregates + 1)
        for a in 0..<aggregates { offsets[a + 1] = offsets[a] + Int32(kept[a]) }
        coarseCount = Int(offsets[aggregates])
        var basis = [Float](repeating: 0, count: n * 4)
        var coarseOffset = [Int32](repeating: 0, count: n)
        basis.withUnsafeMutableBufferPointer { basis in
            coarseOffset.withUnsafeMutableBufferPointer { coarseOffset in
                colours.withUnsafeBufferPointer { colours in
                    means.withUnsafeBufferPointer { means in
                        transform.withUnsafeBufferPointer { transform in
                            aggregate.withUnsafeBufferPointer { aggregate in
                                for k in 0..<n {
                                    let a = Int(aggregate[k])
                                    let v = SIMD4(1, colours[3 * k] - means[3 * a], colours[3 * k + 1] - means[3 * a + 1],
                                                  colours[3 * k + 2] - means[3 * a + 2])
                                    for c in 0..<kept[a] {
                                        var sum = 0.0
                                        for r in 0..<4 { sum += v[r] * transform[16 * a + 4 * r + c] }
                                        basis[4 * k + c] = Float(sum)
                                    }
                                    coarseOffset[k] = offsets[a]
                                }
                            }
                        }
                    }
                }
            }
        }
        colours = []
        self.basis = basis
        self.coarseOffset = coarseOffset
        clock.lap("aggregates")

        // A_c = Pᵀ A P by 4×4 blocks between an aggregate and its eight neighbouring blocks (a 5×5 stencil does
        // not reach further than one block of 8): for each row, A's entries summed per neighbour block first.
        // Rows grouped by aggregate (a counting sort), so one aggregate's nine blocks are summed at a time.
        var memberStart = [Int](repeating: 0, count: aggregates + 1)
        for k in 0..<n { memberStart[Int(aggregate[k]) + 1] += 1 }
        for a in 0..<aggregates { memberStart[a + 1] += memberStart[a] }
        var members = [Int32](repeating: 0, count: n)   // kept: Pᵀ r runs through them
        var fill = memberStart
        for k in 0..<n { let a = Int(aggregate[k]); members[fill[a]] = Int32(k); fill[a] += 1 }
        fill = []
        // In fixed pieces of consecutive aggregates on the threads, each piece's rows then joined in order: the
        // same matrix for any thread count.
        let pieces = max(1, min(64, aggregates / 64))
        let pieceRows = UnsafeMutableBufferPointer<(lengths: [Int], columns: [Int32], values: [Double])>.allocate(capacity: pieces)
        pieceRows.initialize(repeating: ([], [], []))
        defer { pieceRows.deinitialize(); pieceRows.deallocate() }
        let slotOffsets = s.slotOffsets
        let pieceAggregates = { (piece: Int) in (piece * aggregates / pieces)..<((piece + 1) * aggregates / pieces) }
        SolverThreads.each(pieces, on: pool) { piece in
            var lengths: [Int] = [], columns: [Int32] = [], values: [Double] = []
            // scratch on raw pointers, and the system's arrays through theirs: with arrays' bounds and uniqueness
            // checks the loop took twice as long
            let blocks = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: 9 * 4)   // [slot][row of P_a] → 4 columns of P_b
            let u = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: 9)            // A's row i against P_b, per slot
            let neighbour = UnsafeMutablePointer<Int>.allocate(capacity: 9)
            let touched = UnsafeMutablePointer<Bool>.allocate(capacity: 9)
            defer { blocks.deallocate(); u.deallocate(); neighbour.deallocate(); touched.deallocate() }
            s.stencil.withUnsafeBufferPointer { stencil in
            s.neighbours.withUnsafeBufferPointer { neighbours in
            basis.withUnsafeBufferPointer { basis in
            aggregate.withUnsafeBufferPointer { aggregate in
            blockX.withUnsafeBufferPointer { blockX in
            blockY.withUnsafeBufferPointer { blockY in
            slotOffsets.withUnsafeBufferPointer { slotOffsets in
            s.gridIndex.withUnsafeBufferPointer { gridIndex in
            members.withUnsafeBufferPointer { members in
            memberStart.withUnsafeBufferPointer { memberStart in
            for a in pieceAggregates(piece) {
                for k in 0..<(9 * 4) { blocks[k] = .zero }
                for k in 0..<9 { neighbour[k] = -1 }
                for m in memberStart[a]..<memberStart[a + 1] {
                    let i = Int(members[m])
                    for k in 0..<9 { u[k] = .zero; touched[k] = false }
                    let base = Int(gridIndex[i]), row = stencil.baseAddress! + 25 * i
                    for k in 0..<25 {
                        let j = Int(neighbours[base + slotOffsets[k]]), v = row[k]
                        guard j < n, v != 0 else { continue }
                        let b = Int(aggregate[j])
                        let slot = Int(blockX[b] - blockX[a] + 1) + 3 * Int(blockY[b] - blockY[a] + 1)
                        neighbour[slot] = b
                        touched[slot] = true
                        u[slot] += v * SIMD4<Double>(SIMD4<Float>(basis[4 * j], basis[4 * j + 1], basis[4 * j + 2], basis[4 * j + 3]))
                    }
                    for slot in 0..<9 where touched[slot] {
                        for r in 0..<4 {
                            let qr = Double(basis[4 * i + r])
                            guard qr != 0 else { continue }
                            blocks[slot * 4 + r] += qr * u[slot]
                        }
                    }
                }
                for r in 0..<kept[a] {
                    var length = 0
                    for slot in 0..<9 {
                        let b = neighbour[slot]
                        guard b >= 0 else { continue }
                        for c in 0..<kept[b] {
                            let v = blocks[slot * 4 + r][c]
                            guard v != 0 else { continue }
                            columns.append(offsets[b] + Int32(c)); values.append(v)
                            length += 1
                        }
                    }
                    lengths.append(length)
                }
            }
            } } } } } } } } } }
            pieceRows[piece] = (lengths, columns, values)
        }
        var rowStart = [0], columns: [Int32] = [], values: [Double] = []
        rowStart.reserveCapacity(coarseCount + 1)
        for piece in pieceRows {
            for length in piece.lengths { rowStart.append(rowStart.last! + length) }
            columns += piece.columns
            values += piece.values
        }
        self.members = members
        self.memberStart = memberStart.map { Int32($0) }
        aggregateOffset = offsets
        columnCount = kept.map { UInt8($0) }
        clock.lap("PᵀAP")
        let partEnds = (Int(offsets[partCounts[0]]), Int(offsets[partCounts[0] + partCounts[1]]))
        let parts = partCounts[0] > 0 && partCounts[1] > 0 && coarseCount >= Self.twoPartCoarseUnknowns
            ? IncompleteCholesky.Parts(first: 0..<partEnds.0, second: partEnds.0..<partEnds.1, separator: partEnds.1..<coarseCount)
            : nil
        // The coarse factor (sequential) and IC(0)'s strips are independent: on two threads or more, one
        // factors the coarse matrix while the other factors the strips (astronaut: 1.0 + 1.6 ms → 1.9).
        let coarseMatrix = SparseMatrix(rows: coarseCount, rowStart: rowStart, columns: columns, values: values)
        var coarseFactor: Result<IncompleteCholesky, Error>? = nil, zeroFillFactor: Result<ZeroFillCholesky, Error>? = nil
        func factorCoarse() { coarseFactor = Result { try IncompleteCholesky(coarseMatrix, dropTolerance: coarseDropTolerance, parts: parts) } }
        func factorStrips(_ pool: SolverThreads?) { zeroFillFactor = Result { try ZeroFillCholesky(s, pool: pool) } }
        if usesZeroFill, let pool {
            pool.run { worker in
                if worker == 0 { factorCoarse() } else if worker == 1 { factorStrips(nil) }
            }
        } else {
            factorCoarse()
            if usesZeroFill { factorStrips(pool) }
        }
        coarse = try coarseFactor!.get()
        zeroFill = try zeroFillFactor?.get()
        clock.lap("factors")
        coarseResidual = [Double](repeating: 0, count: coarseCount + 4)
        coarseCorrection = [Double](repeating: 0, count: coarseCount + 4)
    }

    deinit { ScratchArrays.shared.recycle(&zeroFillGrid) }

    /// z = S r + P A_c⁻¹ Pᵀ r, returning rᵀz. With IC(0) as S, at least two threads and a coarse system small
    /// enough to be solved on one thread (under ``parallelCoarseUnknowns``), the coarse part (Pᵀ r, then A_c⁻¹) and
    /// the strips' forward and back sweeps are items that the workers take as they come free, a strip's back sweep
    /// waiting for its forward one: the coarse solve no longer leaves the other core idle, and the sweeps even out
    /// what whole strips could not. The same arithmetic whichever worker runs an item, so the same bytes.
    func solve(_ r: UnsafePointer<Double>, into z: UnsafeMutablePointer<Double>, chunks: RowChunks) -> Double {
        var clock = MattingPhases.Clock("alpha.cg.preconditioner")
        if let zeroFill, let pool = chunks.pool, coarseCount < Self.parallelCoarseUnknowns {
            let strips = zeroFill.strips.count, items = 1 + 2 * strips
            precondition(strips <= 64, "a strip's forward sweep is marked done in a 64-bit mask")
            nextItem.store(0, ordering: .relaxed)
            forwardsDone.store(0, ordering: .relaxed)
            zeroFillGrid.withUnsafeMutableBufferPointer { g in
                let g = g.baseAddress!
                pool.run { _ in   // items: the coarse part, the forward sweeps in order, the back sweeps last first
                    while true {
                        let item = nextItem.wrappingAdd(1, ordering: .relaxed).oldValue
                        if item >= items { return }
                        if item == 0 {
                            restrictAndSolveCoarse(r, pool: nil)
                        } else if item <= strips {
                            zeroFill.solve(strip: item - 1, r, grid: g, forward: true, back: false)
                            forwardsDone.bitwiseOr(1 << UInt64(item - 1), ordering: .releasing)
                        } else {
                            let strip = items - 1 - item
                            SolverThreads.wait { forwardsDone.load(ordering: .acquiring) & (1 << UInt64(strip)) != 0 }
                            zeroFill.solve(strip: strip, r, grid: g, forward: false, back: true)
                        }
                    }
                }
            }
            clock.lap("coarse and IC(0)")
        } else {
            restrictAndSolveCoarse(r, pool: chunks.pool)
            clock.lap("coarse")
            if let zeroFill {
                zeroFillGrid.withUnsafeMutableBufferPointer { g in zeroFill.solve(r, grid: g.baseAddress!, pool: chunks.pool) }
                clock.lap("IC(0)")
            }
        }
        defer { clock.lap("prolong") }
        let prolongAndAdd = kernels.prolongAndAdd
        return basis.withUnsafeBufferPointer { basis in
            coarseOffset.withUnsafeBufferPointer { offset in
                smoother.withUnsafeBufferPointer { smoother in
                    coarseCorrection.withUnsafeBufferPointer { e in
                        zeroFillGrid.withUnsafeBufferPointer { g in
                            (zeroFill?.gridIndex ?? []).withUnsafeBufferPointer { at in
                                chunks.sum { rows in                          // z = S r + P A_c⁻¹ Pᵀ r; rᵀz
                                    prolongAndAdd(r, at.isEmpty ? nil : g.baseAddress!, at.baseAddress,
                                                  smoother.baseAddress, basis.baseAddress!, offset.baseAddress!,
                                                  e.baseAddress!, rows, z)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The coarse correction A_c⁻¹ Pᵀ r into `coarseCorrection`: Pᵀ r aggregate by aggregate (on `pool`'s threads
    /// when given), then the coarse factor's solves (its two parts at once on `pool` from ``parallelCoarseUnknowns``).
    private func restrictAndSolveCoarse(_ r: UnsafePointer<Double>, pool: SolverThreads?) {
        let restrict = kernels.restrict
        basis.withUnsafeBufferPointer { basis in
            coarseResidual.withUnsafeMutableBufferPointer { coarseResidual in
                members.withUnsafeBufferPointer { members in
                    memberStart.withUnsafeBufferPointer { start in
                        aggregateOffset.withUnsafeBufferPointer { aggregateOffset in
                            columnCount.withUnsafeBufferPointer { columnCount in
                                // Pᵀ r, each aggregate's columns
                                RowChunks(count: columnCount.count, pool: pool).forEach { aggregates in
                                    restrict(r, basis.baseAddress!, members.baseAddress!, start.baseAddress!,
                                             aggregateOffset.baseAddress!, columnCount.baseAddress!, aggregates,
                                             coarseResidual.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
        }
        coarseResidual.withUnsafeBufferPointer { coarseResidual in
            coarseCorrection.withUnsafeMutableBufferPointer { coarseCorrection in
                coarse.solve(coarseResidual.baseAddress!, into: coarseCorrection.baseAddress!,
                             pool: coarseCount >= Self.parallelCoarseUnknowns ? pool : nil)
            }
        }
    }
}
