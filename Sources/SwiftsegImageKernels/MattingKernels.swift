/// The alpha matting's conjugate-gradient loops on raw pointers, compiled three times like the network's kernels
/// (Package.swift: SwiftsegImageKernels for the baseline CPU, …AVX2 and …AVX512 symlinked to this file), so the
/// solver uses the widest registers the CPU has while one binary runs everywhere. The image library picks a build
/// (SwiftsegImage/Matting/MattingKernelSet.swift) and owns the data structures; these are only their loops, each the
/// same operations in the same order in every build (no fused multiply-add: Swift does not contract `a * b + c`),
/// so every build gives the same bytes (a test).
///
/// The layouts (ClosedFormMatting.System, ZeroFillCholesky): the vector the product reads lives on the photo's grid
/// padded by 2 all round (`paddedWidth` = width + 4), 0 off the unknowns; `gridIndex[i]` is unknown i's position there.
public enum MattingKernels {
    /// y_i = Σ_k stencil[25 i + k] · x[gridIndex[i] + offset_k] over the 5×5 neighbourhood, for `rows`; returns
    /// Σ x_i y_i. Bound by its loads: each stencil row's first four slots as two pairs, the fifth alone, in a fixed order.
    public static func stencilProduct(stencil: UnsafePointer<Double>, gridIndex: UnsafePointer<Int32>,
                                      grid x: UnsafePointer<Double>, paddedWidth w: Int, rows: Range<Int>,
                                      into y: UnsafeMutablePointer<Double>) -> Double {
        var dot = 0.0
        for row in rows {
            let c = x + Int(gridIndex[row])
            let a = stencil + 25 * row
            var pairs = SIMD2<Double>(), fifths = 0.0
            for dy in 0..<5 {
                let row = a + 5 * dy, near = c + (dy - 2) * w - 2
                pairs += pair(row) * pair(near) + pair(row + 2) * pair(near + 2)
                fifths += row[4] * near[4]
            }
            let sum = (pairs[0] + pairs[1]) + fifths
            y[row] = sum
            dot += c[0] * sum
        }
        return dot
    }

    /// CG's step for `rows`: x += step · p (p on the grid), r −= step · q; returns Σ r_i² of the new r.
    public static func conjugateGradientStep(step: Double, grid p: UnsafePointer<Double>, q: UnsafePointer<Double>,
                                             gridIndex: UnsafePointer<Int32>, rows: Range<Int>,
                                             x: UnsafeMutablePointer<Double>, r: UnsafeMutablePointer<Double>) -> Double {
        var t = 0.0
        for i in rows {
            x[i] += step * p[Int(gridIndex[i])]
            r[i] -= step * q[i]
            t += r[i] * r[i]
        }
        return t
    }

    /// CG's next direction for `rows`: p = z + β · p, on the grid.
    public static func conjugateGradientDirection(beta: Double, z: UnsafePointer<Double>, gridIndex: UnsafePointer<Int32>,
                                                  rows: Range<Int>, grid p: UnsafeMutablePointer<Double>) {
        for i in rows {
            let g = Int(gridIndex[i])
            p[g] = z[i] + beta * p[g]
        }
    }

