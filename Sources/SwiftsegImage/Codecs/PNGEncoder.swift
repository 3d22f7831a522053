import _CPNG
import SwiftsegImageKernels

/// A small PNG writer (non-interlaced, 8- or 16-bit gray/RGB/RGBA) with per-row adaptive filtering, as
/// libpng chooses by default (the filter with the smallest sum of absolute values), and a settable zlib level or
/// run-length deflate (``PNGCompression``, ``RunLengthDeflate``), which libpng's simplified API does not offer.
///
/// ```swift
/// let png = try PNGEncoder.encode(width: 2, height: 1, channels: 1, bitDepth: 16, rows: [0, 1, 255, 255],
///                                 compression: .fast)   // a 16-bit gray label map: labels 1 and 65535
/// ```
public enum PNGEncoder {
    /// The rows are filtered and run-length compressed in segments of whole rows, about this many filtered bytes
    /// each, which `parts` may work on at the same time (``RunLengthDeflate``; a picture of one segment is one
    /// plain stream, as before segments).
    static let segmentBytes = 1 << 18

    /// Encodes `height` rows of `width` pixels of `channels` (1 gray, 3 RGB, 4 RGBA) samples of `bitDepth`
    /// bits (8, or 16 big-endian as PNG stores them). `parts`: threads to share the work with (the same bytes
    /// either way).
    public static func encode(width: Int, height: Int, channels: Int, bitDepth: Int, rows pixels: [UInt8],
                              compression: PNGCompression, parts: ParallelParts = .serial,
                              iccProfile: [UInt8]? = nil) throws -> [UInt8] {
        let bpp = channels * bitDepth / 8  // bytes per pixel
        let stride = width * bpp
        precondition(pixels.count == stride * height, "PNG rows do not match the size")
        let rowsPerSegment = max(1, segmentBytes / (stride + 1))
        let segments = (0..<max(1, (height + rowsPerSegment - 1) / rowsPerSegment)).map { s in
            (s * rowsPerSegment * (stride + 1))..<(min(height, (s + 1) * rowsPerSegment) * (stride + 1))
        }
        // Filtered scanlines: one filter-type byte, then the row.
        var filtered = [UInt8](repeating: 0, count: (stride + 1) * height)
        let zeroRow = [UInt8](repeating: 0, count: stride)  // the row "above" the first
        pixels.withUnsafeBufferPointer { px in
            zeroRow.withUnsafeBufferPointer { zero in
                filtered.withUnsafeMutableBufferPointer { out in
                    parts.forEach(segments.count) { s in
                        for y in (s * rowsPerSegment)..<min(height, (s + 1) * rowsPerSegment) {
                            let row = px.baseAddress! + y * stride
                            let above = y > 0 ? row - stride : zero.baseAddress!
                            // Score all five filters without storing them, then write the best (the first on ties).
                            let scores = filterScores(row: row, above: above, count: stride, bpp: bpp)
                            var best = 0
                            for f in 1..<5 where scores[f] < scores[best] { best = f }
                            let dst = out.baseAddress! + y * (stride + 1)
                            dst[0] = UInt8(best)
                            applyFilter(best, row: row, above: above, count: stride, bpp: bpp, into: dst + 1)
                        }
                    }
                }
            }
        }
        let grayContent = compression == .fast && bitDepth == 8 && channels >= 3 && isGray(pixels, channels: channels)
        let compressed = compression == .fast && !grayContent
            ? filtered.withUnsafeBufferPointer { RunLengthDeflate.compress($0, segments: segments, parts: parts) }
            : try deflate(filtered, compression, grayContent: grayContent)
        let colorType: UInt8 = channels == 1 ? 0 : channels == 3 ? 2 : 6
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out.reserveCapacity(compressed.count + 64)
        chunk("IHDR", be32(width) + be32(height) + [UInt8(bitDepth), colorType, 0, 0, 0], into: &out)
        if let iccProfile {  // the colour profile: a name, compression method 0, the profile deflated
            chunk("iCCP", Array("ICC profile".utf8) + [0, 0] + (try deflate(iccProfile, .level(9))), into: &out)
        }
        // A chunk's length field is 31 bits: data beyond 1 GiB goes into several IDAT chunks (as PNG allows).
        var start = 0
        repeat {
            let end = min(compressed.count, start + (1 << 30))
            chunk("IDAT", start == 0 && end == compressed.count ? compressed : Array(compressed[start..<end]), into: &out)
            start = end
        } while start < compressed.count
        chunk("IEND", [], into: &out)
        return out
    }

