/// Winograd F(4×4, 3×3) convolution (Lavin & Gray 2015) for 3×3, dilation 1: each 4×4 output tile costs 36
/// multiplies per input/output channel pair instead of 144. Weights are transformed once at load
/// (`U = G g Gᵀ`, laid out as 36 matrices of `outChannels × inChannels`); per tile row, inputs are transformed
/// (`V = Bᵀ d B`), the 36 channel mixes run as 36 `BLAS.sgemm`s, and outputs are transformed back
/// (`Y = Aᵀ M A`) with the bias/ReLU/residual epilogue. Transforms run on 16 tiles at a time in SIMD. V and M
/// are stored channel-major (`[channel][36][tile]`, the GEMMs striding over it) so that each transform touches
/// one contiguous block: position-major storage put the 36 vectors a multiple of 4 KiB apart, where they
/// fought over the same cache sets.
///
/// Rounding differs from direct convolution (the transforms scale values by up to 8× before cancelling);
/// errors are ~1e-5 relative on U²-Net's activations, which is why the exact GEMM path stays available.
public final class WinogradWeights: @unchecked Sendable {
    /// 36 × outChannels × inChannels floats.
    let u: UnsafeMutablePointer<Float>
    let outChannels: Int
    let inChannels: Int

    /// Transforms OIHW 3×3 weights (in Double, rounded once).
    public init(weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int) {
        self.outChannels = outChannels
        self.inChannels = inChannels
        let count = 36 * outChannels * inChannels
        u = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64).bindMemory(to: Float.self, capacity: count)
        let g: [[Double]] = [[1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6],
                             [1.0 / 24, 1.0 / 12, 1.0 / 6], [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1]]
        for co in 0..<outChannels {
            for ci in 0..<inChannels {
                let k = weight + (co * inChannels + ci) * 9
                var tmp = [[Double]](repeating: [0, 0, 0], count: 6)   // G · g
                for i in 0..<6 { for j in 0..<3 { tmp[i][j] = (0..<3).reduce(0.0) { $0 + g[i][$1] * Double(k[$1 * 3 + j]) } } }
                for i in 0..<6 {
                    for j in 0..<6 {
                        let v = (0..<3).reduce(0.0) { $0 + tmp[i][$1] * g[j][$1] }  // (G g) Gᵀ
                        u[((i * 6 + j) * outChannels + co) * inChannels + ci] = Float(v)
                    }
                }
            }
        }
    }

    deinit { u.deallocate() }
}

extension Conv2D {
    /// Tiles per tile-row chunk (one chunk = up to this many 4×4 tiles of one tile row), a multiple of the SIMD
    /// width.
    static let winogradTilesPerTask = 32
    /// SIMD vectors of scratch the transforms use (input: 36 + 36; output: 36 + 24 + 16).
    static let winogradTransformVectors = 76
    /// Tiles one task aims to batch into each GEMM (whole chunk rows of them).
    static let winogradTilesPerGEMM = 64

    /// Whether this conv can run as Winograd F(4×4, 3×3).
    public var supportsWinograd: Bool { kernelSize == 3 && dilation == 1 && winograd != nil }

