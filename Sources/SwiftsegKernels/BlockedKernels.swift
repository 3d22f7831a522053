/// Kernels on channel-blocked maps, the layout a classifier's small maps run in (EfficientNet's 14×14 and 7×7
/// blocks): channels in blocks of 16, each block pixel-major, so one vector holds one pixel's 16 channels —
/// element (c, p) of a `C × H·W` map at `(c / 16) · H·W · 16 + p · 16 + c % 16` (C a multiple of 16). There the
/// depthwise conv needs no transposes (each tap is one vector multiply-add across 16 channels) and a 1×1 conv
/// no padded pixel columns (a 7×7 map's 49 pixels are 49 broadcasts, not four vectors with 15 lanes unused).
/// Each kernel forms the same multiply-adds in the same order as its planar counterpart (the packed GEMM,
/// ``DepthwiseConvKernels/channelBlock``), so in the FMA builds the bytes are the same (a test checks).
public enum BlockedKernels {
    typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width

    /// Pixels of one 1×1 register block: 12 sums with 32 vector registers (AVX-512), 6 with 16.
    #if SWIFTSEG_32_REGISTERS
    static let pixelBlock = 12
    #else
    static let pixelBlock = 6
    #endif

    /// Floats a blocked map must stay readable past its last pixel: a 1×1 register block reads whole blocks of
    /// pixels (its unused sums are dropped).
    public static let slackFloats = 12 * 16

    /// A 1×1 conv, blocked in and out, for output channel blocks `blocks` (of 16): `output[co][p] =
    /// epilogue(bias[co] + Σ_ci weight[co][ci] · input[ci][p])`, the sum in ci order. `weight` is the conv's
    /// matrix packed in row blocks of 16 (`WinogradKernels.packGEMMRows(…, rowBlock: 16, …)`: block b at
    /// `b · 16 · k`, column by column, so input channel ci's 16 weights are one vector). The residual, if any,
    /// is blocked like the output. `inChannels` is a multiple of 16; `input` readable ``slackFloats`` past its end.
    @inline(never)
    public static func pointwise(input: UnsafePointer<Float>, pixels hw: Int, inChannels k: Int,
                                 weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 output: UnsafeMutablePointer<Float>, blocks: Range<Int>, epilogue: KernelEpilogue) {
        @inline(__always) func run<A: VectorActivation, R: ResidualChoice>(_: A.Type, _: R.Type) {
            let residual = epilogue.residual ?? UnsafePointer(output)
            var b = blocks.lowerBound
            #if SWIFTSEG_32_REGISTERS
            // two channel blocks at a time, 8 pixels: each broadcast feeds two multiply-adds (the GEMM's 8 × 32)
            while b + 2 <= blocks.upperBound {
                let w = weight + b * width * k, bias = bias + b * width
                let out = output + b * hw * width, res = residual + b * hw * width
                var p0 = 0
                while p0 < hw {
                    pointwisePair(input + p0 * width, hw, k, w, w + width * k, SIMDKernels.load(bias),
                                  SIMDKernels.load(bias + width), out + p0 * width, res + p0 * width,
                                  Swift.min(8, hw - p0), A.self, R.self)
                    p0 += 8
                }
                b += 2
            }
            #endif
            while b < blocks.upperBound {
                let w = weight + b * width * k, bv = SIMDKernels.load(bias + b * width)
                let out = output + b * hw * width, res = residual + b * hw * width
                var p0 = 0
                while p0 < hw {
                    pointwiseBlock(input + p0 * width, hw, k, w, bv, out + p0 * width, res + p0 * width,
                                   Swift.min(pixelBlock, hw - p0), A.self, R.self)
                    p0 += pixelBlock
                }
                b += 1
            }
        }
        switch (epilogue.activation, epilogue.residual != nil) {
        case (.none, false): run(Identity.self, NoResidual.self)
        case (.none, true): run(Identity.self, WithResidual.self)
        case (.relu, false): run(ReLU.self, NoResidual.self)
        case (.relu, true): run(ReLU.self, WithResidual.self)
        case (.relu6, false): run(ReLU6.self, NoResidual.self)
        case (.relu6, true): run(ReLU6.self, WithResidual.self)
        }
    }

