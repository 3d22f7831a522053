@testable import SwiftsegImage
import XCTest

/// Every kind of file phones, cameras and editors write (Tests/Fixtures/decode, made by Tools/make_fixtures.py
/// with Pillow), decoded upright.
final class DecodingTests: XCTestCase {
    let upright = try! Image(contentsOfFile: Fixtures.path("decode/upright.png"))

    func load(_ name: String, options: DecodingOptions = DecodingOptions()) throws -> Image {
        try Image(contentsOfFile: Fixtures.path("decode/\(name)"), options: options)
    }

    func meanAbsDiff(_ a: Image, _ b: Image) -> Double {
        XCTAssertEqual(a.width, b.width)
        XCTAssertEqual(a.height, b.height)
        let x = a.rgb().pixels, y = b.rgb().pixels
        guard x.count == y.count else { return .infinity }
        return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
    }

    /// `Image.fileBytes` reads a file whole in one pass, a pipe (no size to go by) in growing chunks, and refuses
    /// what it cannot read with the error the CLI prints.
    func testFileBytesReadsFilesAndPipesWholeAndRefusesTheRest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("filebytes-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = dir + "/photo.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        XCTAssertEqual(try Image.fileBytes(file, options: DecodingOptions()), bytes)
        XCTAssertThrowsError(try Image.fileBytes(file, options: DecodingOptions(maxFileBytes: 1000))) {
            XCTAssertTrue("\($0)".contains("over the limit of 1000"), "\($0)")
        }
        // A pipe longer than the first chunk (64 kB), written from another thread.
        let fifo = dir + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for limit in [1 << 20, 100_000] {
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                guard fd >= 0 else { return }
                // A refused read closes the pipe early: the write then fails (EPIPE, SIGPIPE ignored) and stops.
                bytes.withUnsafeBytes { raw in
                    var done = 0
                    while done < raw.count {
                        let n = write(fd, raw.baseAddress! + done, raw.count - done)
                        if n <= 0 { break }
                        done += n
                    }
                }
                close(fd)
            }
            signal(SIGPIPE, SIG_IGN)
            writer.start()
            if limit > bytes.count {
                XCTAssertEqual(try Image.fileBytes(fifo, options: DecodingOptions(maxFileBytes: limit)), bytes)
            } else {
                XCTAssertThrowsError(try Image.fileBytes(fifo, options: DecodingOptions(maxFileBytes: limit))) {
                    XCTAssertTrue("\($0)".contains("over the limit of 100000"), "\($0)")
                }
            }
            while writer.isExecuting { usleep(1000) }
        }
        for (path, message) in [(dir, "is a directory"), (dir + "/missing.jpg", "no such file"),
                                (file + "/below", "no such file")] {
            XCTAssertThrowsError(try Image.fileBytes(path, options: DecodingOptions())) {
                XCTAssertTrue("\($0)".contains(message), "\(path): \($0)")
            }
        }
    }

    func testAllEightEXIFOrientationsComeOutUpright() throws {
        XCTAssertEqual(upright.width, 60)
        for o in 1...8 {
            let png = try load("orientation-\(o).png")
            XCTAssertEqual(png, upright, "PNG eXIf orientation \(o)")
            let jpeg = try load("orientation-\(o).jpg")
            XCTAssertLessThan(meanAbsDiff(jpeg, upright), 4, "JPEG EXIF orientation \(o)")
            XCTAssertEqual(ExifOrientation.read(from: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/orientation-\(o).jpg"))))),
                           ExifOrientation(rawValue: o))
        }
    }

    /// A JPEG decoded reduced in the DCT: the smallest scale keeping the longer side asked for, the full size
    /// reported upright, and each reduced pixel where `photoPoint` says it is in the full photo — under every
    /// EXIF turn, including those that bring the partly covered last row (60 / 8 = 7.5 rows) to the top.
    func testReducedDecodingMapsBackOntoThePhoto() throws {
        for o in 1...8 {
            let name = "orientation-\(o).jpg"
            let full = try load(name)
            for (side, denominator) in [(60, 1), (30, 2), (15, 4), (8, 8), (1, 8)] {
                let reduced = try ReducedImage(contentsOfFile: Fixtures.path("decode/\(name)"), minimumLongerSide: side)
                XCTAssertEqual(reduced.denominator, denominator, "\(name) for \(side) px")
                XCTAssertEqual([reduced.fullWidth, reduced.fullHeight], [full.width, full.height], name)
                XCTAssertEqual([reduced.image.width, reduced.image.height],
                               [(full.width + denominator - 1) / denominator, (full.height + denominator - 1) / denominator])
                // Each reduced pixel against the mean of the full pixels it covers, with the origin as mapped and
                // as if it were always the corner.
                func error(_ map: (PixelPoint) -> PixelPoint) -> Double {
                    var total = 0.0, count = 0
                    for y in 0..<reduced.image.height { for x in 0..<reduced.image.width {
                        let a = map(PixelPoint(x: Double(x), y: Double(y)))
                        let x0 = Int(a.x.rounded()), y0 = Int(a.y.rounded())
                        guard x0 >= 0, y0 >= 0, x0 + denominator <= full.width, y0 + denominator <= full.height else { continue }
                        for c in 0..<3 {
                            var sum = 0
                            for yy in y0..<(y0 + denominator) { for xx in x0..<(x0 + denominator) { sum += Int(full.pixels[(yy * full.width + xx) * 3 + c]) } }
                            total += abs(Double(sum) / Double(denominator * denominator) - Double(reduced.image.pixels[(y * reduced.image.width + x) * 3 + c]))
                            count += 1
                        }
                    } }
                    return total / Double(max(count, 1))
                }
                let mapped = error(reduced.photoPoint)
                XCTAssertLessThan(mapped, denominator == 1 ? 0.001 : 9, "\(name) at 1/\(denominator)")
                if reduced.photoPoint(PixelPoint(x: 0, y: 0)) != PixelPoint(x: 0, y: 0) {
                    XCTAssertLessThan(mapped, 0.8 * error { $0 * Double(denominator) }, "\(name): the origin matters")
                }
            }
        }
        // PNG has no reduced decoding: full size, denominator 1.
        let png = try ReducedImage(contentsOfFile: Fixtures.path("decode/orientation-6.png"), minimumLongerSide: 8)
        XCTAssertEqual(png.denominator, 1)
        XCTAssertEqual(png.image, upright)
    }

    func testOrientationCanBeIgnored() throws {
        let stored = try load("orientation-6.png", options: DecodingOptions(appliesOrientation: false))
        XCTAssertEqual(stored.width, 40, "rotated 90°: stored sideways")
        XCTAssertEqual(stored.height, 60)
    }

    func testJPEGKinds() throws {
        XCTAssertLessThan(meanAbsDiff(try load("baseline.jpg"), upright), 4)
        XCTAssertLessThan(meanAbsDiff(try load("progressive.jpg"), upright), 4)
        let gray = try load("gray.jpg")
        XCTAssertEqual(gray.channels, 3)
        XCTAssertLessThan(meanAbsDiff(gray, try load("gray8.png")), 3)
        // CMYK (Adobe's inverted inks, as Pillow reads every CMYK JPEG): Pillow's RGB of it, byte for byte
        let cmyk = try load("cmyk.jpg")
        XCTAssertEqual(cmyk.channels, 3)
        XCTAssertEqual(cmyk, try load("cmyk-pillow.png"))
        XCTAssertLessThan(meanAbsDiff(cmyk, upright), 8, "the photo, through CMYK and JPEG")
    }

    /// The CMYK → RGB step on every pair of ink and black samples, against its formula in exact arithmetic:
    /// nk − c · nk / 255 rounded, with c = 255 − s_c and nk = s_k (a product over 255 is never a half).
    func testCMYKConversionOnEverySamplePair() {
        var pixels: [UInt8] = []
        for s in 0..<256 { for k in 0..<256 { pixels += [UInt8(s), UInt8(255 - s), UInt8(s / 2), UInt8(k)] } }
        let cmyk = pixels
        JPEGCodec.rgbInPlace(fromAdobeCMYK: &pixels)
        XCTAssertEqual(pixels.count, 3 * 65_536)
        for i in 0..<65_536 {
            let nk = Double(cmyk[4 * i + 3])
            for c in 0..<3 {
                let expected = nk - ((255 - Double(cmyk[4 * i + c])) * nk / 255).rounded()
                XCTAssertEqual(Double(pixels[3 * i + c]), expected, "samples \(cmyk[(4 * i)..<(4 * i + 4)])")
            }
        }
    }

    func testPNGKinds() throws {
        let gray8 = try load("gray8.png")
        XCTAssertEqual(gray8.channels, 1)
        XCTAssertLessThanOrEqual(meanAbsDiff(try load("gray16.png"), gray8), 0.5, "16-bit reduced to 8")
        XCTAssertLessThanOrEqual(meanAbsDiff(try load("rgb16.png"), upright), 0.5)
        XCTAssertEqual(try load("interlaced.png"), upright)
        XCTAssertLessThan(meanAbsDiff(try load("palette.png"), upright), 6, "256-colour quantisation")
        let trns = try load("palette-trns.png")
        XCTAssertEqual(trns.channels, 4, "tRNS gives alpha")
        let rgba = try load("rgba.png")
        XCTAssertEqual(rgba.channels, 4)
        XCTAssertEqual(rgba.rgb(), upright, "colour kept under alpha")
        XCTAssertEqual(try load("gray-alpha.png").channels, 4)
    }

    /// A header claiming 60000×60000 is refused from the header alone, before any pixel memory.
    func testHugeHeadersAreRefusedBeforeDecoding() throws {
        // PNG: a valid IHDR for 60000×60000 RGB, then nothing.
        var ihdr: [UInt8] = Array("IHDR".utf8) + [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60, 8, 2, 0, 0, 0]
        let crc = crc32(ihdr)
        ihdr = [0, 0, 0, 13] + ihdr + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xff), UInt8(crc >> 8 & 0xff), UInt8(crc & 0xff)]
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr
        XCTAssertThrowsError(try Image(encoded: png, name: "huge.png")) {
            XCTAssertTrue("\($0)".contains("60000×60000, over the limit"), "\($0)")
        }
        // JPEG: the baseline fixture with its frame header's size set to 60000×60000.
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("decode/baseline.jpg"))))
        let sof = (0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }!
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])
        XCTAssertThrowsError(try Image(encoded: jpeg, name: "huge.jpg")) {
            XCTAssertTrue("\($0)".contains("over the limit"), "\($0)")
        }
        XCTAssertThrowsError(try load("upright.png", options: DecodingOptions(maxPixels: 100))) {
            XCTAssertTrue("\($0)".contains("60×40, over the limit of 100 pixels"), "\($0)")
        }
        XCTAssertThrowsError(try load("upright.png", options: DecodingOptions(maxFileBytes: 10))) {
            XCTAssertTrue("\($0)".contains("over the limit of 10"), "\($0)")
        }
    }

    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}

