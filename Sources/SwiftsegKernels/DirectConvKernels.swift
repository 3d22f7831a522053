/// Direct 3×3 convolution (stride 1, dilation 1, zero padding 1) on NCHW planes, one output row at a time,
/// 16 output pixels per vector. For the layers where Winograd's transforms cost more than the multiplies they
/// save: few output channels (U²-Net's 64→1 side outputs) or few input channels (the 3→64 first conv).
/// `SwiftsegRuntime/Ops/Conv2D+Direct.swift` splits the work and picks the layers; this file is the arithmetic,
/// compiled once per instruction set like the rest of the module.
///
/// Each product is formed once, as in the reference loop, and summed in float (ordered by input channel, then
/// kernel row, in partial sums), so results agree with the reference to float rounding.
import _CKernelSupport

public enum DirectConvKernels {
    typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width
    /// Floats between padded rows: the row, a zero on each side, and the last vector's overreach.
    static func paddedRowFloats(width w: Int) -> Int { (w + 2 + 31) / 16 * 16 }

    /// Floats of scratch ``conv3x3Rows(input:inChannels:height:width:weight:bias:channels:_:rows:_:output:epilogue:scratch:)``
    /// needs (the caller's buffer need not be aligned): the ring, or the thin path's rows.
    public static func scratchFloats(inChannels: Int, width: Int) -> Int {
        Swift.max(3 * inChannels, thinRowsFloats) * paddedRowFloats(width: width) + 16
    }

    /// Output channels up to which ``conv3x3Rows(input:inChannels:height:width:weight:bias:channels:_:rows:_:output:epilogue:scratch:)``
    /// takes the thin path (``thinRowsBody``), when there are at least as many input channels.
    public static let thinMaximumOutputs = 1
    /// Output rows the thin path sums at once.
    static let thinGroupRows = 4
    /// Padded rows the thin path keeps in the scratch: the group's input rows and its sums.
    static let thinRowsFloats = 2 * thinGroupRows + 2

