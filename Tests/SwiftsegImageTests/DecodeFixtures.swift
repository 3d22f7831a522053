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
}