    /// One strip of IC(0)'s (L Lᵀ)⁻¹ r (ZeroFillCholesky): L's 12 lower stencil slots per unknown (`factor`, Float)
    /// and 1 / L_ii (`inverseDiagonal`); the result written to the grid at each unknown. Forward by rows, reading
    /// earlier rows from the grid; back by columns, subtracting each row's solved value from the earlier rows it
    /// touches, in place. The strip's first two pixel rows (unknowns before `interiorStart`) reach only as far up
    /// as its top pixel row `topRow` (`unknown` holds each unknown's pixel index, `width` the photo's), so strips
    /// touch only their own rows and may run at once. `forward` and `back` pick the sweeps to run (a caller may run
    /// a strip's back sweep later, on another thread, once its forward one is done).
    public static func zeroFillSolve(strip: Range<Int>, interiorStart interior: Int, topRow: Int,
                                     factor: UnsafePointer<Float>, inverseDiagonal D: UnsafePointer<Double>,
                                     gridIndex: UnsafePointer<Int32>, unknown: UnsafePointer<Int>, width: Int,
                                     paddedWidth w: Int, r: UnsafePointer<Double>, grid g: UnsafeMutablePointer<Double>,
                                     forward: Bool, back: Bool) {
        let slots = 12
        // the first rows: slots only as far up as the strip's top row
        func firstSlot(_ i: Int) -> Int { i >= interior ? 0 : max(0, (topRow - unknown[i] / width + 2) * 5) }
        // The left neighbour's term is the chain from one unknown to the next: its value is kept in a register
        // (when it is the unknown just before; else it is known, and L's slot 0) and enters last, through one
        // multiply and one subtraction (its coefficient's product with 1 / L_ii is off the chain).
        var previous = 0.0, previousAt = -3
        for i in strip where forward {
            let at = Int(gridIndex[i]), c = g + at, l = factor + slots * i
            var up = 0.0
            if i >= interior {
                // five neighbours two rows up and five one row up, in pairs (half the loads and multiplies),
                // then the one two to the left
                let a = c - 2 * w - 2, b = c - w - 2
                let pairs = widened(l) * pair(a) + widened(l + 2) * pair(a + 2) + widened(l + 5) * pair(b)
                    + widened(l + 7) * pair(b + 2)
                up = pairs[0] + pairs[1] + (Double(l[4]) * a[4] + Double(l[9]) * b[4])
            } else {
                for k in firstSlot(i)..<10 { up += Double(l[k]) * c[(k / 5 - 2) * w + k % 5 - 2] }
            }
            up += Double(l[10]) * c[-2]
            let left = previousAt == at - 1 ? previous : 0
            let value = (r[i] - up) * D[i] - Double(l[11]) * D[i] * left
            c[0] = value
            previous = value; previousAt = at
        }
        // Back: the next unknown's term for this one (its slot 11) likewise in a register.
        var next = 0.0, nextAt = -3, nextLeft = 0.0
        for i in strip.reversed() where back {
            let at = Int(gridIndex[i]), c = g + at, l = factor + slots * i
            let d = D[i]
            let y = nextAt == at + 1 ? c[0] * d - nextLeft * d * next : c[0] * d
            c[0] = y
            c[-2] -= Double(l[10]) * y
            if i >= interior {
                // each element its own subtraction, two at a time, in pairs at even grid positions: the next
                // unknown's pairs are then these same pairs, and its loads take them from the stores just made
                let a = c - 2 * w - 2, b = c - w - 2, y2 = SIMD2(repeating: y)
                if (at - w - 2) & 1 == 0 {
                    store(pair(b) - widened(l + 5) * y2, b); store(pair(b + 2) - widened(l + 7) * y2, b + 2)
                    b[4] -= Double(l[9]) * y
                    store(pair(a) - widened(l) * y2, a); store(pair(a + 2) - widened(l + 2) * y2, a + 2)
                    a[4] -= Double(l[4]) * y
                } else {
                    b[0] -= Double(l[5]) * y
                    store(pair(b + 1) - widened(l + 6) * y2, b + 1); store(pair(b + 3) - widened(l + 8) * y2, b + 3)
                    a[0] -= Double(l[0]) * y
                    store(pair(a + 1) - widened(l + 1) * y2, a + 1); store(pair(a + 3) - widened(l + 3) * y2, a + 3)
                }
            } else {
                for k in firstSlot(i)..<10 { c[(k / 5 - 2) * w + k % 5 - 2] -= Double(l[k]) * y }
            }
            next = y; nextAt = at; nextLeft = Double(l[11])
        }
    }

    /// Pᵀ r for the aggregates in `aggregates` (AggregationPreconditioner): per aggregate, Σ over its member
    /// unknowns of their basis values (4 per unknown, Float) times r, stored to its `columnCount` coarse unknowns
    /// from `aggregateOffset`.
    public static func restrict(r: UnsafePointer<Double>, basis: UnsafePointer<Float>, members: UnsafePointer<Int32>,
                                memberStart: UnsafePointer<Int32>, aggregateOffset: UnsafePointer<Int32>,
                                columnCount: UnsafePointer<UInt8>, aggregates: Range<Int>,
                                into coarse: UnsafeMutablePointer<Double>) {
        for a in aggregates {
            var sums = (0.0, 0.0, 0.0, 0.0)
            for m in Int(memberStart[a])..<Int(memberStart[a + 1]) {
                let i = Int(members[m]), v = r[i]
                sums.0 += Double(basis[4 * i]) * v
                sums.1 += Double(basis[4 * i + 1]) * v
                sums.2 += Double(basis[4 * i + 2]) * v
                sums.3 += Double(basis[4 * i + 3]) * v
            }
            let o = Int(aggregateOffset[a]), count = Int(columnCount[a])
            coarse[o] = sums.0
            if count > 1 { coarse[o + 1] = sums.1 }
            if count > 2 { coarse[o + 2] = sums.2 }
            if count > 3 { coarse[o + 3] = sums.3 }
        }
    }