    /// Output rows `y0 ..< y1` of output channels `co0 ..< co1`: out = conv + bias, then the epilogue's
    /// activation and residual (planes laid out like `output`). `weight` is OIHW for all output channels;
    /// `output` and the epilogue's residual point at channel 0.
    ///
    /// Input rows are first copied into zero-padded rows in the scratch (a ring of three per input channel,
    /// each row copied once), so every output vector reads its 18-pixel spans the same way, edges included,
    /// from cache-resident rows: on maps larger than the caches, reading the planes directly sent each vector to
    /// 3·inChannels separate places in memory. Each copy prefetches the same channel's next row, and each output
    /// vector the line below it for writing: the planes are streams too many for the hardware prefetchers to
    /// follow (64 output planes on the 3→64 conv), and on Zen 3 the output's stores were ~30 % of this kernel's
    /// samples (PERF.md).
    @inline(never)
    public static func conv3x3Rows(input: UnsafePointer<Float>, inChannels cin: Int, height h: Int, width w: Int,
                                   weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                   channels co0: Int, _ co1: Int, rows y0: Int, _ y1: Int,
                                   output: UnsafeMutablePointer<Float>, epilogue: KernelEpilogue,
                                   scratch: UnsafeMutablePointer<Float>) {
        if co1 - co0 <= thinMaximumOutputs && cin > thinMaximumOutputs {
            switch epilogue.activation {
            case .none:
                thinRowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                             channels: co0, co1, rows: y0, y1, output: output, residual: epilogue.residual, Identity.self,
                             scratch: scratch)
            case .relu:
                thinRowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                             channels: co0, co1, rows: y0, y1, output: output, residual: epilogue.residual, ReLU.self,
                             scratch: scratch)
            case .relu6:
                thinRowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                             channels: co0, co1, rows: y0, y1, output: output, residual: epilogue.residual, ReLU6.self,
                             scratch: scratch)
            }
            return
        }
        // The loops specialised per activation (``VectorActivation``), called with every value as an argument: a
        // local closure capturing them was not inlined, and its loops reloaded them from its context (+6 %).
        switch epilogue.activation {
        case .none:
            conv3x3RowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                            channels: co0, co1, rows: y0, y1, output: output, epilogue: epilogue, Identity.self,
                            scratch: scratch)
        case .relu:
            conv3x3RowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                            channels: co0, co1, rows: y0, y1, output: output, epilogue: epilogue, ReLU.self,
                            scratch: scratch)
        case .relu6:
            conv3x3RowsBody(input: input, inChannels: cin, height: h, width: w, weight: weight, bias: bias,
                            channels: co0, co1, rows: y0, y1, output: output, epilogue: epilogue, ReLU6.self,
                            scratch: scratch)
        }
    }

    @inline(__always)
    static func conv3x3RowsBody<A: VectorActivation>(input: UnsafePointer<Float>, inChannels cin: Int, height h: Int,
                                                     width w: Int, weight: UnsafePointer<Float>,
                                                     bias: UnsafePointer<Float>, channels co0: Int, _ co1: Int,
                                                     rows y0: Int, _ y1: Int, output: UnsafeMutablePointer<Float>,
                                                     epilogue: KernelEpilogue, _ activation: A.Type,
                                                     scratch: UnsafeMutablePointer<Float>) {
        let residual = epilogue.residual
        let hw = h * w
        let stride = paddedRowFloats(width: w)
        let ring = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Float.self,
                                                                                         capacity: 3 * cin * stride)
        /// Padded input row r of channel ci: ring slot r mod 3; element k is pixel k - 1.
        @inline(__always) func padded(_ ci: Int, _ r: Int) -> UnsafeMutablePointer<Float> { ring + (ci * 3 + r % 3) * stride }
        @inline(__always) func load(row r: Int) {
            for ci in 0..<cin {
                let src = input + ci * hw + r * w   // and the row below, which the next call copies
                copyPadded(src, width: w, into: padded(ci, r), stride: stride, prefetching: r + 1 < h ? src + w : nil)
            }
        }
        for r in Swift.max(0, y0 - 1)..<Swift.min(h, y0 + 1) { load(row: r) }
        let lastX = (w - 1) / width * width
        for y in y0..<y1 {
            if y + 1 < h { load(row: y + 1) }
            let ky0 = y == 0 ? 1 : 0, ky1 = y == h - 1 ? 2 : 3   // kernel rows that fall inside the image
            /// Epilogue and store of one output vector at x of channel co.
            @inline(__always) func put(_ acc: Vector, _ co: Int, _ x: Int) {
                var v = A.apply(acc)
                let offset = co * hw + y * w + x
                if x + width <= w {
                    if let residual { v += SIMDKernels.load(residual + offset) }
                    if y + 1 < y1 { swiftseg_prefetch_for_write(output + (offset + w)) }
                    SIMDKernels.store(v, output + offset)
                } else {
                    for lane in 0..<(w - x) { output[offset + lane] = v[lane] + (residual?[offset + lane] ?? 0) }
                }
            }
            var x = 0
            while x <= lastX {
                /// Pixels x - 1 ... x + 16 of input row y + ky - 1, channel ci.
                @inline(__always) func source(_ ci: Int, _ ky: Int) -> UnsafePointer<Float> {
                    UnsafePointer(padded(ci, y + ky - 1) + x)
                }
                var co = co0
                #if SWIFTSEG_32_REGISTERS
                while co + 8 <= co1 {
                    block8(cin: cin, ky0: ky0, ky1: ky1, weight: weight + co * cin * 9, bias: bias + co, source: source,
                           store: { acc, k in put(acc, co + k, x) })
                    co += 8
                }
                #endif
                while co + 4 <= co1 {
                    block4(cin: cin, ky0: ky0, ky1: ky1, weight: weight + co * cin * 9, bias: bias + co, source: source,
                           store: { acc, k in put(acc, co + k, x) })
                    co += 4
                }
                while co < co1 {
                    put(single(cin: cin, ky0: ky0, ky1: ky1, weight: weight + co * cin * 9, bias: bias[co], source: source),
                        co, x)
                    co += 1
                }
                x += width
            }
        }
    }

    /// The path for layers with fewer output channels than input channels (U²-Net's 64→1 side outputs): each
    /// output channel's rows in groups of ``thinGroupRows``, their sums kept in padded rows of the scratch while the
    /// input channels go by one at a time, each channel's rows copied (zero-padded) once per group. Four rows of
    /// sums and one input vector fit AVX2's registers, and every input vector loaded feeds up to three rows of
    /// sums, where the ring path loaded each input vector for one output vector and, on 64 channels, read the
    /// ring from L2 (PERF.md). The sums run in the reference's order (bias, then input channels, kernel rows
    /// and columns in turn).
    @inline(never)
    static func thinRowsBody<A: VectorActivation>(input: UnsafePointer<Float>, inChannels cin: Int, height h: Int,
                                                  width w: Int, weight: UnsafePointer<Float>,
                                                  bias: UnsafePointer<Float>, channels co0: Int, _ co1: Int,
                                                  rows y0: Int, _ y1: Int, output: UnsafeMutablePointer<Float>,
                                                  residual: UnsafePointer<Float>?, _ activation: A.Type,
                                                  scratch: UnsafeMutablePointer<Float>) {
        let hw = h * w
        let stride = paddedRowFloats(width: w)
        let padded = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: thinRowsFloats * stride)
        let sums = padded + (thinGroupRows + 2) * stride   // thinGroupRows rows of sums, `stride` apart
        let vectors = (w + width - 1) / width               // per row, the last one partly past the row
        for co in co0..<co1 {
            var y = y0
            while y < y1 {
                let rows = Swift.min(thinGroupRows, y1 - y)
                let b = Vector(repeating: bias[co])
                for j in 0..<rows {
                    for v in 0..<vectors { SIMDKernels.store(b, sums + (j * stride + v * width)) }
                }
                for ci in 0..<cin {
                    let plane = input + ci * hw, next = ci + 1 < cin ? plane + hw : nil
                    for r in 0..<(rows + 2) {  // input rows y - 1 ..< y + rows + 1, element k = pixel k - 1
                        let yy = y - 1 + r, dst = padded + r * stride
                        guard yy >= 0 && yy < h else { SIMDKernels.fill(dst, count: stride); continue }
                        copyPadded(plane + yy * w, width: w, into: dst, stride: stride,
                                   prefetching: next.map { $0 + yy * w })
                    }
                    let k = weight + (co * cin + ci) * 9
                    switch rows {
                    case 4: thinSums(4, padded: padded, stride: stride, sums: sums, vectors: vectors, weights: k)
                    case 3: thinSums(3, padded: padded, stride: stride, sums: sums, vectors: vectors, weights: k)
                    case 2: thinSums(2, padded: padded, stride: stride, sums: sums, vectors: vectors, weights: k)
                    default: thinSums(1, padded: padded, stride: stride, sums: sums, vectors: vectors, weights: k)
                    }
                }
                for j in 0..<rows {  // the epilogue, into the output row
                    let offset = co * hw + (y + j) * w, row = sums + j * stride
                    var x = 0
                    while x + width <= w {
                        var v = A.apply(SIMDKernels.load(row + x))
                        if let residual { v += SIMDKernels.load(residual + (offset + x)) }
                        SIMDKernels.store(v, output + (offset + x))
                        x += width
                    }
                    if x < w {
                        let v = A.apply(SIMDKernels.load(row + x))
                        for lane in 0..<(w - x) { output[offset + x + lane] = v[lane] + (residual?[offset + x + lane] ?? 0) }
                    }
                }
                y += rows
            }
        }
    }

    /// One input channel's taps added to `rows` (1–4: a constant at each call, so the unused sums fold away)
    /// rows of sums: input row r (of rows + 2) feeds sum rows r − 2 … r, with kernel row r − j for sum row j.
    @inline(__always)
    static func thinSums(_ rows: Int, padded: UnsafePointer<Float>, stride: Int, sums: UnsafeMutablePointer<Float>,
                         vectors: Int, weights k: UnsafePointer<Float>) {
        @inline(__always) func taps(_ a: inout Vector, _ ky: Int, _ l: Vector, _ c: Vector, _ r: Vector) {
            a = SIMDKernels.multiplyAdd(Vector(repeating: k[3 * ky]), l, a)
            a = SIMDKernels.multiplyAdd(Vector(repeating: k[3 * ky + 1]), c, a)
            a = SIMDKernels.multiplyAdd(Vector(repeating: k[3 * ky + 2]), r, a)
        }
        for v in 0..<vectors {
            let x = v * width
            var a0 = SIMDKernels.load(sums + x)
            var a1 = rows > 1 ? SIMDKernels.load(sums + (stride + x)) : Vector()
            var a2 = rows > 2 ? SIMDKernels.load(sums + (2 * stride + x)) : Vector()
            var a3 = rows > 3 ? SIMDKernels.load(sums + (3 * stride + x)) : Vector()
            // Called with constant r, so each call's tests fold away (a loop over r kept them at run time).
            @inline(__always) func input(_ r: Int) {
                guard r < rows + 2 else { return }
                let p = padded + (r * stride + x)
                let l = SIMDKernels.load(p), c = SIMDKernels.load(p + 1), q = SIMDKernels.load(p + 2)
                if r <= 2 { taps(&a0, r, l, c, q) }
                if rows > 1 && r >= 1 && r <= 3 { taps(&a1, r - 1, l, c, q) }
                if rows > 2 && r >= 2 && r <= 4 { taps(&a2, r - 2, l, c, q) }
                if rows > 3 && r >= 3 { taps(&a3, r - 3, l, c, q) }
            }
            input(0); input(1); input(2); input(3); input(4); input(5)
            SIMDKernels.store(a0, sums + x)
            if rows > 1 { SIMDKernels.store(a1, sums + (stride + x)) }
            if rows > 2 { SIMDKernels.store(a2, sums + (2 * stride + x)) }
            if rows > 3 { SIMDKernels.store(a3, sums + (3 * stride + x)) }
        }
    }

    /// `row` (`w` pixels) into `dst` as element k = pixel k − 1, zeros around it up to `stride`; prefetches the
    /// same pixels of `nextRow` (the ring's next row, or the thin path's next channel, a plane away, where the
    /// hardware prefetchers do not look).
    @inline(__always)
    static func copyPadded(_ src: UnsafePointer<Float>, width w: Int, into dst: UnsafeMutablePointer<Float>,
                           stride: Int, prefetching nextRow: UnsafePointer<Float>?) {
        dst[0] = 0
        var x = 0
        if let nextRow {
            while x + width <= w {
                swiftseg_prefetch(nextRow + x)
                SIMDKernels.store(SIMDKernels.load(src + x), dst + 1 + x); x += width
            }
            if x < w { swiftseg_prefetch(nextRow + (w - 1)) }
        }
        while x + width <= w { SIMDKernels.store(SIMDKernels.load(src + x), dst + 1 + x); x += width }
        while x < w { dst[1 + x] = src[x]; x += 1 }
        while x + 1 < stride { dst[1 + x] = 0; x += 1 }
    }

    /// Eight output channels of one vector: eight accumulators (fills AVX-512's registers; spills on AVX2).
    @inline(__always)
    static func block8(cin: Int, ky0: Int, ky1: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                       source: (Int, Int) -> UnsafePointer<Float>, store: (Vector, Int) -> Void) {
        var a0 = Vector(repeating: bias[0]), a1 = Vector(repeating: bias[1])
        var a2 = Vector(repeating: bias[2]), a3 = Vector(repeating: bias[3])
        var a4 = Vector(repeating: bias[4]), a5 = Vector(repeating: bias[5])
        var a6 = Vector(repeating: bias[6]), a7 = Vector(repeating: bias[7])
        forEachKernelRow(cin: cin, ky0: ky0, ky1: ky1, weight: weight, source: source) { tap in
            tap(&a0, 0); tap(&a1, 1); tap(&a2, 2); tap(&a3, 3)
            tap(&a4, 4); tap(&a5, 5); tap(&a6, 6); tap(&a7, 7)
        }
        store(a0, 0); store(a1, 1); store(a2, 2); store(a3, 3)
        store(a4, 4); store(a5, 5); store(a6, 6); store(a7, 7)
    }

    /// Four output channels of one vector.
    @inline(__always)
    static func block4(cin: Int, ky0: Int, ky1: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                       source: (Int, Int) -> UnsafePointer<Float>, store: (Vector, Int) -> Void) {
        var a0 = Vector(repeating: bias[0]), a1 = Vector(repeating: bias[1])
        var a2 = Vector(repeating: bias[2]), a3 = Vector(repeating: bias[3])
        forEachKernelRow(cin: cin, ky0: ky0, ky1: ky1, weight: weight, source: source) { tap in
            tap(&a0, 0); tap(&a1, 1); tap(&a2, 2); tap(&a3, 3)
        }
        store(a0, 0); store(a1, 1); store(a2, 2); store(a3, 3)
    }

    /// For each input channel and kernel row inside the image: loads the row's three shifted vectors once and
    /// hands `body` a `tap(&acc, k)` that adds output channel k's three products for them to `acc`.
    @inline(__always)
    static func forEachKernelRow(cin: Int, ky0: Int, ky1: Int, weight: UnsafePointer<Float>,
                                 source: (Int, Int) -> UnsafePointer<Float>,
                                 _ body: ((inout Vector, Int) -> Void) -> Void) {
        let s = cin * 9  // between output channels' weights
        for ci in 0..<cin {
            for ky in ky0..<ky1 {
                let row = source(ci, ky), wp = weight + ci * 9 + ky * 3
                let l = SIMDKernels.load(row), c = SIMDKernels.load(row + 1), r = SIMDKernels.load(row + 2)
                body { acc, k in
                    let q = wp + k * s
                    acc = SIMDKernels.multiplyAdd(Vector(repeating: q[0]), l, acc)
                    acc = SIMDKernels.multiplyAdd(Vector(repeating: q[1]), c, acc)
                    acc = SIMDKernels.multiplyAdd(Vector(repeating: q[2]), r, acc)
                }
            }
        }
    }

    /// One output channel of one vector: the three kernel columns and even/odd input channels in separate
    /// partial sums, so six multiply-add chains run side by side instead of one waiting on the last.
    @inline(__always)
    static func single(cin: Int, ky0: Int, ky1: Int, weight: UnsafePointer<Float>, bias: Float,
                       source: (Int, Int) -> UnsafePointer<Float>) -> Vector {
        let zero = Vector(repeating: 0)
        var l0 = zero, c0 = zero, r0 = zero, l1 = zero, c1 = zero, r1 = zero
        var ci = 0
        while ci + 2 <= cin {
            for ky in ky0..<ky1 {
                let p = source(ci, ky), q = source(ci + 1, ky)
                let wp = weight + ci * 9 + ky * 3, wq = wp + 9
                l0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[0]), SIMDKernels.load(p), l0)
                c0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[1]), SIMDKernels.load(p + 1), c0)
                r0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[2]), SIMDKernels.load(p + 2), r0)
                l1 = SIMDKernels.multiplyAdd(Vector(repeating: wq[0]), SIMDKernels.load(q), l1)
                c1 = SIMDKernels.multiplyAdd(Vector(repeating: wq[1]), SIMDKernels.load(q + 1), c1)
                r1 = SIMDKernels.multiplyAdd(Vector(repeating: wq[2]), SIMDKernels.load(q + 2), r1)
            }
            ci += 2
        }
        if ci < cin {
            for ky in ky0..<ky1 {
                let p = source(ci, ky), wp = weight + ci * 9 + ky * 3
                l0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[0]), SIMDKernels.load(p), l0)
                c0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[1]), SIMDKernels.load(p + 1), c0)
                r0 = SIMDKernels.multiplyAdd(Vector(repeating: wp[2]), SIMDKernels.load(p + 2), r0)
            }
        }
        return Vector(repeating: bias) + ((l0 + l1) + (c0 + c1) + (r0 + r1))
    }
}
