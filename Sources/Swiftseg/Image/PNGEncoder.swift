import _CPNG

/// A small PNG writer (non-interlaced, 8- or 16-bit gray/RGB/RGBA) with per-row adaptive filtering, as
/// libpng chooses by default (the filter with the smallest sum of absolute values), and a settable zlib level,
/// which libpng's simplified API does not offer.
enum PNGEncoder {
    static func encode(width: Int, height: Int, channels: Int, bitDepth: Int, rows pixels: [UInt8],
                       compressionLevel: Int) throws -> [UInt8] {
        let bpp = channels * bitDepth / 8  // bytes per pixel
        let stride = width * bpp
        precondition(pixels.count == stride * height, "PNG rows do not match the size")
        // Filtered scanlines: one filter-type byte, then the row.
        var filtered = [UInt8](repeating: 0, count: (stride + 1) * height)
        var candidate = [[UInt8]](repeating: [UInt8](repeating: 0, count: stride), count: 5)
        pixels.withUnsafeBufferPointer { px in
            for y in 0..<height {
                let row = y * stride, prev = row - stride
                for f in 0..<5 {
                    for i in 0..<stride {
                        let x = Int(px[row + i])
                        let a = i >= bpp ? Int(px[row + i - bpp]) : 0
                        let b = y > 0 ? Int(px[prev + i]) : 0
                        let c = (i >= bpp && y > 0) ? Int(px[prev + i - bpp]) : 0
                        let predicted: Int
                        switch f {
                        case 0: predicted = 0
                        case 1: predicted = a
                        case 2: predicted = b
                        case 3: predicted = (a + b) / 2
                        default:
                            let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                            predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                        }
                        candidate[f][i] = UInt8(truncatingIfNeeded: x - predicted)
                    }
                }
                let best = (0..<5).min { score(candidate[$0]) < score(candidate[$1]) }!
                filtered[y * (stride + 1)] = UInt8(best)
                for i in 0..<stride { filtered[y * (stride + 1) + 1 + i] = candidate[best][i] }
            }
        }
        var bound = compressBound(UInt(filtered.count))
        var compressed = [UInt8](repeating: 0, count: Int(bound))
        let status = compressed.withUnsafeMutableBufferPointer { dst in
            filtered.withUnsafeBufferPointer { src in
                compress2(dst.baseAddress, &bound, src.baseAddress, UInt(src.count), Int32(min(max(compressionLevel, 0), 9)))
            }
        }
        guard status == Z_OK else { throw ImageError("cannot compress PNG data (zlib error \(status))") }
        let colorType: UInt8 = channels == 1 ? 0 : channels == 3 ? 2 : 6
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", be32(width) + be32(height) + [UInt8(bitDepth), colorType, 0, 0, 0], into: &out)
        chunk("IDAT", Array(compressed.prefix(Int(bound))), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    /// Sum of the bytes taken as signed values: libpng's heuristic for choosing a row filter.
    static func score(_ row: [UInt8]) -> Int { row.reduce(0) { $0 + ($1 < 128 ? Int($1) : 256 - Int($1)) } }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(data.count) + typeBytes + data
        var crc = crc32(0, nil, 0)
        crc = (typeBytes + data).withUnsafeBufferPointer { crc32(crc, $0.baseAddress, UInt32($0.count)) }
        out += be32(Int(crc))
    }
}
