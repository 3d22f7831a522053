@testable import SwiftsegImage
import XCTest

/// Reading Tests/Fixtures/decode, as the format tests do: an image decoded, or a file's bytes.
protocol ReadsDecodeFixtures {}

extension ReadsDecodeFixtures {
    func load(_ name: String, options: DecodingOptions = DecodingOptions()) throws -> Image {
        try Image(contentsOfFile: Fixtures.path("decode/\(name)"), options: options)
    }

    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/\(name)"))))
    }

    /// `name` cut at about 53 lengths from 0 up: each cut is refused with one `.unreadableImage` line, or — cut
    /// only in what follows the pixels (a trailing profile, padding) — decodes to the whole picture's pixels,
    /// never a partial one. Returns how many cuts were refused.
    func refusedTruncations(of name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let whole = try bytes(name), complete = try load(name)
        var refused = 0
        for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 53)) {
            do {
                let cut = try Image(encoded: Array(whole.prefix(length)), name: "cut")
                XCTAssertEqual([cut.width, cut.height, cut.channels], [complete.width, complete.height, complete.channels],
                               "\(name) cut at \(length)", file: file, line: line)
                XCTAssertEqual(cut.pixels, complete.pixels, "\(name) cut at \(length)", file: file, line: line)
            } catch {
                XCTAssertEqual((error as? ImageError)?.kind, .unreadableImage, "\(name) cut at \(length): \(error)", file: file, line: line)
                XCTAssertFalse("\(error)".contains("\n"), file: file, line: line)
                refused += 1
            }
        }
        return refused
    }
}
