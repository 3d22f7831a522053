/// BMP (Windows and OS/2 bitmaps), read by its own parser here — the format is a header, a palette and rows, and
/// no Debian library reads it alone. Every header (OS/2 1.x's 12 bytes, Windows' 40 to 124), 1/4/8-bit palettes
/// (uncompressed, RLE4, RLE8), 16/24/32-bit pixels with the default or BITFIELDS masks, bottom-up and top-down
/// rows; a V5 header's embedded ICC profile. The pixels are Pillow's (rembg reads BMPs through it): a palette of
/// the grays 0…255 (or black and white) gives a gray image; 32-bit pixels without BITFIELDS are RGB, their fourth
/// byte ignored, as Pillow ignores it; with an alpha mask they are RGBA; 5- and 6-bit fields scale as v·255/max;
/// RLE runs past a row's end are cut there, pixels a run skips are index 0. Read only.
enum BMPCodec: ReadOnlyCodec {
    static let name = "BMP"
    static let extensions = ["bmp", "dib"]
    static let mediaType = "image/bmp"
    /// The sizes of the info headers that exist: OS/2 1.x, Windows 3 (INFO), V2, V3, OS/2 2.x, V4, V5.
    static let headerSizes: Set<Int> = [12, 40, 52, 56, 64, 108, 124]

    /// "BM" and a known info-header size after the 14-byte file header (two letters alone would take text files).
    static func matches(_ b: [UInt8]) -> Bool {
        b.count >= 18 && b[0] == 0x42 && b[1] == 0x4D && headerSizes.contains(Int(u32(b, 14)))
    }

    /// What the headers say, checked against the file's length for everything but the pixels.
    struct Header {
        var width = 0, height = 0, bits = 0
        var topDown = false
        var compression: UInt32 = 0
        /// Red, green, blue and alpha masks of 16- and 32-bit pixels (alpha 0: none).
        var masks: [UInt32] = [0, 0, 0, 0]
        /// A 1/4/8-bit file's colours, RGB triples, at most 2^bits of them.
        var palette: [UInt8] = []
        var isGray = false
        var pixelOffset = 0
        var profile: Range<Int>?
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(b[i]) | UInt32(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { u16(b, i) | u16(b, i + 2) << 16 }

    static func header(_ b: [UInt8], name: String) throws -> Header {
        func corrupt(_ why: String) -> ImageError { ImageError(.unreadableImage, "\(name): corrupt BMP: \(why)") }
        guard b.count >= 18 else { throw corrupt("the file ends in its header") }
        let size = Int(u32(b, 14))
        guard headerSizes.contains(size) else { throw corrupt("unknown header size \(size)") }
        guard b.count >= 14 + size else { throw corrupt("the file ends in its header") }
        var h = Header()
        var entryBytes = 4, colours = 0, paletteStart = 14 + size
        if size == 12 {
            h.width = Int(u16(b, 18)); h.height = Int(u16(b, 20)); h.bits = Int(u16(b, 24))
            entryBytes = 3
        } else {
            h.width = Int(Int32(bitPattern: u32(b, 18)))
            let height = Int(Int32(bitPattern: u32(b, 22)))
            h.topDown = height < 0
            h.height = abs(height)
            h.bits = Int(u16(b, 28))
            h.compression = u32(b, 30)
            colours = Int(u32(b, 46))
        }
        guard h.width > 0, h.height > 0 else {
            throw ImageError(.unreadableImage, "\(name): image has no pixels (\(h.width)×\(h.height))")
        }
        switch (h.compression, h.bits) {
        case (0, 1), (0, 4), (0, 8), (0, 16), (0, 24), (0, 32), (1, 8), (2, 4), (3, 16), (3, 24), (3, 32), (6, 16), (6, 32):
            break
        case (0...6, _):
            throw ImageError(.unreadableImage, "\(name): unsupported BMP: \(h.bits)-bit pixels with compression \(h.compression)")
        default:
            throw ImageError(.unreadableImage, "\(name): unsupported BMP compression \(h.compression)")
        }
        // Masks: in the header from V2 on, after a 40-byte header otherwise; the defaults without BITFIELDS.
        if h.compression == 3 || h.compression == 6 {
            let alpha = size >= 56 || h.compression == 6
            let at = size >= 52 ? 54 : 14 + size
            let count = alpha ? 4 : 3
            guard b.count >= at + 4 * count else { throw corrupt("the file ends in its colour masks") }
            for c in 0..<count { h.masks[c] = u32(b, at + 4 * c) }
            if size < 52 { paletteStart += 4 * count }
            if h.masks == [0, 0, 0, 0] { h.masks = [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000] }  // as Pillow reads them
        } else if h.bits == 16 {
            h.masks = [0x7C00, 0x3E0, 0x1F, 0]
        } else if h.bits >= 24 {
            h.masks = [0xFF_0000, 0xFF00, 0xFF, 0]
        }
        if h.bits <= 8 {
            if colours == 0 { colours = 1 << h.bits }
            guard colours <= 65_536 else { throw corrupt("a palette of \(colours) colours") }
            let kept = min(colours, 1 << h.bits)
            guard b.count >= paletteStart + kept * entryBytes else { throw corrupt("the file ends in its palette") }
            h.palette.reserveCapacity(3 * kept)
            for i in 0..<kept {
                let e = paletteStart + i * entryBytes
                h.palette += [b[e + 2], b[e + 1], b[e]]
            }
            // Pillow's test: black and white for two colours, else the grays 0, 1, 2, … in order.
            h.isGray = (0..<kept).allSatisfy { i in
                let v = kept == 2 ? UInt8(i * 255) : UInt8(truncatingIfNeeded: i)
                return h.palette[3 * i] == v && h.palette[3 * i + 1] == v && h.palette[3 * i + 2] == v
            } && kept == colours
        }
        h.pixelOffset = Int(u32(b, 10))
        // Some writers point the pixels at the palette's start; Pillow then reads them after it.
        if h.pixelOffset == 14 + size, h.bits <= 8 { h.pixelOffset += entryBytes * colours }
        // A V5 header's embedded profile ('MBED'), at an offset from the info header's start.
        if size == 124, u32(b, 14 + 56) == 0x4D42_4544 {
            let start = 14 + Int(u32(b, 14 + 112)), count = Int(u32(b, 14 + 116))
            if count > 0, start <= b.count, count <= b.count - start { h.profile = start..<(start + count) }
        }
        return h
    }

    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        let h = try header(bytes, name: name)
        return (h.width, h.height)
    }

