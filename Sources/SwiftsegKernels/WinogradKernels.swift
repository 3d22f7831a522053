/// The Winograd transforms (Lavin & Gray 2015) on raw channel planes, 16 tiles per SIMD vector, for two tile
/// shapes: F(4×4, 3×3) here (4×4 output tiles, 6×6 patches, 36 positions) and F(6×4, 3×3) in
/// WinogradKernels+F6x4.swift (6 rows × 4 columns, 8×6 patches, 48 positions), sharing the row splitting, the
/// across-the-row transform and the GEMM in this file. `SwiftsegRuntime/Ops/Conv2D+Winograd.swift` owns the
/// tiling, the weights, the choice of shape and the channel mixing between the two transforms; these files are
/// only the arithmetic, so that they can be compiled for each instruction set.
///
/// Layouts: V and M are channel-major, `[channel][positions][ld]` plus one cache line per channel (element `t`
/// of row `p` of channel `c`, at `c · channelStride + p · ld + t`, is position `p = 6·i + j` — patch row i,
/// patch column j — of tile `t`), so each transform touches one contiguous block.
import _CKernelSupport
import SwiftsegKernelTypes

public enum WinogradKernels {
    typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width

    /// Floats of scratch either input transform needs for `tiles` tiles (the caller's buffer need not be
    /// aligned): an edge row, 8 phase-split rows, 48 vectors.
    public static func inputScratchFloats(tiles nb: Int) -> Int {
        let rowLength = 4 * nb + 64
        return 64 + 8 * rowLength + 48 * width + 16
    }

    /// Floats from one channel's block of V (or M) rows to the next: the `positions` rows of `ld` floats plus
    /// one 64-byte line. Without the line, a block is a multiple of 16 lines, so the rows one GEMM reads (one
    /// position, every channel) fell in 4 of the L1's 64 sets and evicted each other (PERF.md).
    @inline(__always)
    public static func channelStride(positions: Int, ld: Int) -> Int { positions * ld + 16 }

    /// Floats of scratch either output transform needs: 40 vectors.
    public static let outputScratchFloats = 40 * 16 + 16

    /// V[ci][p][t] = (Bᵀ d B)[p] for the 6×6 input patch d of tiles `tx0 ..< tx0 + nb` of tile row `ty` (zero
    /// outside the image), for every channel of `input` (`channels` planes of `height × width`). `nb` is a
    /// multiple of 16; all `nb` columns are written, zeros past the image, so no GEMM column is uninitialised.
    @inline(never)
    public static func inputTransform(input: UnsafePointer<Float>, channels: Int, height h: Int, width w: Int,
                                      tileRow ty: Int, firstTile tx0: Int, tiles nb: Int,
                                      v: UnsafeMutablePointer<Float>, ld: Int, scratch: UnsafeMutablePointer<Float>,
                                      upsampled: UpsampledRows?) {
        splitAndTransform(input: input, channels: channels, height: h, width: w, firstRow: 4 * ty - 1, patchRows: 6,
                          firstTile: tx0, tiles: nb, scratch: scratch,
                          upsampled: upsampled) { ci, t, phases, rowLength, phaseStride, tmp in
            #if SWIFTSEG_32_REGISTERS
            transformPhaseColumns(phases, rowLength: rowLength, phaseStride: phaseStride,
                                  v: v + ci * channelStride(positions: 36, ld: ld) + t, ld: ld)
            #else
            // Bᵀ d (columns, read straight from the phase rows), then (Bᵀ d) B (rows).
            for c in 0..<6 {
                forEachColumnHalf(phases + columnOffset(c, phaseStride: phaseStride), patchColumn: c,
                                  rowLength: rowLength, into: tmp) { d, put in
                    let b = inputRow(d(0), d(1), d(2), d(3), d(4), d(5))   // F(4, 3)'s Bᵀ, down the column
                    put(b.0, 0); put(b.1, 1); put(b.2, 2); put(b.3, 3); put(b.4, 4); put(b.5, 5)
                }
            }
            for i in 0..<6 {
                let t0 = tmp[i * 6], t1 = tmp[i * 6 + 1], t2 = tmp[i * 6 + 2]
                let t3 = tmp[i * 6 + 3], t4 = tmp[i * 6 + 4], t5 = tmp[i * 6 + 5]
                let row = v + ci * channelStride(positions: 36, ld: ld) + i * 6 * ld + t, step = ld
                SIMDKernels.store(4 * t0 - 5 * t2 + t4, row)
                SIMDKernels.store(-4 * (t1 + t2) + t3 + t4, row + step)
                SIMDKernels.store(4 * (t1 - t2) - t3 + t4, row + 2 * step)
                SIMDKernels.store(2 * (t3 - t1) - t2 + t4, row + 3 * step)
                SIMDKernels.store(2 * (t1 - t3) - t2 + t4, row + 4 * step)
                SIMDKernels.store(4 * t1 - 5 * t3 + t5, row + 5 * step)
            }
            #endif
        }
    }

