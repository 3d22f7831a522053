/// Winograd convolution (Lavin & Gray 2015) for 3×3, dilation 1, in two tile shapes (``WinogradTile``):
/// F(4×4, 3×3), 36 multiplies per 4×4 output tile and input/output channel pair instead of 144, and F(6×4, 3×3),
/// 48 per 6×4 tile instead of 216. Weights are transformed once at load (`U = G g Gᵀ`, laid out as one
/// `outChannels × inChannels` matrix per position); inputs are transformed (`V = Bᵀ d B`), the per-position
/// channel mixes run as GEMMs (the kernels' own register-blocked GEMM in the AVX-512 and AVX2 builds,
/// `BLAS.sgemm` in the baseline one), and outputs are transformed back (`Y = Aᵀ M A`) with the bias/ReLU/residual epilogue — per
/// chunk of tile rows on large maps, for the whole map split by output channels on small ones. Transforms
/// (SwiftsegKernels/WinogradKernels*.swift, one build per instruction set) run on 16 tiles at a time in SIMD.
/// V and M are stored channel-major (`[channel][position][tile]`, the GEMMs striding over it) so that each
/// transform touches one contiguous block: position-major storage put the vectors a multiple of 4 KiB apart,
/// where they fought over the same cache sets. For the same reason each channel's block is one cache line
/// longer than its rows (`WinogradKernels.channelStride`), so the rows one GEMM reads spread over all sets.
///
/// Rounding differs from direct convolution (the transforms scale values by up to 8×, 32× for F(6×4), before
/// cancelling); errors are ~1e-5 relative on U²-Net's activations, which is why the exact GEMM path stays
/// available.

import SwiftsegKernels
import SwiftsegKernelTypes

/// The Winograd tile shapes the runtime runs. Across, tiles are always 4 pixels wide (16 tiles per vector come
/// from splitting each input row by x mod 4); down, F(6, 3) makes 6-row tiles: 48 GEMM positions per 24 outputs
/// (2 per output) instead of 36 per 16 (2.25), and input rows read 8/6 times instead of 6/4.
///
/// ```swift
/// let tile = WinogradTile.forLayer(inChannels: 128, outChannels: 64)   // .f6x4
/// ```
public enum WinogradTile: Sendable, CaseIterable {
    /// F(4×4, 3×3): 4×4 output tiles, 6×6 patches, 36 positions.
    case f4x4
    /// F(6×4, 3×3): 6 output rows × 4 columns, 8×6 patches, 48 positions.
    case f6x4

    /// Output rows per tile.
    public var height: Int { self == .f4x4 ? 4 : 6 }
    /// Output columns per tile.
    public var width: Int { 4 }
    /// Transform positions per tile (patch rows × 6 patch columns): the number of channel-mix GEMMs.
    public var positions: Int { self == .f4x4 ? 36 : 48 }

    /// Most weights (inChannels × outChannels) a layer may have to run F(6×4): its U is then at most 1.5 MB.
    /// In U²-Net the layers above it sit on the smallest maps (u2net's 256–1024 channels on 10–40 px), where
    /// F(6×4) loses: a 20-row map takes 24 rows of 6-row tiles (`--layers`: 128→64 at 20×20 ~18 % slower), and
    /// its U, a third larger, is streamed once per conv there (u2net with F(6×4) everywhere: +4–6 % time,
    /// +140 MB RSS). Below it, on u2netp's 320- and 160-pixel maps, F(6×4) wins (128→64 at 320×320 ~9 %
    /// faster; PERF.md, docs/PERF-HISTORY.md).
    public static let f6x4MaximumWeights = 128 * 64

    /// The shape a 3×3 conv with these channels runs (``f6x4MaximumWeights``).
    public static func forLayer(inChannels: Int, outChannels: Int) -> WinogradTile {
        inChannels * outChannels <= f6x4MaximumWeights ? .f6x4 : .f4x4
    }
}

