import _CPNG
import Foundation
import SwiftsegImage
import XCTest

/// swiftseg's own PNG reader against libpng: the same pixels for every kind of file it takes, every filter on
/// every pixel size, and libpng's own error for every file it does not finish.
final class PNGReaderTests: XCTestCase {
    func testFastUnfilterIsTheReference() {
        var rng = SystemRandomNumberGenerator()
        // bytes of any value, and of a few values only, where the Paeth distances tie often
        for (bpp, values) in [1, 2, 3, 4].flatMap({ bpp in [(bpp, UInt8(0)...255), (bpp, UInt8(0)...3)] }) {
            for count in Set([1, bpp, bpp + 1, 2 * bpp + 1, 17 * bpp, 301 * bpp, 301 * bpp + 2]) {
                let row = (0..<count).map { _ in UInt8.random(in: values, using: &rng) }
                let above = (0..<count).map { _ in UInt8.random(in: values, using: &rng) }
                for filter: UInt8 in 0...5 {
                    var plain = [UInt8](repeating: 0, count: count)
                    let b = PNGUnfilter.reference(filter, row: row, above: above, count: count, bpp: bpp, into: &plain)
                    XCTAssertEqual(b, filter <= 4)
                    for isa in KernelISA.allCases where isa.isSupported {
                        var fast = [UInt8](repeating: 0, count: count)
                        let a = PNGUnfilter.unfilter(filter, row: row, above: above, count: count, bpp: bpp, into: &fast,
                                                     isa: isa)
                        XCTAssertEqual(a, filter <= 4)
                        XCTAssertEqual(fast, plain, "\(isa): filter \(filter), \(bpp) bytes a pixel, \(count) bytes")
                    }
                }
            }
        }
    }

    func testTwoRowsAtOnceAreTheReference() {
        var rng = SystemRandomNumberGenerator()
        for (bpp, values) in [1, 2, 3, 4].flatMap({ bpp in [(bpp, UInt8(0)...255), (bpp, UInt8(0)...3)] }) {
            for count in Set([bpp, 2 * bpp, 2 * bpp + 1, 3 * bpp, 17 * bpp, 301 * bpp]) {
                let rows = (0..<(2 * count)).map { _ in UInt8.random(in: values, using: &rng) }
                let above = (0..<count).map { _ in UInt8.random(in: values, using: &rng) }
                for f0: UInt8 in 0...5 {
                    for f1: UInt8 in 0...5 {
                      for isa in KernelISA.allCases where isa.isSupported {
                        var fast = [UInt8](repeating: 7, count: 2 * count), plain = fast
                        let paired = rows.withUnsafeBufferPointer { r in
                            PNGUnfilter.unfilterPair(f0, f1, rows: r.baseAddress!, r.baseAddress! + count, above: above,
                                                     count: count, bpp: bpp, into: &fast, isa: isa)
                        }
                        let leftPredicting: Set<UInt8> = [1, 3, 4]
                        XCTAssertEqual(paired, bpp >= 3 && count >= 2 * bpp && leftPredicting.contains(f0)
                                       && leftPredicting.contains(f1), "filters \(f0), \(f1), \(bpp) bytes a pixel")
                        guard paired else { XCTAssertEqual(fast, [UInt8](repeating: 7, count: 2 * count)); continue }
                        plain.withUnsafeMutableBufferPointer { out in
                            rows.withUnsafeBufferPointer { r in
                                _ = PNGUnfilter.reference(f0, row: r.baseAddress!, above: above, count: count, bpp: bpp,
                                                          into: out.baseAddress!)
                                _ = PNGUnfilter.reference(f1, row: r.baseAddress! + count, above: out.baseAddress!,
                                                          count: count, bpp: bpp, into: out.baseAddress! + count)
                            }
                        }
                        XCTAssertEqual(fast, plain, "\(isa): filters \(f0), \(f1), \(bpp) bytes a pixel, \(count) bytes")
                      }
                    }
                }
            }
        }
    }