    /// What both input transforms share: per channel, its `patchRows` input rows from `firstRow` (zeros outside
    /// the image) split by column phase (x mod 4) into the scratch, so the value at patch column c of 16
    /// consecutive tiles is one contiguous vector (``columnOffset(_:phaseStride:)``); then `transform(channel,
    /// tile, phases + tile, rowLength, phaseStride, vectorScratch)` for each group of 16 tiles. The next
    /// channel's rows are fetched while this one is split: on maps larger than the caches each channel's short
    /// rows are separate streams the hardware prefetcher does not pick up in time. Channels `upsampled` covers
    /// are made a row at a time from its source (``upsampledRow(_:channel:row:width:cache:)``) and split from there.
    @inline(__always)
    static func splitAndTransform(input: UnsafePointer<Float>, channels: Int, height h: Int, width w: Int,
                                  firstRow: Int, patchRows: Int, firstTile tx0: Int, tiles nb: Int,
                                  scratch: UnsafeMutablePointer<Float>, upsampled: UpsampledRows?,
                                  _ transform: (_ channel: Int, _ tile: Int, _ phases: UnsafePointer<Float>,
                                                _ rowLength: Int, _ phaseStride: Int,
                                                _ tmp: UnsafeMutablePointer<Vector>) -> Void) {
        let x0 = 4 * tx0              // the first tile's first pixel (phase rows start there: columnOffset)
        let rowLength = 4 * nb + 64   // whole 64-float blocks covering the 4·nb + 2 patch columns
        let phaseStride = rowLength / 4
        let padded = scratch                  // 64 pixels of an input row at the image edge, zero-padded
        let phases = padded + 64              // patchRows rows × 4 column phases × phaseStride
        let tmp = UnsafeMutableRawPointer(phases + patchRows * rowLength).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Vector.self, capacity: 48)
        let made = upsampled?.channels ?? 0
        for ci in 0..<channels {
            let plane = input + ci * h * w
            let next = ci + 1 < channels ? plane + h * w : nil
            var cache = UpsampledRowCache()
            for r in 0..<patchRows {
                let rowPhases = phases + r * rowLength
                let y = firstRow + r
                guard y >= 0 && y < h else { SIMDKernels.fill(rowPhases, count: rowLength); continue }
                if ci < made, let upsampled {
                    let row = upsampledRow(upsampled, channel: ci, row: y, width: w, cache: &cache)
                    splitPhases(row: row, width: w, x0: x0, length: rowLength, readable: 0 ..< w,
                                padded: padded, into: rowPhases, prefetching: nil)
                } else {
                    splitPhases(row: plane + y * w, width: w, x0: x0, length: rowLength, readable: -y * w ..< (h - y) * w,
                                padded: padded, into: rowPhases, prefetching: next.map { $0 + y * w })
                }
            }
            var t = 0
            while t < nb {
                transform(ci, t, phases + t, rowLength, phaseStride, tmp)
                t += width
            }
        }
    }

    /// Y = Aᵀ M A + bias for tiles `tx0 ..< tx0 + n` of tile row `ty`, then the epilogue (its residual laid out
    /// like `output`), written to the part of each 4×4 tile inside the image.
    @inline(never)
    public static func outputTransform(m: UnsafePointer<Float>, ld: Int, channels: Int, bias: UnsafePointer<Float>,
                                       output: UnsafeMutablePointer<Float>, height h: Int, width w: Int,
                                       tileRow ty: Int, firstTile tx0: Int, tiles n: Int,
                                       epilogue: KernelEpilogue, scratch: UnsafeMutablePointer<Float>) {
        // The loops specialised per activation (``VectorActivation``), called with every value as an argument: a
        // local closure capturing them was not inlined, and its loops reloaded them from its context (+6 %).
        switch epilogue.activation {
        case .none:
            outputTransformBody(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, Identity.self, scratch: scratch)
        case .relu:
            outputTransformBody(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, ReLU.self, scratch: scratch)
        case .relu6:
            outputTransformBody(m: m, ld: ld, channels: channels, bias: bias, output: output, height: h, width: w,
                                tileRow: ty, firstTile: tx0, tiles: n, residual: epilogue.residual, ReLU6.self, scratch: scratch)
        }
    }

    @inline(never)
    static func outputTransformBody<A: VectorActivation>(m: UnsafePointer<Float>, ld: Int, channels: Int,
                                                         bias: UnsafePointer<Float>,
                                                         output: UnsafeMutablePointer<Float>, height h: Int,
                                                         width w: Int, tileRow ty: Int, firstTile tx0: Int,
                                                         tiles n: Int, residual: UnsafePointer<Float>?, _ activation: A.Type,
                                                         scratch: UnsafeMutablePointer<Float>) {
        let vectors = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Vector.self, capacity: 28)
        let tmp = vectors, ys = tmp + 24   // ys: one output row's 4 vectors, for the scalar interleave
        for co in 0..<channels {
            let plane = output + co * h * w
            let res = residual.map { $0 + co * h * w }
            let b = Vector(repeating: bias[co])
            var t = 0
            while t < n {
                // Aᵀ M: 4 × 6, reading M in place.
                let block = m + co * channelStride(positions: 36, ld: ld) + t
                for c in 0..<6 {
                    let column = block + c * ld   // position (0, c); position (i, c) is 6·i rows further
                    let m0 = SIMDKernels.load(column), m1 = SIMDKernels.load(column + 6 * ld)
                    let m2 = SIMDKernels.load(column + 12 * ld), m3 = SIMDKernels.load(column + 18 * ld)
                    let m4 = SIMDKernels.load(column + 24 * ld), m5 = SIMDKernels.load(column + 30 * ld)
                    tmp[c] = m0 + m1 + m2 + m3 + m4
                    tmp[6 + c] = m1 - m2 + 2 * (m3 - m4)
                    tmp[12 + c] = m1 + m2 + 4 * (m3 + m4)
                    tmp[18 + c] = m1 - m2 + 8 * (m3 - m4) + m5
                }
                // (Aᵀ M) A + bias, one output row i at a time: y0…y3 = output (i, 0…3) of 16 tiles, interleaved
                // into 64 pixels (4 per tile) with the epilogue.
                let ox0 = 4 * (tx0 + t), count = min(4 * min(width, n - t), w - ox0)
                for i in 0..<4 where 4 * ty + i < h {
                    let offset = (4 * ty + i) * w + ox0
                    storeRow(across: tmp + i * 6, bias: b, count: count, into: plane + offset,
                             residual: res.map { $0 + offset }, activation, scratch: ys)
                }
                if co + 1 < channels, let res {
                    prefetchRows(res + h * w + 4 * ty * w + ox0, rows: Swift.min(4, h - 4 * ty), width: w, count: count)
                }
                t += width
            }
            #if !(SWIFTSEG_PERMUTES || arch(arm64))
            if !A.isIdentity || residual != nil {  // the epilogue over the rows this call wrote (bias already in)
                let ox0 = 4 * tx0, count = min(4 * n, w - ox0)
                for i in 0..<4 where 4 * ty + i < h {
                    let offset = (4 * ty + i) * w + ox0
                    SIMDKernels.addBias(plane + offset, count: count, bias: 0, A.self,
                                        residual: res.map { $0 + offset })
                }
            }
            #endif
        }
    }

    /// Where patch column `c` (0…5) of a group's first tile starts in one phase-split row. The rows are split
    /// from the first tile's first pixel, so that their blocks start where rows and tiles do (a 320-pixel row is
    /// five whole blocks, no edge): column c, pixel 4t + c − 1, is phase (c + 3) mod 4 at tile t + (c + 3)/4 − 1.
    /// Column 0 thus reads phase 3 from one entry before its start, phase 2's last entry, which ``splitPhases``
    /// fills with the pixel left of the first tile.
    @inline(__always)
    static func columnOffset(_ c: Int, phaseStride: Int) -> Int {
        ((c &+ 3) & 3) &* phaseStride &+ ((c &+ 3) >> 2) &- 1
    }

    /// The column step of the scratch-form input transforms, on each 8-float half of 16 tiles in turn (8 values in
    /// and 8 out, F(6×4)'s, fit AVX2's 16 registers; whole vectors spilled): `body(d, put)` with `d(r)` = patch
    /// row r of patch column `patchColumn` (starting at `column` in the phase rows) and `put(value, i)` storing row
    /// i of Bᵀ d for that column into the scratch, at vector `6·i + patchColumn`.
    @inline(__always)
    static func forEachColumnHalf(_ column: UnsafePointer<Float>, patchColumn c: Int, rowLength: Int,
                                  into tmp: UnsafeMutablePointer<Vector>,
                                  _ body: (_ d: (Int) -> SIMD8<Float>, _ put: (SIMD8<Float>, Int) -> Void) -> Void) {
        for h in 0..<2 {
            let out = UnsafeMutableRawPointer(tmp) + 32 * h
            body({ r in UnsafeRawPointer(column + r * rowLength + 8 * h).loadUnaligned(as: SIMD8<Float>.self) },
                 { value, i in out.storeBytes(of: value, toByteOffset: 64 * (6 * i + c), as: SIMD8<Float>.self) })
        }
    }

    /// Which source rows ``upsampledRow(_:channel:row:width:cache:)``'s two horizontal rows hold (-1: none).
    struct UpsampledRowCache {
        var lower = -1, upper = -1
        var lowerIsFirst = true   // which of the two buffers holds the lower row
    }

    /// Row `y` of upsampled channel `c` (``UpsampledRows``), `w` pixels, in `up.rows`: the two source rows' 2×
    /// horizontal upsamplings (kept in `cache` for the next row), then their lerp, the operations
    /// `ResizeBilinear` runs for the same row, so the same floats.
    @inline(__always)
    static func upsampledRow(_ up: UpsampledRows, channel c: Int, row y: Int, width w: Int,
                             cache: inout UpsampledRowCache) -> UnsafePointer<Float> {
        let stride = w + 16
        let first = up.rows, second = first + stride, out = second + stride
        let plane = up.source + c * up.sourceHeight * up.sourceWidth
        let y0 = Int(up.lower[y]), y1 = Int(up.upper[y])
        if cache.lower != y0 {
            if cache.upper == y0 {   // the lower row moving up: the buffers trade places
                cache.lowerIsFirst.toggle(); cache.lower = y0; cache.upper = -1
            } else {
                SIMDKernels.upsample2xRow(plane + y0 * up.sourceWidth, count: up.sourceWidth,
                                          out: cache.lowerIsFirst ? first : second)
                cache.lower = y0
            }
        }
        if cache.upper != y1 {
            SIMDKernels.upsample2xRow(plane + y1 * up.sourceWidth, count: up.sourceWidth,
                                      out: cache.lowerIsFirst ? second : first)
            cache.upper = y1
        }
        let a = cache.lowerIsFirst ? first : second, b = cache.lowerIsFirst ? second : first
        SIMDKernels.lerp(a, b, t: up.weight[y], out: out, count: w)
        return UnsafePointer(out)
    }

    /// Prefetches `count` floats of each of `rows` rows `width` apart from `start`: in the output transforms, the
    /// next channel's residual under the tile group just written. Channels are a plane apart, a jump the hardware
    /// prefetchers do not follow, and without this the residual's loads took ~30 % of the output transform's
    /// samples on Zen 3 (PERF.md).
    @inline(__always)
    static func prefetchRows(_ start: UnsafePointer<Float>, rows: Int, width w: Int, count: Int) {
        for i in 0..<rows {
            var x = 0
            while x < count { swiftseg_prefetch(start + (i &* w &+ x)); x &+= 16 }
        }
    }

    /// F(4, 3)'s Bᵀ applied to 6 values: a row of a patch (either shape) or a column of a 6×6 one.
    @inline(__always)
    static func inputRow<V: SIMD>(_ d0: V, _ d1: V, _ d2: V, _ d3: V, _ d4: V, _ d5: V) -> (V, V, V, V, V, V)
        where V.Scalar == Float {
        let four = V(repeating: 4), minusFour = V(repeating: -4), minusFive = V(repeating: -5)
        let p = SIMDKernels.multiplyAdd(minusFour, d2, d4), q = SIMDKernels.multiplyAdd(minusFour, d1, d3)
        let s = d4 - d2, t = 2 * (d3 - d1)
        return (SIMDKernels.multiplyAdd(four, d0, SIMDKernels.multiplyAdd(minusFive, d2, d4)),
                p + q, p - q, s + t, s - t,
                SIMDKernels.multiplyAdd(four, d1, SIMDKernels.multiplyAdd(minusFive, d3, d5)))
    }

    /// One output row of 16 tiles from its row of Aᵀ M (the 6 vectors at `am`): F(4, 3)'s Aᵀ across, plus the
    /// bias, stored by ``storeRow(_:_:_:_:count:into:residual:_:scratch:)``. Both tile shapes end this way.
    @inline(__always)
    static func storeRow<A: VectorActivation>(across am: UnsafePointer<Vector>, bias b: Vector, count: Int,
                                              into out: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
                                              _ activation: A.Type, scratch ys: UnsafeMutablePointer<Vector>) {
        let t0 = am[0], t1 = am[1], t2 = am[2], t3 = am[3], t4 = am[4], t5 = am[5]
        storeRow(t0 + t1 + t2 + t3 + t4 + b, t1 - t2 + 2 * (t3 - t4) + b, t1 + t2 + 4 * (t3 + t4) + b,
                 t1 - t2 + 8 * (t3 - t4) + t5 + b, count: count, into: out, residual: residual, activation, scratch: ys)
    }

    /// One output row of 16 tiles: `y0…y3` hold columns 0…3 of each tile (bias added), interleaved into `count`
    /// pixels at `out` (64, 4 per tile; fewer at the right edge). Builds with permutes also apply the epilogue
    /// in registers; the baseline build's caller runs it over its rows afterwards.
    @inline(__always)
    static func storeRow<A: VectorActivation>(_ y0: Vector, _ y1: Vector, _ y2: Vector, _ y3: Vector, count: Int,
                                              into out: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
                                              _ activation: A.Type, scratch ys: UnsafeMutablePointer<Vector>) {
        #if SWIFTSEG_PERMUTES || arch(arm64)
        // Constant k in each call, so the lane picks are compile-time permutes (a loop over k made LLVM extract
        // lanes through the stack).
        let (o0, o1, o2, o3) = SIMDKernels.interleaved(y0, y1, y2, y3)
        @inline(__always) func put(_ value: Vector, _ k: Int) {
            var o = A.apply(value)
            if let residual { o += SIMDKernels.load(residual + k * width) }
            SIMDKernels.store(o, out + k * width)
        }
        if count == 4 * width {
            put(o0, 0); put(o1, 1); put(o2, 2); put(o3, 3)
            return
        }
        // The right edge: whole vectors straight from registers, the rest through scratch (no partial stores).
        let whole = count / width, rest = count - whole * width
        if whole > 0 { put(o0, 0) }
        if whole > 1 { put(o1, 1) }
        if whole > 2 { put(o2, 2) }
        guard rest > 0 else { return }
        ys[0] = whole == 0 ? o0 : whole == 1 ? o1 : whole == 2 ? o2 : o3
        let row = UnsafeRawPointer(ys).assumingMemoryBound(to: Float.self), start = whole * width
        for e in 0..<rest { out[start + e] = row[e] }
        if !A.isIdentity || residual != nil {
            SIMDKernels.addBias(out + start, count: rest, bias: 0, A.self, residual: residual.map { $0 + start })
        }
        #else
        // Element e of the row is column e mod 4 of tile e / 4: a scalar interleave (SSE2 has no cheap permute).
        ys[0] = y0; ys[1] = y1; ys[2] = y2; ys[3] = y3
        let row = UnsafeRawPointer(ys).assumingMemoryBound(to: Float.self)
        for e in 0..<count { out[e] = row[(e & 3) * width + (e >> 2)] }
        #endif
    }

    /// phases[q · length/4 + k] = pixel `x0 + 4k + q` of `row` (zero outside `0 ..< width`), for `length` pixels
    /// from `x0` (the first tile's first pixel, ≥ 0; `length` a multiple of 64), of which the transforms read
    /// the whole blocks and entry `length/4 − 16` of phase 0; and phase 2's last entry, otherwise unread, =
    /// pixel `x0 − 1`, the left neighbour of the first tile (``columnOffset(_:phaseStride:)``). Prefetches the
    /// same pixels of `nextRow` if given. `row[i]` may be read for `i` in `readable` (the row's plane), even
    /// outside the row: edge blocks inside it are loaded whole and masked rather than copied.
    @inline(__always)
    static func splitPhases(row: UnsafePointer<Float>, width w: Int, x0: Int, length: Int, readable: Range<Int>,
                            padded: UnsafeMutablePointer<Float>, into phases: UnsafeMutablePointer<Float>,
                            prefetching nextRow: UnsafePointer<Float>?) {
        let stride = length / 4
        if let nextRow {  // the same pixels of the row the next call will split, one request per cache line
            var x = Swift.max(0, x0)
            let end = Swift.min(w, x0 + length)
            while x < end { swiftseg_prefetch(nextRow + x); x &+= 16 }
        }
        defer { phases[3 * stride - 1] = x0 >= 1 ? row[x0 - 1] : 0 }
        #if SWIFTSEG_PERMUTES
        splitPhasesByShuffles(row: row, width: w, x0: x0, length: length, readable: readable, padded: padded,
                              into: phases)
        #elseif arch(arm64)
        // (arm64 keeps this three-permute form: splitPhasesByShuffles was measured on x86 only.)
        // 64 pixels → 4 phase vectors by two-source permutes; blocks crossing the image edge go through a
        // zero-padded copy. Only entry `stride - 16` of phase 0 is read in the last block (patch column 5 of the
        // last tile), so that block is a scalar.
        let pixel = { (x: Int) -> Float in x >= 0 && x < w ? row[x] : 0 }
        var k = 0
        while k < stride - width {
            let x = x0 + 4 * k
            let block: UnsafePointer<Float>
            if x >= 0 && x + 64 <= w {
                block = row + x
            } else {
                let lo = Swift.max(0, -x), hi = Swift.min(64, w - x)   // pixels inside the image: lo ..< hi
                SIMDKernels.fill(padded, count: lo)
                SIMDKernels.copy(row + x + lo, to: padded + lo, count: hi - lo)
                SIMDKernels.fill(padded + Swift.max(lo, hi), count: 64 - Swift.max(lo, hi))
                block = UnsafePointer(padded)
            }
            let a0 = SIMDKernels.load(block), a1 = SIMDKernels.load(block + 16)
            let a2 = SIMDKernels.load(block + 32), a3 = SIMDKernels.load(block + 48)
            SIMDKernels.store(SIMDKernels.phase(a0, a1, a2, a3, 0), phases + k)
            SIMDKernels.store(SIMDKernels.phase(a0, a1, a2, a3, 1), phases + stride + k)
            SIMDKernels.store(SIMDKernels.phase(a0, a1, a2, a3, 2), phases + 2 * stride + k)
            SIMDKernels.store(SIMDKernels.phase(a0, a1, a2, a3, 3), phases + 3 * stride + k)
            k += width
        }
        phases[k] = pixel(x0 + 4 * k)
        #else
        // Baseline x86-64: SSE2 has no cheap 4-way permute, so a strided scalar copy is faster.
        for q in 0..<4 {
            let dst = phases + q * stride
            var k = 0, x = x0 + q
            while k < stride && x < 0 { dst[k] = 0; k &+= 1; x &+= 4 }
            while k < stride && x < w { dst[k] = row[x]; k &+= 1; x &+= 4 }
            while k < stride { dst[k] = 0; k &+= 1 }
        }
        #endif
    }

}

