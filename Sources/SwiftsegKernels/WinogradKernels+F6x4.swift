/// The Winograd F(6×4, 3×3) transforms: each tile is 6 output rows (F(6, 3) down) by 4 output columns (F(4, 3)
/// across), an 8×6 input patch, 48 transform positions (layout and shared pieces: WinogradKernels.swift).
///
/// Why 6×4: across, 4-pixel tiles are what lets 16 tiles sit in one vector (each input row split by x mod 4,
/// so a patch column of 16 tiles is one contiguous load); 6-pixel tiles across (F(6×6)) broke that and lost
/// its gain to padding (PERF.md). Down, the tile height is free: 6 rows cost 48 GEMM positions per 24 outputs
/// (2 per output) where F(4×4) costs 36 per 16 (2.25), and each input row is read 8/6 times instead of 6/4.
/// F(6, 3)'s larger interpolation points (±½, ±2, with ⅛…32 in Aᵀ) roughly double the rounding error of the
/// F(4, 3) direction: still ~1e-5 relative.
import _CKernelSupport
import SwiftsegKernelTypes

extension WinogradKernels {
    /// V[ci][p][t] = (Bᵀ d B)[p] for the 8×6 input patch d of tiles `tx0 ..< tx0 + nb` of tile row `ty` (zero
    /// outside the image), for every channel of `input` (`channels` planes of `height × width`). `nb` is a
    /// multiple of 16; all `nb` columns are written, zeros past the image, so no GEMM column is uninitialised.
    @inline(never)
    public static func inputTransformF6x4(input: UnsafePointer<Float>, channels: Int, height h: Int, width w: Int,
                                      tileRow ty: Int, firstTile tx0: Int, tiles nb: Int,
                                      v: UnsafeMutablePointer<Float>, ld: Int, scratch: UnsafeMutablePointer<Float>,
                                      upsampled: UpsampledRows?) {
        splitAndTransform(input: input, channels: channels, height: h, width: w, firstRow: 6 * ty - 1, patchRows: 8,
                          firstTile: tx0, tiles: nb, scratch: scratch,
                          upsampled: upsampled) { ci, t, phases, rowLength, phaseStride, tmp in
            #if SWIFTSEG_32_REGISTERS
            transformPhaseColumnsF6x4(phases, rowLength: rowLength, phaseStride: phaseStride,
                                  v: v + ci * channelStride(positions: 48, ld: ld) + t, ld: ld)
            #else
            // Bᵀ d down the 6 patch columns (read straight from the phase rows), then (Bᵀ d) B along the 8 rows.
            for c in 0..<6 {
                forEachColumnHalf(phases + columnOffset(c, phaseStride: phaseStride), patchColumn: c,
                                  rowLength: rowLength, into: tmp) { d, put in
                    let b = inputColumn(d(0), d(1), d(2), d(3), d(4), d(5), d(6), d(7))
                    put(b.0, 0); put(b.1, 1); put(b.2, 2); put(b.3, 3); put(b.4, 4); put(b.5, 5); put(b.6, 6); put(b.7, 7)
                }
            }
            for i in 0..<8 {
                let r = inputRow(tmp[i * 6], tmp[i * 6 + 1], tmp[i * 6 + 2], tmp[i * 6 + 3], tmp[i * 6 + 4], tmp[i * 6 + 5])
                let row = v + ci * channelStride(positions: 48, ld: ld) + i * 6 * ld + t, step = ld
                SIMDKernels.store(r.0, row); SIMDKernels.store(r.1, row + step)
                SIMDKernels.store(r.2, row + 2 * step); SIMDKernels.store(r.3, row + 3 * step)
                SIMDKernels.store(r.4, row + 4 * step); SIMDKernels.store(r.5, row + 5 * step)
            }
            #endif
        }
    }

