import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

/// Seeded mutations of the committed images and the weights: every case must end in a clean error or a valid
/// result, never a crash. `SWIFTSEG_FUZZ_CASES=N` runs more.
final class FuzzTests: XCTestCase {
    static var cases: Int { Int(ProcessInfo.processInfo.environment["SWIFTSEG_FUZZ_CASES"] ?? "") ?? 600 }

    struct Mutator {
        var rng: UInt64
        mutating func next() -> UInt64 {
            rng &+= 0x9E37_79B9_7F4A_7C15
            var z = rng
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

        /// Bit flips, byte overwrites, truncation, or edits of header bytes (the first 64, where sizes live).
        mutating func mutate(_ input: [UInt8]) -> [UInt8] {
            var b = input
            switch below(5) {
            case 0: for _ in 0...below(8) { let i = below(b.count); b[i] ^= UInt8(1 << below(8)) }
            case 1: for _ in 0...below(4) { b[below(b.count)] = UInt8(truncatingIfNeeded: next()) }
            case 2: b = Array(b.prefix(below(b.count)))
            case 3: for _ in 0...below(4) { b[below(min(64, b.count))] = [0, 0xFF, 0x7F, 0x80][below(4)] }
            default:
                let i = below(b.count)
                b.insert(contentsOf: (0..<below(32)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: i)
            }
            return b
        }
    }

    func testMutatedImagesDecodeOrFailCleanly() throws {
        let names = ["decode/baseline.jpg", "decode/progressive.jpg", "decode/orientation-6.jpg", "decode/palette-trns.png",
                     "decode/interlaced.png", "decode/gray16.png", "decode/rgba.png", "decode/orientation-8.png",
                     "decode/webp-lossy.webp", "decode/webp-alpha.webp", "decode/webp-animated.webp", "decode/heic.heic",
                     "decode/avif.avif", "decode/heic-grid.heic", "decode/tiff-lzw.tif", "decode/tiff-rgba.tif", "decode/bmp-rle8.bmp",
                     "decode/bmp-4bit.bmp", "decode/bmp-alpha.bmp", "decode/profile-adobe-rgb.bmp", "decode/gif.gif",
                     "decode/gif-transparent.gif", "decode/gif-offset.gif"]
        let seeds = try names.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path($0)))) }
        var m = Mutator(rng: 2026)
        var decoded = 0, refused = 0
        for n in 0..<Self.cases {
            let bytes = m.mutate(seeds[n % seeds.count])
            do {
                let image = try Image(encoded: bytes, name: "case \(n)", options: DecodingOptions(maxPixels: 4_000_000))
                XCTAssertEqual(image.pixels.count, image.width * image.height * image.channels)
                decoded += 1
            } catch let error as ImageError {
                XCTAssertTrue(error.description.hasPrefix("case \(n): "), error.description)
                XCTAssertFalse(error.description.contains("\n"), error.description)
                refused += 1
            }
        }
        XCTAssertEqual(decoded + refused, Self.cases)
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(decoded, 0)
    }

    func testMutatedWeightsLoadOrFailCleanly() throws {
        let st = try SafeTensorsFile.embeddedU2NetP()
        let tensors = st.tensors.values.sorted { $0.name < $1.name }.map { info in
            (name: info.name, shape: info.shape, values: Array(UnsafeBufferPointer(start: st.floats(info.name)!, count: info.elementCount)))
        }
        let original = SafeTensorsFile.serialize(tensors: tensors, metadata: st.metadata)
        let headerEnd = 8 + Int(original[0]) + Int(original[1]) << 8 + Int(original[2]) << 16
        var m = Mutator(rng: 7)
        let path = NSTemporaryDirectory() + "swiftseg-fuzz-\(UUID().uuidString).safetensors"
        defer { try? FileManager.default.removeItem(atPath: path) }
        for n in 0..<(Self.cases / 3) {
            // Mutate within the header (and a little past it), where parsing decisions are made.
            var bytes = original
            let header = Array(bytes[0..<min(headerEnd + 16, bytes.count)])
            let mutated = m.mutate(header)
            bytes.replaceSubrange(0..<header.count, with: mutated)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            do {
                let model = try U2Net(weights: SafeTensorsFile(path: path))
                XCTAssertEqual(model.configuration.variant, "u2netp", "case \(n)")
            } catch let error as RuntimeError {
                XCTAssertFalse(error.description.contains("\n"), "case \(n)")
                XCTAssertTrue(error.description.hasPrefix(path), "case \(n): \(error)")
            }
        }
    }
}