extension WinogradKernels {
    /// Rows per block of the GEMM's packed A (``packGEMMRows(_:m:k:lda:rowBlock:into:)``) in this build: 8 with
    /// 32 vector registers (AVX-512), 6 with 16.
    #if SWIFTSEG_32_REGISTERS
    public static let gemmRowBlock = 8
    #else
    public static let gemmRowBlock = 6
    #endif

    /// A (`m × k`, rows `lda` apart) in the order ``gemm(m:n:k:a:b:ldb:c:ldc:)`` reads it: blocks of `rowBlock`
    /// rows (the last one whatever `m % rowBlock` leaves), the block that starts at row i stored at `i · k`
    /// column by column (`[kk][row]`), so each k step's broadcasts read consecutive floats. Read in place, one
    /// 8-line run per row, the short runs came from L3 in bursts the prefetchers did not cover (Zen 3: ~8 % less
    /// GEMM time in the network; PERF.md). Rows `i0 ..< i1`, `i0` a multiple of `rowBlock` and `i1` one too or
    /// `m`, are themselves packed A for those rows, at `packed + i0 · k`. `rowBlock` 1 is row-major, what BLAS
    /// takes.
    ///
    /// ```swift
    /// WinogradKernels.packGEMMRows(u, m: 64, k: 128, lda: 128, rowBlock: WinogradKernels.gemmRowBlock, into: packed)
    /// ```
    public static func packGEMMRows(_ a: UnsafePointer<Float>, m: Int, k: Int, lda: Int, rowBlock: Int,
                                    into packed: UnsafeMutablePointer<Float>) {
        var i = 0
        while i < m {
            let rows = min(rowBlock, m - i)
            for kk in 0..<k {
                for q in 0..<rows { packed[i * k + kk * rows + q] = a[(i + q) * lda + kk] }
            }
            i += rows
        }
    }