    /// `count` (≤ ``pixelBlock``) pixels from `x` (pixel p0 of input channel block 0) of one output channel block.
    @inline(__always)
    static func pointwiseBlock<A: VectorActivation, R: ResidualChoice>(
        _ x: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ w: UnsafePointer<Float>, _ bias: Vector,
        _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>, _ count: Int, _: A.Type, _: R.Type
    ) {
        let zero = Vector(repeating: 0)
        var s0 = zero, s1 = zero, s2 = zero, s3 = zero, s4 = zero, s5 = zero
        #if SWIFTSEG_32_REGISTERS
        var s6 = zero, s7 = zero, s8 = zero, s9 = zero, s10 = zero, s11 = zero
        #endif
        var wp = w
        for c16 in 0..<(k / width) {
            let xb = x + c16 &* hw &* width
            for l in 0..<width {
                let wv = SIMDKernels.load(wp)
                @inline(__always) func term(_ i: Int) -> Vector { Vector(repeating: xb[i &* width &+ l]) }
                s0 = SIMDKernels.multiplyAdd(term(0), wv, s0)
                s1 = SIMDKernels.multiplyAdd(term(1), wv, s1)
                s2 = SIMDKernels.multiplyAdd(term(2), wv, s2)
                s3 = SIMDKernels.multiplyAdd(term(3), wv, s3)
                s4 = SIMDKernels.multiplyAdd(term(4), wv, s4)
                s5 = SIMDKernels.multiplyAdd(term(5), wv, s5)
                #if SWIFTSEG_32_REGISTERS
                s6 = SIMDKernels.multiplyAdd(term(6), wv, s6)
                s7 = SIMDKernels.multiplyAdd(term(7), wv, s7)
                s8 = SIMDKernels.multiplyAdd(term(8), wv, s8)
                s9 = SIMDKernels.multiplyAdd(term(9), wv, s9)
                s10 = SIMDKernels.multiplyAdd(term(10), wv, s10)
                s11 = SIMDKernels.multiplyAdd(term(11), wv, s11)
                #endif
                wp += width
            }
        }
        @inline(__always) func put(_ s: Vector, _ i: Int) {
            guard i < count else { return }
            let activated = A.apply(s + bias), p = out + i * width
            SIMDKernels.store(R.adds ? activated + SIMDKernels.load(residual + i * width) : activated, p)
        }
        put(s0, 0); put(s1, 1); put(s2, 2); put(s3, 3); put(s4, 4); put(s5, 5)
        #if SWIFTSEG_32_REGISTERS
        put(s6, 6); put(s7, 7); put(s8, 8); put(s9, 9); put(s10, 10); put(s11, 11)
        #endif
    }