    /// z = S r + P e for `rows` (e the coarse correction, P's rows the basis values from each unknown's
    /// `coarseOffset`); S r is IC(0)'s result on the grid when `fine` is given, else Jacobi's `smoother[i] · r_i`.
    /// Returns Σ r_i z_i.
    public static func prolongAndAdd(r: UnsafePointer<Double>, fine: UnsafePointer<Double>?, gridIndex: UnsafePointer<Int32>?,
                                     smoother: UnsafePointer<Double>?, basis: UnsafePointer<Float>,
                                     coarseOffset: UnsafePointer<Int32>, correction e: UnsafePointer<Double>,
                                     rows: Range<Int>, into z: UnsafeMutablePointer<Double>) -> Double {
        var dot = 0.0
        for i in rows {
            let o = Int(coarseOffset[i])
            var sum = fine.map { $0[Int(gridIndex![i])] } ?? smoother![i] * r[i]
            for c in 0..<4 { sum += Double(basis[4 * i + c]) * e[o + c] }
            z[i] = sum
            dot += r[i] * sum
        }
        return dot
    }

    /// One band's in-place sweep of the foreground estimate (SwiftsegImage's ForegroundEstimation, layout
    /// SkewedBands: per step ten SIMD4 — α; the photo's r, g, b; F's r, g, b; B's r, g, b — one lane per row of
    /// the band). `base` is the band's step 0, `up` the band above's lane 3 three steps on (or the band's own lane
    /// 0), `down` the band below's lane 0 three steps back (or its own lane 3). In blocks of `block` steps: `ready(end)`
    /// before a block (a wavefront waits there for the band above), `done(end)` after it. Each pixel gets
    /// ForegroundEstimation.solve's operations in its order: the reference's bytes in every build.
    public static func foregroundSweep(base storage: UnsafeMutablePointer<Float>, up: UnsafePointer<Float>,
                                       down: UnsafePointer<Float>, steps: Int, block: Int, regularization: Float,
                                       gradientWeight: Float, ready: (Int) -> Void, done: (Int) -> Void) {
        let base = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: SIMD4<Float>.self)
        let weights = (SIMD4<Float>(repeating: regularization), SIMD4<Float>(repeating: gradientWeight))
        var left = sweepLeft(base)
        var start = 0
        while start < steps {
            let end = block >= steps - start ? steps : start + block
            ready(end)
            for s in start..<end { sweepStep(base, up, down, s, weights, &left) }
            done(end)
            start = end
        }
    }

    /// Two neighbouring bands' sweeps at once, on one thread: band b (`upper`, its neighbours at `upperUp` and
    /// `upperDown` — the latter the lower band's lane 0) and band b + 1 (`lower`, at `lowerUp` — the upper band's
    /// lane 3 — and `lowerDown`), as `foregroundSweep` takes them, the lower four steps behind. The lower band's up
    /// neighbours (the upper band's lane 3, three steps on) are then ones the upper band solved an iteration
    /// before, and the upper band's down neighbours (the lower band's lane 0, three steps back) ones the lower band
    /// has not reached: what the single-band sweeps of b and then b + 1 read, so the same bytes. A step's solve is
    /// a chain of dependent operations on the step before's results; two independent chains side by side keep
    /// the core busy (an eight-lane version, both bands in one 256-bit vector, was slower: its lane shifts).
    public static func foregroundSweepPair(upper: UnsafeMutablePointer<Float>, upperUp: UnsafePointer<Float>,
                                           upperDown: UnsafePointer<Float>, lower: UnsafeMutablePointer<Float>,
                                           lowerUp: UnsafePointer<Float>, lowerDown: UnsafePointer<Float>, steps: Int,
                                           regularization: Float, gradientWeight: Float) {
        typealias V = SIMD4<Float>
        let a = UnsafeMutableRawPointer(upper).assumingMemoryBound(to: V.self)
        let b = UnsafeMutableRawPointer(lower).assumingMemoryBound(to: V.self)
        let weights = (V(repeating: regularization), V(repeating: gradientWeight))
        var leftA = sweepLeft(a), leftB = sweepLeft(b)
        for s in 0..<(steps + 4) {
            if s < steps { sweepStep(a, upperUp, upperDown, s, weights, &leftA) }
            if s >= 4 { sweepStep(b, lowerUp, lowerDown, s - 4, weights, &leftB) }
        }
    }

    /// The step just solved in a band's sweep (its α and new F and B): the next step's left neighbours. (A tuple,
    /// not a struct: a struct's value witnesses would be code symbols every kernel build defines.)
    typealias SweepLeft = (alpha: SIMD4<Float>, F: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>),
                           B: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>))

    /// What the step before step 0 holds (column −1's copies).
    @inline(__always)
    static func sweepLeft(_ base: UnsafeMutablePointer<SIMD4<Float>>) -> SweepLeft {
        let fields = 10
        return (base[-fields], (base[-fields + 4], base[-fields + 5], base[-fields + 6]),
                (base[-fields + 7], base[-fields + 8], base[-fields + 9]))
    }

    /// Step `s` of a band's sweep (`foregroundSweep`'s loop body): its four pixels solved, stored, and `left` moved on.
    @inline(__always)
    static func sweepStep(_ base: UnsafeMutablePointer<SIMD4<Float>>, _ up: UnsafePointer<Float>,
                          _ down: UnsafePointer<Float>, _ s: Int,
                          _ weights: (regularization: SIMD4<Float>, gradientWeight: SIMD4<Float>),
                          _ left: inout SweepLeft) {
        typealias V = SIMD4<Float>
        let fields = 10, stride = fields * 4
        @inline(__always) func magnitude(_ v: V) -> V {
            unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: V.self)
        }
        let c = base + s &* fields, n = c + fields
        let u = up + s &* stride, d = down + s &* stride
        var lF = left.F, lB = left.B
        if s < 4 {
            // lane s is column 0: its left neighbour is itself, as it is now (a blend: a lane set by a
            // variable index kept these vectors in memory for the whole loop)
            let first = SIMD4<Int32>(0, 1, 2, 3) .== SIMD4<Int32>(repeating: Int32(truncatingIfNeeded: s))
            lF.0.replace(with: c[4], where: first); lF.1.replace(with: c[5], where: first)
            lF.2.replace(with: c[6], where: first)
            lB.0.replace(with: c[7], where: first); lB.1.replace(with: c[8], where: first)
            lB.2.replace(with: c[9], where: first)
        }
        // ForegroundEstimation.solve(alpha:photo:weights:neighbours:), four pixels at once
        let a0 = c[0], a1 = 1 - a0
        @inline(__always) func weight(_ neighbour: V) -> V {
            weights.regularization + weights.gradientWeight * magnitude(a0 - neighbour)
        }
        // up: the step just solved, one lane down; down: the next step, one lane up
        @inline(__always) func shiftedDown(_ v: V, _ first: Float) -> V { V(first, v[0], v[1], v[2]) }
        @inline(__always) func shiftedUp(_ v: V, _ last: Float) -> V { V(v[1], v[2], v[3], last) }
        let aRight = n[0], leftA = left.alpha
        let wLeft = weight(leftA), wRight = weight(aRight)
        let wUp = weight(shiftedDown(leftA, u[0])), wDown = weight(shiftedUp(aRight, d[0]))
        let sum = wLeft + wRight + wUp + wDown
        let determinant = sum * (a0 * a0 + a1 * a1) + sum * sum
        let inverse = 1 / determinant
        @inline(__always) func solve(_ k: Int, _ left: (V, V)) -> (V, V) {
            let photo = c[1 + k], right = (n[4 + k], n[7 + k])
            let up = (shiftedDown(left.0, u[16 + 4 * k]), shiftedDown(left.1, u[28 + 4 * k]))
            let down = (shiftedUp(right.0, d[16 + 4 * k]), shiftedUp(right.1, d[28 + 4 * k]))
            let P = wRight * right.0 + wUp * up.0 + wDown * down.0 + wLeft * left.0
            let Q = wRight * right.1 + wUp * up.1 + wDown * down.1 + wLeft * left.1
            let f = a0 * photo + P, g = a1 * photo + Q
            let A = a1 * P - a0 * Q
            return (clamped((a1 * A + sum * f) * inverse),
                    clamped((sum * g - a0 * A) * inverse))
        }
        let s0 = solve(0, (lF.0, lB.0)), s1 = solve(1, (lF.1, lB.1)), s2 = solve(2, (lF.2, lB.2))
        c[4] = s0.0; c[5] = s1.0; c[6] = s2.0
        c[7] = s0.1; c[8] = s1.1; c[9] = s2.1
        left = (a0, (s0.0, s1.0, s2.0), (s0.1, s1.1, s2.1))
    }

    /// max(0, min(1, v)) lane by lane, in the order of the scalar reference's two comparisons.
    @inline(__always) static func clamped(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let below = v.replacing(with: 1, where: v .> 1)
        return below.replacing(with: 0, where: below .< 0)
    }

    @inline(__always) static func pair(_ p: UnsafePointer<Double>) -> SIMD2<Double> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD2<Double>.self)
    }
    @inline(__always) static func pair(_ p: UnsafeMutablePointer<Double>) -> SIMD2<Double> { pair(UnsafePointer(p)) }
    @inline(__always) static func store(_ v: SIMD2<Double>, _ p: UnsafeMutablePointer<Double>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD2<Double>.self)
    }
    /// Two of L's Float slots as Doubles.
    @inline(__always) static func widened(_ l: UnsafePointer<Float>) -> SIMD2<Double> {
        SIMD2<Double>(UnsafeRawPointer(l).loadUnaligned(as: SIMD2<Float>.self))
    }
}