    /// F(6, 3)'s Bᵀ applied to 8 values: a column of the patch, down. Rows 1–6 come in ± pairs.
    @inline(__always)
    static func inputColumn<V: SIMD>(_ d0: V, _ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V, _ d7: V)
        -> (V, V, V, V, V, V, V, V) where V.Scalar == Float {
        let (r1, r2) = inputColumnRows12(d1, d2, d3, d4, d5, d6)
        let (r3, r4) = inputColumnRows34(d1, d2, d3, d4, d5, d6)
        let (r5, r6) = inputColumnRows56(d1, d2, d3, d4, d5, d6)
        let (r0, r7) = inputColumnRows07(d0, d1, d2, d3, d4, d5, d6, d7)
        return (r0, r1, r2, r3, r4, r5, r6, r7)
    }

    /// A ± pair of F(6, 3)'s Bᵀ rows: (α·d2 + β·d4 + d6) ± (γ·d1 + δ·d3 + ε·d5). Rows 1 and 2 are
    /// (1, −17/4; 1, −17/4, 1), rows 3 and 4 (¼, −5/4; ½, −5/2, 2), rows 5 and 6 (4, −5; 2, −5/2, ½).
    @inline(__always)
    static func inputColumnPair<V: SIMD>(_ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V,
                                         _ alpha: Float, _ beta: Float, _ gamma: Float, _ delta: Float, _ epsilon: Float)
        -> (V, V) where V.Scalar == Float {
        @inline(__always) func v(_ x: Float) -> V { V(repeating: x) }
        let p = SIMDKernels.multiplyAdd(v(alpha), d2, SIMDKernels.multiplyAdd(v(beta), d4, d6))
        let q = SIMDKernels.multiplyAdd(v(gamma), d1, SIMDKernels.multiplyAdd(v(delta), d3, epsilon == 1 ? d5 : v(epsilon) * d5))
        return (p + q, p - q)
    }

    @inline(__always)
    static func inputColumnRows12<V: SIMD>(_ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V) -> (V, V)
        where V.Scalar == Float { inputColumnPair(d1, d2, d3, d4, d5, d6, 1, -4.25, 1, -4.25, 1) }

    @inline(__always)
    static func inputColumnRows34<V: SIMD>(_ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V) -> (V, V)
        where V.Scalar == Float { inputColumnPair(d1, d2, d3, d4, d5, d6, 0.25, -1.25, 0.5, -2.5, 2) }

    @inline(__always)
    static func inputColumnRows56<V: SIMD>(_ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V) -> (V, V)
        where V.Scalar == Float { inputColumnPair(d1, d2, d3, d4, d5, d6, 4, -5, 2, -2.5, 0.5) }

    /// Rows 0 and 7: d0 − d6 + 21/4·(d4 − d2) and d7 − d1 + 21/4·(d3 − d5).
    @inline(__always)
    static func inputColumnRows07<V: SIMD>(_ d0: V, _ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V, _ d6: V, _ d7: V)
        -> (V, V) where V.Scalar == Float {
        let c = V(repeating: 5.25)
        return (SIMDKernels.multiplyAdd(c, d4 - d2, d0 - d6), SIMDKernels.multiplyAdd(c, d3 - d5, d7 - d1))
    }

    /// F(6, 3)'s Aᵀ applied to 8 values: a column of M, down, giving the tile's 6 output rows.
    @inline(__always)
    static func outputColumn(_ m0: Vector, _ m1: Vector, _ m2: Vector, _ m3: Vector, _ m4: Vector, _ m5: Vector,
                             _ m6: Vector, _ m7: Vector) -> (Vector, Vector, Vector, Vector, Vector, Vector) {
        let s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4, s56 = m5 + m6, d56 = m5 - m6
        @inline(__always) func mix(_ a: Float, _ x: Vector, _ b: Float, _ y: Vector, _ z: Vector) -> Vector {
            SIMDKernels.multiplyAdd(Vector(repeating: a), x, SIMDKernels.multiplyAdd(Vector(repeating: b), y, z))
        }
        return (m0 + s12 + s34 + s56,
                mix(2, d34, 0.5, d56, d12),
                mix(4, s34, 0.25, s56, s12),
                mix(8, d34, 0.125, d56, d12),
                mix(16, s34, 0.0625, s56, s12),
                mix(32, d34, 0.03125, d56, d12) + m7)
    }