/// U = G g Gᵀ for every 3×3 kernel of a conv, one `outChannels × inChannels` matrix per position (position p's at
/// `p · outChannels · inChannels`), its rows packed in the blocks the running GEMM reads
/// (`WinogradKernels.packGEMMRows`): made at load for the default kernels (``KernelISA/best``), and on first use
/// for another build's blocks (a test or the benchmark forcing another ISA).
public final class WinogradWeights: @unchecked Sendable {
    let outChannels: Int
    let inChannels: Int
    /// The tile shape these weights are transformed for.
    public let tile: WinogradTile
    /// The OIHW weights, kept to transform again for another packing.
    private let weight: UnsafePointer<Float>
    /// U packed for the default kernels' GEMM, in blocks of `rowBlock` rows.
    private let packed: UnsafeMutablePointer<Float>
    private let rowBlock: Int
    /// U for other row blocks, by row block.
    private let otherPackings = PackingsOnFirstUse()

    /// Transforms OIHW 3×3 weights (in Double, rounded once) for `tile` (default: the layer's shape,
    /// ``WinogradTile/forLayer(inChannels:outChannels:)``), output channels spread over the cores.
    public init(weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int, tile: WinogradTile? = nil) {
        self.outChannels = outChannels
        self.inChannels = inChannels
        let tile = tile ?? .forLayer(inChannels: inChannels, outChannels: outChannels)
        self.tile = tile
        self.weight = weight
        rowBlock = Kernels.of(.best).winogradRowBlock
        packed = WinogradWeights.transformed(weight, outChannels: outChannels, inChannels: inChannels, tile: tile,
                                             rowBlock: rowBlock)
    }

    /// U with its rows in blocks of `rowBlock` (``Kernels/winogradRowBlock``).
    func u(rowBlock: Int) -> UnsafePointer<Float> {
        if rowBlock == self.rowBlock { return UnsafePointer(packed) }
        return otherPackings.packing(rowBlock) {
            WinogradWeights.transformed(weight, outChannels: outChannels, inChannels: inChannels, tile: tile, rowBlock: rowBlock)
        }
    }

    /// U for every position, rows packed in blocks of `rowBlock`.
    private static func transformed(_ weight: UnsafePointer<Float>, outChannels: Int, inChannels: Int,
                                    tile: WinogradTile, rowBlock: Int) -> UnsafeMutablePointer<Float> {
        let matrix = outChannels * inChannels, count = tile.positions * matrix
        func allocate() -> UnsafeMutablePointer<Float> {
            LargeBuffer.allocate(byteCount: count * 4).bindMemory(to: Float.self, capacity: count)
        }
        let rowMajor = allocate()
        parallelFor(count: outChannels, threads: ProcessInfoCores.count) { co, _ in
            for ci in 0..<inChannels {
                WinogradWeights.transform(weight + (co * inChannels + ci) * 9, tile) { p, value in
                    rowMajor[p * matrix + co * inChannels + ci] = value
                }
            }
        }
        if rowBlock == 1 { return rowMajor }
        defer { rowMajor.deallocate() }
        let packed = allocate()
        parallelFor(count: tile.positions, threads: ProcessInfoCores.count) { p, _ in
            WinogradKernels.packGEMMRows(rowMajor + p * matrix, m: outChannels, k: inChannels, lda: inChannels,
                                         rowBlock: rowBlock, into: packed + p * matrix)
        }
        return packed
    }

    /// G's rows for F(4, 3) (6 × 3) and F(6, 3) (8 × 3); built once, not per kernel.
    static let f43: [(Double, Double, Double)] = [(1.0 / 4, 0, 0), (-1.0 / 6, -1.0 / 6, -1.0 / 6),
                                                  (-1.0 / 6, 1.0 / 6, -1.0 / 6), (1.0 / 24, 1.0 / 12, 1.0 / 6),
                                                  (1.0 / 24, -1.0 / 12, 1.0 / 6), (0, 0, 1)]
    static let f63: [(Double, Double, Double)] = [(1, 0, 0), (-2.0 / 9, -2.0 / 9, -2.0 / 9), (-2.0 / 9, 2.0 / 9, -2.0 / 9),
                                                  (1.0 / 90, 1.0 / 45, 2.0 / 45), (1.0 / 90, -1.0 / 45, 2.0 / 45),
                                                  (32.0 / 45, 16.0 / 45, 8.0 / 45), (32.0 / 45, -16.0 / 45, 8.0 / 45),
                                                  (0, 0, 1)]