    public func winogradForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        guard let wg = winograd else { preconditionFailure("Winograd weights were not prepared for this conv") }
        let h = input.height, w = input.width
        let tilesY = (h + 3) / 4, tilesX = (w + 3) / 4
        let per = Conv2D.winogradTilesPerTask
        let chunks = (tilesX + per - 1) / per
        let nb = min(per, (tilesX + 15) / 16 * 16)      // tiles per chunk row, padded to the SIMD width
        // When a tile row fits one chunk, rows are packed densely (row r starts at tile r·tilesX): each row's
        // SIMD padding lanes are overwritten by the next row, so small maps (10×10: 3 tiles a row) do not
        // multiply mostly padding.
        let rowStride = chunks == 1 ? tilesX : nb
        // Several tile rows per task so each of the 36 GEMMs is wide enough to run efficiently, but at least
        // one task per worker.
        var rowsPerTask = max(1, Conv2D.winogradTilesPerGEMM / rowStride)
        rowsPerTask = max(1, min(rowsPerTask, (tilesY + context.threads - 1) / context.threads))
        let rowGroups = (tilesY + rowsPerTask - 1) / rowsPerTask
        let ld = (rowsPerTask - 1) * rowStride + nb      // V/M row length: the GEMMs' leading dimension
        let vFloats = 36 * inChannels * ld, mFloats = 36 * outChannels * ld
        let rowFloats = 4 * (nb + 2)                    // one input row for a chunk, split into 4 column phases
        // Per worker: V, M, the phase-split input rows, and room for the transforms' 76 vectors (64-byte aligned).
        let vectorFloats = Conv2D.winogradTransformVectors * SIMDKernels.width
        let scratch = context.scratch(floats: vFloats + mFloats + 6 * rowFloats + vectorFloats + 16)
        parallelFor(count: rowGroups * chunks, threads: context.threads) { task, worker in
            let ty0 = (task / chunks) * rowsPerTask, tx0 = (task % chunks) * per
            let rows = min(rowsPerTask, tilesY - ty0)
            let n = min(per, tilesX - tx0)
            let v = scratch[worker], m = v + vFloats, phases = m + mFloats
            let vectors = UnsafeMutableRawPointer(phases + 6 * rowFloats).alignedUp(toMultipleOf: 64)
                .bindMemory(to: SIMDKernels.Vector.self, capacity: Conv2D.winogradTransformVectors)
            for r in 0..<rows {  // in order: a dense row overwrites the previous row's padding lanes
                winogradInputTransform(input, ty: ty0 + r, tx0: tx0, tiles: nb, v: v + r * rowStride, ld: ld,
                                       rows: phases, rowFloats: rowFloats, vectors: vectors)
            }
            let columns = (rows - 1) * rowStride + (chunks == 1 ? tilesX : nb)
            for p in 0..<36 {
                BLAS.sgemm(m: outChannels, n: columns, k: inChannels, a: wg.u + p * outChannels * inChannels,
                           lda: inChannels, b: v + p * ld, ldb: 36 * ld, c: m + p * ld, ldc: 36 * ld)
            }
            for r in 0..<rows {
                winogradOutputTransform(m + r * rowStride, ld: ld, vectors: vectors, into: output, ty: ty0 + r, tx0: tx0, tiles: n,
                                        epilogue: epilogue)
            }
        }
    }

    /// V[ci][p][t] = (Bᵀ d B)[p] for the 6×6 input patch d of each tile t of one chunk row (zero outside the
    /// image); rows of V are `ld` apart.
    private func winogradInputTransform(_ input: TensorView, ty: Int, tx0: Int, tiles nb: Int,
                                        v: UnsafeMutablePointer<Float>, ld: Int,
                                        rows: UnsafeMutablePointer<Float>, rowFloats: Int,
                                        vectors: UnsafeMutablePointer<SIMDKernels.Vector>) {
        typealias V = SIMDKernels.Vector
        let h = input.height, w = input.width
        let x0 = 4 * tx0 - 1   // input column of the chunk's first patch column
        let phaseStride = nb + 2
        let d = vectors, tmp = d + 36
        for ci in 0..<inChannels {
            let plane = input.plane(ci)
            // The 6 input rows of this tile row, zero-padded and split by column phase (x mod 4) into 4
            // arrays, so the value at patch column c of 16 consecutive tiles is one contiguous vector:
            // phase[c mod 4][tile + c / 4 …].
            for r in 0..<6 {
                let row = rows + r * rowFloats
                let y = 4 * ty - 1 + r
                guard y >= 0 && y < h else { row.update(repeating: 0, count: rowFloats); continue }
                let src = plane + y * w
                for q in 0..<4 {  // phase q holds columns x0 + q + 4k: zeros left of the image, pixels, zeros right
                    let dst = row + q * phaseStride
                    var k = 0, x = x0 + q
                    while k < phaseStride && x < 0 { dst[k] = 0; k &+= 1; x &+= 4 }
                    while k < phaseStride && x < w { dst[k] = src[x]; k &+= 1; x &+= 4 }
                    while k < phaseStride { dst[k] = 0; k &+= 1 }
                }
            }
            var t = 0
            while t < nb {  // all nb, past the image too (zeros), so no GEMM column is left uninitialised
                for r in 0..<6 {
                    let row = rows + r * rowFloats + t
                    for c in 0..<6 { d[r * 6 + c] = SIMDKernels.load(row + (c & 3) * phaseStride + (c >> 2)) }
                }
                // Bᵀ d (columns), then (Bᵀ d) B (rows).
                for c in 0..<6 {
                    let d0 = d[c], d1 = d[6 + c], d2 = d[12 + c], d3 = d[18 + c], d4 = d[24 + c], d5 = d[30 + c]
                    tmp[c] = 4 * d0 - 5 * d2 + d4
                    tmp[6 + c] = -4 * (d1 + d2) + d3 + d4
                    tmp[12 + c] = 4 * (d1 - d2) - d3 + d4
                    tmp[18 + c] = 2 * (d3 - d1) - d2 + d4
                    tmp[24 + c] = 2 * (d1 - d3) - d2 + d4
                    tmp[30 + c] = 4 * d1 - 5 * d3 + d5
                }
                for i in 0..<6 {
                    let t0 = tmp[i * 6], t1 = tmp[i * 6 + 1], t2 = tmp[i * 6 + 2]
                    let t3 = tmp[i * 6 + 3], t4 = tmp[i * 6 + 4], t5 = tmp[i * 6 + 5]
                    let row = v + (ci * 36 + i * 6) * ld + t, step = ld
                    SIMDKernels.store(4 * t0 - 5 * t2 + t4, row)
                    SIMDKernels.store(-4 * (t1 + t2) + t3 + t4, row + step)
                    SIMDKernels.store(4 * (t1 - t2) - t3 + t4, row + 2 * step)
                    SIMDKernels.store(2 * (t3 - t1) - t2 + t4, row + 3 * step)
                    SIMDKernels.store(2 * (t1 - t3) - t2 + t4, row + 4 * step)
                    SIMDKernels.store(4 * t1 - 5 * t3 + t5, row + 5 * step)
                }
                t += SIMDKernels.width
            }
        }
    }

    /// Y = Aᵀ M A per tile, plus the epilogue, written to the valid part of each 4×4 output tile.
    private func winogradOutputTransform(_ m: UnsafeMutablePointer<Float>, ld: Int,
                                         vectors: UnsafeMutablePointer<SIMDKernels.Vector>, into output: TensorView,
                                         ty: Int, tx0: Int, tiles n: Int, epilogue: Epilogue) {
        typealias V = SIMDKernels.Vector
        let h = output.height, w = output.width
        let mm = vectors, tmp = mm + 36, ys = tmp + 24
        let tileOut = UnsafeMutableRawPointer(ys).assumingMemoryBound(to: Float.self)
        for co in 0..<outChannels {
            let plane = output.plane(co)
            let b = V(repeating: bias[co])
            var t = 0
            while t < n {
                for p in 0..<36 { mm[p] = SIMDKernels.load(m + (co * 36 + p) * ld + t) }
                // Aᵀ M: 4 × 6
                for c in 0..<6 {
                    let m0 = mm[c], m1 = mm[6 + c], m2 = mm[12 + c], m3 = mm[18 + c], m4 = mm[24 + c], m5 = mm[30 + c]
                    tmp[c] = m0 + m1 + m2 + m3 + m4
                    tmp[6 + c] = m1 - m2 + 2 * (m3 - m4)
                    tmp[12 + c] = m1 + m2 + 4 * (m3 + m4)
                    tmp[18 + c] = m1 - m2 + 8 * (m3 - m4) + m5
                }
                // (Aᵀ M) A + bias: 16 vectors, ys[i·4 + j] = output (i, j) of 16 tiles.
                for i in 0..<4 {
                    let t0 = tmp[i * 6], t1 = tmp[i * 6 + 1], t2 = tmp[i * 6 + 2]
                    let t3 = tmp[i * 6 + 3], t4 = tmp[i * 6 + 4], t5 = tmp[i * 6 + 5]
                    ys[i * 4] = t0 + t1 + t2 + t3 + t4 + b
                    ys[i * 4 + 1] = t1 - t2 + 2 * (t3 - t4) + b
                    ys[i * 4 + 2] = t1 + t2 + 4 * (t3 + t4) + b
                    ys[i * 4 + 3] = t1 - t2 + 8 * (t3 - t4) + t5 + b
                }
                // Interleave the 4 column vectors of each row into the output row (4 pixels per tile).
                let ox0 = 4 * (tx0 + t), count = min(4 * SIMDKernels.width, w - ox0)
                for i in 0..<4 where 4 * ty + i < h {
                    let dst = plane + (4 * ty + i) * w + ox0
                    let src = tileOut + i * 4 * SIMDKernels.width
                    for e in 0..<count { dst[e] = src[(e & 3) * SIMDKernels.width + (e >> 2)] }
                }
                t += SIMDKernels.width
            }
            // ReLU / residual over the rows this chunk wrote (the bias is already in).
            let ox0 = 4 * tx0, count = min(4 * n, w - ox0)
            for i in 0..<4 where 4 * ty + i < h {
                let offset = (4 * ty + i) * w + ox0
                switch epilogue {
                case .bias: break
                case .biasReLU: SIMDKernels.addBiasReLU(plane + offset, count: count, bias: 0)
                case .biasReLUResidual(let r):
                    SIMDKernels.addBiasReLUResidual(plane + offset, count: count, bias: 0, residual: r.plane(co) + offset)
                }
            }
        }
    }
}