    /// C = A · B for one Winograd position: A is `m × k` packed in this build's row blocks (``gemmRowBlock``,
    /// ``packGEMMRows(_:m:k:lda:rowBlock:into:)``: the transformed weights U[p], packed once at load), B is
    /// `k × n` (V[·][p], rows `ldb` apart), C is `m × n` (M[·][p], rows `ldc` apart). Columns are computed in
    /// whole vectors, up to `n` rounded up to 16: B must be readable and C writable that far. B is not packed:
    /// V is already laid out k-major with contiguous columns. Register blocks: with 32 vector registers
    /// (AVX-512), 8 rows × 32 columns (16 accumulators, the two B vectors loaded once per k and each A element
    /// broadcast into 2 FMAs); with 16 (AVX2: a 16-float vector is two registers), 6 rows × 16 columns
    /// (12 accumulator registers, 2 for B, 1 broadcast), and the last block's 1–5 rows alike.
    ///
    /// Meant for the AVX-512 and AVX2 builds (FMA); the baseline build calls BLAS on row-major A instead.
    @inline(never)
    public static func gemm(m: Int, n: Int, k: Int, a: UnsafePointer<Float>,
                            b: UnsafePointer<Float>, ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int) {
        gemm(m: m, n: n, k: k, a: a, b: b, ldb: ldb, c: c, ldc: ldc, output: PlainOutput())
    }