    static func decode(_ b: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        let h = try header(b, name: name)
        try Image.checkLimits(width: h.width, height: h.height, name: name, limits: options)
        let (width, height) = (h.width, h.height)
        guard h.pixelOffset <= b.count else { throw ImageError(.unreadableImage, "\(name): truncated BMP: no pixels") }
        // The file's rows (first the bottom one unless top-down) as palette indices or as pixels.
        func row(_ fileRow: Int) -> Int { h.topDown ? fileRow : height - 1 - fileRow }
        if h.bits <= 8 {
            let indices = h.compression == 0 ? try unpackedIndices(b, h, name: name) : try runLengthIndices(b, h, name: name)
            let channels = h.isGray ? 1 : 3
            var pixels = [UInt8](repeating: 0, count: width * height * channels)
            let colours = h.palette.count / 3
            indices.withUnsafeBufferPointer { src in
                pixels.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<height {
                        let from = y * width, to = row(y) * width * channels
                        for x in 0..<width {
                            let i = Int(src[from + x])
                            guard i < colours else { continue }  // past the palette: black, as Pillow gives it
                            if channels == 1 {
                                dst[to + x] = h.palette[3 * i]
                            } else {
                                dst[to + 3 * x] = h.palette[3 * i]; dst[to + 3 * x + 1] = h.palette[3 * i + 1]
                                dst[to + 3 * x + 2] = h.palette[3 * i + 2]
                            }
                        }
                    }
                }
            }
            return (Image(width: width, height: height, channels: channels, pixels: pixels), 1)
        }
        let rowBytes = (width * h.bits + 31) / 32 * 4
        guard rowBytes * height <= b.count - h.pixelOffset else {
            throw ImageError(.unreadableImage, "\(name): truncated BMP: its pixels end early")
        }
        let fields = h.masks.map(Field.init)
        let channels = h.masks[3] != 0 ? 4 : 3
        let step = h.bits / 8
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        b.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let from = h.pixelOffset + y * rowBytes, to = row(y) * width * channels
                    for x in 0..<width {
                        let p = from + x * step
                        var v = UInt32(src[p]) | UInt32(src[p + 1]) << 8
                        if step >= 3 { v |= UInt32(src[p + 2]) << 16 }
                        if step == 4 { v |= UInt32(src[p + 3]) << 24 }
                        for c in 0..<channels { dst[to + channels * x + c] = fields[c].value(v) }
                    }
                }
            }
        }
        return (Image(width: width, height: height, channels: channels, pixels: pixels), 1)
    }

    /// One colour mask: its shift and largest value; the field scaled to 0…255 as v·255/max (Pillow's 5- and 6-bit
    /// scaling; 8-bit fields as they are).
    struct Field {
        let mask: UInt32, shift: UInt32, maximum: UInt64
        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask == 0 ? 0 : UInt64(mask >> shift)
        }
        func value(_ v: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            return UInt8(UInt64((v & mask) >> shift) * 255 / maximum)
        }
    }

    /// An uncompressed 1/4/8-bit file's palette indices, in file row order.
    static func unpackedIndices(_ b: [UInt8], _ h: Header, name: String) throws -> [UInt8] {
        let (width, height, bits) = (h.width, h.height, h.bits)
        let rowBytes = (width * bits + 31) / 32 * 4
        guard rowBytes * height <= b.count - h.pixelOffset else {
            throw ImageError(.unreadableImage, "\(name): truncated BMP: its pixels end early")
        }
        var indices = [UInt8](repeating: 0, count: width * height)
        let perByte = 8 / bits, mask = UInt8((1 << bits) - 1)
        for y in 0..<height {
            let from = h.pixelOffset + y * rowBytes
            for x in 0..<width {
                let byte = b[from + x / perByte]
                let shift = 8 - bits * (x % perByte + 1)
                indices[y * width + x] = byte >> UInt8(shift) & mask
            }
        }
        return indices
    }

    /// An RLE8 or RLE4 file's palette indices, in file row order, decoded as Pillow decodes them: a run past its
    /// row's end is cut at the end, an absolute run may go on into the next row, pixels skipped by an end of
    /// line or a delta are index 0, the end-of-bitmap code leaves the rest 0. Data that ends before the picture
    /// is full and before that code is a truncated file.
    static func runLengthIndices(_ b: [UInt8], _ h: Header, name: String) throws -> [UInt8] {
        let width = h.width, total = h.width * h.height, rle4 = h.compression == 2
        var out = [UInt8](repeating: 0, count: total)
        var n = 0, x = 0, i = h.pixelOffset
        let truncated = ImageError(.unreadableImage, "\(name): truncated BMP: its run-length data ends early")
        while n < total {
            guard i + 2 <= b.count else { throw truncated }
            let count = Int(b[i]), byte = b[i + 1]
            i += 2
            if count > 0 {
                let run = x + count > width ? max(0, width - x) : count
                for k in 0..<min(run, total - n) { out[n + k] = rle4 ? (k % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte }
                n += min(run, total - n)
                x += run
            } else if byte == 0 {  // end of line
                if n % width != 0 { n += width - n % width }
                x = 0
            } else if byte == 1 {  // end of bitmap
                break
            } else if byte == 2 {  // delta: right, up
                guard i + 2 <= b.count else { throw truncated }
                n += min(total - n, Int(b[i]) + Int(b[i + 1]) * width)
                i += 2
                x = n % width
            } else {  // absolute: `byte` indices follow, padded to a 16-bit boundary
                let wanted = Int(byte), kept = min(total - n, wanted)
                let length = rle4 ? (kept + 1) / 2 : kept
                guard i + length <= b.count else { throw truncated }
                for k in 0..<kept { out[n + k] = rle4 ? (k % 2 == 0 ? b[i + k / 2] >> 4 : b[i + k / 2] & 0x0F) : b[i + k] }
                n += kept
                i += length
                x += wanted
                if i % 2 != 0 { i += 1 }
            }
        }
        return out
    }

    static func orientation(_ bytes: [UInt8]) -> ExifOrientation? { nil }

    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        guard let h = try? header(bytes, name: ""), let range = h.profile else { return nil }
        return Array(bytes[range])
    }
}
