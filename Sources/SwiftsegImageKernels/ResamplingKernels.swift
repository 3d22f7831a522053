/// The Pillow-exact Lanczos resampler's two passes on raw pointers, compiled three times like the matting's loops
/// (SwiftsegImageKernels for the baseline CPU, …AVX2 and …AVX512 symlinked to this file): the baseline x86-64
/// has no 32-bit vector multiply (SSE2 makes one of two `pmuludq` and four shuffles), so the passes ran ~4× slower
/// there than their arithmetic needs. SwiftsegImage/Resampling/LanczosResampler.swift owns the taps (first input
/// index, count and fixed-point weights per output index, `ksize` weights apart) and picks a build; the sums are
/// integers, so every build gives the same bytes (a test against the plain reference loops).
public enum ResamplingKernels {
    /// The horizontal pass over `height` rows of `width` pixels of `channels` samples into `outWidth` pixels,
    /// 16 rows at a time: the strip is transposed into `columns` (at least `width · 16 · channels` bytes) so that
    /// each column of the strip is contiguous, each output pixel adds its taps' whole columns times their weights,
    /// a vector of lanes at a time, into `results` (at least `outWidth · 16 · channels` Int32s), which is
    /// transposed back into the rows. Along a row the taps of neighbouring outputs start at irregular offsets, which vectors
    /// cannot follow; down a strip every lane shares them.
    public static func lanczosHorizontal(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
                                         width: Int, height: Int, outWidth: Int, channels: Int,
                                         first: UnsafePointer<Int>, count: UnsafePointer<Int>,
                                         weights: UnsafePointer<Int32>, ksize: Int, precisionBits: Int,
                                         columns: UnsafeMutablePointer<UInt8>, results: UnsafeMutablePointer<Int32>) {
        switch channels {  // the channel count as a constant in the transposes (a generic specialised per count)
        case 1: horizontal(One.self, src, dst, width, height, outWidth, first, count, weights, ksize, precisionBits,
                           columns, results)
        case 3: horizontal(Three.self, src, dst, width, height, outWidth, first, count, weights, ksize, precisionBits,
                           columns, results)
        case 4: horizontal(Four.self, src, dst, width, height, outWidth, first, count, weights, ksize, precisionBits,
                           columns, results)
        default: horizontal(AnyCount.self, src, dst, width, height, outWidth, first, count, weights, ksize, precisionBits,
                            columns, results, channels: channels)
        }
    }

    static func horizontal<Channels: ChannelCount>(_: Channels.Type, _ src: UnsafePointer<UInt8>,
                           _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                           _ height: Int, _ outWidth: Int, _ first: UnsafePointer<Int>,
                           _ count: UnsafePointer<Int>, _ weights: UnsafePointer<Int32>, _ ksize: Int,
                           _ precisionBits: Int, _ columns: UnsafeMutablePointer<UInt8>,
                           _ results: UnsafeMutablePointer<Int32>, channels other: Int = 0) {
        let channels = Channels.value ?? other, strip = 16, lanes = strip &* channels
        let half = Int32(1) << Int32(precisionBits - 1), shift = Int32(precisionBits)
        var y0 = 0
        while y0 < height {
            let rows = min(strip, height &- y0)
            for r in 0..<rows {
                let row = src + (y0 &+ r) &* width &* channels, column = columns + r &* channels
                for x in 0..<width {
                    for c in 0..<channels { column[x &* lanes &+ c] = row[x &* channels &+ c] }
                }
            }
            // 16 lanes in registers through the taps, widened from bytes; the clipped sums stored as Int32 (the
            // transpose back narrows them one by one anyway: LLVM lowered a 16-lane narrowing to lane inserts).
            for xx in 0..<outWidth {
                let n = count[xx], k = weights + xx &* ksize, taps = columns + first[xx] &* lanes
                var chunk = 0
                while chunk < lanes {
                    var acc = SIMD16<Int32>(repeating: half)
                    var p = taps + chunk
                    for x in 0..<n {
                        acc &+= widen(UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self))
                            &* SIMD16<Int32>(repeating: k[x])
                        p += lanes
                    }
                    UnsafeMutableRawPointer(results + (xx &* lanes &+ chunk))
                        .storeBytes(of: clip(acc &>> SIMD16<Int32>(repeating: shift)), as: SIMD16<Int32>.self)
                    chunk &+= 16
                }
            }
            for r in 0..<rows {
                let row = dst + (y0 &+ r) &* outWidth &* channels, column = results + r &* channels
                for xx in 0..<outWidth {
                    for c in 0..<channels { row[xx &* channels &+ c] = UInt8(truncatingIfNeeded: column[xx &* lanes &+ c]) }
                }
            }
            y0 &+= strip
        }
    }

    /// The vertical pass for output rows `rows`: row `y` is Σ weights[y · ksize + j] · input row `first[y] + j`
    /// over `count[y]` rows of `rowLength` samples, whole rows at a time (`sums`: `rowLength` Int32s of scratch).
    public static func lanczosVertical(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
                                       rowLength: Int, rows: Range<Int>, first: UnsafePointer<Int>,
                                       count: UnsafePointer<Int>, weights: UnsafePointer<Int32>, ksize: Int,
                                       precisionBits: Int, sums: UnsafeMutablePointer<Int32>) {
        let half = Int32(1) << Int32(precisionBits - 1), shift = Int32(precisionBits)
        for y in rows {
            let n = count[y], k = weights + y &* ksize
            for i in 0..<rowLength { sums[i] = half }
            for j in 0..<n {
                let weight = k[j], input = src + (first[y] &+ j) &* rowLength
                for i in 0..<rowLength { sums[i] &+= Int32(input[i]) &* weight }
            }
            let out = dst + y &* rowLength
            for i in 0..<rowLength { out[i] = UInt8(truncatingIfNeeded: clip(sums[i] >> shift)) }
        }
    }

    // Lane by lane rather than the standard library's generic conversion, which is specialised into a symbol of
    // its own in each build that the linker would merge (Tools/check_kernel_builds.sh); this inlines to one
    // widening load.
    @inline(__always)
    static func widen(_ v: SIMD16<UInt8>) -> SIMD16<Int32> {
        var r = SIMD16<Int32>()
        for i in 0..<16 { r[i] = Int32(v[i]) }
        return r
    }

    /// ``clip(_:)`` on 16 lanes, in arithmetic: masked selects (`replacing(with:where:)`) became a loop over the
    /// lanes.
    @inline(__always)
    static func clip(_ v: SIMD16<Int32>) -> SIMD16<Int32> {
        let low = v & ~(v &>> 31)                   // negatives to 0
        let over = SIMD16<Int32>(repeating: 255) &- low
        return low &+ (over & (over &>> 31))        // above 255 to 255
    }

    /// Pillow's clip8 after the shift: 0…255.
    @inline(__always)
    static func clip(_ v: Int32) -> Int32 { min(max(v, 0), 255) }
}

/// A channel count as a type, so that the horizontal pass is specialised with it as a constant (nil: the count
/// passed at run time, for the rare others).
protocol ChannelCount { static var value: Int? { get } }
enum One: ChannelCount { static var value: Int? { 1 } }
enum Three: ChannelCount { static var value: Int? { 3 } }
enum Four: ChannelCount { static var value: Int? { 4 } }
enum AnyCount: ChannelCount { static var value: Int? { nil } }
