import Foundation

/// Lanczos-3 resampling of 8-bit images, computed exactly as Pillow's `Image.resize(size, Image.LANCZOS)`
/// does (rembg's resampler, both ways): separable passes, horizontal first, with an 8-bit intermediate; the
/// filter is stretched by the scale factor when shrinking (antialiasing); coefficients are normalised per
/// output pixel and rounded to 22-bit fixed point. Matching it bit for bit keeps our masks equal to rembg's.
///
/// ```swift
/// let small = LanczosResampler.resize(photo, width: 320, height: 320)
/// ```
public enum LanczosResampler {
    static let support = 3.0
    static let precisionBits = 32 - 8 - 2

    static func lanczos(_ x: Double) -> Double {
        guard -support <= x && x < support else { return 0 }
        return sinc(x) * sinc(x / support)
    }

    static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = x * Double.pi
        return sin(px) / px
    }

    /// Fixed-point taps for resizing `inSize` samples to `outSize`: for each output index, the first input
    /// index and its weights.
    struct Taps {
        var first: [Int] = []
        var count: [Int] = []
        var weights: [Int32] = []   // `ksize` per output index
        var ksize = 0
    }

    static func taps(inSize: Int, outSize: Int) -> Taps {
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(scale, 1)
        let radius = support * filterScale
        let ksize = Int(radius.rounded(.up)) * 2 + 1
        var t = Taps()
        t.ksize = ksize
        t.weights = [Int32](repeating: 0, count: outSize * ksize)
        var k = [Double](repeating: 0, count: ksize)
        for xx in 0..<outSize {
            let center = (Double(xx) + 0.5) * scale
            let ss = 1 / filterScale
            let xmin = max(Int(center - radius + 0.5), 0)   // Int() truncates toward zero, as C's (int) cast
            let xmax = min(Int(center + radius + 0.5), inSize) - xmin
            var ww = 0.0
            for x in 0..<xmax {
                let w = lanczos((Double(x + xmin) - center + 0.5) * ss)
                k[x] = w
                ww += w
            }
            for x in 0..<ksize {
                let v = x < xmax && ww != 0 ? k[x] / ww : 0
                let fixed = v * Double(1 << precisionBits)
                t.weights[xx * ksize + x] = Int32(v < 0 ? fixed - 0.5 : fixed + 0.5)
            }
            t.first.append(xmin)
            t.count.append(max(xmax, 0))
        }
        return t
    }

    @inline(__always) static func clip8(_ v: Int32) -> UInt8 {
        let shifted = v >> Int32(precisionBits)
        return shifted < 0 ? 0 : shifted > 255 ? 255 : UInt8(truncatingIfNeeded: shifted)
    }

    /// Resizes an 8-bit image (any channel count; channels are independent). Returns a copy when the size
    /// is unchanged. `parts`: threads to share the rows with (the same bytes either way).
    public static func resize(_ image: Image, width: Int, height: Int, parts: ParallelParts = .serial) -> Image {
        let pixels = resize(image.pixels, channels: image.channels, width: image.width, height: image.height,
                            toWidth: width, toHeight: height, parts: parts)
        return Image(width: width, height: height, channels: image.channels, pixels: pixels)
    }

    /// Rows per part when a pass is shared between threads: enough that a part is worth handing over.
    static let rowsPerPart = 32

    /// Resizes interleaved 8-bit samples.
    ///
    /// Sums are 32-bit, as Pillow's: 8-bit samples times 22-bit weights whose magnitudes add up to well under
    /// 2 (Lanczos' negative lobes), so they cannot overflow, and wrapping arithmetic lets the loops vectorise.
    /// Each pass is cut into parts of ``rowsPerPart`` output rows, which `parts` may run at the same time.
    public static func resize(_ src: [UInt8], channels: Int, width: Int, height: Int,
                              toWidth outW: Int, toHeight outH: Int, parts: ParallelParts = .serial) -> [UInt8] {
        precondition(outW > 0 && outH > 0, "target size must be positive")
        let half = Int32(1 << (precisionBits - 1))
        @inline(__always) func partCount(_ rows: Int) -> Int { (rows + rowsPerPart - 1) / rowsPerPart }
        var current = src
        var curW = width
        if outW != width {
            let t = taps(inSize: width, outSize: outW)
            var out = [UInt8](repeating: 0, count: outW * height * channels)
            current.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    let source = s.baseAddress!, target = o.baseAddress!
                    parts.forEach(partCount(height)) { part in
                        let y0 = part * rowsPerPart, rows = min(rowsPerPart, height - y0)
                        let s = source + y0 * width * channels, o = target + y0 * outW * channels
                        switch channels {  // the channel count as a constant: all channels of a tap in one pass
                        case 1: horizontalPass(s, o, t, width: width, height: rows, outW: outW, channels: 1)
                        case 3: horizontalPass(s, o, t, width: width, height: rows, outW: outW, channels: 3)
                        case 4: horizontalPass(s, o, t, width: width, height: rows, outW: outW, channels: 4)
                        default: horizontalPass(s, o, t, width: width, height: rows, outW: outW, channels: channels)
                        }
                    }
                }
            }
            current = out
            curW = outW
        }
        if outH != height {
            let t = taps(inSize: height, outSize: outH)
            let rowLen = curW * channels
            var out = [UInt8](repeating: 0, count: outH * rowLen)
            current.withUnsafeBufferPointer { s in
                t.weights.withUnsafeBufferPointer { w in
                    out.withUnsafeMutableBufferPointer { o in
                        let source = s.baseAddress!, target = o.baseAddress!
                        parts.forEach(partCount(outH)) { part in
                            let acc = UnsafeMutablePointer<Int32>.allocate(capacity: rowLen)
                            defer { acc.deallocate() }
                            // A whole output row at a time: each tap adds one input row times its weight
                            // (contiguous, so the inner loop is SIMD).
                            for yy in (part * rowsPerPart)..<min(outH, (part + 1) * rowsPerPart) {
                                let first = t.first[yy], n = t.count[yy], kw = yy &* t.ksize
                                for i in 0..<rowLen { acc[i] = half }
                                for y in 0..<n {
                                    let weight = w[kw &+ y]
                                    let input = source + (first &+ y) &* rowLen
                                    for i in 0..<rowLen { acc[i] &+= Int32(input[i]) &* weight }
                                }
                                let outRow = target + yy &* rowLen
                                for i in 0..<rowLen { outRow[i] = clip8(acc[i]) }
                            }
                        }
                    }
                }
            }
            current = out
        }
        return current
    }

    /// The horizontal pass: each output pixel sums its taps along the row, all `channels` (at most 4 at a
    /// time) per tap, so each weight is loaded once; inlined with a constant `channels` at the call sites.
    @inline(__always)
    static func horizontalPass(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ t: Taps,
                               width: Int, height: Int, outW: Int, channels: Int) {
        let half = Int32(1 << (precisionBits - 1))
        t.weights.withUnsafeBufferPointer { w in
            t.first.withUnsafeBufferPointer { firsts in
                t.count.withUnsafeBufferPointer { counts in
                    for y in 0..<height {
                        let row = src + y &* width &* channels
                        let outRow = dst + y &* outW &* channels
                        for xx in 0..<outW {
                            let n = counts[xx], k = w.baseAddress! + xx &* t.ksize
                            var c0 = 0
                            while c0 < channels {
                                let lanes = Swift.min(4, channels &- c0)
                                var a0 = half, a1 = half, a2 = half, a3 = half
                                var p = row + (firsts[xx] &* channels &+ c0)
                                for x in 0..<n {
                                    let weight = k[x]
                                    a0 &+= Int32(p[0]) &* weight
                                    if lanes > 1 { a1 &+= Int32(p[1]) &* weight }
                                    if lanes > 2 { a2 &+= Int32(p[2]) &* weight }
                                    if lanes > 3 { a3 &+= Int32(p[3]) &* weight }
                                    p += channels
                                }
                                let o = outRow + (xx &* channels &+ c0)
                                o[0] = clip8(a0)
                                if lanes > 1 { o[1] = clip8(a1) }
                                if lanes > 2 { o[2] = clip8(a2) }
                                if lanes > 3 { o[3] = clip8(a3) }
                                c0 &+= 4
                            }
                        }
                    }
                }
            }
        }
    }

    /// The plain version of ``resize(_:channels:width:height:toWidth:toHeight:)`` (64-bit sums, one output
    /// sample at a time, as Pillow's C reads), kept as the reference the fast loops are tested against.
    public static func referenceResize(_ src: [UInt8], channels: Int, width: Int, height: Int,
                                       toWidth outW: Int, toHeight outH: Int) -> [UInt8] {
        precondition(outW > 0 && outH > 0, "target size must be positive")
        var current = src
        var curW = width
        if outW != width {
            let t = taps(inSize: width, outSize: outW)
            var out = [UInt8](repeating: 0, count: outW * height * channels)
            current.withUnsafeBufferPointer { s in
                t.weights.withUnsafeBufferPointer { w in
                    out.withUnsafeMutableBufferPointer { o in
                        for y in 0..<height {
                            let row = y * width * channels
                            for xx in 0..<outW {
                                let first = t.first[xx], n = t.count[xx], kw = xx * t.ksize
                                for c in 0..<channels {
                                    var acc = 1 << (precisionBits - 1)
                                    for x in 0..<n { acc += Int(s[row + (first + x) * channels + c]) * Int(w[kw + x]) }
                                    o[(y * outW + xx) * channels + c] = clip8(Int32(acc))
                                }
                            }
                        }
                    }
                }
            }
            current = out
            curW = outW
        }
        if outH != height {
            let t = taps(inSize: height, outSize: outH)
            let rowLen = curW * channels
            var out = [UInt8](repeating: 0, count: outH * rowLen)
            current.withUnsafeBufferPointer { s in
                t.weights.withUnsafeBufferPointer { w in
                    out.withUnsafeMutableBufferPointer { o in
                        for yy in 0..<outH {
                            let first = t.first[yy], n = t.count[yy], kw = yy * t.ksize
                            for i in 0..<rowLen {
                                var acc = 1 << (precisionBits - 1)
                                for y in 0..<n { acc += Int(s[(first + y) * rowLen + i]) * Int(w[kw + y]) }
                                o[yy * rowLen + i] = clip8(Int32(acc))
                            }
                        }
                    }
                }
            }
            current = out
        }
        return current
    }
}