    func testEveryFixturePNGIsLibpngsPixels() throws {
        let folders = ["decode", "photos"].map { Fixtures.path($0) }
        var ownReader: [String] = [], libpng: [String] = []
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.hasSuffix(".png") {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)")))
                let theirs = try Image(encoded: bytes, name: name, options: DecodingOptions(pngReader: .libpng))
                XCTAssertEqual(try Image(encoded: bytes, name: name), theirs, name)
                if PNGReader.read(bytes) != nil { ownReader.append(name) } else { libpng.append(name) }
            }
        }
        // iCCP (most fixtures carry one), eXIf, pHYs, tIME and text chunks leave a file to the own reader; 16-bit
        // samples, palettes and interlacing go to libpng.
        for name in ["astronaut.png", "chelsea.png", "coffee.png", "coins.png", "gray8.png", "gray-alpha.png",
                     "rgba.png", "upright.png", "orientation-6.png"] {
            XCTAssertTrue(ownReader.contains(name), "\(name) should be read by swiftseg's reader")
        }
        for name in ["gray16.png", "rgb16.png", "interlaced.png", "palette.png", "palette-trns.png"] {
            XCTAssertTrue(libpng.contains(name), "\(name) should go to libpng")
        }
    }

    /// Files written here with every filter on every pixel size (gray, gray + alpha, RGB, RGBA), the filter
    /// changing from row to row, in several IDAT chunks of uneven sizes (one of them empty).
    func testEveryFilterOnEveryPixelSize() throws {
        var rng = SystemRandomNumberGenerator()
        for (colorType, bpp) in [(0, 1), (4, 2), (2, 3), (6, 4)] {
            for (width, height) in [(1, 1), (2, 7), (33, 21), (257, 9)] {
                // smooth content with noise, so the predictions matter
                let pixels = (0..<(width * height * bpp)).map { i in
                    UInt8(truncatingIfNeeded: (i / bpp % width) * 3 + (i / (bpp * width)) * 5 + i % bpp * 40
                          + Int.random(in: 0...6, using: &rng))
                }
                let filters = (0..<height).map { UInt8($0 % 5) }
                let png = Self.png(width: width, height: height, colorType: colorType, pixels: pixels, filters: filters,
                                   idatPieces: 3)
                let own = try XCTUnwrap(PNGReader.read(png), "colour type \(colorType), \(width)×\(height)")
                XCTAssertEqual(own, try Image(encoded: png, name: "t.png", options: DecodingOptions(pngReader: .libpng)))
                if colorType == 0 || colorType == 2 || colorType == 6 {
                    XCTAssertEqual(own.pixels, pixels, "the samples themselves")
                }
            }
        }
    }

    /// sRGB and iCCP leave a file to the own reader (libpng's 8-bit output is the samples as they are); gAMA,
    /// cHRM and tRNS, which libpng acts on, and unknown critical chunks send it to libpng.
    func testChunksThatChangeTheSamplesGoToLibpng() throws {
        let pixels = (0..<(20 * 10 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let plain = Self.png(width: 20, height: 10, colorType: 2, pixels: pixels, filters: [4], idatPieces: 1)
        func with(_ type: String, _ data: [UInt8]) -> [UInt8] {  // the chunk inserted after IHDR
            Array(plain[0..<33]) + Self.chunk(type, data) + Array(plain[33...])
        }
        XCTAssertNotNil(PNGReader.read(with("sRGB", [0])))
        XCTAssertNotNil(PNGReader.read(with("tEXt", Array("a\u{0}b".utf8))))
        for (type, data) in [("gAMA", [0, 0, 0xB1, 0x8F]), ("tRNS", [0, 1, 0, 2, 0, 3]), ("cHRM", [UInt8](repeating: 1, count: 32)),
                             ("ABCD", [1])] as [(String, [UInt8])] {
            let file = with(type, data)
            XCTAssertNil(PNGReader.read(file), type)
            let ours = Result { try Image(encoded: file, name: "t.png") }
            let theirs = Result { try Image(encoded: file, name: "t.png", options: DecodingOptions(pngReader: .libpng)) }
            XCTAssertEqual("\(ours)", "\(theirs)", type)
        }
    }

    /// Every cut of a file, and a flipped bit in every place: the same image or the same error as libpng.
    func testDamagedFilesGetLibpngsAnswer() throws {
        let pixels = (0..<(16 * 6 * 4)).map { UInt8(truncatingIfNeeded: $0 * 13 + $0 / 7) }
        let png = Self.png(width: 16, height: 6, colorType: 6, pixels: pixels, filters: [0, 1, 2, 3, 4, 4], idatPieces: 2)
        func same(_ file: [UInt8], _ what: String) {
            let ours = Result { try Image(encoded: file, name: "t.png") }
            let theirs = Result { try Image(encoded: file, name: "t.png", options: DecodingOptions(pngReader: .libpng)) }
            switch (ours, theirs) {
            case (.success(let a), .success(let b)): XCTAssertEqual(a, b, what)
            case (.failure(let a), .failure(let b)): XCTAssertEqual("\(a)", "\(b)", what)
            default: XCTFail("\(what): \(ours) against libpng's \(theirs)")
            }
        }
        for cut in 8..<png.count { same(Array(png[0..<cut]), "cut at \(cut)") }
        for i in 8..<png.count {
            var flipped = png
            flipped[i] ^= 0x10
            same(flipped, "byte \(i) flipped")
        }
        same(png + [0, 0, 0, 0], "bytes after IEND")
    }

    /// Seeded damage to real files with every chunk's CRC made right again, so the damage reaches the reader's
    /// zlib stream, filters and header checks (a wrong CRC alone sends a file to libpng): the same image or the
    /// same error as libpng, every time. `SWIFTSEG_FUZZ_CASES=N` runs more.
    func testDamagedFilesWithValidCRCsGetLibpngsAnswer() throws {
        let cases = Int(ProcessInfo.processInfo.environment["SWIFTSEG_FUZZ_CASES"] ?? "") ?? 600
        let seeds = try ["decode/rgba.png", "decode/gray-alpha.png", "decode/gray8.png", "decode/upright.png"].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path($0))))
        } + [Self.png(width: 9, height: 5, colorType: 2, pixels: (0..<135).map { UInt8($0 * 3 & 0xFF) },
                      filters: [4, 3, 1, 0, 2], idatPieces: 3)]
        var rng: UInt64 = 2026
        func next() -> Int {  // splitmix64
            rng &+= 0x9E37_79B9_7F4A_7C15
            var z = rng
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        var ownReader = 0, errors = 0
        for n in 0..<cases {
            var b = seeds[n % seeds.count]
            switch next() % 4 {
            case 0: for _ in 0...(next() % 4) { b[8 + next() % (b.count - 8)] ^= UInt8(1 << (next() % 8)) }
            case 1: b[8 + next() % (b.count - 8)] = UInt8(truncatingIfNeeded: next())
            case 2: b = Array(b.prefix(8 + next() % (b.count - 8)))
            default: b.insert(contentsOf: (0..<(1 + next() % 8)).map { _ in UInt8(truncatingIfNeeded: next()) },
                              at: 8 + next() % (b.count - 8))
            }
            Self.fixCRCs(&b)
            let ours = Result { try Image(encoded: b, name: "case \(n)") }
            let theirs = Result { try Image(encoded: b, name: "case \(n)", options: DecodingOptions(pngReader: .libpng)) }
            switch (ours, theirs) {
            case (.success(let a), .success(let c)): XCTAssertEqual(a, c, "case \(n)")
            case (.failure(let a), .failure(let c)): XCTAssertEqual("\(a)", "\(c)", "case \(n)"); errors += 1
            default: XCTFail("case \(n): \(ours) against libpng's \(theirs)")
            }
            if PNGReader.read(b) != nil { ownReader += 1 }
        }
        XCTAssertGreaterThan(ownReader, cases / 10, "the damage should leave many files to the own reader")
        XCTAssertGreaterThan(errors, cases / 10)
    }

    /// Recomputes the CRC of every whole chunk (as far as the lengths hold).
    static func fixCRCs(_ b: inout [UInt8]) {
        var i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length <= b.count - i - 12 else { return }
            let crc = b.withUnsafeBufferPointer { crc32(0, $0.baseAddress! + i + 4, UInt32(length + 4)) }
            b.replaceSubrange((i + 8 + length)..<(i + 12 + length), with: be32(Int(crc)))
            i += 12 + length
        }
    }

    // A PNG written by hand: `filters[y % filters.count]` on row y (the forward filters as the spec gives them),
    // zlib level 6, the stream cut into `idatPieces` IDAT chunks (and an empty one after the first).
    static func png(width: Int, height: Int, colorType: Int, pixels: [UInt8], filters: [UInt8], idatPieces: Int) -> [UInt8] {
        let bpp = [0: 1, 2: 3, 4: 2, 6: 4][colorType]!, rowBytes = width * bpp
        var raw: [UInt8] = []
        for y in 0..<height {
            let f = filters[y % filters.count]
            raw.append(f)
            for i in 0..<rowBytes {
                let x = Int(pixels[y * rowBytes + i])
                let a = i >= bpp ? Int(pixels[y * rowBytes + i - bpp]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
                let c = i >= bpp && y > 0 ? Int(pixels[(y - 1) * rowBytes + i - bpp]) : 0
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                let prediction = switch f {
                case 0: 0
                case 1: a
                case 2: b
                case 3: (a + b) / 2
                default: pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                }
                raw.append(UInt8(truncatingIfNeeded: x - prediction))
            }
        }
        var size = compressBound(UInt(raw.count))
        var z = [UInt8](repeating: 0, count: Int(size))
        XCTAssertEqual(compress2(&z, &size, raw, UInt(raw.count), 6), Z_OK)
        z.removeLast(z.count - Int(size))
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [8, UInt8(colorType), 0, 0, 0])
        let piece = max(1, (z.count + idatPieces - 1) / idatPieces)
        for (k, start) in stride(from: 0, to: z.count, by: piece).enumerated() {
            out += chunk("IDAT", Array(z[start..<min(z.count, start + piece)]))
            if k == 0 { out += chunk("IDAT", []) }
        }
        out += chunk("IEND", [])
        return out
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = crc32(0, body, UInt32(body.count))
        return be32(data.count) + body + be32(Int(crc))
    }
}