    /// Y = Aᵀ M A + bias for tiles `tx0 ..< tx0 + n` of tile row `ty`, then the epilogue (its residual laid out
    /// like `output`), written to the part of each 6×4 tile inside the image.
    @inline(never)
    public static func outputTransformF6x4(m: UnsafePointer<Float>, ld: Int, channels: Int, bias: UnsafePointer<Float>,
                                       output: UnsafeMutablePointer<Float>, height h: Int, width w: Int,
                                       tileRow ty: Int, firstTile tx0: Int, tiles n: Int,
                                       epilogue: KernelEpilogue, scratch: UnsafeMutablePointer<Float>) {
        // The loops specialised per activation (``VectorActivation``), called with every value as an argument: a
        // local closure capturing them was not inlined, and its loops reloaded them from its context (+6 %).
        switch epilogue.activation {
        case .none:
            outputTransformF6x4Body(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                    tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, Identity.self, scratch: scratch)
        case .relu:
            outputTransformF6x4Body(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                    tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, ReLU.self, scratch: scratch)
        case .relu6:
            outputTransformF6x4Body(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                    tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, ReLU6.self, scratch: scratch)
        }
    }

    @inline(never)
    static func outputTransformF6x4Body<A: VectorActivation>(m: UnsafePointer<Float>, ld: Int, channels: Int,
                                                             bias: UnsafePointer<Float>,
                                                             output: UnsafeMutablePointer<Float>, height h: Int,
                                                             width w: Int, tileRow ty: Int, firstTile tx0: Int,
                                                             tiles n: Int, residual: UnsafePointer<Float>?,
                                                             _ activation: A.Type,
                                                             scratch: UnsafeMutablePointer<Float>) {
        let vectors = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Vector.self, capacity: 40)
        let tmp = vectors, ys = tmp + 36   // ys: one output row's 4 vectors, for the scalar interleave
        let rows = Swift.min(6, h - 6 * ty)   // output rows of this tile row inside the image
        for co in 0..<channels {
            let plane = output + co * h * w
            let res = residual.map { $0 + co * h * w }
            let b = Vector(repeating: bias[co])
            var t = 0
            while t < n {
                // Aᵀ M: 6 × 6, reading M in place.
                let block = m + co * channelStride(positions: 48, ld: ld) + t
                for c in 0..<6 {
                    let column = block + c * ld   // position (0, c); position (i, c) is 6·i rows further
                    let a = outputColumn(SIMDKernels.load(column), SIMDKernels.load(column + 6 * ld),
                                         SIMDKernels.load(column + 12 * ld), SIMDKernels.load(column + 18 * ld),
                                         SIMDKernels.load(column + 24 * ld), SIMDKernels.load(column + 30 * ld),
                                         SIMDKernels.load(column + 36 * ld), SIMDKernels.load(column + 42 * ld))
                    tmp[c] = a.0; tmp[6 + c] = a.1; tmp[12 + c] = a.2
                    tmp[18 + c] = a.3; tmp[24 + c] = a.4; tmp[30 + c] = a.5
                }
                // (Aᵀ M) A + bias, one output row i at a time: y0…y3 = output (i, 0…3) of 16 tiles, interleaved
                // into 64 pixels (4 per tile) with the epilogue.
                let ox0 = 4 * (tx0 + t), count = min(4 * min(width, n - t), w - ox0)
                for i in 0..<rows {
                    let offset = (6 * ty + i) * w + ox0
                    storeRow(across: tmp + i * 6, bias: b, count: count, into: plane + offset,
                             residual: res.map { $0 + offset }, activation, scratch: ys)
                }
                if co + 1 < channels, let res {
                    prefetchRows(res + h * w + 6 * ty * w + ox0, rows: rows, width: w, count: count)
                }
                t += width
            }
            #if !(SWIFTSEG_PERMUTES || arch(arm64))
            if !A.isIdentity || residual != nil {  // the epilogue over the rows this call wrote (bias already in)
                let ox0 = 4 * tx0, count = min(4 * n, w - ox0)
                for i in 0..<rows {
                    let offset = (6 * ty + i) * w + ox0
                    SIMDKernels.addBias(plane + offset, count: count, bias: 0, A.self,
                                        residual: res.map { $0 + offset })
                }
            }
            #endif
        }
    }

}