    /// U = G g Gᵀ for one 3×3 kernel g (row-major), handing out the values by position `i·6 + j`: G down the
    /// rows i is F(6, 3)'s (8 × 3) for `.f6x4`, F(4, 3)'s (6 × 3) for `.f4x4`; across the columns j always F(4, 3)'s.
    @inline(__always)
    static func transform(_ k: UnsafePointer<Float>, _ tile: WinogradTile, _ store: (Int, Float) -> Void) {
        let down = tile == .f6x4 ? f63 : f43
        let k0 = (Double(k[0]), Double(k[1]), Double(k[2]))
        let k1 = (Double(k[3]), Double(k[4]), Double(k[5]))
        let k2 = (Double(k[6]), Double(k[7]), Double(k[8]))
        for i in 0..<down.count {
            let gi = down[i]   // row i of G · g: 3 values
            let t = (gi.0 * k0.0 + gi.1 * k1.0 + gi.2 * k2.0,
                     gi.0 * k0.1 + gi.1 * k1.1 + gi.2 * k2.1,
                     gi.0 * k0.2 + gi.1 * k1.2 + gi.2 * k2.2)
            for j in 0..<6 {
                let gj = f43[j]
                store(i * 6 + j, Float(t.0 * gj.0 + t.1 * gj.1 + t.2 * gj.2))
            }
        }
    }

    deinit { packed.deallocate() }
}

extension Conv2D {
    /// Most tiles per tile-row chunk: a tile row is split into equal chunks of at most this many tiles (80 =
    /// a whole row at 320 px). Long chunks let each channel's input rows be read as long contiguous runs, which
    /// the hardware prefetcher follows (measured: 32-tile chunks were 15–20 % slower end to end); beyond ~80
    /// tiles V and M outgrow the 2 MB L2 on the wide layers.
    static let winogradMaxTilesPerChunk = 80
    /// Tiles one task aims to batch into each GEMM (whole chunk rows of them). 80 = 5 vectors: 2 tile rows of a
    /// 160-pixel map (40 tiles each) or 4 of an 80-pixel one fill whole vectors, where 64 gave one row of 40 tiles
    /// padded to 48 (`--layers`: 128→64 ~9 % faster at 160×160, ~16 % at 80×80).
    static let winogradTilesPerGEMM = 80
    /// Largest V (positions × Cin × tiles floats) a tile-row task may build: the GEMMs read it position by
    /// position after the input transform wrote all of it, so it has to stay in the 2 MB L2 in between. Two
    /// 40-tile rows of 6×4 tiles on a 128-channel layer make 2.4 MB (`--layers`: 128→64 at 160×160 ~20 % slower
    /// than with one row per task); one 80-tile row at 320×320, 2.0 MB, still fits.
    static let winogradMaxVBytes = 2 << 20
    /// Maps with at most this many tiles (up to 44×44 in 4×4 tiles, 52×52 in 6×4) run whole-map: every task's GEMMs cover all tiles and
    /// tasks split the output channels instead, so U (36 × Cin × Cout, up to 75 MB on u2net's 1024-channel
    /// layers) is streamed once per conv instead of once per tile-row task.
    static let winogradWholeMapTiles = 128

    /// Winograd tiles of a map: rows of `tile.height` pixels, columns of 4.
    static func winogradTiles(height: Int, width: Int, tile: WinogradTile) -> (rows: Int, columns: Int) {
        ((height + tile.height - 1) / tile.height, (width + tile.width - 1) / tile.width)
    }

    /// Whether this conv can run as Winograd (F(4×4) or F(6×4), as its weights were prepared).
    public var supportsWinograd: Bool { kernelSize == 3 && dilation == 1 && winograd != nil }

