import _CKernelSupport

/// Kernels on channel-blocked maps, the layout a classifier runs in from its stem to its head: channels in
/// blocks of 16, each block pixel-major, so one vector holds one pixel's 16 channels — element (c, p) of a
/// `C × H·W` map at `(c / 16) · H·W · 16 + p · 16 + c % 16`; a last block of fewer channels is padded with zero
/// lanes (24 channels take two blocks). There the depthwise conv needs no transposes or parity splits (each tap
/// is one vector multiply-add across 16 channels, stride 2 a step of two vectors) and a 1×1 conv no padded
/// pixel columns (a 7×7 map's 49 pixels are 49 broadcasts, not four vectors with 15 lanes unused). Each kernel
/// forms the same multiply-adds in the same order as its planar counterpart (the packed GEMM,
/// ``DepthwiseConvKernels/channelBlock`` on rows of up to 16 pixels, ``DepthwiseConvKernels/channelRows`` on
/// wider ones), so in the FMA builds the bytes are the same (a test checks).
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

    /// Input channels the 1×1 kernel sums over before it moves to the next pixels: the weights of the blocks it
    /// sums at once for them (three blocks: 24 KB) stay in L1 while every pixel of the task reads them. The sums of a chunk wait in the
    /// output for the next one (stored and reloaded as they are, so the order and the bytes do not change).
    static let reductionChunk = 128

    /// Channel blocks of a map of `channels` channels (the last one padded with zero lanes).
    public static func blocks(channels: Int) -> Int { (channels + width - 1) / width }

    /// A 1×1 conv, blocked in and out, for output channel blocks `blocks` (of 16) and pixels `pixels`:
    /// `output[co][p] = epilogue(bias[co] + Σ_ci weight[co][ci] · input[ci][p])`, the sum in ci order. `weight` is
    /// the conv's matrix packed in row blocks of 16, the last one padded with zero rows (block b at `b · 16 · k`,
    /// column by column, so input channel ci's 16 weights are one vector), `bias` padded alike, so a padded
    /// output lane is zero (plus the residual's, zero too). The residual, if any, is blocked like the output.
    /// `input` is read `inChannels` lanes deep (any count) and ``slackFloats`` past its end.
    ///
    /// With `scratch` (``pointwiseScratchFloats(pixels:inChannels:)`` floats, any alignment), inputs that are
    /// zero on every pixel of a group of 7 or 8 (6 in the 16-register builds) are skipped, when enough are
    /// (``nonzeroMasks`` and ``NonzeroInputs``; ``nonzeroLists``): after a ReLU6 most of a photo's are. A skipped
    /// term is `0 · w`, so each sum is the same but for the sign of an exact zero. In the 32-register build a
    /// task of one block sums every input.
    @inline(never)
    public static func pointwise(input: UnsafePointer<Float>, pixels hw: Int, inChannels k: Int,
                                 weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, outChannels: Int,
                                 output: UnsafeMutablePointer<Float>, blocks: Range<Int>, pixels range: Range<Int>,
                                 epilogue: KernelEpilogue, scratch: UnsafeMutablePointer<Float>?) {
        // a last block of at most 8 channels (24 and 40 outputs) summed 8 lanes wide
        let half = blocks.upperBound == Self.blocks(channels: outChannels) && (1...width / 2).contains(outChannels % width)
        @inline(__always) func body<A: VectorActivation, R: ResidualChoice>(_: A.Type, _: R.Type) {
            pointwiseBody(input, hw, k, weight, bias, output, hw, blocks, range, epilogue, A.self, R.self, halfLast: half,
                          skipScratch: scratch)
        }
        switch (epilogue.activation, epilogue.residual != nil) {
        case (.none, false): body(Identity.self, NoResidual.self)
        case (.none, true): body(Identity.self, WithResidual.self)
        case (.relu, false): body(ReLU.self, NoResidual.self)
        case (.relu, true): body(ReLU.self, WithResidual.self)
        case (.relu6, false): body(ReLU6.self, NoResidual.self)
        case (.relu6, true): body(ReLU6.self, WithResidual.self)
        }
    }

    /// Floats of the scratch with which ``pointwise`` skips zero inputs on `pixels` pixels: a 16-bit mask
    /// per input channel block and group of 7 pixels (8-pixel groups need fewer); in the 16-register builds,
    /// groups of 6, their masks and lists (``nonzeroLists``).
    public static func pointwiseScratchFloats(pixels: Int, inChannels k: Int) -> Int {
        #if SWIFTSEG_32_REGISTERS
        ((pixels + 6) / 7 * blocks(channels: k) + 1) / 2
        #else
        (listsBytes(groups: (pixels + pixelBlock - 1) / pixelBlock, inChannels: k)
            + (pixels + pixelBlock - 1) / pixelBlock * blocks(channels: k) * 2 + 1 + 3) / 4   // + the masks' alignment
        #endif
    }

    /// Fills `masks` (group-major: group g's block c16 at `g · blocks(k) + c16`) with the input lanes that are
    /// nonzero on any pixel of each group of `group` pixels of `range`, and returns how many are zero: too few,
    /// and the skipping costs more than the multiply-adds it saves (an expansion's inputs, a block's output plus
    /// its input, are dense; a photo's projections skip 15–70 %; measured in PERF.md).
    @inline(__always)
    static func nonzeroMasks(_ input: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ range: Range<Int>, group: Int,
                             into masks: UnsafeMutablePointer<UInt16>) -> Int {
        let kb = blocks(channels: k)
        var zeros = 0, g = 0, p0 = range.lowerBound
        while p0 < range.upperBound {
            let count = Swift.min(group, range.upperBound - p0)
            for c16 in 0..<kb {
                let lanes = Swift.min(width, k - c16 * width)
                let mask = swiftseg_nonzero_lanes16(input + c16 * hw * width + p0 * width, count, width)
                    & UInt16(truncatingIfNeeded: (1 << lanes) - 1)
                masks[g * kb + c16] = mask
                zeros += lanes - mask.nonzeroBitCount
            }
            g += 1
            p0 += group
        }
        return zeros
    }

    #if !SWIFTSEG_32_REGISTERS
    /// Bytes of ``nonzeroLists``'s lists: a count per group and chunk, a byte per group and input, and the 8
    /// a last group's store of 8 entries writes past them.
    static func listsBytes(groups: Int, inChannels k: Int) -> Int {
        groups * ((k + reductionChunk - 1) / reductionChunk + k) + 8
    }

    /// The positions of the set bits of a byte, lowest first, one a byte (the rest zero): a mask's 8 lanes
    /// turned into list entries with one store. Made once, never written after (so shared unguarded).
    nonisolated(unsafe) static let setBitPositions: UnsafePointer<UInt64> = {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        for byte in 0..<256 {
            var positions: UInt64 = 0, n = 0
            for bit in 0..<8 where byte >> bit & 1 == 1 {
                positions |= UInt64(bit) << (8 * n)
                n += 1
            }
            table[byte] = positions
        }
        return UnsafePointer(table)
    }()

    /// For each group of ``pixelBlock`` pixels of `range` and each ``reductionChunk`` of inputs, the inputs
    /// nonzero on some pixel of the group, as a list (chunk-relative indices, ascending; group g's count for
    /// the chunk at c0 at `lists[g · chunks + c0 / reductionChunk]`, its entries from `lists + groups · chunks +
    /// g · k + c0`), when the `readers` output blocks that will read them skip enough to pay for making them:
    /// the zero fraction times `readers` at least 1 (on a Zen 1, 0.2 of the inputs zero lost 4 % with two
    /// readers and gained 2 % with five; PERF.md); nil otherwise. The 16-register builds sum one output block
    /// at a time, so lists (made once, read by each block of the task) rather than the masks: a list's loop
    /// exits once a chunk, a mask's once each 16 inputs, mispredicted.
    @inline(__always)
    static func nonzeroLists(_ input: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ range: Range<Int>, readers: Int,
                             scratch: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<UInt8>? {
        let kb = blocks(channels: k), chunks = (k + reductionChunk - 1) / reductionChunk
        let groups = (range.count + pixelBlock - 1) / pixelBlock, bytes = listsBytes(groups: groups, inChannels: k)
        let lists = UnsafeMutableRawPointer(scratch).bindMemory(to: UInt8.self, capacity: bytes)
        let masks = UnsafeMutableRawPointer(lists + bytes).alignedUp(for: UInt16.self)
            .bindMemory(to: UInt16.self, capacity: groups * kb)
        guard nonzeroMasks(input, hw, k, range, group: pixelBlock, into: masks) * readers >= groups * k else { return nil }
        let positions = setBitPositions, entries = UnsafeMutableRawPointer(lists + groups * chunks)
        for g in 0..<groups {
            for chunk in 0..<chunks {
                let c0 = chunk * reductionChunk
                var n = 0
                for c16 in (c0 / width)..<Swift.min(kb, (c0 + reductionChunk) / width) {
                    let mask = Int(masks[g * kb + c16]), low = mask & 0xff, high = mask >> 8
                    // a byte's positions plus the lane's base in each byte (at most 127 + 7: no carries)
                    let base = UInt64(c16 * width - c0) &* 0x0101_0101_0101_0101
                    entries.storeBytes(of: positions[low] &+ base, toByteOffset: g * k + c0 + n, as: UInt64.self)
                    n += low.nonzeroBitCount
                    entries.storeBytes(of: positions[high] &+ base &+ 0x0808_0808_0808_0808, toByteOffset: g * k + c0 + n,
                                       as: UInt64.self)
                    n += high.nonzeroBitCount
                }
                lists[g * chunks + chunk] = UInt8(truncatingIfNeeded: n)
            }
        }
        return lists
    }
    #endif

    /// ``pointwise``, its output (and residual) blocks `outPlane` pixels apart instead of the input's `hw`.
    @inline(__always)
    static func pointwiseBody<A: VectorActivation, R: ResidualChoice>(
        _ input: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
        _ output: UnsafeMutablePointer<Float>, _ outPlane: Int, _ blocks: Range<Int>, _ range: Range<Int>,
        _ epilogue: KernelEpilogue, _: A.Type, _: R.Type, halfLast: Bool = false,
        skipScratch: UnsafeMutablePointer<Float>? = nil
    ) {
        let residual = epilogue.residual ?? UnsafePointer(output)
        var b = blocks.lowerBound
        #if SWIFTSEG_32_REGISTERS
        let sevens = (range.count + 6) / 7 * 7 < (range.count + 7) / 8 * 8, groupPixels = sevens ? 7 : 8
        let kb = Self.blocks(channels: k)
        // a let: a var captured by the nested functions below would be boxed on the heap
        let masks: UnsafeMutablePointer<UInt16>? = skipScratch.flatMap { scratch in
            guard blocks.count >= 2 else { return nil }
            let m = UnsafeMutableRawPointer(scratch).bindMemory(to: UInt16.self, capacity: (range.count + 6) / 7 * kb)
            let zeros = nonzeroMasks(input, hw, k, range, group: groupPixels, into: m)
            return zeros * 8 >= (range.count + groupPixels - 1) / groupPixels * k ? m : nil   // an eighth
        }
        // three channel blocks at a time (two for the last two or four), 8 pixels: each broadcast feeds three
        // multiply-adds, 24 sums in 32 registers (two blocks, the GEMM's 8 × 32, left the 1×1s 2 % slower);
        // 7 pixels where that leaves fewer lanes unused (a 7×7 map's 49 pixels: 56 lanes of work in groups of
        // 8, 49 in groups of 7)
        @inline(__always) func group<G: BlockGroup, P: PixelGroup, B: BlockLanes, C: BlockLanes, I: InputLanes>(
            _ g: G.Type, _: P.Type, _: B.Type, _: C.Type, _: I.Type, _ b: Int) {
            let w = weight + b * width * k, bias = bias + b * width
            let out = output + b * outPlane * width, res = residual + b * outPlane * width
            var c0 = 0
            while c0 < k {
                let c1 = Swift.min(k, c0 + reductionChunk), x = input + c0 * hw, wc = w + c0 * width
                var p0 = range.lowerBound, m = UnsafePointer(masks) ?? UnsafePointer(bitPattern: 2)!
                if masks != nil { m += c0 / width }
                while p0 < range.upperBound {
                    pointwiseGroup(g, P.self, B.self, C.self, I.self, x + p0 * width, hw, outPlane, c1 - c0, k, wc, bias,
                                   out + p0 * width, res + p0 * width, Swift.min(P.count, range.upperBound - p0),
                                   first: c0 == 0, last: c1 == k, m, A.self, R.self)
                    p0 += P.count
                    if masks != nil { m += kb }
                }
                c0 = c1
            }
        }
        @inline(__always) func group<I: InputLanes>(_: I.Type, three: Bool, half: Bool, _ b: Int) {
            switch (three, sevens, half) {
            case (false, false, false): group(TwoBlocks.self, EightPixels.self, AllLanes.self, AllLanes.self, I.self, b)
            case (false, true, false): group(TwoBlocks.self, SevenPixels.self, AllLanes.self, AllLanes.self, I.self, b)
            case (true, false, false): group(ThreeBlocks.self, EightPixels.self, AllLanes.self, AllLanes.self, I.self, b)
            case (true, true, false): group(ThreeBlocks.self, SevenPixels.self, AllLanes.self, AllLanes.self, I.self, b)
            case (false, false, true): group(TwoBlocks.self, EightPixels.self, LowLanes.self, AllLanes.self, I.self, b)
            case (false, true, true): group(TwoBlocks.self, SevenPixels.self, LowLanes.self, AllLanes.self, I.self, b)
            case (true, false, true): group(ThreeBlocks.self, EightPixels.self, AllLanes.self, LowLanes.self, I.self, b)
            case (true, true, true): group(ThreeBlocks.self, SevenPixels.self, AllLanes.self, LowLanes.self, I.self, b)
            }
        }
        while b + 2 <= blocks.upperBound {
            let left = blocks.upperBound - b, three = left != 2 && left != 4
            let half = halfLast && b + (three ? 3 : 2) == blocks.upperBound
            if masks != nil { group(NonzeroInputs.self, three: three, half: half, b) }
            else { group(EveryInput.self, three: three, half: half, b) }
            b += three ? 3 : 2
        }
        let lists: UnsafeMutablePointer<UInt8>? = nil
        #else
        // with one or two readers half the inputs or more must be zero, which a photo's projections rarely are
        // (their 56×56 ones 9–22 %): not worth even the masks
        let lists = blocks.count < 3 ? nil : skipScratch.flatMap { scratch in
            nonzeroLists(input, hw, k, range, readers: blocks.count, scratch: scratch)
        }
        #endif
        let groups = (range.count + pixelBlock - 1) / pixelBlock, chunks = (k + reductionChunk - 1) / reductionChunk
        while b < blocks.upperBound {
            #if !SWIFTSEG_32_REGISTERS
            if halfLast && lists == nil && b + 2 == blocks.upperBound {
                // a block and the last one's 8 real channels (24, 40 outputs) at once: 24 lanes of work, not 32
                let out = output + b * outPlane * width, res = residual + b * outPlane * width
                var c0 = 0
                while c0 < k {
                    let c1 = Swift.min(k, c0 + reductionChunk)
                    var p0 = range.lowerBound
                    while p0 < range.upperBound {
                        pointwiseBlockAndHalf(input + c0 * hw + p0 * width, hw, c1 - c0, weight + (b * k + c0) * width,
                                              weight + ((b + 1) * k + c0) * width, bias + b * width,
                                              out + p0 * width, out + (outPlane + p0) * width,
                                              res + p0 * width, res + (outPlane + p0) * width,
                                              Swift.min(blockAndHalfPixels, range.upperBound - p0),
                                              first: c0 == 0, last: c1 == k, A.self, R.self)
                        p0 += blockAndHalfPixels
                    }
                    c0 = c1
                }
                return
            }
            #endif
            let w = weight + b * width * k, bv = SIMDKernels.load(bias + b * width)
            let out = output + b * outPlane * width, res = residual + b * outPlane * width
            var c0 = 0
            while c0 < k {
                let c1 = Swift.min(k, c0 + reductionChunk), x = input + c0 * hw, wc = w + c0 * width
                var p0 = range.lowerBound, g = 0
                while p0 < range.upperBound {
                    let entries = lists.map { UnsafePointer($0 + groups * chunks + g * k + c0) }
                    let listed = lists.map { Int($0[g * chunks + c0 / reductionChunk]) } ?? 0
                    pointwiseBlock(x + p0 * width, hw, c1 - c0, wc, bv, out + p0 * width, res + p0 * width,
                                   Swift.min(pixelBlock, range.upperBound - p0), first: c0 == 0, last: c1 == k,
                                   entries, listed, A.self, R.self)
                    p0 += pixelBlock
                    g += 1
                }
                c0 = c1
            }
            b += 1
        }
    }

    /// `count` (≤ ``pixelBlock``) pixels from `x` (pixel p0 of input channel block 0) of one output channel block:
    /// every input, or with `entries` only the `listed` inputs it names (``nonzeroLists``), in the same order.
    @inline(__always)
    static func pointwiseBlock<A: VectorActivation, R: ResidualChoice>(
        _ x: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ w: UnsafePointer<Float>, _ bias: Vector,
        _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>, _ count: Int, first: Bool, last: Bool,
        _ entries: UnsafePointer<UInt8>?, _ listed: Int, _: A.Type, _: R.Type
    ) {
        @inline(__always) func start(_ i: Int) -> Vector {
            first || i >= count ? Vector(repeating: 0) : SIMDKernels.load(out + i * width)
        }
        var s0 = start(0), s1 = start(1), s2 = start(2), s3 = start(3), s4 = start(4), s5 = start(5)
        #if SWIFTSEG_32_REGISTERS
        var s6 = start(6), s7 = start(7), s8 = start(8), s9 = start(9), s10 = start(10), s11 = start(11)
        #endif
        // input lane `xl` (its pixel 0) times weight vector `wv`, into each pixel's sums
        @inline(__always) func lane(_ xl: UnsafePointer<Float>, _ wv: Vector) {
            @inline(__always) func term(_ i: Int) -> Vector { Vector(repeating: xl[i &* width]) }
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
        }
        if let entries {
            let plane = hw &* width
            for j in 0..<listed {
                let ci = Int(truncatingIfNeeded: entries[j])   // block ci / 16, lane ci % 16
                let offset: Int = (ci &>> 4) &* plane &+ (ci & 15)
                lane(x + offset, SIMDKernels.load(w + ci &* width))
            }
        } else {
            var wp = w
            for c16 in 0..<blocks(channels: k) {
                let xb = x + c16 &* hw &* width
                for l in 0..<Swift.min(width, k &- c16 &* width) {
                    lane(xb + l, SIMDKernels.load(wp))
                    wp += width
                }
            }
        }
        @inline(__always) func put(_ s: Vector, _ i: Int) {
            guard i < count else { return }
            let p = out + i * width
            guard last else { SIMDKernels.store(s, p); return }
            let activated = A.apply(s + bias)
            SIMDKernels.store(R.adds ? activated + SIMDKernels.load(residual + i * width) : activated, p)
        }
        put(s0, 0); put(s1, 1); put(s2, 2); put(s3, 3); put(s4, 4); put(s5, 5)
        #if SWIFTSEG_32_REGISTERS
        put(s6, 6); put(s7, 7); put(s8, 8); put(s9, 9); put(s10, 10); put(s11, 11)
        #endif
    }

    #if !SWIFTSEG_32_REGISTERS
    /// Pixels ``pointwiseBlockAndHalf`` sums at once: 3 vectors of 8 lanes each, 12 of 16 registers.
    static let blockAndHalfPixels = 4

    /// `count` (≤ ``blockAndHalfPixels``) pixels of an output block (weights `w`, output `out`) and the low 8
    /// lanes of the next, a layer's last, whose other lanes are padding (`wHalf`, `outHalf`; bias `bias` for
    /// both, 32 floats): each broadcast feeds a 16-lane and an 8-lane multiply-add, so the padded lanes cost
    /// nothing; they are stored as zeros. The same sums, input by input, as ``pointwiseBlock``'s.
    @inline(__always)
    static func pointwiseBlockAndHalf<A: VectorActivation, R: ResidualChoice>(
        _ x: UnsafePointer<Float>, _ hw: Int, _ k: Int, _ w: UnsafePointer<Float>, _ wHalf: UnsafePointer<Float>,
        _ bias: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ outHalf: UnsafeMutablePointer<Float>,
        _ residual: UnsafePointer<Float>, _ residualHalf: UnsafePointer<Float>, _ count: Int, first: Bool, last: Bool,
        _: A.Type, _: R.Type
    ) {
        typealias Half = SIMD8<Float>
        @inline(__always) func half(_ p: UnsafePointer<Float>) -> Half { UnsafeRawPointer(p).loadUnaligned(as: Half.self) }
        @inline(__always) func start(_ i: Int) -> Vector {
            first || i >= count ? Vector(repeating: 0) : SIMDKernels.load(out + i * width)
        }
        @inline(__always) func startHalf(_ i: Int) -> Half {
            first || i >= count ? Half(repeating: 0) : half(outHalf + i * width)
        }
        var s0 = start(0), s1 = start(1), s2 = start(2), s3 = start(3)
        var h0 = startHalf(0), h1 = startHalf(1), h2 = startHalf(2), h3 = startHalf(3)
        var wp = w, hp = wHalf
        for c16 in 0..<blocks(channels: k) {
            let xb = x + c16 &* hw &* width
            for l in 0..<Swift.min(width, k &- c16 &* width) {
                let wv = SIMDKernels.load(wp), hv = half(hp), xl = xb + l
                @inline(__always) func term(_ i: Int) -> Float { xl[i &* width] }
                s0 = SIMDKernels.multiplyAdd(Vector(repeating: term(0)), wv, s0)
                h0 = SIMDKernels.multiplyAdd(Half(repeating: term(0)), hv, h0)
                s1 = SIMDKernels.multiplyAdd(Vector(repeating: term(1)), wv, s1)
                h1 = SIMDKernels.multiplyAdd(Half(repeating: term(1)), hv, h1)
                s2 = SIMDKernels.multiplyAdd(Vector(repeating: term(2)), wv, s2)
                h2 = SIMDKernels.multiplyAdd(Half(repeating: term(2)), hv, h2)
                s3 = SIMDKernels.multiplyAdd(Vector(repeating: term(3)), wv, s3)
                h3 = SIMDKernels.multiplyAdd(Half(repeating: term(3)), hv, h3)
                wp += width
                hp += width
            }
        }
        let b = SIMDKernels.load(bias), bh = SIMDKernels.load(bias + width)
        @inline(__always) func put(_ s: Vector, _ h: Half, _ i: Int) {
            guard i < count else { return }
            let p = out + i * width, q = outHalf + i * width
            guard last else {
                SIMDKernels.store(s, p)
                UnsafeMutableRawPointer(q).storeBytes(of: h, as: Half.self)
                return
            }
            let activated = A.apply(s + b)
            SIMDKernels.store(R.adds ? activated + SIMDKernels.load(residual + i * width) : activated, p)
            let lanes = A.apply(Vector(lowHalf: h, highHalf: Half(repeating: 0)) + bh)
            let halfOut = R.adds ? lanes + SIMDKernels.load(residualHalf + i * width) : lanes
            SIMDKernels.store(Vector(lowHalf: halfOut.lowHalf, highHalf: Half(repeating: 0)), q)
        }
        put(s0, h0, 0); put(s1, h1, 1); put(s2, h2, 2); put(s3, h3, 3)
    }
    #endif

    #if SWIFTSEG_32_REGISTERS
    /// `count` (≤ `P.count`, 8 or 7) pixels of two output channel blocks, or three (`G`, `P`: types, so each
    /// specialisation has no test in its loop): weights `w`, `w + 16k`, `w + 32k`; outputs and residual `hw · 16` floats apart; 16 or
    /// 24 sums, each broadcast feeding one multiply-add per block.
    @inline(__always)
    static func pointwiseGroup<G: BlockGroup, P: PixelGroup, B: BlockLanes, C: BlockLanes, I: InputLanes,
                               A: VectorActivation, R: ResidualChoice>(
        _: G.Type, _: P.Type, _: B.Type, _: C.Type, _: I.Type, _ x: UnsafePointer<Float>, _ hw: Int, _ outPlane: Int,
        _ k: Int, _ kStride: Int, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
        _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>, _ count: Int, first: Bool, last: Bool,
        _ masks: UnsafePointer<UInt16>, _: A.Type, _: R.Type
    ) {
        let plane = outPlane * width, three = G.three
        @inline(__always) func start(_ i: Int, _ block: Int) -> Vector {
            first || i >= count || (block == 2 && !three) ? Vector(repeating: 0) : SIMDKernels.load(out + block * plane + i * width)
        }
        @inline(__always) func start<L: BlockLanes>(_: L.Type, _ i: Int, _ block: Int) -> L.Sums {
            first || i >= count || (block == 2 && !three) ? L.Sums(repeating: 0) : L.load(out + block * plane + i * width)
        }
        var a0 = start(0, 0), a1 = start(1, 0), a2 = start(2, 0), a3 = start(3, 0)
        var a4 = start(4, 0), a5 = start(5, 0), a6 = start(6, 0), a7 = start(7, 0)
        var b0 = start(B.self, 0, 1), b1 = start(B.self, 1, 1), b2 = start(B.self, 2, 1), b3 = start(B.self, 3, 1)
        var b4 = start(B.self, 4, 1), b5 = start(B.self, 5, 1), b6 = start(B.self, 6, 1), b7 = start(B.self, 7, 1)
        var c0 = start(C.self, 0, 2), c1 = start(C.self, 1, 2), c2 = start(C.self, 2, 2), c3 = start(C.self, 3, 2)
        var c4 = start(C.self, 4, 2), c5 = start(C.self, 5, 2), c6 = start(C.self, 6, 2), c7 = start(C.self, 7, 2)
        let blockWeights = width * kStride
        for c16 in 0..<blocks(channels: k) {
            let xb = x + c16 &* hw &* width
            for l in I.lanes(c16, k, masks) {
                let p = w + (c16 &* width &+ l) &* width
                let u = SIMDKernels.load(p), v = B.load(p + blockWeights)
                let z = three ? C.load(p + 2 &* blockWeights) : C.Sums(repeating: 0)
                @inline(__always) func step(_ i: Int, _ a: inout Vector, _ b: inout B.Sums, _ c: inout C.Sums) {
                    let t = Vector(repeating: xb[i &* width &+ l])
                    a = SIMDKernels.multiplyAdd(t, u, a)
                    b = SIMDKernels.multiplyAdd(B.narrow(t), v, b)
                    if three { c = SIMDKernels.multiplyAdd(C.narrow(t), z, c) }
                }
                step(0, &a0, &b0, &c0); step(1, &a1, &b1, &c1); step(2, &a2, &b2, &c2); step(3, &a3, &b3, &c3)
                step(4, &a4, &b4, &c4); step(5, &a5, &b5, &c5); step(6, &a6, &b6, &c6)
                if P.count == 8 { step(7, &a7, &b7, &c7) }
            }
        }
        let bias0 = SIMDKernels.load(bias), bias1 = SIMDKernels.load(bias + width)
        let bias2 = three ? SIMDKernels.load(bias + 2 * width) : Vector(repeating: 0)
        @inline(__always) func put(_ s: Vector, _ b: Vector, _ i: Int, _ block: Int) {
            let o = out + block * plane + i * width
            guard last else { SIMDKernels.store(s, o); return }
            let activated = A.apply(s + b)
            SIMDKernels.store(R.adds ? activated + SIMDKernels.load(residual + block * plane + i * width) : activated, o)
        }
        @inline(__always) func put(_ a: Vector, _ b: B.Sums, _ c: C.Sums, _ i: Int) {
            guard i < count else { return }
            put(a, bias0, i, 0)
            put(B.widen(b), bias1, i, 1)
            if three { put(C.widen(c), bias2, i, 2) }
        }
        put(a0, b0, c0, 0); put(a1, b1, c1, 1); put(a2, b2, c2, 2); put(a3, b3, c3, 3)
        put(a4, b4, c4, 4); put(a5, b5, c5, 5); put(a6, b6, c6, 6); put(a7, b7, c7, 7)
    }
    #endif

/// How many output blocks ``BlockedKernels/convGroup`` sums at once.
protocol ConvBlocks { static var two: Bool { get } }
enum OneConvBlock: ConvBlocks { static var two: Bool { false } }
enum TwoConvBlocks: ConvBlocks { static var two: Bool { true } }
/// How many output blocks ``BlockedKernels/pointwiseGroup`` sums at once: a type, like the activation.
protocol BlockGroup { static var three: Bool { get } }
enum TwoBlocks: BlockGroup { static var three: Bool { false } }
enum ThreeBlocks: BlockGroup { static var three: Bool { true } }
/// The lanes ``BlockedKernels/pointwiseGroup`` sums for its second or third block: all 16, or the low 8 of a
/// last block with no more real channels (24 and 40 outputs), 8-lane multiply-adds, which the AVX-512 units of
/// a Zen 4 (two 256-bit halves a 16-lane one) run twice as fast. The high lanes are stored as zeros. The same
/// multiply-adds on each real lane: the same bytes.
protocol BlockLanes {
    associatedtype Sums: SIMD where Sums.Scalar == Float
    static func load(_ p: UnsafePointer<Float>) -> Sums
    static func narrow(_ v: SIMDKernels.Vector) -> Sums
    static func widen(_ s: Sums) -> SIMDKernels.Vector
}
enum AllLanes: BlockLanes {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> SIMDKernels.Vector { SIMDKernels.load(p) }
    @inline(__always) static func narrow(_ v: SIMDKernels.Vector) -> SIMDKernels.Vector { v }
    @inline(__always) static func widen(_ s: SIMDKernels.Vector) -> SIMDKernels.Vector { s }
}
enum LowLanes: BlockLanes {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) static func narrow(_ v: SIMDKernels.Vector) -> SIMD8<Float> { v.lowHalf }
    @inline(__always) static func widen(_ s: SIMD8<Float>) -> SIMDKernels.Vector {
        SIMDKernels.Vector(lowHalf: s, highHalf: SIMD8(repeating: 0))
    }
}
/// Which input lanes of a channel block ``BlockedKernels/pointwiseGroup`` sums over: all of them, or those a
/// mask (``BlockedKernels/nonzeroMasks``) says are nonzero somewhere in the pixel group.
protocol InputLanes {
    associatedtype Lanes: Sequence<Int>
    static func lanes(_ c16: Int, _ k: Int, _ masks: UnsafePointer<UInt16>) -> Lanes
}
enum EveryInput: InputLanes {
    @inline(__always) static func lanes(_ c16: Int, _ k: Int, _: UnsafePointer<UInt16>) -> Range<Int> {
        0..<Swift.min(SIMDKernels.width, k &- c16 &* SIMDKernels.width)
    }
}
enum NonzeroInputs: InputLanes {
    @inline(__always) static func lanes(_ c16: Int, _: Int, _ masks: UnsafePointer<UInt16>) -> SetBits {
        SetBits(bits: UInt32(masks[c16]))
    }
}
/// The set bits of a mask, lowest first.
struct SetBits: Sequence, IteratorProtocol {
    var bits: UInt32
    @inline(__always) mutating func next() -> Int? {
        guard bits != 0 else { return nil }
        let l = bits.trailingZeroBitCount
        bits &= bits &- 1
        return l
    }
}
/// How many pixels ``BlockedKernels/pointwiseGroup`` sums at once.
protocol PixelGroup { static var count: Int { get } }
enum EightPixels: PixelGroup { static var count: Int { 8 } }
enum SevenPixels: PixelGroup { static var count: Int { 7 } }

    /// Floats of scratch ``depthwise`` needs (the caller's buffer need not be aligned): a ring of k zero-padded
    /// input rows, a row of zeros and the tap rows' pointers.
    public static func depthwiseScratchFloats(kernelSize k: Int, stride s: Int, outWidth: Int) -> Int {
        let rowFloats = ((outWidth - 1) * s + k) * width
        return (k + 1) * rowFloats + 2 * k + 2 * width
    }

    /// Output rows `rows` of one channel block (16 channels) of a depthwise conv, blocked in and out: the input
    /// rows they need copied once each into a ring of k zero-padded rows (a row of `(outWidth − 1) · s + k`
    /// pixel vectors; column c holds input column c − padLeft), then each output row's pixels summed over the
    /// k² taps in registers — on rows of at most 16 pixels as ``DepthwiseConvKernels/channelBlock`` sums them
    /// (raster order, rows outside the input read as zeros: ``DepthwiseConvKernels/accumulateRow``), on wider
    /// rows as ``DepthwiseConvKernels/channelRows`` does (``DepthwiseConvKernels/accumulateWideRow``) — activated
    /// and stored. `taps` is the 16 channels' k² taps as vectors (tap t's 16 channels at `t · 16`; the conv's
    /// weights transposed), `bias` their 16 biases.
    @inline(never)
    public static func depthwise(input: UnsafePointer<Float>, height h: Int, width w: Int, taps: UnsafePointer<Float>,
                                 bias: UnsafePointer<Float>, kernelSize k: Int, stride s: Int, padTop: Int,
                                 padLeft: Int, output: UnsafeMutablePointer<Float>, outHeight oh: Int,
                                 outWidth ow: Int, rows: Range<Int>, activation: KernelEpilogue.Activation,
                                 scratch: UnsafeMutablePointer<Float>) {
        switch activation {
        case .none: depthwiseBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, ow, rows, Identity.self, scratch)
        case .relu: depthwiseBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, ow, rows, ReLU.self, scratch)
        case .relu6: depthwiseBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, ow, rows, ReLU6.self, scratch)
        }
    }

    /// Floats of scratch ``depthwiseTiles`` needs (the caller's buffer need not be aligned): one zero-padded
    /// tile of a block's whole input.
    public static func depthwiseTileScratchFloats(kernelSize k: Int, stride s: Int, outHeight oh: Int, outWidth ow: Int) -> Int {
        ((oh - 1) * s + k) * ((ow - 1) * s + k) * width + width
    }

    /// Channel blocks `blocks` of a depthwise conv on a small map (output rows of at most ``narrowRowPixels``),
    /// blocked in and out (block b at `b · h·w · 16` in `input`, `b · oh·ow · 16` in `output`; `taps` and
    /// `bias` of all the blocks, block b's k² tap vectors at `b · k² · 16`): each block's whole input copied
    /// into one zero-padded tile (tile column c holds input column c − padLeft, row r input row r − padTop),
    /// then every output row summed over all k tap rows as ``depthwise`` sums a narrow row — the same bytes.
    /// The tile's padding is zeroed once for all the blocks and the copies are vector moves: on a 7×7 map
    /// ``depthwise``'s ring made three library calls an input row, half of a block's time.
    @inline(never)
    public static func depthwiseTiles(input: UnsafePointer<Float>, height h: Int, width w: Int,
                                      taps: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernelSize k: Int,
                                      stride s: Int, padTop: Int, padLeft: Int, output: UnsafeMutablePointer<Float>,
                                      outHeight oh: Int, outWidth ow: Int, blocks: Range<Int>,
                                      activation: KernelEpilogue.Activation, scratch: UnsafeMutablePointer<Float>) {
        switch activation {
        case .none: depthwiseTilesBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, oh, ow, blocks, Identity.self, scratch)
        case .relu: depthwiseTilesBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, oh, ow, blocks, ReLU.self, scratch)
        case .relu6: depthwiseTilesBody(input, h, w, taps, bias, k, s, padTop, padLeft, output, oh, ow, blocks, ReLU6.self, scratch)
        }
    }

    @inline(__always)
    static func depthwiseTilesBody<A: VectorActivation>(_ input: UnsafePointer<Float>, _ h: Int, _ w: Int,
                                                        _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                                        _ k: Int, _ s: Int, _ padTop: Int, _ padLeft: Int,
                                                        _ output: UnsafeMutablePointer<Float>, _ oh: Int, _ ow: Int,
                                                        _ blocks: Range<Int>, _: A.Type,
                                                        _ scratch: UnsafeMutablePointer<Float>) {
        precondition(ow <= narrowRowPixels, "the tiled depthwise kernel sums rows of at most \(narrowRowPixels) pixels")
        let tileWidth = (ow - 1) * s + k, tileHeight = (oh - 1) * s + k
        let tile = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: tileHeight * tileWidth * width)
        tile.update(repeating: 0, count: tileHeight * tileWidth * width)
        // The input rows and columns the tile holds; the rest of it stays zero.
        let rows = Swift.max(0, -padTop)..<Swift.min(h, tileHeight - padTop)
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, tileWidth - padLeft)
        for b in blocks {
            let x = input + b * h * w * width
            for y in rows {
                let src = x + (y * w + columns.lowerBound) * width
                let dst = tile + ((y + padTop) * tileWidth + columns.lowerBound + padLeft) * width
                for j in 0..<columns.count { SIMDKernels.store(SIMDKernels.load(src + j &* width), dst + j &* width) }
            }
            DepthwiseConvKernels.accumulateRows(tile, tileWidth: tileWidth, stride: s, kernelSize: k,
                                                taps: taps + b * k * k * width, bias: SIMDKernels.load(bias + b * width),
                                                outHeight: oh, outWidth: ow, into: output + b * oh * ow * width, A.self)
        }
    }

    /// Output rows at most this wide are summed as the planar block kernel sums them (``depthwise``).
    public static let narrowRowPixels = 16

    @inline(__always)
    static func depthwiseBody<A: VectorActivation>(_ input: UnsafePointer<Float>, _ h: Int, _ w: Int,
                                                   _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                                   _ k: Int, _ s: Int, _ padTop: Int, _ padLeft: Int,
                                                   _ output: UnsafeMutablePointer<Float>, _ ow: Int, _ outRows: Range<Int>,
                                                   _: A.Type, _ scratch: UnsafeMutablePointer<Float>) {
        let tileWidth = (ow - 1) * s + k, rowFloats = tileWidth * width
        let ring = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: depthwiseScratchFloats(kernelSize: k, stride: s, outWidth: ow))
        let zeros = ring + k * rowFloats
        let pointers = UnsafeMutableRawPointer(zeros + rowFloats).bindMemory(to: UnsafePointer<Float>.self, capacity: k)
        zeros.update(repeating: 0, count: rowFloats)
        let b = SIMDKernels.load(bias)
        // Ring column c holds input column c − padLeft: these input columns, the rest zero.
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, tileWidth - padLeft)
        let left = padLeft + columns.lowerBound, right = padLeft + columns.upperBound
        var loaded = Int.min   // the last input row copied into the ring (rows only move forward)
        for oy in outRows {
            let first = oy * s - padTop   // input row of tap row 0
            var r = Swift.max(first, loaded + 1, 0)
            while r < Swift.min(first + k, h) {
                let row = ring + (r % k) * rowFloats
                row.update(repeating: 0, count: left * width)
                (row + left * width).update(from: input + (r * w + columns.lowerBound) * width, count: columns.count * width)
                (row + right * width).update(repeating: 0, count: (tileWidth - right) * width)
                loaded = r
                r += 1
            }
            depthwiseRow(ring, zeros, rowFloats, first, h, k, s, taps, b, ow, output + oy * ow * width, pointers, A.self)
        }
    }

    /// One output row of the blocked depthwise kernel from its ring (input row y in slot y mod k, rows
    /// `rowFloats` apart; `zeros` for rows outside the input, which starts at `first` for tap row 0).
    @inline(__always)
    static func depthwiseRow<A: VectorActivation>(_ ring: UnsafePointer<Float>, _ zeros: UnsafePointer<Float>,
                                                  _ rowFloats: Int, _ first: Int, _ h: Int, _ k: Int, _ s: Int,
                                                  _ taps: UnsafePointer<Float>, _ b: Vector, _ ow: Int,
                                                  _ out: UnsafeMutablePointer<Float>,
                                                  _ pointers: UnsafeMutablePointer<UnsafePointer<Float>>, _: A.Type) {
        for ky in 0..<k {
            let y = first + ky
            pointers[ky] = y >= 0 && y < h ? ring + (y % k) * rowFloats : zeros
        }
        if ow <= narrowRowPixels {
            DepthwiseConvKernels.accumulateRow(UnsafePointer(pointers), 0..<k, stride: s, kernelSize: k, taps: taps,
                                               bias: b, outWidth: ow, into: out, A.self)
        } else {
            let inside = Swift.max(0, -first)..<Swift.max(Swift.max(0, -first), Swift.min(k, h - first))
            DepthwiseConvKernels.accumulateWideRow(UnsafePointer(pointers), inside, stride: s, kernelSize: k,
                                                   taps: taps, bias: b, outWidth: ow, into: out, A.self)
        }
    }

    /// Floats of scratch ``expandDepthwise`` needs for `blocks` channel blocks (the caller's buffer need not be
    /// aligned): a ring and a row of zeros per block, the tap rows' pointers.
    public static func expandDepthwiseScratchFloats(blocks n: Int, kernelSize k: Int, stride s: Int, outWidth: Int) -> Int {
        let rowFloats = ((outWidth - 1) * s + k) * width
        return n * (k + 1) * rowFloats + 2 * k + 2 * width
    }

    /// An inverted bottleneck's 1×1 expansion and depthwise conv at once, for expanded channel blocks `blocks`
    /// and output rows `rows`: each expanded input row is made by the 1×1 kernel (``pointwise``'s sums)
    /// straight into the depthwise kernel's ring (``depthwise``'s rows and sums), so the expanded map (the
    /// largest of the block) is never written out and read back; the same bytes as the two convs one after
    /// the other. `input`: blocked, `inChannels` × `height × width`; `expandWeight`, `expandBias`: the 1×1's
    /// blocked packing (all its output blocks); `taps`, `bias`: the depthwise conv's, all channels (`taps`:
    /// each block's k² tap vectors, block b at `b · k² · 16`, as ``depthwise`` reads one block's);
    /// `output`: blocked, the depthwise conv's output. ReLU6 after both convs (as every inverted bottleneck
    /// here has).
    @inline(never)
    public static func expandDepthwise(input: UnsafePointer<Float>, inChannels cin: Int, height h: Int, width w: Int,
                                       expandWeight: UnsafePointer<Float>, expandBias: UnsafePointer<Float>,
                                       taps: UnsafePointer<Float>,
                                       bias: UnsafePointer<Float>, kernelSize k: Int, stride s: Int, padTop: Int,
                                       padLeft: Int, output: UnsafeMutablePointer<Float>, outHeight oh: Int,
                                       outWidth ow: Int, blocks: Range<Int>, rows: Range<Int>,
                                       scratch: UnsafeMutablePointer<Float>) {
        let b0 = blocks.lowerBound, ohw = oh * ow
        expandDepthwiseRows(input, cin, h, w, expandWeight, expandBias, taps, bias, k, s, padTop, padLeft, ow, blocks,
                            rows, scratch, filtered: { j, oy in output + ((b0 + j) * ohw + oy * ow) * width }, then: { _ in })
    }

    /// Floats of scratch ``expandDepthwiseProject`` needs: ``expandDepthwiseScratchFloats(blocks:kernelSize:stride:outWidth:)``
    /// for all `blocks`, one filtered row of them (read ``slackFloats`` past its end) and the projection's masks of
    /// its zero inputs (``pointwiseScratchFloats(pixels:inChannels:)``).
    public static func expandDepthwiseProjectScratchFloats(blocks n: Int, kernelSize k: Int, stride s: Int, outWidth ow: Int) -> Int {
        expandDepthwiseScratchFloats(blocks: n, kernelSize: k, stride: s, outWidth: ow) + n * ow * width + slackFloats + width
            + pointwiseScratchFloats(pixels: ow, inChannels: n * width)
    }

    /// ``expandDepthwise`` for every expanded block, and then the block's linear 1×1 projection (+ `residual`,
    /// blocked like `output`, if any) of each filtered row as soon as it is made, into `output` (blocked, the
    /// projection's `outHeight × outWidth` map): so the filtered map (EfficientNet's 144 × 56×56, 1.8 MB, past
    /// L2) is never written out and read back either. `projectWeight`, `projectBias`: the projection's packing
    /// as for ``pointwise`` (`projectBlocks` output blocks, `projectChannels` real ones). The same sums as the
    /// three convs one after the other: the same bytes.
    @inline(never)
    public static func expandDepthwiseProject(input: UnsafePointer<Float>, inChannels cin: Int, height h: Int, width w: Int,
                                              expandWeight: UnsafePointer<Float>, expandBias: UnsafePointer<Float>,
                                              expandedBlocks n: Int, taps: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                              kernelSize k: Int, stride s: Int, padTop: Int, padLeft: Int,
                                              projectWeight: UnsafePointer<Float>, projectBias: UnsafePointer<Float>,
                                              projectChannels: Int, residual: UnsafePointer<Float>?,
                                              output: UnsafeMutablePointer<Float>, outHeight oh: Int, outWidth ow: Int,
                                              rows: Range<Int>, scratch: UnsafeMutablePointer<Float>) {
        let ringsFloats = expandDepthwiseScratchFloats(blocks: n, kernelSize: k, stride: s, outWidth: ow)
        let filtered = UnsafeMutableRawPointer(scratch + ringsFloats).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: n * ow * width + slackFloats)
        let masks = filtered + n * ow * width + slackFloats
        let projectBlocks = Self.blocks(channels: projectChannels)
        let half = (1...width / 2).contains(projectChannels % width)
        @inline(__always) func run<R: ResidualChoice>(_: R.Type) {
            expandDepthwiseRows(input, cin, h, w, expandWeight, expandBias, taps, bias, k, s, padTop, padLeft, ow, 0..<n,
                                rows, scratch, filtered: { j, _ in filtered + j * ow * width }, then: { oy in
                let offset = oy * ow * width
                pointwiseBody(filtered, ow, n * width, projectWeight, projectBias, output + offset, oh * ow,
                              0..<projectBlocks, 0..<ow, KernelEpilogue(activation: .none, residual: residual.map { $0 + offset }),
                              Identity.self, R.self, halfLast: half, skipScratch: masks)
            })
        }
        if residual != nil { run(WithResidual.self) } else { run(NoResidual.self) }
    }

    /// The rings of ``expandDepthwise``: each expanded row made into them once, each output row of blocks
    /// `blocks` filtered into `filtered(j, oy)` (block `blocks.lowerBound + j`), then `then(oy)`.
    @inline(__always)
    static func expandDepthwiseRows(_ input: UnsafePointer<Float>, _ cin: Int, _ h: Int, _ w: Int,
                                    _ expandWeight: UnsafePointer<Float>, _ expandBias: UnsafePointer<Float>,
                                    _ taps: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ k: Int, _ s: Int,
                                    _ padTop: Int, _ padLeft: Int, _ ow: Int, _ blocks: Range<Int>, _ rows: Range<Int>,
                                    _ scratch: UnsafeMutablePointer<Float>,
                                    filtered: (_ j: Int, _ oy: Int) -> UnsafeMutablePointer<Float>, then: (_ oy: Int) -> Void) {
        let tileWidth = (ow - 1) * s + k, rowFloats = tileWidth * width, ringFloats = (k + 1) * rowFloats, n = blocks.count
        let rings = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: expandDepthwiseScratchFloats(blocks: n, kernelSize: k, stride: s, outWidth: ow))
        let pointers = UnsafeMutableRawPointer(rings + n * ringFloats).bindMemory(to: UnsafePointer<Float>.self, capacity: k)
        // Ring column c holds input column c − padLeft: these input columns are made, the rest stay zero.
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, tileWidth - padLeft)
        let left = padLeft + columns.lowerBound, right = padLeft + columns.upperBound
        for j in 0..<n {
            let ring = rings + j * ringFloats
            for slot in 0..<k {
                (ring + slot * rowFloats).update(repeating: 0, count: left * width)
                (ring + slot * rowFloats + right * width).update(repeating: 0, count: (tileWidth - right) * width)
            }
            (ring + k * rowFloats).update(repeating: 0, count: rowFloats)
        }
        let b0 = blocks.lowerBound
        var loaded = Int.min   // the last input row expanded into the rings (rows only move forward)
        for oy in rows {
            let first = oy * s - padTop
            var r = Swift.max(first, loaded + 1, 0)
            while r < Swift.min(first + k, h) {
                pointwiseBody(input + r * w * width, h * w, cin, expandWeight + b0 * width * cin, expandBias + b0 * width,
                              rings + (r % k) * rowFloats + padLeft * width, ringFloats / width, 0..<n, columns,
                              KernelEpilogue(activation: .relu6), ReLU6.self, NoResidual.self)
                loaded = r
                r += 1
            }
            for j in 0..<n {
                let ring = rings + j * ringFloats
                depthwiseRow(ring, ring + k * rowFloats, rowFloats, first, h, k, s, taps + (b0 + j) * k * k * width,
                             SIMDKernels.load(bias + (b0 + j) * width), ow, filtered(j, oy), pointers, ReLU6.self)
            }
            then(oy)
        }
    }

    // MARK: A strided conv from planes into the layout (a classifier's stem)

    /// Floats of one padded input row of ``conv``: the row a tap reads for `outWidth` pixels, and the pixels a
    /// last group of 8 reads past them.
    static func convRowFloats(kernelSize k: Int, stride s: Int, outWidth ow: Int) -> Int { (ow + 8) * s + k }

    /// Floats of scratch ``conv`` needs (the caller's buffer need not be aligned): a ring of k zero-padded input
    /// rows for each input channel, a row of zeros, and a pointer per tap.
    public static func convScratchFloats(inChannels c: Int, kernelSize k: Int, stride s: Int, outWidth ow: Int) -> Int {
        (c * k + 1) * convRowFloats(kernelSize: k, stride: s, outWidth: ow) + 2 * c * k * k + width + 2
    }

    /// Output rows `rows` of a k×k conv at stride `s` (dilation 1, one group) from planes (`inChannels` of
    /// `height × width`) into a blocked map of `outWidth`-pixel rows: `output[co][p] = activation(bias[co] +
    /// Σ weight[co][ci][ky][kx] · input[ci][y·s + ky − padTop][x·s + kx − padLeft])`, zero outside the input,
    /// the sum in (ci, ky, kx) order as the im2col GEMM forms it (so its bytes). For a classifier's stem (3 → 32
    /// channels, 3×3 stride 2), which writes its map straight into the layout its blocks run in. `weight` is the
    /// `outChannels × inChannels·k²` matrix packed as for ``pointwise`` (row blocks of 16, padded; `bias` too),
    /// output blocks `blocks`.
    @inline(never)
    public static func conv(input: UnsafePointer<Float>, inChannels c: Int, height h: Int, width w: Int,
                            weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernelSize k: Int, stride s: Int,
                            padTop: Int, padLeft: Int, output: UnsafeMutablePointer<Float>, outPixels ohw: Int,
                            outWidth ow: Int, blocks: Range<Int>, rows: Range<Int>,
                            activation: KernelEpilogue.Activation, scratch: UnsafeMutablePointer<Float>) {
        switch activation {
        case .none: convBody(input, c, h, w, weight, bias, k, s, padTop, padLeft, output, ohw, ow, blocks, rows, Identity.self, scratch)
        case .relu: convBody(input, c, h, w, weight, bias, k, s, padTop, padLeft, output, ohw, ow, blocks, rows, ReLU.self, scratch)
        case .relu6: convBody(input, c, h, w, weight, bias, k, s, padTop, padLeft, output, ohw, ow, blocks, rows, ReLU6.self, scratch)
        }
    }

    @inline(__always)
    static func convBody<A: VectorActivation>(_ input: UnsafePointer<Float>, _ c: Int, _ h: Int, _ w: Int,
                                              _ weight: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ k: Int,
                                              _ s: Int, _ padTop: Int, _ padLeft: Int,
                                              _ output: UnsafeMutablePointer<Float>, _ ohw: Int, _ ow: Int,
                                              _ blocks: Range<Int>, _ outRows: Range<Int>, _: A.Type,
                                              _ scratch: UnsafeMutablePointer<Float>) {
        let rowFloats = convRowFloats(kernelSize: k, stride: s, outWidth: ow), kk = c * k * k
        // input row y of channel ci in ring slot (ci, y mod k): each row copied once, however many output rows
        // read it (at stride 2, 3×3, one in two twice); the padding columns are zeroed once
        let ring = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
            .bindMemory(to: Float.self, capacity: convScratchFloats(inChannels: c, kernelSize: k, stride: s, outWidth: ow))
        let zeros = ring + c * k * rowFloats
        let taps = UnsafeMutableRawPointer(zeros + rowFloats).alignedUp(toMultipleOf: 8)
            .bindMemory(to: UnsafePointer<Float>.self, capacity: kk)
        // Padded column x holds input column x − padLeft: these input columns, the rest zero.
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, rowFloats - padLeft)
        let left = padLeft + columns.lowerBound, right = padLeft + columns.upperBound
        for slot in 0..<(c * k) {
            (ring + slot * rowFloats).update(repeating: 0, count: left)
            (ring + slot * rowFloats + right).update(repeating: 0, count: rowFloats - right)
        }
        zeros.update(repeating: 0, count: rowFloats)
        var loaded = Int.min   // the last input row copied into the ring (rows only move forward)
        for oy in outRows {
            let first = oy * s - padTop   // input row of tap row 0
            var y = Swift.max(first, loaded + 1, 0)
            while y < Swift.min(first + k, h) {
                for ci in 0..<c {
                    (ring + (ci * k + y % k) * rowFloats + left).update(from: input + (ci * h + y) * w + columns.lowerBound,
                                                                         count: columns.count)
                }
                loaded = y
                y += 1
            }
            for ci in 0..<c {
                for ky in 0..<k {
                    let y = first + ky
                    let row = y < 0 || y >= h ? UnsafePointer(zeros) : UnsafePointer(ring + (ci * k + y % k) * rowFloats)
                    for kx in 0..<k { taps[(ci * k + ky) * k + kx] = row + kx }
                }
            }
            let out = output + oy * ow * width
            var x = 0
            while x < ow {
                let count = Swift.min(convPixels, ow - x)
                var b = blocks.lowerBound
                #if SWIFTSEG_32_REGISTERS
                while b + 2 <= blocks.upperBound {
                    convGroup(TwoConvBlocks.self, taps, kk, x * s, s, weight + b * width * kk, bias + b * width,
                              out + b * ohw * width + x * width, ohw * width, count, A.self)
                    b += 2
                }
                #endif
                while b < blocks.upperBound {
                    convGroup(OneConvBlock.self, taps, kk, x * s, s, weight + b * width * kk, bias + b * width,
                              out + b * ohw * width + x * width, ohw * width, count, A.self)
                    b += 1
                }
                x += convPixels
            }
        }
    }

    /// Pixels of a row ``conv`` sums at once: 8 sums of two blocks with 32 registers, 6 of one block with 16.
    #if SWIFTSEG_32_REGISTERS
    static let convPixels = 8
    #else
    static let convPixels = 6
    #endif

    /// `count` (≤ ``convPixels``) pixels of one output block (two, 16 lanes × `second` floats apart, with
    /// `TwoConvBlocks`): each tap's input value broadcast to one multiply-add per block, the taps in order.
    /// The block count a type, so each build's body has only the sums it uses: as a run-time flag the compiler
    /// kept all 16 sums of 16 lanes, and in the AVX2 build (16 registers) they lived on the stack.
    @inline(__always)
    static func convGroup<G: ConvBlocks, A: VectorActivation>(_: G.Type, _ taps: UnsafePointer<UnsafePointer<Float>>,
                                                              _ kk: Int, _ offset: Int, _ s: Int,
                                                              _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                                              _ out: UnsafeMutablePointer<Float>, _ second: Int,
                                                              _ count: Int, _: A.Type) {
        let two = G.two, zero = Vector(repeating: 0)
        var a0 = zero, a1 = zero, a2 = zero, a3 = zero, a4 = zero, a5 = zero, a6 = zero, a7 = zero
        var b0 = zero, b1 = zero, b2 = zero, b3 = zero, b4 = zero, b5 = zero, b6 = zero, b7 = zero
        var wp = w
        for r in 0..<kk {
            let p = taps[r] + offset, u = SIMDKernels.load(wp)
            let v = two ? SIMDKernels.load(wp + width * kk) : zero
            @inline(__always) func step(_ i: Int, _ a: inout Vector, _ b: inout Vector) {
                let t = Vector(repeating: p[i &* s])
                a = SIMDKernels.multiplyAdd(t, u, a)
                if two { b = SIMDKernels.multiplyAdd(t, v, b) }
            }
            step(0, &a0, &b0); step(1, &a1, &b1); step(2, &a2, &b2); step(3, &a3, &b3)
            if convPixels > 4 { step(4, &a4, &b4); step(5, &a5, &b5) }
            if convPixels > 6 { step(6, &a6, &b6); step(7, &a7, &b7) }
            wp += width
        }
        let bias0 = SIMDKernels.load(bias), bias1 = two ? SIMDKernels.load(bias + width) : zero
        @inline(__always) func put(_ a: Vector, _ b: Vector, _ i: Int) {
            guard i < count else { return }
            SIMDKernels.store(A.apply(a + bias0), out + i * width)
            if two { SIMDKernels.store(A.apply(b + bias1), out + second + i * width) }
        }
        put(a0, b0, 0); put(a1, b1, 1); put(a2, b2, 2); put(a3, b3, 3)
        put(a4, b4, 4); put(a5, b5, 5); put(a6, b6, 6); put(a7, b7, 7)
    }

    /// Planes (`channels × pixels`, channel c at `planes + c · pixels`) → blocked, 16 pixels of a channel block
    /// at a time through ``DepthwiseConvKernels/transpose16(_:)``, a last block's padded lanes zero; `scratch`
    /// holds 17 vectors.
    public static func block(_ planes: UnsafePointer<Float>, channels: Int, pixels hw: Int,
                             into blocked: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let staging = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64).bindMemory(to: Float.self, capacity: width * width)
        for b in 0..<blocks(channels: channels) {
            let lanes = Swift.min(width, channels - b * width)
            var p0 = 0
            while p0 < hw {
                let count = Swift.min(width, hw - p0)
                for c in 0..<lanes {
                    (staging + c * width).update(from: planes + (b * width + c) * hw + p0, count: count)
                    (staging + c * width + count).update(repeating: 0, count: width - count)
                }
                (staging + lanes * width).update(repeating: 0, count: (width - lanes) * width)
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
        for b in 0..<blocks(channels: channels) {
            let lanes = Swift.min(width, channels - b * width)
            var p0 = 0
            while p0 < hw {
                let count = Swift.min(width, hw - p0)
                staging.update(from: blocked + (b * hw + p0) * width, count: count * width)
                (staging + count * width).update(repeating: 0, count: (width - count) * width)
                staging.withMemoryRebound(to: Vector.self, capacity: width) { DepthwiseConvKernels.transpose16($0) }
                for c in 0..<lanes { (planes + (b * width + c) * hw + p0).update(from: staging + c * width, count: count) }
                p0 += width
            }
        }
    }
}
