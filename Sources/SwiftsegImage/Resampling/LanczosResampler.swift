import Foundation
import Synchronization
import SwiftsegImageKernels
import SwiftsegImageKernelsAVX2
import SwiftsegImageKernelsAVX512

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
    struct Taps: Sendable {
        var first: [Int] = []
        var count: [Int] = []
        var weights: [Int32] = []   // `ksize` per output index
        var ksize = 0
    }

    /// The taps of the size pairs met lately (at most ``tapsCacheSize``): a folder of one camera's photos, or a
    /// server's requests, resizes the same sizes over and over, and the taps' sines were ~2 % of a photo's time
    /// in `swiftseg classify` (PERF.md, "Encoding and decoding images"). The same taps either way: they depend on the sizes alone.
    static let tapsCache = Mutex<[SIMD2<Int>: Taps]>([:])
    static let tapsCacheSize = 32

    static func taps(inSize: Int, outSize: Int) -> Taps {
        let key = SIMD2(inSize, outSize)
        if let cached = tapsCache.withLock({ $0[key] }) { return cached }
        let t = computeTaps(inSize: inSize, outSize: outSize)
        tapsCache.withLock { cache in
            if cache.count >= tapsCacheSize { cache.removeAll(keepingCapacity: true) }
            cache[key] = t
        }
        return t
    }

    static func computeTaps(inSize: Int, outSize: Int) -> Taps {
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
    /// 2 (Lanczos' negative lobes), so they cannot overflow, and wrapping arithmetic lets the loops vectorise
    /// (SwiftsegImageKernels/ResamplingKernels.swift, in the `isa` build: every build gives the same bytes).
    /// Each pass is cut into parts of ``rowsPerPart`` output rows, which `parts` may run at the same time.
    public static func resize(_ src: [UInt8], channels: Int, width: Int, height: Int,
                              toWidth outW: Int, toHeight outH: Int, parts: ParallelParts = .serial,
                              isa: KernelISA = .best) -> [UInt8] {
        precondition(outW > 0 && outH > 0, "target size must be positive")
        precondition(isa.isSupported, "this CPU cannot run the \(isa) build of the resampling kernels")
        let kernels = LanczosKernels.of(isa)
        @inline(__always) func partCount(_ rows: Int) -> Int { (rows + rowsPerPart - 1) / rowsPerPart }
        var current = src
        var curW = width
        if outW != width {
            current = pass(taps(inSize: width, outSize: outW), over: current, into: outW * height * channels,
                           parts: parts, partCount(height)) { part, source, target, first, count, weights, ksize in
                let y0 = part * rowsPerPart, rows = min(rowsPerPart, height - y0)
                // The kernel's transposed strips; zeroed, as a short last strip adds lanes it never reads back.
                let columns = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 16 * channels)
                columns.initialize(repeating: 0, count: width * 16 * channels)
                let results = UnsafeMutablePointer<Int32>.allocate(capacity: outW * 16 * channels)
                defer { columns.deallocate(); results.deallocate() }
                kernels.horizontal(source + y0 * width * channels, target + y0 * outW * channels, width, rows, outW,
                                   channels, first, count, weights, ksize, precisionBits, columns, results)
            }
            curW = outW
        }
        if outH != height {
            let rowLen = curW * channels
            current = pass(taps(inSize: height, outSize: outH), over: current, into: outH * rowLen,
                           parts: parts, partCount(outH)) { part, source, target, first, count, weights, ksize in
                let sums = UnsafeMutablePointer<Int32>.allocate(capacity: rowLen)
                defer { sums.deallocate() }
                kernels.vertical(source, target, rowLen, (part * rowsPerPart)..<min(outH, (part + 1) * rowsPerPart),
                                 first, count, weights, ksize, precisionBits, sums)
            }
        }
        return current
    }

    /// One pass into a new buffer of `outCount` bytes: `body` for each of `partCount` parts (which `parts` may run
    /// at the same time), given the source, the target and the taps' arrays.
    static func pass(_ t: Taps, over src: [UInt8], into outCount: Int, parts: ParallelParts, _ partCount: Int,
                     _ body: (_ part: Int, _ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>,
                              _ first: UnsafePointer<Int>, _ count: UnsafePointer<Int>,
                              _ weights: UnsafePointer<Int32>, _ ksize: Int) -> Void) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outCount)
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                t.weights.withUnsafeBufferPointer { w in
                    t.first.withUnsafeBufferPointer { f in
                        t.count.withUnsafeBufferPointer { c in
                            let source = s.baseAddress!, target = o.baseAddress!
                            parts.forEach(partCount) { body($0, source, target, f.baseAddress!, c.baseAddress!,
                                                            w.baseAddress!, t.ksize) }
                        }
                    }
                }
            }
        }
        return out
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

/// The resampling kernels of one ``KernelISA`` build (SwiftsegImageKernels/ResamplingKernels.swift) as function
/// values: where the resampler switches between the builds.
struct LanczosKernels: Sendable {
    typealias Horizontal = @Sendable (_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                                      _ height: Int, _ outWidth: Int, _ channels: Int, _ first: UnsafePointer<Int>,
                                      _ count: UnsafePointer<Int>, _ weights: UnsafePointer<Int32>, _ ksize: Int,
                                      _ precisionBits: Int, _ columns: UnsafeMutablePointer<UInt8>,
                                      _ results: UnsafeMutablePointer<Int32>) -> Void
    typealias Vertical = @Sendable (_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ rowLength: Int,
                                    _ rows: Range<Int>, _ first: UnsafePointer<Int>, _ count: UnsafePointer<Int>,
                                    _ weights: UnsafePointer<Int32>, _ ksize: Int, _ precisionBits: Int,
                                    _ sums: UnsafeMutablePointer<Int32>) -> Void
    let horizontal: Horizontal
    let vertical: Vertical

    static let builds: [KernelISA: LanczosKernels] = [
        .baseline: LanczosKernels(horizontal: SwiftsegImageKernels.ResamplingKernels.lanczosHorizontal,
                                  vertical: SwiftsegImageKernels.ResamplingKernels.lanczosVertical),
        .avx2: LanczosKernels(horizontal: SwiftsegImageKernelsAVX2.ResamplingKernels.lanczosHorizontal,
                              vertical: SwiftsegImageKernelsAVX2.ResamplingKernels.lanczosVertical),
        .avx512: LanczosKernels(horizontal: SwiftsegImageKernelsAVX512.ResamplingKernels.lanczosHorizontal,
                                vertical: SwiftsegImageKernelsAVX512.ResamplingKernels.lanczosVertical),
    ]

    static func of(_ isa: KernelISA) -> LanczosKernels { builds[isa]! }
}