/// Writing PNG and JPEG.
final class EncodingTests: XCTestCase {
    func testPNGRoundTripsAtEveryCompressionLevel() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("decode/rgba.png"))
        var sizes: [PNGCompression: Int] = [:]
        for compression in [PNGCompression.level(0), .level(1), .level(6), .level(9), .fast] {
            let data = try photo.pngData(compression: compression)
            sizes[compression] = data.count
            XCTAssertEqual(try Image(encoded: data, name: "mem"), photo, "\(compression)")
        }
        XCTAssertGreaterThan(sizes[.level(0)]!, sizes[.level(9)]!, "level 9 is smaller than stored")
        XCTAssertGreaterThan(sizes[.level(0)]!, sizes[.fast]!, "fast compresses")
        for compression in [PNGCompression.fast, .level(0), .level(9)] {  // the option's spelling round-trips
            XCTAssertEqual(PNGCompression(compression.description), compression)
        }
        XCTAssertNil(PNGCompression("10"))
        XCTAssertNil(PNGCompression("best"))
        let astronaut = try Image(contentsOfFile: Fixtures.path("photos/astronaut.png"))  // 512×512: many rows, all filters
        XCTAssertEqual(try Image(encoded: try astronaut.pngData(), name: "mem"), astronaut)
        let gray = try Image(contentsOfFile: Fixtures.path("decode/gray8.png"))
        XCTAssertEqual(try Image(encoded: try gray.pngData(), name: "mem"), gray)
    }

    /// A photo of several segments (512×512 RGB: four) encodes to the same bytes with its rows filtered and
    /// compressed on two threads as on one, and decodes back to itself, at `fast` and at a zlib level.
    func testPNGEncodingSharedBetweenThreadsIsTheSameBytes() throws {
        let astronaut = try Image(contentsOfFile: Fixtures.path("photos/astronaut.png"))
        for compression in [PNGCompression.fast, .level(6)] {
            let alone = try astronaut.pngData(compression: compression)
            XCTAssertEqual(try astronaut.pngData(compression: compression, parts: twoThreads), alone, "\(compression)")
            XCTAssertEqual(try Image(encoded: alone, name: "mem"), astronaut, "\(compression)")
        }
    }

    /// `.fast` is run-length deflate, except for gray pixels stored in colour (R = G = B), whose bytes repeat
    /// four apart: those take zlib level 1 (run-length made the coins scan's cutout 51 % larger than level 6).
    func testFastCompressionKeepsGrayPhotosSmall() throws {
        let gray = try Image(contentsOfFile: Fixtures.path("photos/coins.png")).rgb()
        var rgba = [UInt8]()
        rgba.reserveCapacity(gray.width * gray.height * 4)
        for i in 0..<(gray.width * gray.height) {
            rgba += [gray.pixels[3 * i], gray.pixels[3 * i + 1], gray.pixels[3 * i + 2], 255]
        }
        let image = Image(width: gray.width, height: gray.height, channels: 4, pixels: rgba)
        let fast = try image.pngData(), six = try image.pngData(compression: .level(6))
        XCTAssertEqual(try Image(encoded: fast, name: "mem"), image)
        XCTAssertLessThan(Double(fast.count), 1.3 * Double(six.count), "gray content takes level 1, not run-length (2.2×)")
    }

    /// The one-pass SIMD scoring of the five row filters against the per-filter reference: every bytes per pixel
    /// PNG has (1, 2, 3, 4, 6, 8), rows from empty to past one 256-step block of 16 bytes, random bytes, bytes
    /// of only 0, 127, 128 and 255 (wrap-around, Paeth's ties), and rows whose every filtered byte is 128 (the
    /// largest sums: 16-bit lanes must not overflow).
    func testTheFilterScoresAreTheReferences() {
        var generator = SystemRandomNumberGenerator()
        for bpp in [1, 2, 3, 4, 6, 8] {
            for count in [0, 1, bpp, 15, 16, 17, 31, 33, 100, 4096 + 7, 16 * 256 + bpp + 21] {
                for kind in 0..<3 {
                    let byte: () -> UInt8 = {
                        switch kind {
                        case 0: UInt8.random(in: 0...255, using: &generator)
                        case 1: [0, 127, 128, 255][Int.random(in: 0..<4, using: &generator)]
                        default: 128
                        }
                    }
                    let row = (0..<count).map { _ in byte() }
                    let above = kind == 2 ? [UInt8](repeating: 0, count: count) : (0..<count).map { _ in byte() }
                    row.withUnsafeBufferPointer { r in
                        above.withUnsafeBufferPointer { a in
                            guard let rp = r.baseAddress ?? UnsafePointer(bitPattern: 16),
                                  let ap = a.baseAddress ?? UnsafePointer(bitPattern: 16) else { return }
                            let scores = PNGEncoder.filterScores(row: rp, above: ap, count: count, bpp: bpp)
                            for f in 0..<5 {
                                XCTAssertEqual(scores[f], PNGEncoder.filterScore(f, row: rp, above: ap, count: count, bpp: bpp),
                                               "filter \(f), \(bpp) bytes per pixel, \(count) bytes, kind \(kind)")
                            }
                        }
                    }
                }
            }
        }
    }

    func testJPEGOutput() throws {
        let photo = try Image(contentsOfFile: Fixtures.path("decode/upright.png"))
        let jpeg = try photo.encoded(as: .jpeg, options: EncodingOptions(jpegQuality: 95))
        XCTAssertEqual(Array(jpeg.prefix(3)), [0xFF, 0xD8, 0xFF])
        let back = try Image(encoded: jpeg, name: "mem")
        XCTAssertEqual(back.width, 60)
        XCTAssertThrowsError(try Image(contentsOfFile: Fixtures.path("decode/rgba.png")).jpegData()) {
            XCTAssertTrue("\($0)".contains("JPEG has no alpha"))
        }
        XCTAssertEqual(ImageFormat(path: "a/B.JPEG"), .jpeg)
        XCTAssertEqual(ImageFormat(path: "x.png"), .png)
        XCTAssertEqual(ImageFormat(path: "x.bmp"), .bmp)
        XCTAssertNil(ImageFormat(path: "x.pdf"))
    }
}