    /// Whether every pixel of 8-bit RGB or RGBA `pixels` has R = G = B (a grayscale photo stored in colour).
    static func isGray(_ pixels: [UInt8], channels: Int) -> Bool {
        pixels.withUnsafeBufferPointer { p in
            let rowPixels = 4096, count = p.count / channels
            var start = 0
            while start < count {  // in blocks, so that a colour photo stops at its first block
                let end = min(count, start + rowPixels)
                var differs: UInt8 = 0
                for i in start..<end {
                    let r = p[i &* channels]
                    differs |= (r ^ p[i &* channels &+ 1]) | (r ^ p[i &* channels &+ 2])
                }
                if differs != 0 { return false }
                start = end
            }
            return true
        }
    }

    /// `data` as one zlib stream: `.fast` is run-length deflate (``RunLengthDeflate``) — or, for `grayContent`
    /// (gray pixels stored as RGB(A): their bytes repeat four apart, beyond a run), zlib's level 1 of the default
    /// strategy, which finds those repeats at about the same speed (the coins scan: 224 kB run-length, 161 kB
    /// level 1, 149 kB level 6); `.level(n)` zlib's default strategy at level n.
    static func deflate(_ data: [UInt8], _ compression: PNGCompression, grayContent: Bool = false) throws -> [UInt8] {
        if compression == .fast && !grayContent { return RunLengthDeflate.compress(data) }
        let (level, strategy): (Int32, Int32) = switch compression {
        case .fast: (1, Z_DEFAULT_STRATEGY)  // gray content: the rest of `.fast` returned above
        case .level(let n): (Int32(min(max(n, 0), 9)), Z_DEFAULT_STRATEGY)
        }
        var stream = z_stream()
        var status = swiftseg_deflateInit2(&stream, level, strategy)
        guard status == Z_OK else { throw ImageError(.codecFailure, "cannot start the PNG compressor (zlib error \(status))") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))))
        let piece = 1 << 30  // zlib counts in 32 bits: feed and drain at most 1 GiB per call
        var read = 0, written = 0
        repeat {
            status = data.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    let input = min(piece, src.count - read), room = min(piece, dst.count - written)
                    stream.next_in = src.baseAddress.map { UnsafeMutablePointer(mutating: $0 + read) }
                    stream.avail_in = UInt32(input)
                    stream.next_out = dst.baseAddress.map { $0 + written }
                    stream.avail_out = UInt32(room)
                    let flush = read + input == src.count ? Z_FINISH : Z_NO_FLUSH
                    let status = _CPNG.deflate(&stream, flush)
                    read += input - Int(stream.avail_in)
                    written += room - Int(stream.avail_out)
                    return status
                }
            }
        } while status == Z_OK
        guard status == Z_STREAM_END else { throw ImageError(.codecFailure, "cannot compress PNG data (zlib error \(status))") }
        out.removeLast(out.count - written)
        return out
    }

    /// The byte filter `f` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) predicts at `i` from the pixel to the left
    /// (`a`), above (`b`) and above-left (`c`): the decoder's (``PNGDecodingKernels/predicted(_:_:_:_:)``), inlined.
    @inline(__always)
    static func predicted(_ f: Int, _ a: Int32, _ b: Int32, _ c: Int32) -> Int32 {
        PNGDecodingKernels.predicted(f, a, b, c)
    }

    /// The five filters' scores (``filterScore(_:row:above:count:bpp:)``) of one row in one pass, 16 bytes at a
    /// time: each byte of the row, its left, upper and upper-left neighbours loaded once for all five, the
    /// arithmetic in 16-bit lanes (a Paeth distance reaches ±510), the magnitudes summed in 16-bit lanes
    /// flushed to integers every 256 steps (at most 128 each: no lane overflows). The same integers as the
    /// per-filter reference (a test), so the same filter is chosen and the file keeps its bytes; about a
    /// third of the reference's time (five passes over the row in 32-bit lanes).
    ///
    /// ```swift
    /// let scores = PNGEncoder.filterScores(row: row, above: above, count: 4 * width, bpp: 4)  // RGBA
    /// let best = (0..<5).min { scores[$0] < scores[$1] }!   // lanes 5–7 are 0
    /// ```
    public static func filterScores(row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                    bpp: Int) -> SIMD8<Int> {
        typealias Bytes = SIMD16<UInt8>
        typealias Lanes = SIMD16<Int16>
        typealias Sums = SIMD16<UInt16>
        let head = Swift.min(bpp, count)
        var totals = SIMD8<Int>()
        for f in 0..<5 {
            for i in 0..<head { totals[f] += Int(magnitude(row[i], predicted(f, 0, Int32(above[i]), 0))) }
        }
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> Lanes {
            Lanes(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: Bytes.self))
        }
        // Vector constants throughout: a comparison with a scalar (`v .< 0`) compiled to a loop over the lanes.
        let zero = Lanes(repeating: 0), low = Lanes(repeating: 0xFF), half = Lanes(repeating: 128)
        let full = Lanes(repeating: 256), one = Lanes(repeating: 1)
        /// |d mod 256| as a signed byte: min(u, 256 − u) for u = d mod 256.
        @inline(__always) func size(_ d: Lanes) -> Sums {
            let u = d & low
            return Sums(truncatingIfNeeded: u.replacing(with: full &- u, where: u .> half))
        }
        @inline(__always) func absolute(_ v: Lanes) -> Lanes { v.replacing(with: zero &- v, where: v .< zero) }
        var i = head
        while i + 16 <= count {
            var s0 = Sums(), s1 = Sums(), s2 = Sums(), s3 = Sums(), s4 = Sums()
            var steps = 0
            while steps < 256 && i + 16 <= count {
                let x = load(row + i), a = load(row + i - bpp), b = load(above + i), c = load(above + i - bpp)
                s0 &+= size(x)
                s1 &+= size(x &- a)
                s2 &+= size(x &- b)
                s3 &+= size(x &- ((a &+ b) &>> one))
                let pa = absolute(b &- c), pb = absolute(a &- c), pc = absolute(a &+ b &- c &- c)
                let paeth = a.replacing(with: b.replacing(with: c, where: pb .> pc), where: (pa .> pb) .| (pa .> pc))
                s4 &+= size(x &- paeth)
                i += 16
                steps += 1
            }
            // A lane holds at most 256 · 128; the sixteen together may not fit 16 bits.
            @inline(__always) func total(_ s: Sums) -> Int { Int(SIMD16<Int32>(truncatingIfNeeded: s).wrappedSum()) }
            totals &+= SIMD8(total(s0), total(s1), total(s2), total(s3), total(s4), 0, 0, 0)
        }
        while i < count {
            let a = Int32(row[i - bpp]), b = Int32(above[i]), c = Int32(above[i - bpp])
            for f in 0..<5 { totals[f] += Int(magnitude(row[i], predicted(f, a, b, c))) }
            i += 1
        }
        return totals
    }

    /// The filtered byte `x − prediction` taken as a signed value, its magnitude (0…128).
    @inline(__always)
    static func magnitude(_ x: UInt8, _ prediction: Int32) -> Int32 {
        let d = (Int32(x) &- prediction) & 0xFF
        return d < 128 ? d : 256 &- d
    }

    /// libpng's heuristic for choosing a row filter: the sum of the filtered bytes taken as signed values.
    /// The reference for ``filterScores(row:above:count:bpp:)``: one loop per filter (the switch resolved
    /// outside the loop), the first pixel (no left neighbour) apart.
    public static func filterScore(_ f: Int, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                   bpp: Int) -> Int {
        @inline(__always) func sum(_ filter: Int) -> Int {
            var total = 0
            let head = Swift.min(bpp, count)
            for i in 0..<head { total += Int(magnitude(row[i], predicted(filter, 0, Int32(above[i]), 0))) }
            var start = head
            while start < count {  // 32-bit sums over blocks of 1 MiB (at most 128 per byte: no overflow)
                let end = Swift.min(count, start + (1 << 20))
                var block: Int32 = 0
                for i in start..<end {
                    let a = Int32(row[i &- bpp]), b = Int32(above[i]), c = Int32(above[i &- bpp])
                    block &+= magnitude(row[i], predicted(filter, a, b, c))
                }
                total += Int(block)
                start = end
            }
            return total
        }
        switch f {
        case 0: return sum(0)
        case 1: return sum(1)
        case 2: return sum(2)
        case 3: return sum(3)
        default: return sum(4)
        }
    }

    /// Writes row `row` filtered with `f` to `out`: the first pixel (no left neighbour) apart, one loop per
    /// filter with no per-byte branch, so each vectorises like ``filterScore(_:row:above:count:bpp:)``.
    static func applyFilter(_ f: Int, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int, bpp: Int,
                            into out: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func run(_ filter: Int) {
            let head = Swift.min(bpp, count)
            for i in 0..<head {
                out[i] = UInt8(truncatingIfNeeded: Int32(row[i]) &- predicted(filter, 0, Int32(above[i]), 0))
            }
            for i in head..<Swift.max(head, count) {
                let a = Int32(row[i &- bpp]), b = Int32(above[i]), c = Int32(above[i &- bpp])
                out[i] = UInt8(truncatingIfNeeded: Int32(row[i]) &- predicted(filter, a, b, c))
            }
        }
        switch f {
        case 0: run(0)
        case 1: run(1)
        case 2: run(2)
        case 3: run(3)
        default: run(4)
        }
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    /// Appends one chunk — length, type, data, CRC of type and data — without building it apart first (the IDAT
    /// chunk is most of the file).
    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(data.count)
        out += typeBytes
        out += data
        var crc = typeBytes.withUnsafeBufferPointer { crc32(crc32(0, nil, 0), $0.baseAddress, UInt32($0.count)) }
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, UInt32($0.count)) }
        out += be32(Int(crc))
    }
}
