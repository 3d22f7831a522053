import SwiftsegImageKernels
import SwiftsegImageKernelsAVX2
import SwiftsegImageKernelsAVX512
import SwiftsegKernelTypes

/// A zlib-stream (RFC 1950) DEFLATE (RFC 1951) decoder for a whole stream into a buffer of known size, as a PNG's
/// image data is: the output is its own window, so nothing is copied into a ring. Why not zlib's inflate: its
/// fast loop refills its bit buffer a byte at a time and looks 9 bits up at once; this one loads 8 bytes at a
/// time, looks 11 bits up (10 for distances), and copies matches 8 bytes at a time (PERF.md, "Encoding and decoding images").
/// It accepts exactly what zlib accepts — header checks, complete Huffman codes (a single code of one bit
/// excepted, as zlib does), no distance beyond the start, the Adler-32 — and any stream it refuses, a caller
/// can hand to zlib for its words (the PNG reader hands the file to libpng). Tested against zlib on streams of
/// every kind zlib and ``RunLengthDeflate`` write, and on damaged ones.
///
/// ```swift
/// let ok = Inflate.zlibStream(input, count: n, into: out, outCount: expected)   // input padded, see below
/// ```
public enum Inflate {
    /// Zero bytes the input must be readable for past `count` (the bit buffer loads 8 bytes at a time).
    public static let inputPadding = SwiftsegImageKernels.PNGDecodingKernels.inputPadding
    /// Bytes the output must be writable for past `outCount` (matches are copied 8 bytes at a time).
    public static let outputSlack = SwiftsegImageKernels.PNGDecodingKernels.outputSlack

    /// Decodes the zlib stream `input[0 ..< count]` into exactly `outCount` bytes at `out`, with the `isa` build of
    /// the decoder (SwiftsegImageKernels/PNGDecodingKernels.swift; every build the same bytes). False on any
    /// error: a bad header or code, a stream that ends short or would run past `outCount`, bytes left after the
    /// Adler-32, a wrong Adler-32. `input` must be readable (zeros) for ``inputPadding`` bytes past `count`, `out`
    /// writable for ``outputSlack`` past `outCount`.
    public static func zlibStream(_ input: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>,
                                  outCount: Int, isa: KernelISA = .best) -> Bool {
        PNGDecoding.of(isa).zlibStream(input, count, out, outCount)
    }

    /// Adler-32 of `count` bytes (RFC 1950), with the `isa` build.
    public static func adler32(_ p: UnsafePointer<UInt8>, count: Int, isa: KernelISA = .best) -> UInt32 {
        PNGDecoding.of(isa).adler32(p, count)
    }
}

/// The PNG decoding kernels of one ``KernelISA`` build (SwiftsegImageKernels/PNGDecodingKernels.swift) as
/// function values: where the reader switches between the builds.
struct PNGDecoding: Sendable {
    typealias Stream = @Sendable (_ input: UnsafePointer<UInt8>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
                                  _ outCount: Int) -> Bool
    typealias Adler = @Sendable (_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt32
    typealias Row = @Sendable (_ filter: UInt8, _ row: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>, _ count: Int,
                               _ bpp: Int, _ out: UnsafeMutablePointer<UInt8>) -> Bool
    typealias RowPair = @Sendable (_ filter0: UInt8, _ filter1: UInt8, _ row0: UnsafePointer<UInt8>,
                                   _ row1: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>, _ count: Int, _ bpp: Int,
                                   _ out: UnsafeMutablePointer<UInt8>) -> Bool
    let zlibStream: Stream
    let adler32: Adler
    let unfilter: Row
    let unfilterPair: RowPair

    static let builds: [KernelISA: PNGDecoding] = [
        .baseline: PNGDecoding(zlibStream: { SwiftsegImageKernels.PNGDecodingKernels.zlibStream($0, count: $1, into: $2, outCount: $3) },
                               adler32: { SwiftsegImageKernels.PNGDecodingKernels.adler32($0, count: $1) },
                               unfilter: { SwiftsegImageKernels.PNGDecodingKernels.unfilter($0, row: $1, above: $2, count: $3, bpp: $4, into: $5) },
                               unfilterPair: { SwiftsegImageKernels.PNGDecodingKernels.unfilterPair($0, $1, rows: $2, $3, above: $4, count: $5, bpp: $6, into: $7) }),
        .avx2: PNGDecoding(zlibStream: { SwiftsegImageKernelsAVX2.PNGDecodingKernels.zlibStream($0, count: $1, into: $2, outCount: $3) },
                           adler32: { SwiftsegImageKernelsAVX2.PNGDecodingKernels.adler32($0, count: $1) },
                           unfilter: { SwiftsegImageKernelsAVX2.PNGDecodingKernels.unfilter($0, row: $1, above: $2, count: $3, bpp: $4, into: $5) },
                           unfilterPair: { SwiftsegImageKernelsAVX2.PNGDecodingKernels.unfilterPair($0, $1, rows: $2, $3, above: $4, count: $5, bpp: $6, into: $7) }),
        .avx512: PNGDecoding(zlibStream: { SwiftsegImageKernelsAVX512.PNGDecodingKernels.zlibStream($0, count: $1, into: $2, outCount: $3) },
                             adler32: { SwiftsegImageKernelsAVX512.PNGDecodingKernels.adler32($0, count: $1) },
                             unfilter: { SwiftsegImageKernelsAVX512.PNGDecodingKernels.unfilter($0, row: $1, above: $2, count: $3, bpp: $4, into: $5) },
                             unfilterPair: { SwiftsegImageKernelsAVX512.PNGDecodingKernels.unfilterPair($0, $1, rows: $2, $3, above: $4, count: $5, bpp: $6, into: $7) }),
    ]

    static func of(_ isa: KernelISA) -> PNGDecoding {
        precondition(isa.isSupported, "this CPU cannot run the \(isa) build of the PNG decoding kernels")
        return builds[isa]!
    }
}