    /// C = epilogue(A · B + bias), the 1×1 convolution's GEMM (``gemm(m:n:k:a:b:ldb:c:ldc:)``'s blocks and
    /// bounds) with the epilogue applied to each accumulator before its one store: row i gets `bias[i]`, then
    /// the activation, then `epilogue.residual` (laid out as C, rows `ldc` apart, read as far as C is written).
    /// The same operations, in the same order, as the GEMM followed by ``SIMDKernels/addBias(_:count:bias:epilogue:)``
    /// on each row: the same bytes, without a second pass over C.
    ///
    /// ```swift
    /// WinogradKernels.gemm(m: 144, n: 3136, k: 24, a: packed, b: x, ldb: 3136, c: y, ldc: 3136,
    ///                      bias: bias, epilogue: KernelEpilogue(activation: .relu6))
    /// ```
    @inline(never)
    public static func gemm(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, ldb: Int,
                            c: UnsafeMutablePointer<Float>, ldc: Int, bias: UnsafePointer<Float>,
                            epilogue: KernelEpilogue) {
        @inline(__always) func run<A: VectorActivation>(_: A.Type) {
            if let residual = epilogue.residual {
                gemm(m: m, n: n, k: k, a: a, b: b, ldb: ldb, c: c, ldc: ldc,
                     output: EpilogueOutput<A, WithResidual>(c: c, bias: bias, residual: residual))
            } else {
                gemm(m: m, n: n, k: k, a: a, b: b, ldb: ldb, c: c, ldc: ldc,
                     output: EpilogueOutput<A, NoResidual>(c: c, bias: bias, residual: UnsafePointer(c)))
            }
        }
        switch epilogue.activation {
        case .none: run(Identity.self)
        case .relu: run(ReLU.self)
        case .relu6: run(ReLU6.self)
        }
    }

