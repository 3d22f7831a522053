/// Depthwise k×k convolution (any odd k, stride 1 or 2, dilation 1) on one channel's plane, one output row at a
/// time, each output vector's k² taps accumulated in a register: MobileNet's and EfficientNet's filter step. The
/// reference is `Conv2D.referenceForward` (SwiftsegRuntime/Ops/Conv2D+Reference.swift); tests compare the two.
///
/// Input rows are copied once into a ring of k zero-padded rows in the scratch — at stride 2 split into their
/// even and odd columns (by lane shuffles where the build has them) — so every tap reads one contiguous span the
/// same way, edges included: tap (ky, kx) of output pixel x reads padded column x·s + kx, which at stride 2 is
/// column x + kx/2 of phase kx mod 2. Small maps take 16 channels at once instead (``channelBlock``).
public enum DepthwiseConvKernels {
    typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width

    /// Floats of one padded row (both phases at stride 2) for an output row of `outWidth` pixels.
    static func phaseFloats(kernelSize k: Int, outWidth: Int) -> Int { (outWidth + width - 1) / width * width + k + width }

    /// Floats of scratch ``channelRows(input:height:width:weight:bias:kernelSize:stride:padTop:padLeft:output:outHeight:outWidth:rows:_:epilogue:scratch:)``
    /// needs (the caller's buffer need not be aligned).
    public static func scratchFloats(kernelSize k: Int, stride s: Int, outWidth: Int) -> Int {
        k * s * phaseFloats(kernelSize: k, outWidth: outWidth) + width + 4 * k + 32
    }

