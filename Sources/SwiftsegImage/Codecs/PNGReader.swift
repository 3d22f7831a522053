import _CPNG
import SwiftsegImageKernels
import SwiftsegKernelTypes

/// swiftseg's own reader for the PNGs photos and product shots mostly are: 8-bit gray, RGB, gray + alpha or
/// RGBA, not interlaced, with no palette, transparency key (tRNS), gAMA or cHRM chunk. ``Inflate`` decodes the
/// image data into the image's own memory and ``PNGUnfilter`` undoes each row's filter there, in place. Why: libpng,
/// as Debian builds it, undoes the Paeth filter (most rows of a photo) a byte at a time, and its simplified API
/// copies every row once more (PERF.md, "Encoding and decoding images"). Every other file, and any file this reader does not
/// finish cleanly — a CRC or inflate error, missing or extra image data, no IEND, an unknown critical chunk — goes to
/// libpng, which also words the error: the pixels and the messages are libpng's either way (a test per kind of
/// file, and one per filter against ``PNGUnfilter/reference(_:row:above:count:bpp:into:)``).
///
/// ```swift
/// let image = PNGReader.read(bytes, limits: options)   // nil: a file for libpng (Image(encoded:) does this)
/// ```
public enum PNGReader {
    /// The image (gray → 1 channel, RGB → 3, gray + alpha and RGBA → 4, as libpng's simplified API gives them),
    /// or nil when libpng should read the file — also when its size is over `limits`, so that a hostile header
    /// allocates nothing here (``Image/init(encoded:name:options:)`` then refuses it in words).
    public static func read(_ bytes: [UInt8], limits: DecodingOptions = DecodingOptions()) -> Image? {
        bytes.withUnsafeBufferPointer { read($0, limits: limits) }
    }

    // Chunk types as big-endian words.
    static let IHDR: UInt32 = 0x4948_4452, IDAT: UInt32 = 0x4944_4154, IEND: UInt32 = 0x4945_4E44
    /// Chunks that change what libpng's simplified API makes of the samples: a palette, a transparency key,
    /// gamma, chromaticities (sRGB and iCCP do not: 8-bit output is sRGB and the profile is not applied).
    static let handledByLibpng: Set<UInt32> = [0x504C_5445 /* PLTE */, 0x7452_4E53 /* tRNS */,
                                               0x6741_4D41 /* gAMA */, 0x6348_524D /* cHRM */]