    #if SWIFTSEG_32_REGISTERS
    /// `count` (≤ 8) pixels of two output channel blocks (weights `w0`, `w1`; outputs and residual `hw · 16`
    /// floats apart): 16 sums.
    @inline(__always)
    static func pointwisePair<A: VectorActivation, R: ResidualChoice>(
        _ x: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ w0: UnsafePointer<Float>, _ w1: UnsafePointer<Float>,
        _ bias0: Vector, _ bias1: Vector, _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>,
        _ count: Int, _: A.Type, _: R.Type
    ) {
        let zero = Vector(repeating: 0)
        var a0 = zero, a1 = zero, a2 = zero, a3 = zero, a4 = zero, a5 = zero, a6 = zero, a7 = zero
        var b0 = zero, b1 = zero, b2 = zero, b3 = zero, b4 = zero, b5 = zero, b6 = zero, b7 = zero
        var p = w0, q = w1
        for c16 in 0..<(k / width) {
            let xb = x + c16 &* hw &* width
            for l in 0..<width {
                let u = SIMDKernels.load(p), v = SIMDKernels.load(q)
                @inline(__always) func term(_ i: Int) -> Vector { Vector(repeating: xb[i &* width &+ l]) }
                var t = term(0); a0 = SIMDKernels.multiplyAdd(t, u, a0); b0 = SIMDKernels.multiplyAdd(t, v, b0)
                t = term(1); a1 = SIMDKernels.multiplyAdd(t, u, a1); b1 = SIMDKernels.multiplyAdd(t, v, b1)
                t = term(2); a2 = SIMDKernels.multiplyAdd(t, u, a2); b2 = SIMDKernels.multiplyAdd(t, v, b2)
                t = term(3); a3 = SIMDKernels.multiplyAdd(t, u, a3); b3 = SIMDKernels.multiplyAdd(t, v, b3)
                t = term(4); a4 = SIMDKernels.multiplyAdd(t, u, a4); b4 = SIMDKernels.multiplyAdd(t, v, b4)
                t = term(5); a5 = SIMDKernels.multiplyAdd(t, u, a5); b5 = SIMDKernels.multiplyAdd(t, v, b5)
                t = term(6); a6 = SIMDKernels.multiplyAdd(t, u, a6); b6 = SIMDKernels.multiplyAdd(t, v, b6)
                t = term(7); a7 = SIMDKernels.multiplyAdd(t, u, a7); b7 = SIMDKernels.multiplyAdd(t, v, b7)
                p += width; q += width
            }
        }
        let second = hw * width
        @inline(__always) func put(_ s: Vector, _ t: Vector, _ i: Int) {
            guard i < count else { return }
            let first = A.apply(s + bias0), other = A.apply(t + bias1), o = out + i * width, r = residual + i * width
            SIMDKernels.store(R.adds ? first + SIMDKernels.load(r) : first, o)
            SIMDKernels.store(R.adds ? other + SIMDKernels.load(r + second) : other, o + second)
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3)
        put(a4, b4, 4); put(a5, b5, 5); put(a6, b6, 6); put(a7, b7, 7)
    }
    #endif

    /// Floats of scratch ``depthwise`` needs (the caller's buffer need not be aligned).
    public static func depthwiseScratchFloats(kernelSize k: Int, stride s: Int, outHeight: Int, outWidth: Int) -> Int {
        let tileHeight = (outHeight - 1) * s + k, tileWidth = (outWidth - 1) * s + k
        return (tileHeight * tileWidth + k * k) * width + 2 * width
    }

    /// One channel block (16 channels) of a depthwise conv, blocked in and out: the input block's `height ×
    /// width` pixel vectors into a zero-padded tile, then each output row's pixels summed in registers through
    /// the k² taps in raster order (``DepthwiseConvKernels/accumulate``), activated and stored; `weight` is the 16
    /// channels' k² taps each (channel-major, as the conv holds them), `bias` their 16 biases.
    @inline(never)
    public static func depthwise(input: UnsafePointer<Float>, height h: Int, width w: Int, weight: UnsafePointer<Float>,
                                 bias: UnsafePointer<Float>, kernelSize k: Int, stride s: Int, padTop: Int,
                                 padLeft: Int, output: UnsafeMutablePointer<Float>, outHeight oh: Int,
                                 outWidth ow: Int, activation: KernelEpilogue.Activation,
                                 scratch: UnsafeMutablePointer<Float>) {
        switch activation {
        case .none: depthwiseBody(input, h, w, weight, bias, k, s, padTop, padLeft, output, oh, ow, Identity.self, scratch)
        case .relu: depthwiseBody(input, h, w, weight, bias, k, s, padTop, padLeft, output, oh, ow, ReLU.self, scratch)
        case .relu6: depthwiseBody(input, h, w, weight, bias, k, s, padTop, padLeft, output, oh, ow, ReLU6.self, scratch)
        }
    }