    /// Output rows `y0 ..< y1` of one channel: `output[y][x] = epilogue(bias + Σ weight[ky][kx] ·
    /// input[y·s + ky − padTop][x·s + kx − padLeft])`, zero outside the input. `output` (and the epilogue's
    /// residual) point at the channel's plane of `outHeight × outWidth`. Rows before `y1 − 1` may be written a
    /// vector past their end (into the next row, rewritten right after), so one call owns rows `y0 ..< y1`
    /// whole.
    @inline(never)
    public static func channelRows(input: UnsafePointer<Float>, height h: Int, width w: Int, weight: UnsafePointer<Float>,
                                   bias: Float, kernelSize k: Int, stride s: Int, padTop: Int, padLeft: Int,
                                   output: UnsafeMutablePointer<Float>, outHeight: Int, outWidth: Int,
                                   rows y0: Int, _ y1: Int, epilogue: KernelEpilogue,
                                   scratch: UnsafeMutablePointer<Float>) {
        precondition(s == 1 || s == 2, "depthwise kernel: stride 1 or 2")
        switch epilogue.activation {
        case .none:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, Identity.self, scratch: scratch)
        case .relu:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, ReLU.self, scratch: scratch)
        case .relu6:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, ReLU6.self, scratch: scratch)
        }
    }

    @inline(never)
    static func channelRowsBody<A: VectorActivation>(input: UnsafePointer<Float>, height h: Int, width w: Int,
                                                     weight: UnsafePointer<Float>, bias: Float, kernelSize k: Int,
                                                     stride s: Int, padTop: Int, padLeft: Int,
                                                     output: UnsafeMutablePointer<Float>, outHeight: Int,
                                                     outWidth: Int, rows y0: Int, _ y1: Int,
                                                     residual: UnsafePointer<Float>?, _ activation: A.Type,
                                                     scratch: UnsafeMutablePointer<Float>) {
        let phase = phaseFloats(kernelSize: k, outWidth: outWidth)   // floats per phase
        let slot = s * phase                                            // floats per ring slot
        let aligned = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
        let ring = aligned.bindMemory(to: Float.self, capacity: k * slot + width)
        let tail = ring + k * slot  // one vector for the right edge's partial store
        // Each tap column's offset in a ring slot, and each tap row's slot, worked out once instead of with an
        // integer division per tap and vector (which took most of the kernel's time).
        let offsets = UnsafeMutableRawPointer(tail + width).alignedUp(toMultipleOf: 16).bindMemory(to: Int.self, capacity: 2 * k)
        let slots = offsets + k
        for kx in 0..<k { offsets[kx] = (kx % s) * phase + kx / s }
        let b = Vector(repeating: bias)
        var loaded = Int.min  // the last input row copied into the ring
        for y in y0..<y1 {
            let first = y * s - padTop  // input row of tap row 0
            // Copy the rows this output row needs that are not in the ring yet (rows only move forward).
            var r = Swift.max(first, loaded + 1, 0)
            while r < Swift.min(first + k, h) {
                let dst = ring + (r % k) * slot, src = input + r * w
                // Padded column c is input column c − padLeft; stored at phase c mod s, index c / s.
                if s == 1 {
                    dst.update(repeating: 0, count: phase)
                    let c0 = padLeft, n = Swift.min(w, phase - c0)
                    if n > 0 { (dst + c0).update(from: src, count: n) }
                } else {
                    dst.update(repeating: 0, count: 2 * phase)
                    var x = 0
                    #if SWIFTSEG_PERMUTES
                    // 32 pixels at a time into their two phases by lane shuffles: input column x is padded column
                    // x + padLeft, so the even pixels go to that column's phase and the odd ones to the other.
                    let even = dst + (padLeft & 1) * phase + (padLeft >> 1)
                    let odd = dst + (1 - padLeft & 1) * phase + ((padLeft + 1) >> 1)
                    while x &+ 2 &* width <= w {
                        let a = SIMDKernels.load(src + x), b = SIMDKernels.load(src + x + width)
                        SIMDKernels.store(Vector(a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14],
                                                 b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14]), even + x >> 1)
                        SIMDKernels.store(Vector(a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15],
                                                 b[1], b[3], b[5], b[7], b[9], b[11], b[13], b[15]), odd + x >> 1)
                        x &+= 2 &* width
                    }
                    #endif
                    // Each parity's (remaining) columns in one strided loop (no division or test per pixel).
                    for parity in 0..<2 {
                        let out = dst + parity * phase
                        var c = x + ((parity - padLeft - x) & 1)
                        while c < w {
                            out[(c &+ padLeft) >> 1] = src[c]
                            c &+= 2
                        }
                    }
                }
                loaded = r
                r += 1
            }
            let ky0 = Swift.max(0, -first), ky1 = Swift.min(k, h - first)  // tap rows inside the input
            for ky in ky0..<Swift.max(ky0, ky1) { slots[ky] = ((first + ky) % k) * slot }
            let out = output + y * outWidth, res = residual.map { $0 + y * outWidth }
            var x = 0
            while x < outWidth {
                // One accumulator per tap column, so the FMAs are k independent chains instead of one of k²
                // (whose latency, not the arithmetic, bound the kernel); summed at the end.
                var acc: Vector
                if k == 3 {
                    let o0 = offsets[0], o1 = offsets[1], o2 = offsets[2]
                    var c0 = b, c1 = Vector(repeating: 0), c2 = Vector(repeating: 0)
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * 3
                        c0 = SIMDKernels.multiplyAdd(Vector(repeating: taps[0]), SIMDKernels.load(row + o0), c0)
                        c1 = SIMDKernels.multiplyAdd(Vector(repeating: taps[1]), SIMDKernels.load(row + o1), c1)
                        c2 = SIMDKernels.multiplyAdd(Vector(repeating: taps[2]), SIMDKernels.load(row + o2), c2)
                    }
                    acc = c0 + c1 + c2
                } else if k == 5 {
                    let o0 = offsets[0], o1 = offsets[1], o2 = offsets[2], o3 = offsets[3], o4 = offsets[4]
                    var c0 = b, c1 = Vector(repeating: 0), c2 = Vector(repeating: 0)
                    var c3 = Vector(repeating: 0), c4 = Vector(repeating: 0)
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * 5
                        c0 = SIMDKernels.multiplyAdd(Vector(repeating: taps[0]), SIMDKernels.load(row + o0), c0)
                        c1 = SIMDKernels.multiplyAdd(Vector(repeating: taps[1]), SIMDKernels.load(row + o1), c1)
                        c2 = SIMDKernels.multiplyAdd(Vector(repeating: taps[2]), SIMDKernels.load(row + o2), c2)
                        c3 = SIMDKernels.multiplyAdd(Vector(repeating: taps[3]), SIMDKernels.load(row + o3), c3)
                        c4 = SIMDKernels.multiplyAdd(Vector(repeating: taps[4]), SIMDKernels.load(row + o4), c4)
                    }
                    acc = (c0 + c1) + (c2 + c3) + c4
                } else {
                    acc = b
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * k
                        for kx in 0..<k {
                            acc = SIMDKernels.multiplyAdd(Vector(repeating: taps[kx]), SIMDKernels.load(row + offsets[kx]), acc)
                        }
                    }
                }
                acc = A.apply(acc)
                // A whole vector also where the row ends short of one, when the lanes past it land in rows this
                // call computes after it (a scalar tail on every short row took a sixth of the kernel's time).
                if x + width <= (y1 - y) * outWidth {
                    if let res { acc += SIMDKernels.load(res + x) }
                    SIMDKernels.store(acc, out + x)
                } else {
                    SIMDKernels.store(acc, tail)
                    for lane in 0..<(outWidth - x) { out[x + lane] = tail[lane] + (res?[x + lane] ?? 0) }
                }
                x += width
            }
        }
    }

    // MARK: Sixteen channels at once, for small maps

    /// Floats of scratch ``channelBlock(input:height:width:weight:bias:kernelSize:stride:padTop:padLeft:output:outHeight:outWidth:epilogue:scratch:)``
    /// needs (the caller's buffer need not be aligned).
    public static func blockScratchFloats(kernelSize k: Int, stride s: Int, outHeight: Int, outWidth: Int) -> Int {
        let tileHeight = (outHeight - 1) * s + k, tileWidth = (outWidth - 1) * s + k
        return (tileHeight * tileWidth + outHeight * outWidth + k * k + width) * width + 2 * width
    }

    /// `width` channels of a depthwise conv at once (planes of `height × width` at `input`, one after another):
    /// what small maps need, where a row of 7 or 14 pixels fills one vector in two of ``channelRows`` (and its
    /// per-row setup is paid per channel). The planes are transposed into a zero-padded tile holding a pixel's
    /// channels in one vector, each output row's taps accumulate as vector multiply-adds across its pixels (the
    /// pixels are independent chains; the weights of the channels for one tap are one vector), then the epilogue
    /// (`bias` per channel, the activation, the residual) and the transpose back. Same products and sums as the
    /// reference, in float. With 32 registers (AVX-512) up to 8 pixels' sums stay in registers through the taps
    /// (``accumulate``) and both transposes go 16 pixels at a time through lane permutes (``transpose16(_:)``):
    /// the same operations in the same order, so the AVX2 build's bytes (a test checks), in ~60 % of the time.
    @inline(never)
    public static func channelBlock(input: UnsafePointer<Float>, height h: Int, width w: Int, weight: UnsafePointer<Float>,
                                    bias: UnsafePointer<Float>, kernelSize k: Int, stride s: Int, padTop: Int,
                                    padLeft: Int, output: UnsafeMutablePointer<Float>, outHeight: Int, outWidth: Int,
                                    epilogue: KernelEpilogue, scratch: UnsafeMutablePointer<Float>) {
        switch epilogue.activation {
        case .none:
            channelBlockBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                             padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight,
                             outWidth: outWidth, residual: epilogue.residual, Identity.self, scratch: scratch)
        case .relu:
            channelBlockBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                             padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight,
                             outWidth: outWidth, residual: epilogue.residual, ReLU.self, scratch: scratch)
        case .relu6:
            channelBlockBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                             padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight,
                             outWidth: outWidth, residual: epilogue.residual, ReLU6.self, scratch: scratch)
        }
    }

    @inline(never)
    static func channelBlockBody<A: VectorActivation>(input: UnsafePointer<Float>, height h: Int, width w: Int,
                                                      weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                                      kernelSize k: Int, stride s: Int, padTop: Int, padLeft: Int,
                                                      output: UnsafeMutablePointer<Float>, outHeight oh: Int,
                                                      outWidth ow: Int, residual: UnsafePointer<Float>?,
                                                      _ activation: A.Type, scratch: UnsafeMutablePointer<Float>) {
        let tileHeight = (oh - 1) * s + k, tileWidth = (ow - 1) * s + k
        let aligned = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
        let tile = aligned.bindMemory(to: Float.self, capacity: blockScratchFloats(kernelSize: k, stride: s,
                                                                                   outHeight: oh, outWidth: ow))
        let result = tile + tileHeight * tileWidth * width, taps = result + oh * ow * width
        let hw = h * w, ohw = oh * ow
        // Tile row r, column c hold input row r − padTop, column c − padLeft (zero outside the input).
        let rows = Swift.max(0, -padTop)..<Swift.min(h, tileHeight - padTop)
        let columns = Swift.max(0, -padLeft)..<Swift.min(w, tileWidth - padLeft)
        #if SWIFTSEG_32_REGISTERS
        // Only the padding is zeroed; the input goes in 16 pixels of a row at a time, the 16 channels' runs
        // transposed in registers (``transpose16(_:)``) into one vector per pixel.
        let rowFloats = tileWidth * width
        for r in 0..<tileHeight where !rows.contains(r - padTop) { (tile + r * rowFloats).update(repeating: 0, count: rowFloats) }
        let block = taps + k * k * width   // 16 vectors (blockScratchFloats)
        for y in rows {
            let row = tile + (y + padTop) * rowFloats
            row.update(repeating: 0, count: (padLeft + columns.lowerBound) * width)
            let right = padLeft + columns.upperBound
            (row + right * width).update(repeating: 0, count: (tileWidth - right) * width)
            var x = columns.lowerBound
            while x < columns.upperBound {
                let run = y * w + x
                for channel in 0..<width {
                    // a whole vector from each plane (the planes follow one another), but the last plane's
                    // last run, which would read past the input
                    if channel < width - 1 || run + width <= hw {
                        SIMDKernels.store(SIMDKernels.load(input + channel * hw + run), block + channel * width)
                    } else {
                        let valid = hw - run
                        (block + channel * width).update(from: input + channel * hw + run, count: valid)
                        (block + channel * width + valid).update(repeating: 0, count: width - valid)
                    }
                }
                block.withMemoryRebound(to: Vector.self, capacity: width) { transpose16($0) }
                let count = Swift.min(width, columns.upperBound - x)
                (row + (padLeft + x) * width).update(from: block, count: count * width)
                x += width
            }
        }
        gatherTaps(weight, kernelSize: k, into: taps)
        #else
        tile.update(repeating: 0, count: tileHeight * tileWidth * width)
        for channel in 0..<width {
            let plane = input + channel * hw
            for y in rows {
                let src = plane + y * w, dst = tile + ((y + padTop) * tileWidth + padLeft) * width + channel
                for x in columns { dst[x * width] = src[x] }
            }
        }
        gatherTaps(weight, kernelSize: k, into: taps)
        #endif
        let b = SIMDKernels.load(bias)
        #if SWIFTSEG_32_REGISTERS
        // Up to 8 pixels of an output row accumulate in registers through all k² taps (the same sums, in the same
        // order, as the loop below, which loads and stores each pixel's sum at every tap).
        accumulateRows(tile, tileWidth: tileWidth, stride: s, kernelSize: k, taps: taps, bias: b, outHeight: oh,
                       outWidth: ow, into: result, A.self)
        #else
        let step = s &* width   // floats from one output pixel's input to the next
        for oy in 0..<oh {
            let out = result + oy &* ow &* width, end = out + ow &* width
            var o = out
            while o < end { SIMDKernels.store(b, o); o += width }
            for ky in 0..<k {
                let row = tile + (oy &* s &+ ky) &* tileWidth &* width
                for kx in 0..<k {
                    let tap = SIMDKernels.load(taps + (ky &* k &+ kx) &* width)
                    var src = UnsafePointer(row + kx &* width)
                    o = out
                    while o < end {
                        SIMDKernels.store(SIMDKernels.multiplyAdd(tap, SIMDKernels.load(src), SIMDKernels.load(o)), o)
                        o += width; src += step
                    }
                }
            }
            o = out
            while o < end { SIMDKernels.store(A.apply(SIMDKernels.load(o)), o); o += width }
        }
        #endif
        #if SWIFTSEG_32_REGISTERS
        // Back to the planes 16 pixels at a time, transposed in registers; the last run's part vector lane by lane
        // (a whole one would write into the next plane's first pixels, already written).
        let staging = taps + k * k * width   // the same 16 vectors
        var p0 = 0
        while p0 < ohw {
            let count = Swift.min(width, ohw - p0)
            staging.update(from: result + p0 * width, count: count * width)
            (staging + count * width).update(repeating: 0, count: (width - count) * width)
            staging.withMemoryRebound(to: Vector.self, capacity: width) { transpose16($0) }
            for channel in 0..<width {
                let plane = output + channel * ohw + p0, res = residual.map { $0 + channel * ohw + p0 }
                let values = staging + channel * width
                if count == width {
                    SIMDKernels.store(res.map { SIMDKernels.load(values) + SIMDKernels.load($0) } ?? SIMDKernels.load(values), plane)
                } else if let res {
                    for p in 0..<count { plane[p] = values[p] + res[p] }
                } else {
                    for p in 0..<count { plane[p] = values[p] }
                }
            }
            p0 += width
        }
        #else
        for channel in 0..<width {
            let plane = output + channel * ohw, res = residual.map { $0 + channel * ohw }
            if let res {
                for p in 0..<ohw { plane[p] = result[p * width + channel] + res[p] }
            } else {
                for p in 0..<ohw { plane[p] = result[p * width + channel] }
            }
        }
        #endif
    }

    /// Each tap's 16 channels' weights as one vector (`taps[t · 16 + c]`), from 16 channels' k² taps each
    /// (channel-major, as a conv holds them): the block kernels' weight layout.
    @inline(__always)
    static func gatherTaps(_ weight: UnsafePointer<Float>, kernelSize k: Int, into taps: UnsafeMutablePointer<Float>) {
        for channel in 0..<width {
            for t in 0..<(k * k) { taps[t * width + channel] = weight[channel * k * k + t] }
        }
    }

    /// Every output row of a block kernel from its zero-padded tile (a pixel's 16 channels per vector, rows
    /// `tileWidth` vectors long): each row's k tap rows through ``accumulateRow``, into `out` (a vector per
    /// output pixel, row after row).
    @inline(__always)
    static func accumulateRows<A: VectorActivation>(_ tile: UnsafePointer<Float>, tileWidth: Int, stride s: Int,
                                                    kernelSize k: Int, taps: UnsafePointer<Float>, bias b: Vector,
                                                    outHeight oh: Int, outWidth ow: Int,
                                                    into output: UnsafeMutablePointer<Float>, _: A.Type) {
        let rowFloats = tileWidth &* width
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: k) { rows in
            for oy in 0..<oh {
                for ky in 0..<k { rows[ky] = tile + (oy &* s &+ ky) &* rowFloats }
                accumulateRow(UnsafePointer(rows.baseAddress!), 0..<k, stride: s, kernelSize: k, taps: taps, bias: b,
                              outWidth: ow, into: output + oy &* ow &* width, A.self)
            }
        }
    }

    /// One output row of a block kernel: up to 8 pixels at a time summed in registers (``accumulate``) over tap
    /// rows `taps` (`rows[ky]`: the row tap row ky reads, a pixel's 16 channels per vector, zero-padded so
    /// output pixel x's tap (ky, kx) is vector `x · s + kx`), activated and stored to `out` (a vector a pixel).
    @inline(__always)
    static func accumulateRow<A: VectorActivation>(_ rows: UnsafePointer<UnsafePointer<Float>>, _ tapRows: Range<Int>,
                                                   stride s: Int, kernelSize k: Int, taps: UnsafePointer<Float>,
                                                   bias b: Vector, outWidth ow: Int,
                                                   into output: UnsafeMutablePointer<Float>, _: A.Type) {
        let step = s &* width
        #if SWIFTSEG_32_REGISTERS
        if s == 1 && (k == 3 || k == 5) {
            @inline(__always) func run(_ k: Int) {
                var x = 0
                while x < ow {
                    let count = Swift.min(8, ow - x), out = output + x &* width, offset = x &* width
                    switch count {
                    case 8: accumulateHeld(8, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 7: accumulateHeld(7, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 6: accumulateHeld(6, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 5: accumulateHeld(5, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 4: accumulateHeld(4, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 3: accumulateHeld(3, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 2: accumulateHeld(2, k, rows, tapRows, offset, taps, b, out, A.self)
                    default: accumulateHeld(1, k, rows, tapRows, offset, taps, b, out, A.self)
                    }
                    x += 8
                }
            }
            if k == 3 { run(3) } else { run(5) }
            return
        }
        if s == 2 && (k == 3 || k == 5) {
            @inline(__always) func run(_ k: Int) {
                var x = 0
                while x < ow {
                    let count = Swift.min(8, ow - x), out = output + x &* width, offset = x &* step
                    switch count {
                    case 8: accumulateHeldStride2(8, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 7: accumulateHeldStride2(7, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 6: accumulateHeldStride2(6, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 5: accumulateHeldStride2(5, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 4: accumulateHeldStride2(4, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 3: accumulateHeldStride2(3, k, rows, tapRows, offset, taps, b, out, A.self)
                    case 2: accumulateHeldStride2(2, k, rows, tapRows, offset, taps, b, out, A.self)
                    default: accumulateHeldStride2(1, k, rows, tapRows, offset, taps, b, out, A.self)
                    }
                    x += 8
                }
            }
            if k == 3 { run(3) } else { run(5) }
            return
        }
        #else
        // 16 registers: at most 4 pixels' sums (8 of them), the size and stride constants
        switch (s, k) {
        case (1, 3): return narrowRow(Taps3Stride1.self, rows, tapRows, taps, b, ow, output, A.self)
        case (1, 5): return narrowRow(Taps5Stride1.self, rows, tapRows, taps, b, ow, output, A.self)
        case (2, 3): return narrowRow(Taps3Stride2.self, rows, tapRows, taps, b, ow, output, A.self)
        case (2, 5): return narrowRow(Taps5Stride2.self, rows, tapRows, taps, b, ow, output, A.self)
        default: break
        }
        #endif
        var x = 0
        while x < ow {
            let count = Swift.min(8, ow - x), out = output + x &* width, offset = x &* step
            @inline(__always) func row(_ ky: Int) -> UnsafePointer<Float> { rows[ky] }
            switch count {
            case 8: accumulate(8, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 7: accumulate(7, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 6: accumulate(6, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 5: accumulate(5, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 4: accumulate(4, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 3: accumulate(3, tapRows, row, offset, step, k, taps, b, out, A.self)
            case 2: accumulate(2, tapRows, row, offset, step, k, taps, b, out, A.self)
            default: accumulate(1, tapRows, row, offset, step, k, taps, b, out, A.self)
            }
            x += 8
        }
    }

    #if !SWIFTSEG_32_REGISTERS
    /// Pixels ``narrowRow`` sums at once: their 16-lane sums take half of 16 registers.
    static let narrowPixels = 4

    /// ``accumulateRow`` in the 16-register builds for one (kernel size, stride) pair: groups of at most
    /// ``narrowPixels`` pixels, the same sums in the same order (each pixel's own, in raster order).
    static func narrowRow<S: DepthwiseShape, A: VectorActivation>(
        _: S.Type, _ rows: UnsafePointer<UnsafePointer<Float>>, _ tapRows: Range<Int>, _ taps: UnsafePointer<Float>,
        _ b: Vector, _ ow: Int, _ output: UnsafeMutablePointer<Float>, _: A.Type
    ) {
        let step = S.stride &* width, k = S.kernelSize
        @inline(__always) func pixels(_ tapRows: Range<Int>, _ row: (Int) -> UnsafePointer<Float>) {
            var x = 0
            while x < ow {
                let count = Swift.min(narrowPixels, ow - x), out = output + x &* width, offset = x &* step
                switch count {
                case 4: accumulate(4, tapRows, row, offset, step, k, taps, b, out, A.self)
                case 3: accumulate(3, tapRows, row, offset, step, k, taps, b, out, A.self)
                case 2: accumulate(2, tapRows, row, offset, step, k, taps, b, out, A.self)
                default: accumulate(1, tapRows, row, offset, step, k, taps, b, out, A.self)
                }
                x += narrowPixels
            }
        }
        withRows(k, rows, tapRows, pixels)
    }
    #endif

    /// `body(tapRows, row)` with tap row ky's row `row(ky)`: when every tap row is there (0..<k, all but a wide
    /// map's edge rows) a constant range and the row pointers read once into registers, not again for each
    /// pixel; otherwise `rows[ky]`.
    @inline(__always)
    static func withRows(_ k: Int, _ rows: UnsafePointer<UnsafePointer<Float>>, _ tapRows: Range<Int>,
                         _ body: (Range<Int>, (Int) -> UnsafePointer<Float>) -> Void) {
        if tapRows.count == k {
            let r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = k > 3 ? rows[3] : r2, r4 = k > 3 ? rows[4] : r2
            body(0..<k) { ky in ky == 0 ? r0 : ky == 1 ? r1 : ky == 2 ? r2 : ky == 3 ? r3 : r4 }
        } else {
            body(tapRows) { rows[$0] }
        }
    }

    /// `count` (1–8, a constant at each call, so the unused sums fold away) output pixels of one row of a block
    /// kernel: bias + Σ over tap rows `tapRows` (all k of a zero-padded tile; a wide row skips those outside the
    /// input) and the k tap columns of tap · input, in raster order, then the activation, stored to `out` (a
    /// vector per pixel). The first pixel's tap row ky starts `offset` floats into `rows[ky]`; pixels are `step`
    /// floats apart.
    @inline(__always)
    static func accumulate<A: VectorActivation>(_ count: Int, _ tapRows: Range<Int>,
                                                _ row: (Int) -> UnsafePointer<Float>, _ offset: Int, _ step: Int, _ k: Int,
                                                _ taps: UnsafePointer<Float>, _ bias: Vector,
                                                _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias
        for ky in tapRows {
            var p = row(ky) + offset, tap = taps + ky &* k &* width
            for _ in 0..<k {
                let t = SIMDKernels.load(tap)
                s0 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p), s0)
                if count > 1 { s1 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + step), s1) }
                if count > 2 { s2 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 2 &* step), s2) }
                if count > 3 { s3 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 3 &* step), s3) }
                if count > 4 { s4 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 4 &* step), s4) }
                if count > 5 { s5 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 5 &* step), s5) }
                if count > 6 { s6 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 6 &* step), s6) }
                if count > 7 { s7 = SIMDKernels.multiplyAdd(t, SIMDKernels.load(p + 7 &* step), s7) }
                tap += width
                p += width
            }
        }
        storeActivated(count, s0, s1, s2, s3, s4, s5, s6, s7, out, A.self)
    }

    /// The first `count` of eight pixel sums, activated, into consecutive pixel vectors from `out`.
    @inline(__always)
    static func storeActivated<A: VectorActivation>(_ count: Int, _ s0: Vector, _ s1: Vector, _ s2: Vector,
                                                    _ s3: Vector, _ s4: Vector, _ s5: Vector, _ s6: Vector,
                                                    _ s7: Vector, _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        SIMDKernels.store(A.apply(s0), out)
        if count > 1 { SIMDKernels.store(A.apply(s1), out + width) }
        if count > 2 { SIMDKernels.store(A.apply(s2), out + 2 * width) }
        if count > 3 { SIMDKernels.store(A.apply(s3), out + 3 * width) }
        if count > 4 { SIMDKernels.store(A.apply(s4), out + 4 * width) }
        if count > 5 { SIMDKernels.store(A.apply(s5), out + 5 * width) }
        if count > 6 { SIMDKernels.store(A.apply(s6), out + 6 * width) }
        if count > 7 { SIMDKernels.store(A.apply(s7), out + 7 * width) }
    }

    #if SWIFTSEG_32_REGISTERS
    /// ``accumulate`` at stride 1 for k = 3 or 5 (`count` and `k` constants at each call): each tap row's
    /// count + k − 1 input vectors loaded once and held in registers for its k tap columns (up to 12 inputs, 8
    /// sums and a tap: 21 of the 32 registers), instead of one load per multiply-add — the depthwise conv of a
    /// small map had run at half the FMA rate, bound by its loads. The same multiply-adds in the same order:
    /// the same bytes. Written out vector by vector: held in an indexed form, the values stayed in memory.
    @inline(__always)
    static func accumulateHeld<A: VectorActivation>(_ count: Int, _ k: Int, _ rows: UnsafePointer<UnsafePointer<Float>>,
                                                    _ tapRows: Range<Int>, _ offset: Int, _ taps: UnsafePointer<Float>,
                                                    _ bias: Vector, _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias
        let zero = Vector(repeating: 0), inputs = count &+ k &- 1
        for ky in tapRows {
            let p = rows[ky] + offset, tap = taps + ky &* k &* width
            @inline(__always) func input(_ j: Int) -> Vector { j < inputs ? SIMDKernels.load(p + j &* width) : zero }
            let v0 = input(0), v1 = input(1), v2 = input(2), v3 = input(3), v4 = input(4), v5 = input(5)
            let v6 = input(6), v7 = input(7), v8 = input(8), v9 = input(9), v10 = input(10), v11 = input(11)
            // tap column kx: sum i += tap · input i + kx
            @inline(__always) func column(_ kx: Int, _ w0: Vector, _ w1: Vector, _ w2: Vector, _ w3: Vector,
                                          _ w4: Vector, _ w5: Vector, _ w6: Vector, _ w7: Vector) {
                let t = SIMDKernels.load(tap + kx &* width)
                s0 = SIMDKernels.multiplyAdd(t, w0, s0)
                if count > 1 { s1 = SIMDKernels.multiplyAdd(t, w1, s1) }
                if count > 2 { s2 = SIMDKernels.multiplyAdd(t, w2, s2) }
                if count > 3 { s3 = SIMDKernels.multiplyAdd(t, w3, s3) }
                if count > 4 { s4 = SIMDKernels.multiplyAdd(t, w4, s4) }
                if count > 5 { s5 = SIMDKernels.multiplyAdd(t, w5, s5) }
                if count > 6 { s6 = SIMDKernels.multiplyAdd(t, w6, s6) }
                if count > 7 { s7 = SIMDKernels.multiplyAdd(t, w7, s7) }
            }
            column(0, v0, v1, v2, v3, v4, v5, v6, v7)
            column(1, v1, v2, v3, v4, v5, v6, v7, v8)
            column(2, v2, v3, v4, v5, v6, v7, v8, v9)
            if k > 3 {
                column(3, v3, v4, v5, v6, v7, v8, v9, v10)
                column(4, v4, v5, v6, v7, v8, v9, v10, v11)
            }
        }
        storeActivated(count, s0, s1, s2, s3, s4, s5, s6, s7, out, A.self)
    }

    /// ``accumulateHeld`` at stride 2: pixel i's tap column kx reads input vector 2i + kx, so a tap row holds
    /// 2 · (count − 1) + k inputs (up to 19, with 8 sums and a tap: 28 of the 32 registers). A second
    /// straight-line body rather than one function with the stride as a constant: picking the held inputs by a
    /// constant index (a switch over them) left them in memory, 30–40× slower.
    @inline(__always)
    static func accumulateHeldStride2<A: VectorActivation>(_ count: Int, _ k: Int, _ rows: UnsafePointer<UnsafePointer<Float>>,
                                                           _ tapRows: Range<Int>, _ offset: Int, _ taps: UnsafePointer<Float>,
                                                           _ bias: Vector, _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias
        let zero = Vector(repeating: 0), inputs = 2 &* (count &- 1) &+ k
        for ky in tapRows {
            let p = rows[ky] + offset, tap = taps + ky &* k &* width
            @inline(__always) func input(_ j: Int) -> Vector { j < inputs ? SIMDKernels.load(p + j &* width) : zero }
            let v0 = input(0), v1 = input(1), v2 = input(2), v3 = input(3), v4 = input(4), v5 = input(5)
            let v6 = input(6), v7 = input(7), v8 = input(8), v9 = input(9), v10 = input(10), v11 = input(11)
            let v12 = input(12), v13 = input(13), v14 = input(14), v15 = input(15), v16 = input(16), v17 = input(17)
            let v18 = input(18)
            // tap column kx: sum i += tap · input 2i + kx
            @inline(__always) func column(_ kx: Int, _ w0: Vector, _ w1: Vector, _ w2: Vector, _ w3: Vector,
                                          _ w4: Vector, _ w5: Vector, _ w6: Vector, _ w7: Vector) {
                let t = SIMDKernels.load(tap + kx &* width)
                s0 = SIMDKernels.multiplyAdd(t, w0, s0)
                if count > 1 { s1 = SIMDKernels.multiplyAdd(t, w1, s1) }
                if count > 2 { s2 = SIMDKernels.multiplyAdd(t, w2, s2) }
                if count > 3 { s3 = SIMDKernels.multiplyAdd(t, w3, s3) }
                if count > 4 { s4 = SIMDKernels.multiplyAdd(t, w4, s4) }
                if count > 5 { s5 = SIMDKernels.multiplyAdd(t, w5, s5) }
                if count > 6 { s6 = SIMDKernels.multiplyAdd(t, w6, s6) }
                if count > 7 { s7 = SIMDKernels.multiplyAdd(t, w7, s7) }
            }
            column(0, v0, v2, v4, v6, v8, v10, v12, v14)
            column(1, v1, v3, v5, v7, v9, v11, v13, v15)
            column(2, v2, v4, v6, v8, v10, v12, v14, v16)
            if k > 3 {
                column(3, v3, v5, v7, v9, v11, v13, v15, v17)
                column(4, v4, v6, v8, v10, v12, v14, v16, v18)
            }
        }
        storeActivated(count, s0, s1, s2, s3, s4, s5, s6, s7, out, A.self)
    }
    #endif

    /// Pixels of a wide row summed at once by ``accumulateColumns`` (3×3, 5×5): k of their sums each stay in
    /// registers. With room for 8 vectors of 16 lanes (AVX2, arm64) a 5×5 kernel's pixels are summed two at a
    /// time by halves of the block (``accumulateColumnHalves``, `halves`) and the row's last one alone; the
    /// baseline x86-64 build (SSE2: room for 4) sums one pixel at a time.
    #if SWIFTSEG_32_REGISTERS
    static let widePixels = (three: 4, five: 4, halves: false)
    #elseif arch(x86_64) && !SWIFTSEG_FMA
    static let widePixels = (three: 1, five: 1, halves: false)
    #else
    static let widePixels = (three: 2, five: 1, halves: true)
    #endif

    /// One output row of a block kernel wider than ``Conv2D/depthwiseBlockMaximumWidth``-sized rows, each pixel
    /// summed exactly as the per-channel kernel (``channelRows``) sums it, so that a blocked map gets the planar
    /// path's bytes: for k = 3 and 5 one sum per tap column (the first starting at the bias) over the tap rows
    /// inside the input (`tapRows`), added up at the end (3: (c0 + c1) + c2; 5: (c0 + c1) + (c2 + c3) + c4);
    /// other k one sum in raster order. `rows[ky]` is tap row ky's row (zero-padded columns), pixels `s`
    /// vectors apart.
    @inline(__always)
    static func accumulateWideRow<A: VectorActivation>(_ rows: UnsafePointer<UnsafePointer<Float>>, _ tapRows: Range<Int>,
                                                       stride s: Int, kernelSize k: Int, taps: UnsafePointer<Float>,
                                                       bias b: Vector, outWidth ow: Int,
                                                       into output: UnsafeMutablePointer<Float>, _: A.Type) {
        guard k == 3 || k == 5 else {
            accumulateRow(rows, tapRows, stride: s, kernelSize: k, taps: taps, bias: b, outWidth: ow, into: output, A.self)
            return
        }
        // the stride and size as types, so each is a constant in its copy (the loads of columns two pixels
        // share merge, the tap rows unroll)
        switch (s, k) {
        case (1, 3): wideRow(Taps3Stride1.self, rows, tapRows, taps, b, ow, output, A.self)
        case (1, _): wideRow(Taps5Stride1.self, rows, tapRows, taps, b, ow, output, A.self)
        case (_, 3): wideRow(Taps3Stride2.self, rows, tapRows, taps, b, ow, output, A.self)
        default: wideRow(Taps5Stride2.self, rows, tapRows, taps, b, ow, output, A.self)
        }
    }

    /// ``accumulateWideRow`` for one (kernel size, stride) pair: groups of ``widePixels`` pixels.
    static func wideRow<S: DepthwiseShape, A: VectorActivation>(
        _: S.Type, _ rows: UnsafePointer<UnsafePointer<Float>>, _ tapRows: Range<Int>, _ taps: UnsafePointer<Float>,
        _ b: Vector, _ ow: Int, _ output: UnsafeMutablePointer<Float>, _: A.Type
    ) {
        let s = S.stride, k = S.kernelSize
        @inline(__always) func pixels(_ tapRows: Range<Int>, _ row: (Int) -> UnsafePointer<Float>) {
            var x = 0
            let group = k == 3 ? widePixels.three : widePixels.five
            #if !SWIFTSEG_32_REGISTERS
            while widePixels.halves && k == 5 && x + 2 <= ow {   // (for 3×3, halves of 3 or 4 pixels were no faster than 2 whole ones)
                accumulateColumnHalves(2, tapRows, row, x &* s &* width, s, k, taps, b, output + x &* width, A.self)
                x += 2
            }
            #endif
            while x + group <= ow {
                accumulateColumns(group, tapRows, row, x &* s &* width, s, k, taps, b, output + x &* width, A.self)
                x += group
            }
            while x < ow {
                accumulateColumns(1, tapRows, row, x &* s &* width, s, k, taps, b, output + x &* width, A.self)
                x += 1
            }
        }
        withRows(k, rows, tapRows, pixels)
    }

    /// `count` (1–4, constant at each call) pixels of ``accumulateWideRow`` for k = 3 or 5 (constant): pixel i's
    /// tap (ky, kx) reads vector `i · s + kx` of tap row ky from `offset`.
    @inline(__always)
    static func accumulateColumns<A: VectorActivation>(_ count: Int, _ tapRows: Range<Int>,
                                                       _ row: (Int) -> UnsafePointer<Float>, _ offset: Int, _ s: Int, _ k: Int,
                                                       _ taps: UnsafePointer<Float>, _ bias: Vector,
                                                       _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        let sums = columnSums(count, tapRows, row, offset, s, k, taps, bias)
        SIMDKernels.store(A.apply(sums.0), out)
        if count > 1 { SIMDKernels.store(A.apply(sums.1), out + width) }
        if count > 2 { SIMDKernels.store(A.apply(sums.2), out + 2 * width) }
        if count > 3 { SIMDKernels.store(A.apply(sums.3), out + 3 * width) }
    }

    #if !SWIFTSEG_32_REGISTERS
    /// ``accumulateColumns`` for two pixels of a 5×5 kernel, each half of the block (8 lanes) at a time: ten
    /// 8-lane sums fit 16 registers where ten 16-lane ones (one pixel) took them all, so each tap is loaded
    /// once for two pixels. The same sums lane by lane.
    @inline(__always)
    static func accumulateColumnHalves<A: VectorActivation>(_ count: Int, _ tapRows: Range<Int>,
                                                            _ row: (Int) -> UnsafePointer<Float>,
                                                            _ offset: Int, _ s: Int, _ k: Int, _ taps: UnsafePointer<Float>,
                                                            _ bias: Vector, _ out: UnsafeMutablePointer<Float>, _: A.Type) {
        let low = columnSums(count, tapRows, row, offset, s, k, taps, bias.lowHalf)
        let high = columnSums(count, tapRows, { row($0) + 8 }, offset, s, k, taps + 8, bias.highHalf)
        SIMDKernels.store(A.apply(Vector(lowHalf: low.0, highHalf: high.0)), out)
        if count > 1 { SIMDKernels.store(A.apply(Vector(lowHalf: low.1, highHalf: high.1)), out + width) }
        if count > 2 { SIMDKernels.store(A.apply(Vector(lowHalf: low.2, highHalf: high.2)), out + 2 * width) }
        if count > 3 { SIMDKernels.store(A.apply(Vector(lowHalf: low.3, highHalf: high.3)), out + 3 * width) }
    }
    #endif

    /// The sums of ``accumulateColumns`` (the first `count`) on vectors of `V` (16 lanes, or 8: half a block,
    /// `row`, `taps` and `bias` that half's).
    @inline(__always)
    static func columnSums<V: SIMD>(_ count: Int, _ tapRows: Range<Int>, _ row: (Int) -> UnsafePointer<Float>,
                                    _ offset: Int, _ s: Int, _ k: Int, _ taps: UnsafePointer<Float>,
                                    _ bias: V) -> (V, V, V, V) where V.Scalar == Float {
        let zero = V(repeating: 0)
        // sums[pixel][column]: pixel i's tap-column sums
        var c00 = bias, c01 = zero, c02 = zero, c03 = zero, c04 = zero
        var c10 = bias, c11 = zero, c12 = zero, c13 = zero, c14 = zero
        var c20 = bias, c21 = zero, c22 = zero, c23 = zero, c24 = zero
        var c30 = bias, c31 = zero, c32 = zero, c33 = zero, c34 = zero
        for ky in tapRows {
            let p = row(ky) + offset, t = taps + ky &* k &* width
            @inline(__always) func load(_ q: UnsafePointer<Float>) -> V { UnsafeRawPointer(q).loadUnaligned(as: V.self) }
            @inline(__always) func fma(_ tap: Int, _ j: Int, _ sum: V) -> V {
                SIMDKernels.multiplyAdd(load(t + tap &* width), load(p + j &* width), sum)
            }
            c00 = fma(0, 0, c00); c01 = fma(1, 1, c01); c02 = fma(2, 2, c02)
            if k == 5 { c03 = fma(3, 3, c03); c04 = fma(4, 4, c04) }
            if count > 1 {
                c10 = fma(0, s, c10); c11 = fma(1, s + 1, c11); c12 = fma(2, s + 2, c12)
                if k == 5 { c13 = fma(3, s + 3, c13); c14 = fma(4, s + 4, c14) }
            }
            if count > 2 {
                c20 = fma(0, 2 * s, c20); c21 = fma(1, 2 * s + 1, c21); c22 = fma(2, 2 * s + 2, c22)
                if k == 5 { c23 = fma(3, 2 * s + 3, c23); c24 = fma(4, 2 * s + 4, c24) }
            }
            if count > 3 {
                c30 = fma(0, 3 * s, c30); c31 = fma(1, 3 * s + 1, c31); c32 = fma(2, 3 * s + 2, c32)
                if k == 5 { c33 = fma(3, 3 * s + 3, c33); c34 = fma(4, 3 * s + 4, c34) }
            }
        }
        @inline(__always) func total(_ a: V, _ b: V, _ c: V, _ d: V, _ e: V) -> V {
            k == 3 ? a + b + c : (a + b) + (c + d) + e
        }
        return (total(c00, c01, c02, c03, c04), total(c10, c11, c12, c13, c14), total(c20, c21, c22, c23, c24),
                total(c30, c31, c32, c33, c34))
    }

    /// The 16 vectors at `r` as the rows of a 16×16 matrix, replaced by its transpose (row i, lane j ← row j,
    /// lane i): four rounds, each pairing rows `d` apart (d = 8, 4, 2, 1) and interleaving their blocks of `d`
    /// lanes, 64 two-source lane permutes in all (one `vpermt2ps` each on AVX-512) instead of 256 scalar loads
    /// and stores.
    @inline(__always)
    static func transpose16(_ r: UnsafeMutablePointer<Vector>) {
        @inline(__always) func low8(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
                   b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7])
        }
        @inline(__always) func high8(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15],
                   b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        }
        @inline(__always) func low4(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3],
                   a[8], a[9], a[10], a[11], b[8], b[9], b[10], b[11])
        }
        @inline(__always) func high4(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[4], a[5], a[6], a[7], b[4], b[5], b[6], b[7],
                   a[12], a[13], a[14], a[15], b[12], b[13], b[14], b[15])
        }
        @inline(__always) func low2(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[0], a[1], b[0], b[1], a[4], a[5], b[4], b[5],
                   a[8], a[9], b[8], b[9], a[12], a[13], b[12], b[13])
        }
        @inline(__always) func high2(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[2], a[3], b[2], b[3], a[6], a[7], b[6], b[7],
                   a[10], a[11], b[10], b[11], a[14], a[15], b[14], b[15])
        }
        @inline(__always) func low1(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[0], b[0], a[2], b[2], a[4], b[4], a[6], b[6],
                   a[8], b[8], a[10], b[10], a[12], b[12], a[14], b[14])
        }
        @inline(__always) func high1(_ a: Vector, _ b: Vector) -> Vector {
            Vector(a[1], b[1], a[3], b[3], a[5], b[5], a[7], b[7],
                   a[9], b[9], a[11], b[11], a[13], b[13], a[15], b[15])
        }
        var m = (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15])
        m = (low8(m.0, m.8), low8(m.1, m.9), low8(m.2, m.10), low8(m.3, m.11),
             low8(m.4, m.12), low8(m.5, m.13), low8(m.6, m.14), low8(m.7, m.15),
             high8(m.0, m.8), high8(m.1, m.9), high8(m.2, m.10), high8(m.3, m.11),
             high8(m.4, m.12), high8(m.5, m.13), high8(m.6, m.14), high8(m.7, m.15))
        m = (low4(m.0, m.4), low4(m.1, m.5), low4(m.2, m.6), low4(m.3, m.7),
             high4(m.0, m.4), high4(m.1, m.5), high4(m.2, m.6), high4(m.3, m.7),
             low4(m.8, m.12), low4(m.9, m.13), low4(m.10, m.14), low4(m.11, m.15),
             high4(m.8, m.12), high4(m.9, m.13), high4(m.10, m.14), high4(m.11, m.15))
        m = (low2(m.0, m.2), low2(m.1, m.3), high2(m.0, m.2), high2(m.1, m.3),
             low2(m.4, m.6), low2(m.5, m.7), high2(m.4, m.6), high2(m.5, m.7),
             low2(m.8, m.10), low2(m.9, m.11), high2(m.8, m.10), high2(m.9, m.11),
             low2(m.12, m.14), low2(m.13, m.15), high2(m.12, m.14), high2(m.13, m.15))
        m = (low1(m.0, m.1), high1(m.0, m.1), low1(m.2, m.3), high1(m.2, m.3),
             low1(m.4, m.5), high1(m.4, m.5), low1(m.6, m.7), high1(m.6, m.7),
             low1(m.8, m.9), high1(m.8, m.9), low1(m.10, m.11), high1(m.10, m.11),
             low1(m.12, m.13), high1(m.12, m.13), low1(m.14, m.15), high1(m.14, m.15))
        r[0] = m.0; r[1] = m.1; r[2] = m.2; r[3] = m.3; r[4] = m.4; r[5] = m.5; r[6] = m.6; r[7] = m.7
        r[8] = m.8; r[9] = m.9; r[10] = m.10; r[11] = m.11; r[12] = m.12; r[13] = m.13; r[14] = m.14; r[15] = m.15
    }
}

/// A depthwise kernel's size and stride as a type (``DepthwiseConvKernels/wideRow``): constants in each copy of
/// the kernel, which a run-time pair passed down is not once the compiler outlines a loop.
protocol DepthwiseShape { static var kernelSize: Int { get }; static var stride: Int { get } }
enum Taps3Stride1: DepthwiseShape { static var kernelSize: Int { 3 }; static var stride: Int { 1 } }
enum Taps5Stride1: DepthwiseShape { static var kernelSize: Int { 5 }; static var stride: Int { 1 } }
enum Taps3Stride2: DepthwiseShape { static var kernelSize: Int { 3 }; static var stride: Int { 2 } }
enum Taps5Stride2: DepthwiseShape { static var kernelSize: Int { 5 }; static var stride: Int { 2 } }
