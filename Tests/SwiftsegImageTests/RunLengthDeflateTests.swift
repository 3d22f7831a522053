import _CPNG
import SwiftsegImage
import XCTest

/// PNG's `fast` compressor (`RunLengthDeflate`) against zlib: every stream inflates, with zlib's own
/// `uncompress` (which checks the Adler-32), to exactly its input, and is about as small as zlib's run-length
/// strategy makes it.
final class RunLengthDeflateTests: XCTestCase {
    func inflated(_ stream: [UInt8], expecting count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(count, 1))
        var length = uLongf(out.count)
        let status = stream.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { uncompress($0.baseAddress, &length, s.baseAddress, uLong(s.count)) }
        }
        XCTAssertEqual(status, Z_OK, "zlib could not inflate the stream")
        return Array(out[0..<Int(length)])
    }

    func assertRoundTrip(_ data: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = RunLengthDeflate.compress(data)
        XCTAssertEqual(try inflated(stream, expecting: data.count), data, label, file: file, line: line)
    }

    func testStreamsInflateToTheirInput() throws {
        var generator = SystemRandomNumberGenerator()
        try assertRoundTrip([], "empty")
        for n in [1, 2, 3, 4, 8, 9, 257, 258, 259, 260, 516, 100_000] {
            try assertRoundTrip([UInt8](repeating: 7, count: n), "\(n) equal bytes")
        }
        // Every run length from 1 to 300 (deflate's matches stop at 258), each after a different byte.
        var runs: [UInt8] = []
        for n in 1...300 { runs += [UInt8(n % 251)] + [UInt8](repeating: UInt8((n + 1) % 251), count: n) }
        try assertRoundTrip(runs, "runs of 1…300")
        // Random bytes (stored blocks), across block boundaries of 32,768 symbols.
        for n in [1, 15, 32_767, 32_768, 32_769, 70_000] {
            try assertRoundTrip((0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }, "\(n) random bytes")
        }
        // Few values, many runs: a block mixes literals and matches of every length code.
        let mixed = (0..<200_000).map { _ in UInt8.random(in: 0...3, using: &generator) == 0 ? UInt8.random(in: 0...255, using: &generator) : 0 }
        try assertRoundTrip(mixed, "sparse bytes among zeros")
        // One block of literals with Fibonacci frequencies 1, 2, 3, 5, … (beside the block end's 1), no byte twice
        // in a row (so no runs): each merge of Huffman's takes the last, so an unlimited code would give the
        // rarest 18 bits; deflate allows 15.
        var left: [Int] = []
        var (a, b) = (1, 2)
        for _ in 0..<18 { left.append(a); (a, b) = (b, a + b) }
        var skewed: [UInt8] = []
        var previous = -1
        while let next = left.indices.filter({ $0 != previous && left[$0] > 0 }).max(by: { left[$0] < left[$1] }) {
            skewed.append(UInt8(next * 9 + 1))
            left[next] -= 1
            previous = next
        }
        XCTAssertGreaterThan(skewed.count, 10_000)
        try assertRoundTrip(skewed, "Fibonacci frequencies")
    }

    /// A stream compressed in segments (each ending in a sync flush, runs continuing across the borders)
    /// inflates to its input, and is the same bytes whether the segments run on one thread or two.
    func testSegmentedStreamsInflateToTheirInput() throws {
        var generator = SystemRandomNumberGenerator()
        let runs = [UInt8](repeating: 9, count: 10_000) + (0..<70_000).map { _ in UInt8.random(in: 0...1, using: &generator) }
        for (data, cuts, label) in [(runs, [1, 5_000, 10_001, 10_002, 40_000], "a run across two borders"),
                                    (runs, [3], "a border three bytes in"),
                                    ([UInt8](repeating: 0, count: 600), [258, 259, 300], "one run, four segments")] {
            let bounds = [0] + cuts + [data.count]
            let segments = (0..<bounds.count - 1).map { bounds[$0]..<bounds[$0 + 1] }
            let stream = RunLengthDeflate.compress(data, segments: segments)
            XCTAssertEqual(try inflated(stream, expecting: data.count), data, label)
            XCTAssertEqual(RunLengthDeflate.compress(data, segments: segments, parts: twoThreads), stream, label)
        }
        XCTAssertEqual(RunLengthDeflate.compress([], segments: [0..<0]), RunLengthDeflate.compress([]))
    }

    /// About as small as zlib's run-length strategy on a cutout's rows and a photo's: within 1 %.
    func testStreamsAreAsSmallAsZlibsRunLength() throws {
        for name in ["photos/astronaut.png", "photos/rocket.jpg"] {
            let photo = try Image(contentsOfFile: Fixtures.path(name))
            let ours = RunLengthDeflate.compress(photo.pixels).count
            let zlibs = ZlibReference.compress(photo.pixels, level: 1, strategy: Z_RLE).count
            XCTAssertLessThanOrEqual(Double(ours), 1.01 * Double(zlibs), "\(name): \(ours) bytes against zlib's \(zlibs)")
        }
    }
}