    @inline(__always)
    static func depthwiseBody<A: VectorActivation>(_ input: UnsafePointer<Float>, _ h: Int, _ w: Int,
                                                   _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                                   _ k: Int, _ s: Int, _ padTop: Int, _ padLeft: Int,
                                                   _ output: UnsafeMutablePointer<Float>, _ oh: Int, _ ow: Int,
                                                   _: A.Type, _ scratch: UnsafeMutablePointer<Float>) {
        let tileHeight = (oh - 1) * s + k, tileWidth = (ow - 1) * s + k, rowFloats = tileWidth * width
        let tile = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: depthwiseScratchFloats(kernelSize: k, stride: s, outHeight: oh, outWidth: ow))
        let taps = tile + tileHeight * rowFloats
        // Tile row r, column c hold input row r − padTop, column c − padLeft (zero outside the input).
        let rows = Swift.max(0, -padTop)..<Swift.min(h, tileHeight - padTop)
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, tileWidth - padLeft)
        for r in 0..<tileHeight where !rows.contains(r - padTop) { (tile + r * rowFloats).update(repeating: 0, count: rowFloats) }
        for y in rows {
            let row = tile + (y + padTop) * rowFloats
            row.update(repeating: 0, count: (padLeft + columns.lowerBound) * width)
            (row + (padLeft + columns.lowerBound) * width).update(from: input + (y * w + columns.lowerBound) * width,
                                                                  count: columns.count * width)
            let right = padLeft + columns.upperBound
            (row + right * width).update(repeating: 0, count: (tileWidth - right) * width)
        }
        DepthwiseConvKernels.gatherTaps(weight, kernelSize: k, into: taps)
        DepthwiseConvKernels.accumulateRows(tile, tileWidth: tileWidth, stride: s, kernelSize: k, taps: taps,
                                            bias: SIMDKernels.load(bias), outHeight: oh, outWidth: ow, into: output, A.self)
    }

    /// Planes (`channels × pixels`, channel c at `planes + c · pixels`) → blocked, 16 pixels of a channel block
    /// at a time through ``DepthwiseConvKernels/transpose16(_:)``; `scratch` holds 16 vectors.
    public static func block(_ planes: UnsafePointer<Float>, channels: Int, pixels hw: Int,
                             into blocked: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let staging = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Float.self, capacity: width * width)
        for b in 0..<(channels / width) {
            var p0 = 0
            while p0 < hw {
                let count = Swift.min(width, hw - p0)
                for c in 0..<width {
                    (staging + c * width).update(from: planes + (b * width + c) * hw + p0, count: count)
                    (staging + c * width + count).update(repeating: 0, count: width - count)
                }
                staging.withMemoryRebound(to: Vector.self, capacity: width) { DepthwiseConvKernels.transpose16($0) }
                (blocked + (b * hw + p0) * width).update(from: staging, count: count * width)
                p0 += width
            }
        }
    }

    /// Blocked → planes, the inverse of ``block(_:channels:pixels:into:scratch:)``.
    public static func unblock(_ blocked: UnsafePointer<Float>, channels: Int, pixels hw: Int,
                               into planes: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let staging = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Float.self, capacity: width * width)
        for b in 0..<(channels / width) {
            var p0 = 0
            while p0 < hw {
                let count = Swift.min(width, hw - p0)
                staging.update(from: blocked + (b * hw + p0) * width, count: count * width)
                (staging + count * width).update(repeating: 0, count: (width - count) * width)
                staging.withMemoryRebound(to: Vector.self, capacity: width) { DepthwiseConvKernels.transpose16($0) }
                for c in 0..<width { (planes + (b * width + c) * hw + p0).update(from: staging + c * width, count: count) }
                p0 += width
            }
        }
    }
}