// The build with 32 vector registers (AVX-512): the store-saving form, as for F(4×4).
#if SWIFTSEG_32_REGISTERS
extension WinogradKernels {
    typealias SixVectors = (Vector, Vector, Vector, Vector, Vector, Vector)

    /// Column `c` of two pairs of Bᵀ d rows into the rows' tuples.
    @inline(__always)
    static func putColumn(_ c: Int, _ a: (Vector, Vector), _ b: (Vector, Vector), _ r1: inout SixVectors,
                          _ r2: inout SixVectors, _ r3: inout SixVectors, _ r4: inout SixVectors) {
        switch c {
        case 0: r1.0 = a.0; r2.0 = a.1; r3.0 = b.0; r4.0 = b.1
        case 1: r1.1 = a.0; r2.1 = a.1; r3.1 = b.0; r4.1 = b.1
        case 2: r1.2 = a.0; r2.2 = a.1; r3.2 = b.0; r4.2 = b.1
        case 3: r1.3 = a.0; r2.3 = a.1; r3.3 = b.0; r4.3 = b.1
        case 4: r1.4 = a.0; r2.4 = a.1; r3.4 = b.0; r4.4 = b.1
        default: r1.5 = a.0; r2.5 = a.1; r3.5 = b.0; r4.5 = b.1
        }
    }

    /// V = Bᵀ d B for one 16-tile group from its phase rows (row r, patch column c at
    /// `phases + r · rowLength + columnOffset(c)`), V's 48 rows `ld` apart: two patch rows of
    /// Bᵀ d at a time, each recomputed from the phase rows (loads) rather than all 48 kept (more than 32
    /// registers, so spilled: a store and a load each, and stores are the scarce port).
    @inline(__always)
    static func transformPhaseColumnsF6x4(_ phases: UnsafePointer<Float>, rowLength: Int, phaseStride: Int,
                                      v: UnsafeMutablePointer<Float>, ld: Int) {
        @inline(__always) func d(_ r: Int, _ c: Int) -> Vector {
            patchVector(phases, row: r, column: c, rowLength: rowLength, phaseStride: phaseStride)
        }
        @inline(__always) func store(_ i: Int, _ h: (Vector, Vector, Vector, Vector, Vector, Vector)) {
            storeVRows(h, patchRow: i, into: v, ld: ld)
        }
        // Two pairs of Bᵀ d rows at a time for the 6 patch columns (24 vectors; each pair of pairs shares its
        // loads), then Bᵀ across each row into V.
        // (the columns go in through inout arguments: a local function capturing these variables had every call
        // check exclusive access at run time, ~2 % of u2netp's time)
        var r1 = (Vector(), Vector(), Vector(), Vector(), Vector(), Vector()), r2 = r1, r3 = r1, r4 = r1
        @inline(__always) func across(_ r: (Vector, Vector, Vector, Vector, Vector, Vector)) -> (Vector, Vector, Vector, Vector, Vector, Vector) {
            inputRow(r.0, r.1, r.2, r.3, r.4, r.5)
        }
        for c in 0..<6 {  // unrolled: constant c
            let d1 = d(1, c), d2 = d(2, c), d3 = d(3, c), d4 = d(4, c), d5 = d(5, c), d6 = d(6, c)
            putColumn(c, inputColumnRows12(d1, d2, d3, d4, d5, d6), inputColumnRows34(d1, d2, d3, d4, d5, d6),
                      &r1, &r2, &r3, &r4)
        }
        store(1, across(r1)); store(2, across(r2)); store(3, across(r3)); store(4, across(r4))
        for c in 0..<6 {
            let d1 = d(1, c), d2 = d(2, c), d3 = d(3, c), d4 = d(4, c), d5 = d(5, c), d6 = d(6, c)
            putColumn(c, inputColumnRows56(d1, d2, d3, d4, d5, d6), inputColumnRows07(d(0, c), d1, d2, d3, d4, d5, d6, d(7, c)),
                      &r1, &r2, &r3, &r4)
        }
        store(5, across(r1)); store(6, across(r2)); store(0, across(r3)); store(7, across(r4))
    }
}
#endif