    /// Runs the conv as Winograd in its weights' tile shape (they must have been prepared), whatever the policy;
    /// with `pooled`, each task also max-pools the output rows it wrote (``MaxPool2D``) while they are in
    /// cache, instead of a pass over the whole output afterwards (tile rows start on even rows).
    ///
    /// ```swift
    /// conv.winogradForward(x, into: y, epilogue: .relu, context: ctx)
    /// ```
    public func winogradForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                pooledInto pooled: TensorView? = nil, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        if let pooled { MaxPool2D.checkShapes(output, pooled) }
        guard winograd != nil else { preconditionFailure("Winograd weights were not prepared for this conv") }
        let h = input.height, w = input.width
        let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: winograd!.tile)
        if tilesY * tilesX <= Conv2D.winogradWholeMapTiles {
            winogradWholeMap(input, into: output, epilogue: epilogue, pooled: pooled, context: context)
            return
        }
        winogradByTileRows(input, upsampled: nil, into: output, epilogue: epilogue, pooled: pooled, context: context)
    }

    /// Whether ``winogradForward(_:upsampling:into:epilogue:pooledInto:context:)`` makes `head`'s upsampling
    /// itself: an exact 2× on a map large enough for the tile-row path (smaller maps run whole-map, where the
    /// upsampled planes are small enough to write out) and narrow enough for one chunk per tile row (up to 320
    /// pixels: each task makes whole rows, which wider maps' chunks would make several times over, e.g. ISNet's
    /// at 1024).
    public func winogradCanUpsample(_ head: TensorView, into input: TensorView) -> Bool {
        guard let tile = winograd?.tile, input.height == 2 * head.height, input.width == 2 * head.width,
              head.channels <= input.channels else { return false }
        let (tilesY, tilesX) = Conv2D.winogradTiles(height: input.height, width: input.width, tile: tile)
        return tilesY * tilesX > Conv2D.winogradWholeMapTiles && tilesX <= Conv2D.winogradMaxTilesPerChunk
    }

    /// Runs the conv as Winograd with `input`'s first `head.channels` channels made, a row at a time inside the
    /// input transform, as ``ResizeBilinear`` of `head` (not read from `input`; ``winogradCanUpsample(_:into:)``
    /// must hold): the same bytes as writing the upsampling into `input` and running
    /// ``winogradForward(_:into:epilogue:pooledInto:context:)``, without writing it out and reading it back.
    ///
    /// ```swift
    /// conv.winogradForward(cat, upsampling: deeper, into: hxd, epilogue: .relu, pooledInto: nil, context: ctx)
    /// ```
    public func winogradForward(_ input: TensorView, upsampling head: TensorView, into output: TensorView,
                                epilogue: Epilogue, pooledInto pooled: TensorView?, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        if let pooled { MaxPool2D.checkShapes(output, pooled) }
        precondition(winogradCanUpsample(head, into: input), "the Winograd tile-row path upsamples exactly 2× only")
        let arena = context.arena, mark = arena.mark()
        defer { arena.release(to: mark) }
        // The bilinear row taps, as ResizeBilinear computes them.
        let h = input.height
        let table = UnsafeMutableRawPointer(arena.allocate(floats: 3 * h))
        let lower = table.bindMemory(to: Int32.self, capacity: 2 * h), upper = lower + h
        let weight = (table + 8 * h).bindMemory(to: Float.self, capacity: h)
        for y in 0..<h {
            let (y0, y1, t) = ResizeBilinear.taps(y, inSize: head.height, outSize: h)
            lower[y] = Int32(y0); upper[y] = Int32(y1); weight[y] = t
        }
        // `rows` is each worker's own scratch, set in WinogradTileRows.run; `weight` only holds its place here
        // (the table's start is bound to Int32 and must not be rebound).
        let upsampled = UpsampledRows(source: head.data, channels: head.channels, sourceHeight: head.height,
                                      sourceWidth: head.width, lower: lower, upper: upper, weight: weight,
                                      rows: weight)
        winogradByTileRows(input, upsampled: upsampled, into: output, epilogue: epilogue, pooled: pooled,
                           context: context)
    }

    /// Large maps: tasks are chunks of tile rows, each transforming, multiplying and transforming back its own
    /// tiles for all channels.
    private func winogradByTileRows(_ input: TensorView, upsampled: UpsampledRows?, into output: TensorView,
                                    epilogue: Epilogue, pooled: TensorView?, context: ExecutionContext) {
        let h = input.height, w = input.width
        let tile = winograd!.tile, positions = tile.positions
        let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: tile)
        let chunks = (tilesX + Conv2D.winogradMaxTilesPerChunk - 1) / Conv2D.winogradMaxTilesPerChunk
        let per = (tilesX + chunks - 1) / chunks        // tiles per chunk (the last one may have fewer)
        let nb = (per + 15) / 16 * 16                   // per chunk row, padded to the SIMD width
        // When a tile row fits one chunk, rows are packed densely (row r starts at tile r·tilesX): each row's
        // SIMD padding lanes are overwritten by the next row, so small maps (10×10: 3 tiles a row) do not
        // multiply mostly padding.
        let rowStride = chunks == 1 ? tilesX : nb
        let kernels = context.kernels
        context.withWorkers { workers in
            // Several tile rows per task so each of the GEMMs (one per position) is wide enough to run
            // efficiently, but at least one task per worker. The kernels' own GEMM sums each output in the same
            // order however wide the task; BLAS (the baseline build) does not, so there the split is by threads.
            let splitFor = kernels.winogradGEMM != nil ? workers : context.threads
            var rowsPerTask = max(1, Conv2D.winogradTilesPerGEMM / rowStride)
            rowsPerTask = max(1, min(rowsPerTask, (tilesY + splitFor - 1) / splitFor))
            // V/M row length, the GEMMs' leading dimension; whole vectors, as the GEMM kernel computes whole vectors
            // (lanes past the tiles hold leftovers from earlier use of the scratch: computed on, never stored).
            func leadingDimension(_ rows: Int) -> Int { ((rows - 1) * rowStride + nb + 15) / 16 * 16 }
            func vBytes(_ rows: Int) -> Int {
                inChannels * WinogradKernels.channelStride(positions: positions, ld: leadingDimension(rows)) * 4
            }
            while rowsPerTask > 1 && vBytes(rowsPerTask) > Conv2D.winogradMaxVBytes {
                rowsPerTask -= 1
            }
            // Whole tile rows per task, as even as they split, the longer tasks first (dynamic scheduling then
            // ends level), and a multiple of the workers: an 80-pixel map's 14 rows as 4 + 4 + 3 + 3, not
            // 4 + 4 + 4 + 2 (one worker idle for a sixth of the layer).
            var rowGroups = (tilesY + rowsPerTask - 1) / rowsPerTask
            rowGroups = min(tilesY, (rowGroups + splitFor - 1) / splitFor * splitFor)
            rowsPerTask = (tilesY + rowGroups - 1) / rowGroups
            let ld = leadingDimension(rowsPerTask)
            let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
            let vFloats = inChannels * stride, mFloats = outChannels * stride
            // Per worker: V, M, the transforms' own scratch and, with an upsampled head, the rows it is made in.
            let transformFloats = Kernels.winogradTransformScratchFloats(tiles: nb)
            let rowFloats = upsampled == nil ? 0 : UpsampledRows.rowFloats(width: w)
            let scratch = context.scratch(floats: vFloats + mFloats + transformFloats + rowFloats)
            parallelFor(count: rowGroups * chunks, threads: workers,
                        WinogradTileRows(conv: self, input: input, output: output, pooled: pooled, epilogue: epilogue.kernel,
                                         chunks: chunks, per: per, nb: nb, rowStride: rowStride, rowGroups: rowGroups,
                                         ld: ld, kernels: kernels, scratch: scratch, upsampled: upsampled,
                                         rowsOffset: vFloats + mFloats + transformFloats))
        }
    }

    /// One task per chunk of tile rows: input transform, the GEMMs, output transform, all channels.
    struct WinogradTileRows: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView, pooled: TensorView?
        let epilogue: KernelEpilogue
        let chunks: Int, per: Int, nb: Int, rowStride: Int, rowGroups: Int, ld: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]
        let upsampled: UpsampledRows?
        let rowsOffset: Int

        func run(_ task: Int, worker: Int) {
            let h = input.height, w = input.width
            let tile = conv.winograd!.tile, positions = tile.positions
            var upsampledRows = upsampled   // its rows in this worker's scratch
            upsampledRows?.rows = scratch[worker] + rowsOffset
            let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: tile)
            let group = task / chunks, tx0 = (task % chunks) * per
            let groupRows = evenPart(group, of: rowGroups, splitting: tilesY)
            let ty0 = groupRows.lowerBound, rows = groupRows.count
            let n = min(per, tilesX - tx0)
            let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
            let vFloats = conv.inChannels * stride, mFloats = conv.outChannels * stride
            let v = scratch[worker], m = v + vFloats, transformScratch = m + mFloats
            for r in 0..<rows {  // in order: a dense row overwrites the previous row's padding lanes
                kernels.winogradInput(tile)(input.data, conv.inChannels, h, w, ty0 + r, tx0, nb, v + r * rowStride, ld,
                                      transformScratch, upsampledRows)
            }
            let columns = (rows - 1) * rowStride + (chunks == 1 ? tilesX : nb)
            conv.winogradChannelMix(conv.winograd!, channels: 0..<conv.outChannels, columns: columns, v: v, m: m,
                                    ld: ld, kernels: kernels)
            for r in 0..<rows {
                kernels.winogradOutput(tile)(m + r * rowStride, ld, conv.outChannels, conv.bias, output.data, h, w, ty0 + r,
                                       tx0, n, epilogue, transformScratch)
            }
            if let pooled {  // this task's rows and columns (both start even), pooled while in cache
                let y1 = min(h, tile.height * (ty0 + rows)), x1 = min(w, 4 * (tx0 + n))
                for c in 0..<conv.outChannels {
                    MaxPool2D.pool(output.plane(c), height: h, width: w, into: pooled.plane(c),
                                   rows: tile.height * ty0 / 2 ..< (y1 + 1) / 2, columns: 2 * tx0 ..< (x1 + 1) / 2,
                                   row: kernels.maxPool2x2Row)
                }
            }
        }
    }

    /// Small maps (at most ``winogradWholeMapTiles`` tiles): all tiles, densely packed, in one V and one M
    /// shared by the workers. Phase 1 splits the input transform by input channels; phase 2 splits the GEMMs
    /// and the output transform by blocks of output channels, each reading only its rows of U.
    private func winogradWholeMap(_ input: TensorView, into output: TensorView, epilogue: Epilogue,
                                  pooled: TensorView?, context: ExecutionContext) {
        let h = input.height, w = input.width
        let tile = winograd!.tile, positions = tile.positions
        let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: tile)
        let nb = (tilesX + 15) / 16 * 16
        // Tile r·tilesX + x: rows packed densely (tilesY · tilesX GEMM columns).
        let ld = ((tilesY - 1) * tilesX + nb + 15) / 16 * 16
        let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
        let vFloats = inChannels * stride, mFloats = outChannels * stride
        let kernels = context.kernels
        let transformFloats = Kernels.winogradTransformScratchFloats(tiles: nb)
        // V and M live in worker 0's buffer; every worker's transform scratch sits after them in its own.
        let scratch = context.scratch(floats: vFloats + mFloats + transformFloats)
        let v = scratch[0], m = v + vFloats
        let inGroups = min(context.threads == 1 ? 1 : 4 * context.threads, inChannels)  // small tasks balance better
        let inPer = (inChannels + inGroups - 1) / inGroups
        context.parallelFor(count: inGroups,
                    WholeMapInput(conv: self, input: input, v: v, ld: ld, nb: nb, inPer: inPer, kernels: kernels,
                                  scratch: scratch, transformOffset: vFloats + mFloats))
        // Output-channel blocks: multiples of the GEMM kernel's row block (8 for BLAS), so each block's rows of U
        // are packed U on their own, two per worker for balance.
        let rowBlock = kernels.winogradRowBlock > 1 ? kernels.winogradRowBlock : 8
        let blocks = max(1, min(2 * context.threads, outChannels / rowBlock))
        let outPer = ((outChannels + blocks - 1) / blocks + rowBlock - 1) / rowBlock * rowBlock
        context.parallelFor(count: (outChannels + outPer - 1) / outPer,
                    WholeMapOutput(conv: self, input: input, output: output, pooled: pooled, epilogue: epilogue.kernel, v: v, m: m,
                                   ld: ld, outPer: outPer, kernels: kernels, scratch: scratch,
                                   transformOffset: vFloats + mFloats))
    }

    /// Whole-map phase 1: one task per group of input channels, transformed into the shared V.
    struct WholeMapInput: ParallelTasks {
        let conv: Conv2D
        let input: TensorView
        let v: UnsafeMutablePointer<Float>
        let ld: Int, nb: Int, inPer: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]
        let transformOffset: Int

        func run(_ group: Int, worker: Int) {
            let h = input.height, w = input.width, hw = h * w
            let tile = conv.winograd!.tile, positions = tile.positions
            let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: tile)
            let c0 = group * inPer, c1 = min(conv.inChannels, c0 + inPer)
            guard c0 < c1 else { return }
            let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
            for ty in 0..<tilesY {  // in order: a dense row overwrites the previous row's padding lanes
                kernels.winogradInput(tile)(input.data + c0 * hw, c1 - c0, h, w, ty, 0, nb, v + c0 * stride + ty * tilesX,
                                      ld, scratch[worker] + transformOffset, nil)
            }
        }
    }

    /// Whole-map phase 2: one task per block of output channels, its GEMMs (reading only its rows of U) and
    /// output transform.
    struct WholeMapOutput: ParallelTasks {
        let conv: Conv2D
        let input: TensorView, output: TensorView, pooled: TensorView?
        let epilogue: KernelEpilogue
        let v: UnsafeMutablePointer<Float>, m: UnsafeMutablePointer<Float>
        let ld: Int, outPer: Int
        let kernels: Kernels
        let scratch: [UnsafeMutablePointer<Float>]
        let transformOffset: Int

        func run(_ block: Int, worker: Int) {
            let h = input.height, w = input.width, hw = h * w
            let tile = conv.winograd!.tile, positions = tile.positions
            let (tilesY, tilesX) = Conv2D.winogradTiles(height: h, width: w, tile: tile)
            let c0 = block * outPer, c1 = min(conv.outChannels, c0 + outPer), mb = c1 - c0
            let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
            conv.winogradChannelMix(conv.winograd!, channels: c0..<c1, columns: tilesY * tilesX, v: v, m: m, ld: ld,
                                    kernels: kernels)
            for ty in 0..<tilesY {
                kernels.winogradOutput(tile)(m + c0 * stride + ty * tilesX, ld, mb, conv.bias + c0, output.data + c0 * hw,
                                       h, w, ty, 0, tilesX, epilogue.advanced(by: c0 * hw),
                                       scratch[worker] + transformOffset)
            }
            if let pooled {  // this task's channels, pooled while in cache
                for c in c0..<c1 {
                    MaxPool2D.pool(output.plane(c), height: h, width: w, into: pooled.plane(c), rows: 0..<pooled.height,
                                   columns: 0..<pooled.width, row: kernels.maxPool2x2Row)
                }
            }
        }
    }

    /// M[c][p] = U[p][c] · V[·][p] for output channels `channels` and all positions (M, V channel-major with
    /// rows `ld` apart; `columns` tiles): the kernels' own GEMM where the build has one, `BLAS.sgemm` otherwise.
    func winogradChannelMix(_ wg: WinogradWeights, channels: Range<Int>, columns: Int,
                                    v: UnsafeMutablePointer<Float>, m: UnsafeMutablePointer<Float>, ld: Int,
                                    kernels: Kernels) {
        let positions = wg.tile.positions
        let stride = WinogradKernels.channelStride(positions: positions, ld: ld)
        let packed = wg.u(rowBlock: kernels.winogradRowBlock)
        for p in 0..<positions {
            // The channels start on a row block, so their rows are packed U on their own.
            let u = packed + (p * outChannels + channels.lowerBound) * inChannels
            let b = v + p * ld, c = m + channels.lowerBound * stride + p * ld
            if let gemm = kernels.winogradGEMM {
                gemm(channels.count, columns, inChannels, u, b, stride, c, stride)
            } else {
                BLAS.sgemm(m: channels.count, n: columns, k: inChannels, a: u, lda: inChannels, b: b,
                           ldb: stride, c: c, ldc: stride)
            }
        }
    }
}