    static func read(_ b: UnsafeBufferPointer<UInt8>, limits: DecodingOptions) -> Image? {
        guard let base = b.baseAddress, b.count >= 8 + 25 else { return nil }
        @inline(__always) func be32(_ i: Int) -> UInt32 {
            UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        }
        // Walk every chunk to IEND, checking its CRC, before any pixel memory: the IDAT chunks' data in order.
        var idats: [Range<Int>] = [], i = 8, sawIEND = false, lastWasIDAT = false
        while i + 12 <= b.count {
            let length = Int(be32(i)), type = be32(i + 4)
            guard length <= 0x7FFF_FFFF, length <= b.count - i - 12 else { return nil }
            // a chunk type is four ASCII letters (libpng refuses anything else)
            guard (0..<4).allSatisfy({ k in let c = b[i + 4 + k] | 0x20; return c >= 0x61 && c <= 0x7A }) else { return nil }
            let crc = crc32(crc32(0, nil, 0), base + i + 4, UInt32(length + 4))
            guard crc == be32(i + 8 + length) else { return nil }
            guard (i == 8) == (type == IHDR), type != IHDR || length == 13 else { return nil }  // one IHDR, first
            if type == IDAT {
                if !idats.isEmpty && !lastWasIDAT { return nil }  // IDAT chunks must be consecutive
                idats.append((i + 8)..<(i + 8 + length))
            } else if type == IEND {
                sawIEND = true
                break
            } else if type != IHDR && (handledByLibpng.contains(type) || (type >> 29) & 1 == 0) {
                return nil  // changes the samples, or an unknown critical chunk (an uppercase first letter)
            }
            lastWasIDAT = type == IDAT
            i += 12 + length
        }
        guard sawIEND, !idats.isEmpty else { return nil }
        let width = Int(be32(16)), height = Int(be32(20))
        let depth = b[24], colorType = b[25], compression = b[26], filter = b[27], interlace = b[28]
        guard width > 0, height > 0, width <= limits.maxDimension, height <= limits.maxDimension,
              width * height <= limits.maxPixels else { return nil }
        guard depth == 8, compression == 0, filter == 0, interlace == 0 else { return nil }
        let bpp: Int, channels: Int  // bytes per pixel in the file; channels in the image
        switch colorType {
        case 0: (bpp, channels) = (1, 1)
        case 2: (bpp, channels) = (3, 3)
        case 4: (bpp, channels) = (2, 4)  // gray + alpha comes out RGBA, as libpng's simplified API gives it
        case 6: (bpp, channels) = (4, 4)
        default: return nil
        }
        let rowBytes = width * bpp
        guard rowBytes <= Int(UInt32.max) - 1 else { return nil }

        let compressed = idats.reduce(0) { $0 + $1.count }, filteredBytes = height * (rowBytes + 1)
        // Deflate makes at most 258 bytes of 1 bit (a run of repeated matches): image data it cannot hold is
        // refused before any memory is taken (libpng then words it).
        guard filteredBytes / 258 <= compressed * 8 else { return nil }
        // The IDAT chunks' data in one piece, padded for the inflater's 8-byte loads.
        let kernels = PNGDecoding.of(.best)
        let stream = UnsafeMutablePointer<UInt8>.allocate(capacity: compressed + Inflate.inputPadding)
        defer { stream.deallocate() }
        var at = stream
        for range in idats {
            at.update(from: base + range.lowerBound, count: range.count)
            at += range.count
        }
        at.initialize(repeating: 0, count: Inflate.inputPadding)
        let zeroRow = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
        zeroRow.initialize(repeating: 0, count: rowBytes)
        defer { zeroRow.deallocate() }

        var complete = true
        let pixels: [UInt8]
        if colorType == 4 {
            // Gray + alpha: the rows inflated apart, unfiltered into two rows of their own, spread to RGBA.
            let filtered = UnsafeMutablePointer<UInt8>.allocate(capacity: filteredBytes + Inflate.outputSlack)
            let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * rowBytes)
            defer { filtered.deallocate(); rows.deallocate() }
            guard kernels.zlibStream(stream, compressed, filtered, filteredBytes) else { return nil }
            pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
                let image = buffer.baseAddress!
                for y in 0..<height {
                    let line = filtered + y * (rowBytes + 1), out = rows + (y & 1) * rowBytes
                    let above = y == 0 ? zeroRow : rows + ((y - 1) & 1) * rowBytes
                    guard kernels.unfilter(line[0], line + 1, above, rowBytes, bpp, out)
                    else { complete = false; break }
                    let dst = image + y * width * 4
                    for x in 0..<width {
                        let g = out[2 * x]
                        dst[4 * x] = g; dst[4 * x + 1] = g; dst[4 * x + 2] = g; dst[4 * x + 3] = out[2 * x + 1]
                    }
                }
                initialized = complete ? buffer.count : 0  // a failed read leaves an empty array, dropped
            }
        } else {
            // The rest inflated into the image's own memory and unfiltered in place: row y's filtered bytes start
            // y + 1 bytes after its pixels, so each pixel is read before any store reaches it.
            let firstRow = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
            defer { firstRow.deallocate() }
            pixels = [UInt8](unsafeUninitializedCapacity: filteredBytes + Inflate.outputSlack) { buffer, initialized in
                let image = buffer.baseAddress!
                defer { initialized = complete ? width * height * channels : 0 }
                guard kernels.zlibStream(stream, compressed, image, filteredBytes) else {
                    complete = false
                    return
                }
                var y = 0
                while y < height {
                    let line = image + y * (rowBytes + 1), out = image + y * rowBytes
                    let above = y == 0 ? zeroRow : out - rowBytes
                    if y + 1 < height {  // two rows at once where both filters predict from the left
                        // the first row's filtered bytes copied aside: the second row's pixels overlie them
                        let next = line + rowBytes + 1
                        firstRow.update(from: line + 1, count: rowBytes)
                        if kernels.unfilterPair(line[0], next[0], firstRow, next + 1, above, rowBytes, bpp, out) {
                            y += 2
                            continue
                        }
                    }
                    guard kernels.unfilter(line[0], line + 1, above, rowBytes, bpp, out)
                    else { complete = false; break }
                    y += 1
                }
            }
        }
        guard complete else { return nil }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }
}

