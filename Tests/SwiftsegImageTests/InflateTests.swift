import _CPNG
import Foundation
import SwiftsegImage
import XCTest

/// swiftseg's inflater against zlib: every kind of stream zlib and RunLengthDeflate write, and damaged ones
/// (it must accept exactly what zlib accepts, with the same bytes).
final class InflateTests: XCTestCase {
    /// Inputs of the kinds a PNG's filtered rows are: noise, smooth gradients, runs, text, and nothing.
    static func samples() -> [[UInt8]] {
        var rng: UInt64 = 7
        func next() -> UInt8 {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: rng >> 33)
        }
        let noise = (0..<70_000).map { _ in next() }
        let smooth = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 3 + Int(next() & 3)) }
        let runs = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 / 997) }
        let text = Array(String(repeating: "the quick brown fox jumps over the lazy dog 0123456789. ", count: 900).utf8)
        return [[], [42], Array(noise.prefix(100)), noise, smooth, runs, text]
    }

    /// Ours: the bytes, or nil.
    static func inflate(_ stream: [UInt8], outCount: Int, isa: KernelISA = .best) -> [UInt8]? {
        let input = stream + [UInt8](repeating: 0, count: Inflate.inputPadding)
        var out = [UInt8](repeating: 0, count: outCount + Inflate.outputSlack)
        let ok = input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { Inflate.zlibStream(i.baseAddress!, count: stream.count, into: $0.baseAddress!,
                                                                    outCount: outCount, isa: isa) }
        }
        return ok ? Array(out.prefix(outCount)) : nil
    }

    /// zlib's: the bytes if the stream decodes to exactly `outCount` bytes and ends there, else nil.
    static func zlibInflate(_ stream: [UInt8], outCount: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: outCount + 1)
        var size = UInt(out.count), used = UInt(stream.count)
        let status = uncompress2(&out, &size, stream, &used)
        guard status == Z_OK, size == UInt(outCount), used == UInt(stream.count) else { return nil }
        return Array(out.prefix(outCount))
    }

    func testEveryKindOfStreamIsZlibsBytes() {
        for data in Self.samples() {
            var streams: [(String, [UInt8])] = [("run-length deflate", RunLengthDeflate.compress(data))]
            for level: Int32 in [0, 1, 6, 9] {
                for strategy in [Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED] {
                    streams.append(("level \(level), strategy \(strategy)", ZlibReference.compress(data, level: level, strategy: strategy)))
                }
            }
            for (what, stream) in streams {
                for isa in KernelISA.allCases where isa.isSupported {
                    XCTAssertEqual(Self.inflate(stream, outCount: data.count, isa: isa), data, "\(isa): \(what), \(data.count) bytes")
                }
                XCTAssertNil(Self.inflate(stream, outCount: data.count + 1), "\(what): one byte more than there is")
                if !data.isEmpty { XCTAssertNil(Self.inflate(stream, outCount: data.count - 1), "\(what): a byte less") }
                XCTAssertNil(Self.inflate(stream + [0], outCount: data.count), "\(what): a byte after the Adler-32")
            }
        }
    }

    /// Seeded damage (flipped bits, overwritten and cut bytes) to streams of every kind: ours decodes exactly
    /// the streams zlib decodes, to the same bytes. `SWIFTSEG_FUZZ_CASES=N` runs more.
    func testDamagedStreamsGetZlibsAnswer() {
        let cases = Int(ProcessInfo.processInfo.environment["SWIFTSEG_FUZZ_CASES"] ?? "") ?? 1500
        let data = Self.samples()
        var streams: [([UInt8], Int)] = []
        for d in data where d.count <= 100_000 {
            streams.append((RunLengthDeflate.compress(d), d.count))
            for strategy in [Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY, Z_FIXED] {
                streams.append((ZlibReference.compress(d, level: 6, strategy: strategy), d.count))
            }
            streams.append((ZlibReference.compress(d, level: 0, strategy: Z_DEFAULT_STRATEGY), d.count))
        }
        var rng: UInt64 = 2026
        func next() -> Int {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: rng >> 33)
        }
        var accepted = 0
        for n in 0..<cases {
            var (s, outCount) = streams[n % streams.count]
            switch next() % 3 {
            case 0: for _ in 0...(next() % 3) { s[next() % s.count] ^= UInt8(1 << (next() % 8)) }
            case 1: s[2 + next() % max(1, s.count - 2)] = UInt8(truncatingIfNeeded: next())
            default: s = Array(s.prefix(next() % s.count))
            }
            let isa = KernelISA.allCases.filter(\.isSupported)[n % KernelISA.allCases.filter(\.isSupported).count]
            let ours = Self.inflate(s, outCount: outCount, isa: isa), theirs = Self.zlibInflate(s, outCount: outCount)
            XCTAssertEqual(ours, theirs, "case \(n): \(ours == nil ? "refused" : "decoded") where zlib \(theirs == nil ? "refused" : "decoded") \(s.count < 40 ? s.map { String($0, radix: 16) }.joined(separator: " ") : "")")
            if ours != nil { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 0, "some damage (in stored blocks, say) still decodes")
    }

    func testAdler32IsZlibs() {
        var rng: UInt64 = 3
        for count in [0, 1, 15, 16, 17, 255, 5551, 5552, 5553, 100_003] {
            for fill in [nil, UInt8(255)] as [UInt8?] {
                let bytes = (0..<count).map { _ -> UInt8 in
                    rng = rng &* 6364136223846793005 &+ 1442695040888963407
                    return fill ?? UInt8(truncatingIfNeeded: rng >> 33)
                }
                let theirs = bytes.withUnsafeBufferPointer { UInt32(_CPNG.adler32(1, $0.baseAddress, UInt32(count))) }
                for isa in KernelISA.allCases where isa.isSupported {
                    let ours = bytes.withUnsafeBufferPointer {
                        Inflate.adler32($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: count, isa: isa)
                    }
                    XCTAssertEqual(ours, theirs, "\(isa): \(count) bytes, fill \(String(describing: fill))")
                }
            }
        }
    }
}