    @inline(__always)
    static func gemm<O: GEMMOutput>(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>,
                                    ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int, output: O) {
        let columns = (n + width - 1) / width * width
        var i = 0
        #if SWIFTSEG_32_REGISTERS
        while i + 8 <= m {
            var j = 0
            while j + 2 * width <= columns {
                gemm8x32(k: k, a: a + i * k, b: b + j, ldb: ldb, c: c + i * ldc + j, ldc: ldc, row: i, output: output)
                j += 2 * width
            }
            if j < columns {
                gemm8x16(k: k, a: a + i * k, b: b + j, ldb: ldb, c: c + i * ldc + j, ldc: ldc, row: i, output: output)
            }
            i += 8
        }
        if i < m {  // the last block's rows, one at a time (e.g. the 1-channel side outputs)
            let rows = m - i, ap = a + i * k
            for q in 0..<rows {
                var j = 0
                while j < columns {
                    var acc = Vector(repeating: 0)
                    for kk in 0..<k {
                        acc = SIMDKernels.multiplyAdd(Vector(repeating: ap[kk * rows + q]), SIMDKernels.load(b + kk * ldb + j), acc)
                    }
                    output.store(acc, row: i + q, c + (i + q) * ldc + j)
                    j += width
                }
            }
        }
        #else
        while i < m {
            let rows = min(6, m - i), ap = a + i * k, cp = c + i * ldc
            var j = 0
            while j < columns {
                // One specialisation per block height, so each folds its unused accumulators away.
                switch rows {
                case 6: gemmRows16(6, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                case 5: gemmRows16(5, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                case 4: gemmRows16(4, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                case 3: gemmRows16(3, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                case 2: gemmRows16(2, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                default: gemmRows16(1, k: k, a: ap, b: b + j, ldb: ldb, c: cp + j, ldc: ldc, row: i, output: output)
                }
                j += width
            }
            i += rows
        }
        #endif
    }

    #if SWIFTSEG_32_REGISTERS
    /// 8 rows × 32 columns of C (rows `row ..< row + 8`), from an 8-row block of packed A.
    @inline(__always)
    static func gemm8x32<O: GEMMOutput>(k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, ldb: Int,
                                        c cp: UnsafeMutablePointer<Float>, ldc: Int, row: Int, output: O) {
        let zero = Vector(repeating: 0)
        var c00 = zero, c01 = zero
        var c10 = zero, c11 = zero
        var c20 = zero, c21 = zero
        var c30 = zero, c31 = zero
        var c40 = zero, c41 = zero
        var c50 = zero, c51 = zero
        var c60 = zero, c61 = zero
        var c70 = zero, c71 = zero
        var ap = a, bp = b
        for _ in 0..<k {
            let b0 = SIMDKernels.load(bp), b1 = SIMDKernels.load(bp + 1 * width)
            let a0 = Vector(repeating: ap[0])
            c00 = SIMDKernels.multiplyAdd(a0, b0, c00); c01 = SIMDKernels.multiplyAdd(a0, b1, c01)
            let a1 = Vector(repeating: ap[1])
            c10 = SIMDKernels.multiplyAdd(a1, b0, c10); c11 = SIMDKernels.multiplyAdd(a1, b1, c11)
            let a2 = Vector(repeating: ap[2])
            c20 = SIMDKernels.multiplyAdd(a2, b0, c20); c21 = SIMDKernels.multiplyAdd(a2, b1, c21)
            let a3 = Vector(repeating: ap[3])
            c30 = SIMDKernels.multiplyAdd(a3, b0, c30); c31 = SIMDKernels.multiplyAdd(a3, b1, c31)
            let a4 = Vector(repeating: ap[4])
            c40 = SIMDKernels.multiplyAdd(a4, b0, c40); c41 = SIMDKernels.multiplyAdd(a4, b1, c41)
            let a5 = Vector(repeating: ap[5])
            c50 = SIMDKernels.multiplyAdd(a5, b0, c50); c51 = SIMDKernels.multiplyAdd(a5, b1, c51)
            let a6 = Vector(repeating: ap[6])
            c60 = SIMDKernels.multiplyAdd(a6, b0, c60); c61 = SIMDKernels.multiplyAdd(a6, b1, c61)
            let a7 = Vector(repeating: ap[7])
            c70 = SIMDKernels.multiplyAdd(a7, b0, c70); c71 = SIMDKernels.multiplyAdd(a7, b1, c71)
            ap += 8
            bp += ldb
        }
        output.store(c00, row: row, cp + 0 * ldc); output.store(c01, row: row, cp + 0 * ldc + 1 * width)
        output.store(c10, row: row + 1, cp + 1 * ldc); output.store(c11, row: row + 1, cp + 1 * ldc + 1 * width)
        output.store(c20, row: row + 2, cp + 2 * ldc); output.store(c21, row: row + 2, cp + 2 * ldc + 1 * width)
        output.store(c30, row: row + 3, cp + 3 * ldc); output.store(c31, row: row + 3, cp + 3 * ldc + 1 * width)
        output.store(c40, row: row + 4, cp + 4 * ldc); output.store(c41, row: row + 4, cp + 4 * ldc + 1 * width)
        output.store(c50, row: row + 5, cp + 5 * ldc); output.store(c51, row: row + 5, cp + 5 * ldc + 1 * width)
        output.store(c60, row: row + 6, cp + 6 * ldc); output.store(c61, row: row + 6, cp + 6 * ldc + 1 * width)
        output.store(c70, row: row + 7, cp + 7 * ldc); output.store(c71, row: row + 7, cp + 7 * ldc + 1 * width)
    }

    /// 8 rows × 16 columns of C (rows `row ..< row + 8`), from an 8-row block of packed A.
    @inline(__always)
    static func gemm8x16<O: GEMMOutput>(k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, ldb: Int,
                                        c cp: UnsafeMutablePointer<Float>, ldc: Int, row: Int, output: O) {
        let zero = Vector(repeating: 0)
        var c00 = zero
        var c10 = zero
        var c20 = zero
        var c30 = zero
        var c40 = zero
        var c50 = zero
        var c60 = zero
        var c70 = zero
        var ap = a, bp = b
        for _ in 0..<k {
            let b0 = SIMDKernels.load(bp)
            c00 = SIMDKernels.multiplyAdd(Vector(repeating: ap[0]), b0, c00)
            c10 = SIMDKernels.multiplyAdd(Vector(repeating: ap[1]), b0, c10)
            c20 = SIMDKernels.multiplyAdd(Vector(repeating: ap[2]), b0, c20)
            c30 = SIMDKernels.multiplyAdd(Vector(repeating: ap[3]), b0, c30)
            c40 = SIMDKernels.multiplyAdd(Vector(repeating: ap[4]), b0, c40)
            c50 = SIMDKernels.multiplyAdd(Vector(repeating: ap[5]), b0, c50)
            c60 = SIMDKernels.multiplyAdd(Vector(repeating: ap[6]), b0, c60)
            c70 = SIMDKernels.multiplyAdd(Vector(repeating: ap[7]), b0, c70)
            ap += 8
            bp += ldb
        }
        output.store(c00, row: row, cp + 0 * ldc)
        output.store(c10, row: row + 1, cp + 1 * ldc)
        output.store(c20, row: row + 2, cp + 2 * ldc)
        output.store(c30, row: row + 3, cp + 3 * ldc)
        output.store(c40, row: row + 4, cp + 4 * ldc)
        output.store(c50, row: row + 5, cp + 5 * ldc)
        output.store(c60, row: row + 6, cp + 6 * ldc)
        output.store(c70, row: row + 7, cp + 7 * ldc)
    }
    #else
    /// `rows` (1–6: a constant at each call, so a shorter block's unused accumulators fold away) rows × 16
    /// columns of C (from row `row`), from a block of packed A (`rows` floats per k step).
    @inline(__always)
    static func gemmRows16<O: GEMMOutput>(_ rows: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>,
                                          ldb: Int, c cp: UnsafeMutablePointer<Float>, ldc: Int, row: Int, output: O) {
        let zero = Vector(repeating: 0)
        var c0 = zero, c1 = zero, c2 = zero, c3 = zero, c4 = zero, c5 = zero
        var ap = a, bp = b
        for _ in 0..<k {
            let b0 = SIMDKernels.load(bp)
            c0 = SIMDKernels.multiplyAdd(Vector(repeating: ap[0]), b0, c0)
            if rows > 1 { c1 = SIMDKernels.multiplyAdd(Vector(repeating: ap[1]), b0, c1) }
            if rows > 2 { c2 = SIMDKernels.multiplyAdd(Vector(repeating: ap[2]), b0, c2) }
            if rows > 3 { c3 = SIMDKernels.multiplyAdd(Vector(repeating: ap[3]), b0, c3) }
            if rows > 4 { c4 = SIMDKernels.multiplyAdd(Vector(repeating: ap[4]), b0, c4) }
            if rows > 5 { c5 = SIMDKernels.multiplyAdd(Vector(repeating: ap[5]), b0, c5) }
            ap += rows
            bp += ldb
        }
        output.store(c0, row: row, cp)
        if rows > 1 { output.store(c1, row: row + 1, cp + ldc) }
        if rows > 2 { output.store(c2, row: row + 2, cp + 2 * ldc) }
        if rows > 3 { output.store(c3, row: row + 3, cp + 3 * ldc) }
        if rows > 4 { output.store(c4, row: row + 4, cp + 4 * ldc) }
        if rows > 5 { output.store(c5, row: row + 5, cp + 5 * ldc) }
    }
    #endif
}

/// How the GEMM writes an accumulator vector of C's row `row` at `p`: as it is (the Winograd channel mix), or
/// through a convolution's epilogue (the 1×1 convs).
protocol GEMMOutput {
    func store(_ v: SIMDKernels.Vector, row: Int, _ p: UnsafeMutablePointer<Float>)
}

struct PlainOutput: GEMMOutput {
    @inline(__always) func store(_ v: SIMDKernels.Vector, row: Int, _ p: UnsafeMutablePointer<Float>) {
        SIMDKernels.store(v, p)
    }
}

/// Whether an ``EpilogueOutput`` adds a residual: a type, so each specialisation has no branch.
protocol ResidualChoice { static var adds: Bool { get } }
enum WithResidual: ResidualChoice { static var adds: Bool { true } }
enum NoResidual: ResidualChoice { static var adds: Bool { false } }

/// activation(v + bias[row]) (+ the residual at p's offset from C), as ``SIMDKernels/addBias(_:count:bias:epilogue:)``
/// computes it.
struct EpilogueOutput<A: VectorActivation, R: ResidualChoice>: GEMMOutput {
    let c: UnsafeMutablePointer<Float>
    let bias: UnsafePointer<Float>
    let residual: UnsafePointer<Float>

    @inline(__always) func store(_ v: SIMDKernels.Vector, row: Int, _ p: UnsafeMutablePointer<Float>) {
        let activated = A.apply(v + SIMDKernels.Vector(repeating: bias[row]))
        SIMDKernels.store(R.adds ? activated + SIMDKernels.load(residual + (p - c)) : activated, p)
    }
}

// The input transform for the build with 32 vector registers (AVX-512): fewer stores per 16-tile group (60
// instead of 96; stores are the scarce port: one 512-bit store every other cycle on Zen 4). With 16 registers
// (AVX2, where a 16-float vector takes two) its 24 live vectors spilled: 168 stack stores in the F(6×4)
// transform, which then took 22 % longer than the scratch form the other builds use (Zen 3, PERF.md).
#if SWIFTSEG_32_REGISTERS
extension WinogradKernels {
    /// V = Bᵀ d B for one 16-tile group from its phase rows (row r, patch column c at
    /// `phases + r · rowLength + columnOffset(c)`), V's 36 rows `ld` apart: two V rows at a time,
    /// each Bᵀ d row recomputed from the phase rows (loads) rather than all 36 kept (more than 32 registers, so
    /// spilled: a store and a load each, and stores are the scarce port).
    @inline(__always)
    static func transformPhaseColumns(_ phases: UnsafePointer<Float>, rowLength: Int, phaseStride: Int,
                                      v: UnsafeMutablePointer<Float>, ld: Int) {
        @inline(__always) func d(_ r: Int, _ c: Int) -> Vector {
            patchVector(phases, row: r, column: c, rowLength: rowLength, phaseStride: phaseStride)
        }
        @inline(__always) func store(_ i: Int, _ h: (Vector, Vector, Vector, Vector, Vector, Vector)) {
            storeVRows(h, patchRow: i, into: v, ld: ld)
        }
        let four = Vector(repeating: 4), minusFour = Vector(repeating: -4), minusFive = Vector(repeating: -5)
        // Rows 1 and 2 of Bᵀ d: (d4 − 4·d2) ± (d3 − 4·d1).
        @inline(__always) func rows12(_ c: Int) -> (Vector, Vector) {
            let p = SIMDKernels.multiplyAdd(minusFour, d(2, c), d(4, c))
            let q = SIMDKernels.multiplyAdd(minusFour, d(1, c), d(3, c))
            return (p + q, p - q)
        }
        let a0 = rows12(0), a1 = rows12(1), a2 = rows12(2), a3 = rows12(3), a4 = rows12(4), a5 = rows12(5)
        store(1, inputRow(a0.0, a1.0, a2.0, a3.0, a4.0, a5.0))
        store(2, inputRow(a0.1, a1.1, a2.1, a3.1, a4.1, a5.1))
        // Rows 3 and 4: (d4 − d2) ± 2·(d3 − d1).
        @inline(__always) func rows34(_ c: Int) -> (Vector, Vector) {
            let s = d(4, c) - d(2, c), t = 2 * (d(3, c) - d(1, c))
            return (s + t, s - t)
        }
        let b0 = rows34(0), b1 = rows34(1), b2 = rows34(2), b3 = rows34(3), b4 = rows34(4), b5 = rows34(5)
        store(3, inputRow(b0.0, b1.0, b2.0, b3.0, b4.0, b5.0))
        store(4, inputRow(b0.1, b1.1, b2.1, b3.1, b4.1, b5.1))
        // Rows 0 and 5: 4·d0 − 5·d2 + d4 and 4·d1 − 5·d3 + d5.
        @inline(__always) func row0(_ c: Int) -> Vector {
            SIMDKernels.multiplyAdd(four, d(0, c), SIMDKernels.multiplyAdd(minusFive, d(2, c), d(4, c)))
        }
        @inline(__always) func row5(_ c: Int) -> Vector {
            SIMDKernels.multiplyAdd(four, d(1, c), SIMDKernels.multiplyAdd(minusFive, d(3, c), d(5, c)))
        }
        store(0, inputRow(row0(0), row0(1), row0(2), row0(3), row0(4), row0(5)))
        store(5, inputRow(row5(0), row5(1), row5(2), row5(3), row5(4), row5(5)))
    }

    /// Patch row `r`, column `c` of 16 tiles, from a group's phase rows (``columnOffset(_:phaseStride:)``).
    @inline(__always)
    static func patchVector(_ phases: UnsafePointer<Float>, row r: Int, column c: Int, rowLength: Int,
                            phaseStride: Int) -> Vector {
        SIMDKernels.load(phases + (r &* rowLength &+ columnOffset(c, phaseStride: phaseStride)))
    }

    /// V's rows for patch row `i` (positions 6i … 6i + 5), `ld` apart.
    @inline(__always)
    static func storeVRows(_ h: (Vector, Vector, Vector, Vector, Vector, Vector), patchRow i: Int,
                           into v: UnsafeMutablePointer<Float>, ld: Int) {
        let row = v + i &* 6 &* ld
        SIMDKernels.store(h.0, row); SIMDKernels.store(h.1, row + ld); SIMDKernels.store(h.2, row + 2 &* ld)
        SIMDKernels.store(h.3, row + 3 &* ld); SIMDKernels.store(h.4, row + 4 &* ld)
        SIMDKernels.store(h.5, row + 5 &* ld)
    }

}
#endif

// Splitting input rows by column phase with lane permutes (AVX2, AVX-512).
#if SWIFTSEG_PERMUTES
extension WinogradKernels {
    /// ``splitPhases(row:width:x0:length:padded:into:prefetching:)`` for the builds with lane permutes (AVX2, AVX-512), out of line so that the
    /// interior loop gets registers of its own: 64 pixels → 4 phase vectors in two shuffle levels (phases 0 and 2,
    /// and 1 and 3, of each pair of vectors, then whole halves: 8 shuffles where one permute per source vector
    /// per phase takes 12; the AVX2 build: ``SIMDKernels/phases(_:)``, in-lane transposes on 8-float halves);
    /// blocks crossing the image edge go through a zero-padded copy.
    @inline(never)
    static func splitPhasesByShuffles(row: UnsafePointer<Float>, width w: Int, x0: Int, length: Int, readable: Range<Int>,
                                      padded: UnsafeMutablePointer<Float>, into phases: UnsafeMutablePointer<Float>) {
        let stride = length / 4
        @inline(__always) func split(_ block: UnsafePointer<Float>, _ k: Int) {
            #if SWIFTSEG_32_REGISTERS
            let a0 = SIMDKernels.load(block), a1 = SIMDKernels.load(block + 16)
            let a2 = SIMDKernels.load(block + 32), a3 = SIMDKernels.load(block + 48)
            let e01 = Vector(a0[0], a0[4], a0[8], a0[12], a1[0], a1[4], a1[8], a1[12],
                             a0[2], a0[6], a0[10], a0[14], a1[2], a1[6], a1[10], a1[14])
            let o01 = Vector(a0[1], a0[5], a0[9], a0[13], a1[1], a1[5], a1[9], a1[13],
                             a0[3], a0[7], a0[11], a0[15], a1[3], a1[7], a1[11], a1[15])
            let e23 = Vector(a2[0], a2[4], a2[8], a2[12], a3[0], a3[4], a3[8], a3[12],
                             a2[2], a2[6], a2[10], a2[14], a3[2], a3[6], a3[10], a3[14])
            let o23 = Vector(a2[1], a2[5], a2[9], a2[13], a3[1], a3[5], a3[9], a3[13],
                             a2[3], a2[7], a2[11], a2[15], a3[3], a3[7], a3[11], a3[15])
            storePhases((Vector(lowHalf: e01.lowHalf, highHalf: e23.lowHalf), Vector(lowHalf: o01.lowHalf, highHalf: o23.lowHalf),
                         Vector(lowHalf: e01.highHalf, highHalf: e23.highHalf), Vector(lowHalf: o01.highHalf, highHalf: o23.highHalf)),
                        into: phases, stride: stride, k: k)
            #else
            storePhases(SIMDKernels.phases(block), into: phases, stride: stride, k: k)
            #endif
        }
        // Interior blocks (x0 ≥ 0, so only the right edge ends them) in a loop of their own: with the edge cases
        // inline, LLVM computed their bounds for every block, as many instructions as the split itself.
        var k = 0
        let end = stride - width
        while k < end && x0 &+ 4 &* k &+ 64 <= w {
            split(row + (x0 &+ 4 &* k), k)
            k &+= width
        }
        while k < end {
            let x = x0 &+ 4 &* k
            if x >= readable.lowerBound && x &+ 64 <= readable.upperBound {
                // An edge block inside the plane: loaded whole, the pixels outside the row zeroed by lane masks
                // (the padded copy below stalls its loads on the bytes just written: no store forwarding).
                splitMaskedBlock(row, width: w, x: x, stride: stride, k: k, into: phases)
            } else {
                let lo = Swift.max(0, -x), hi = Swift.min(64, w - x)   // pixels inside the image: lo ..< hi
                SIMDKernels.fill(padded, count: lo)
                SIMDKernels.copy(row + x + lo, to: padded + lo, count: hi - lo)
                SIMDKernels.fill(padded + Swift.max(lo, hi), count: 64 - Swift.max(lo, hi))
                split(UnsafePointer(padded), k)
            }
            k &+= width
        }
        // Only entry `stride - 16` of phase 0 is read in the last block (patch column 5 of the last tile).
        let x = x0 + 4 * k
        phases[k] = x < w ? row[x] : 0
    }

    /// Phases 0…3 of one 64-pixel block into the phase rows (`stride` apart) at entry `k`.
    @inline(__always)
    static func storePhases(_ p: (Vector, Vector, Vector, Vector), into phases: UnsafeMutablePointer<Float>,
                            stride: Int, k: Int) {
        SIMDKernels.store(p.0, phases + k)
        SIMDKernels.store(p.1, phases + (stride &+ k))
        SIMDKernels.store(p.2, phases + (2 &* stride &+ k))
        SIMDKernels.store(p.3, phases + (3 &* stride &+ k))
    }

    /// ``splitPhasesByShuffles(row:width:x0:length:readable:padded:into:)``'s block at `x`, which crosses the
    /// row's edge but not its plane's: the 64 pixels loaded whole, those outside `0 ..< w` zeroed by lane masks.
    /// Out of line, or LLVM merges it with the interior blocks' shuffles and slows those down.
    @inline(never)
    static func splitMaskedBlock(_ row: UnsafePointer<Float>, width w: Int, x: Int, stride: Int, k: Int,
                                 into phases: UnsafeMutablePointer<Float>) {
        // Pixel p is inside iff UInt32(p) < w (negative p wraps above it): one vector compare. (Comparisons against
        // a scalar, or `.|` of two masks, compile to lane-by-lane loops.)
        let lanes = SIMD16<UInt32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let zero = Vector(repeating: 0), width = SIMD16<UInt32>(repeating: UInt32(w))
        @inline(__always) func masked(_ j: Int) -> Vector {
            let p = lanes &+ SIMD16<UInt32>(repeating: UInt32(truncatingIfNeeded: x &+ 16 &* j))
            return SIMDKernels.load(row + (x &+ 16 &* j)).replacing(with: zero, where: .!(p .< width))
        }
        storePhases(SIMDKernels.phases(masked(0), masked(1), masked(2), masked(3)), into: phases, stride: stride, k: k)
    }
}
#endif