/// Undoing PNG's row filters (0 none, 1 sub, 2 up, 3 average, 4 Paeth): `out[i] = row[i] + prediction`, the
/// prediction from the unfiltered bytes to the left (`a`), above (`b`) and above-left (`c`), as
/// ``PNGEncoder/predicted(_:_:_:_:)`` makes it. The fast form takes an RGB or RGBA pixel's bytes as one vector
/// (the left neighbour is the pixel before, so a row is serial by pixel, not by byte), two such rows at once
/// (``unfilterPair(_:_:rows:_:above:count:bpp:into:)``), and the up filter a row at a time;
/// ``reference(_:row:above:count:bpp:into:)`` is the plain loop they are tested against (the same bytes).
///
/// ```swift
/// let ok = PNGUnfilter.unfilter(line[0], row: line + 1, above: previous, count: width * 3, bpp: 3, into: out)
/// ```
public enum PNGUnfilter {
    /// Unfilters `count` bytes of `row` into `out` (`above`: the previous row, unfiltered; zeros for the first),
    /// with the `isa` build (SwiftsegImageKernels/PNGDecodingKernels.swift). False for a filter type over 4. `out`
    /// must not overlap `above`; it may start before `row` and run into it (the reader unfilters in place, each
    /// row's pixels a few bytes before its filtered bytes): every byte is read before a store reaches it.
    public static func unfilter(_ filter: UInt8, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                bpp: Int, into out: UnsafeMutablePointer<UInt8>, isa: KernelISA = .best) -> Bool {
        PNGDecoding.of(isa).unfilter(filter, row, above, count, bpp, out)
    }

    /// Two consecutive rows at once (`out` and the row after it, `count` bytes apart) when both filters predict
    /// from the left (1, 3, 4) and a pixel is RGB or RGBA; false, with nothing written, otherwise (the caller then
    /// unfilters them one by one). Why: a row is one chain of dependent steps, pixel after pixel, so its time is
    /// the chain's latency; the second row follows the first a pixel at a time, its pixel above taken from the
    /// first's register, and the two chains overlap. `row0` must not lie under the second row's pixels.
    ///
    /// ```swift
    /// if !PNGUnfilter.unfilterPair(f0, f1, rows: r0, r1, above: prev, count: n, bpp: 3, into: out) { /* one by one */ }
    /// ```
    public static func unfilterPair(_ filter0: UInt8, _ filter1: UInt8, rows row0: UnsafePointer<UInt8>,
                                    _ row1: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int, bpp: Int,
                                    into out: UnsafeMutablePointer<UInt8>, isa: KernelISA = .best) -> Bool {
        PNGDecoding.of(isa).unfilterPair(filter0, filter1, row0, row1, above, count, bpp, out)
    }

    /// The plain form: one byte at a time (``PNGDecodingKernels/reference(_:row:above:count:bpp:into:)``).
    public static func reference(_ filter: UInt8, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                 bpp: Int, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        PNGDecodingKernels.reference(filter, row: row, above: above, count: count, bpp: bpp, into: out)
    }
}
