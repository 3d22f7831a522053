import _CPNG

/// A zlib stream of run-length deflate, the kind zlib's `Z_RLE` strategy makes (every match at distance 1: a run
/// of the byte before), written for speed: PNG's `fast` compression (``PNGCompression/fast``) of all but gray
/// photos. Runs are measured eight bytes at a time, the symbols of a block are counted as they are found, and
/// each block of 32,768 symbols gets its own Huffman codes (optimal, limited to deflate's 15 bits), or is stored
/// when that is smaller; a token's whole bit string (a literal, or a match's length code, extra bits and distance
/// code) is one table entry. zlib's run-length deflate was about two thirds of a cutout's encoding time; this
/// takes under a third of zlib's time, for files about 0.2 % smaller (PERF.md). The bytes are its own, not
/// zlib's: any inflater reads them (the tests inflate them with zlib).
///
/// ```swift
/// let stream = RunLengthDeflate.compress(filteredRows)   // zlib header, deflate blocks, Adler-32
/// ```
public enum RunLengthDeflate {
    /// Symbols per block.
    static let blockSymbols = 32_768

    /// `data` as one zlib stream (RFC 1950) of run-length deflate.
    public static func compress(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer { compress($0, segments: [0..<$0.count], parts: .serial) }
    }

    /// `data` as one zlib stream whose deflate blocks also break at the ends of `segments` (consecutive ranges
    /// that cover `data`), so that `parts` can compress the segments at the same time: each segment but the last
    /// ends with an empty stored block (a sync flush, 5 bytes), which leaves it on a byte boundary for the next
    /// to follow, and its runs may continue the segment before (the window spans them). The bytes depend on the
    /// segments, not on who compresses them.
    ///
    /// ```swift
    /// let stream = RunLengthDeflate.compress(rows, segments: [0..<half, half..<rows.count], parts: segmenter.parts)
    /// ```
    public static func compress(_ data: [UInt8], segments: [Range<Int>], parts: ParallelParts = .serial) -> [UInt8] {
        data.withUnsafeBufferPointer { compress($0, segments: segments, parts: parts) }
    }

    static func compress(_ data: UnsafeBufferPointer<UInt8>, segments: [Range<Int>], parts: ParallelParts) -> [UInt8] {
        precondition(segments.first?.lowerBound == 0 && segments.last?.upperBound == data.count,
                     "the segments cover the data")
        var pieces = [[UInt8]](repeating: [], count: segments.count)
        var checksums = [UInt](repeating: 1, count: segments.count)
        pieces.withUnsafeMutableBufferPointer { pieces in
            checksums.withUnsafeMutableBufferPointer { checksums in
                parts.forEach(segments.count) { s in
                    let range = segments[s]
                    pieces[s] = deflateBlocks(data, range: range, final: s == segments.count - 1)
                    if !range.isEmpty {
                        checksums[s] = adler32(1, data.baseAddress! + range.lowerBound, UInt32(range.count))
                    }
                }
            }
        }
        var adler = checksums[0]
        for s in 1..<max(1, segments.count) {
            adler = adler32_combine(adler, checksums[s], Int(segments[s].count))
        }
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, "fastest" level
        out.reserveCapacity(pieces.reduce(6) { $0 + $1.count })
        for piece in pieces { out += piece }
        out += [UInt8(adler >> 24 & 0xFF), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return out
    }

    /// The deflate blocks of `data[range]`, the last one final if `final`; else followed by an empty stored block,
    /// so that they end on a byte boundary. A run may start at `range`'s first byte, repeating the byte before it.
    static func deflateBlocks(_ data: UnsafeBufferPointer<UInt8>, range: Range<Int>, final: Bool) -> [UInt8] {
        let count = range.count
        // Every block is at most its bytes stored (5 bytes of header per 65,535), plus the flush's 5 bytes and
        // the bit writer's 8-byte stores.
        let capacity = count + 5 * (count / blockSymbols + count / 65_535 + 2) + 64
        return [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
            var writer = BitWriter(out.baseAddress!)
            let tokens = UnsafeMutablePointer<UInt16>.allocate(capacity: blockSymbols)
            let counts = UnsafeMutablePointer<Int>.allocate(capacity: 286)
            defer { tokens.deallocate(); counts.deallocate() }
            if count == 0 && final {
                writer.bits(0b011, 3)  // a final fixed-code block holding only its end (code 256: seven 0 bits)
                writer.bits(0, 7)
            }
            lengthCode.withUnsafeBufferPointer { lengthCode in
                guard let input = data.baseAddress else { return }
                let end = range.upperBound
                var i = range.lowerBound
                while i < end {
                    let start = i
                    counts.initialize(repeating: 0, count: 286)
                    counts[256] = 1  // the block's end
                    var n = 0
                    while n < blockSymbols && i < end {
                        let byte = input[i]
                        // A run needs the byte before it three times over: most bytes of a photo fail the first test.
                        if i > 0 && input[i - 1] == byte, case let run = runLength(input, at: i, count: end), run >= 3 {
                            tokens[n] = UInt16(256 + run - 3)
                            counts[257 + Int(lengthCode[run])] += 1
                            i += run
                        } else {
                            tokens[n] = UInt16(byte)
                            counts[Int(byte)] += 1
                            i += 1
                        }
                        n += 1
                    }
                    writeBlock(tokens: UnsafeBufferPointer(start: tokens, count: n),
                               counts: UnsafeBufferPointer(start: counts, count: 286),
                               bytes: UnsafeBufferPointer(start: input + start, count: i - start),
                               final: final && i == end, into: &writer)
                }
            }
            if !final {  // the sync flush: a non-final stored block of no bytes
                writer.bits(0b000, 3)
                writer.bytes(0, 0, 0xFF, 0xFF)
            }
            written = writer.finish()
            precondition(written <= capacity, "the deflate stream overran its bound")  // a bug, never the input's doing
        }
    }

    /// How many bytes from `i` repeat the byte before it (at most 258, deflate's longest match).
    @inline(__always)
    static func runLength(_ p: UnsafePointer<UInt8>, at i: Int, count: Int) -> Int {
        let b = p[i - 1]
        guard p[i] == b, i + 2 < count, p[i + 1] == b, p[i + 2] == b else { return 0 }
        let limit = min(258, count - i)
        let pattern = UInt64(b) &* 0x0101_0101_0101_0101
        var n = 3
        while n + 8 <= limit {
            let difference = UnsafeRawPointer(p + i + n).loadUnaligned(as: UInt64.self) ^ pattern
            if difference != 0 { return n + UInt64(littleEndian: difference).trailingZeroBitCount / 8 }
            n += 8
        }
        while n < limit && p[i + n] == b { n += 1 }
        return n
    }

    /// The block's symbols with dynamic codes, or its bytes stored if that is no larger. `counts`: how often each
    /// literal/length code (0…285) occurs in `tokens`, the end of block (256) once.
    static func writeBlock(tokens: UnsafeBufferPointer<UInt16>, counts: UnsafeBufferPointer<Int>,
                           bytes: UnsafeBufferPointer<UInt8>, final: Bool, into writer: inout BitWriter) {
        let literalLengths = HuffmanCode.lengths(Array(counts), limit: 15)
        // Distance code 0 (distance 1), the only one; a block of literals declares it too (a header needs one).
        let distanceLengths: [UInt8] = [1]
        let header = DynamicHeader(literal: literalLengths, distance: distanceLengths)
        var dataBits = 0
        for s in 0..<286 where counts[s] > 0 {
            dataBits += counts[s] * (Int(literalLengths[s]) + (s > 256 ? Int(lengthExtra[s - 257]) + 1 : 0))
        }
        let dynamicBits = 3 + header.bits + dataBits
        let storedBits = 3 + 7 + (bytes.count / 65_535 + 1) * 32 + 8 * bytes.count
        if dynamicBits >= storedBits {
            writeStored(bytes, final: final, into: &writer)
            return
        }
        writer.bits(final ? 0b101 : 0b100, 3)  // BFINAL, then BTYPE 10 (dynamic), low bit first
        header.write(into: &writer)
        // Each token's whole bit string and its length in one table entry (code | bits << 32): a literal's code, or
        // a match's length code, extra bits and distance code (at most 15 + 5 + 1 bits).
        let literal = HuffmanCode(lengths: literalLengths)
        var table = [UInt64](repeating: 0, count: 512)
        for t in 0..<256 { table[t] = UInt64(literal.codes[t]) | UInt64(literal.lengths[t]) << 32 }
        for length in 3...258 {
            let c = Int(lengthCode[length]), symbol = 257 + c
            guard literal.lengths[symbol] > 0 else { continue }
            var code = UInt64(literal.codes[symbol]), bits = UInt64(literal.lengths[symbol])
            code |= UInt64(length - Int(lengthBase[c])) << bits
            bits += UInt64(lengthExtra[c])
            // distance code 0 has length 1 and code 0: one zero bit
            bits += 1
            table[253 + length] = code | bits << 32
        }
        table.withUnsafeBufferPointer { table in
            for t in tokens {
                let entry = table[Int(t)]
                writer.bits(entry & 0xFFFF_FFFF, Int(entry >> 32))
            }
        }
        writer.bits(UInt64(literal.codes[256]), Int(literal.lengths[256]))
    }

    /// Stored blocks of at most 65,535 bytes each (the last one final if `final`).
    static func writeStored(_ bytes: UnsafeBufferPointer<UInt8>, final: Bool, into writer: inout BitWriter) {
        var start = 0
        repeat {
            let n = min(65_535, bytes.count - start)
            let last = start + n == bytes.count
            writer.bits(final && last ? 0b001 : 0b000, 3)  // BTYPE 00
            writer.alignToByte()
            writer.bytes(UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF))
            if n > 0 { writer.copy(bytes.baseAddress! + start, count: n) }
            start += n
        } while start < bytes.count
    }

    /// Length codes (257 + index) of match lengths 3…258, their extra bits and base lengths (RFC 1951, 3.2.5).
    static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67,
                                       83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5,
                                       5, 5, 0]
    /// The length code index of each match length 0…258 (0…2 unused).
    static let lengthCode: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 259)
        for c in 0..<29 {
            let top = c == 28 ? 258 : c == 27 ? 257 : Int(lengthBase[c + 1]) - 1
            for length in Int(lengthBase[c])...top { table[length] = UInt8(c) }
        }
        return table
    }()
}

/// A dynamic block's header: the counts of codes, the code-length code, and the two codes' lengths run-length
/// coded with it (RFC 1951, 3.2.7).
struct DynamicHeader {
    /// Code-length symbols (0…18) with their extra bits' values.
    var symbols: [(symbol: UInt8, extra: UInt8)] = []
    var codeLengthCode: HuffmanCode
    let literalCount: Int, distanceCount: Int, codeLengthCount: Int
    /// Bits the header takes.
    let bits: Int

    static let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    init(literal: [UInt8], distance: [UInt8]) {
        literalCount = max(257, (literal.lastIndex { $0 != 0 } ?? 0) + 1)
        distanceCount = max(1, (distance.lastIndex { $0 != 0 } ?? 0) + 1)
        let all = Array(literal[0..<literalCount]) + Array(distance[0..<distanceCount])
        var i = 0
        while i < all.count {
            let value = all[i]
            var run = 1
            while i + run < all.count && all[i + run] == value { run += 1 }
            var left = run
            if value == 0 {
                while left >= 11 { let n = min(138, left); symbols.append((18, UInt8(n - 11))); left -= n }
                if left >= 3 { symbols.append((17, UInt8(left - 3))); left = 0 }
            } else {
                symbols.append((value, 0))
                left -= 1
                while left >= 3 { let n = min(6, left); symbols.append((16, UInt8(n - 3))); left -= n }
            }
            for _ in 0..<left { symbols.append((value, 0)) }
            i += run
        }
        var frequencies = [Int](repeating: 0, count: 19)
        for s in symbols { frequencies[Int(s.symbol)] += 1 }
        let code = HuffmanCode(lengths: HuffmanCode.lengths(frequencies, limit: 7, complete: true))
        codeLengthCode = code
        codeLengthCount = max(4, (DynamicHeader.order.lastIndex { code.lengths[$0] != 0 } ?? 0) + 1)
        var total = 5 + 5 + 4 + 3 * codeLengthCount
        for s in symbols {
            total += Int(code.lengths[Int(s.symbol)])
            total += s.symbol == 16 ? 2 : s.symbol == 17 ? 3 : s.symbol == 18 ? 7 : 0
        }
        bits = total
    }

    func write(into writer: inout BitWriter) {
        writer.bits(UInt64(literalCount - 257), 5)
        writer.bits(UInt64(distanceCount - 1), 5)
        writer.bits(UInt64(codeLengthCount - 4), 4)
        for k in 0..<codeLengthCount { writer.bits(UInt64(codeLengthCode.lengths[DynamicHeader.order[k]]), 3) }
        for s in symbols {
            writer.bits(UInt64(codeLengthCode.codes[Int(s.symbol)]), Int(codeLengthCode.lengths[Int(s.symbol)]))
            switch s.symbol {
            case 16: writer.bits(UInt64(s.extra), 2)
            case 17: writer.bits(UInt64(s.extra), 3)
            case 18: writer.bits(UInt64(s.extra), 7)
            default: break
            }
        }
    }
}

/// A canonical Huffman code (RFC 1951, 3.2.2): each symbol's length and its code, bit-reversed for deflate's
/// least-significant-bit-first packing.
struct HuffmanCode {
    let lengths: [UInt8]
    let codes: [UInt16]

    init(lengths: [UInt8]) {
        self.lengths = lengths
        var perLength = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { perLength[Int(l)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1..<16 {
            code = (code + perLength[bits - 1]) << 1
            next[bits] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (s, l) in lengths.enumerated() where l > 0 {
            var c = next[Int(l)], reversed = 0
            next[Int(l)] += 1
            for _ in 0..<Int(l) { reversed = reversed << 1 | c & 1; c >>= 1 }
            codes[s] = UInt16(reversed)
        }
        self.codes = codes
    }

    /// Huffman code lengths for `frequencies`, none longer than `limit`. Unused symbols get 0. A lone symbol gets
    /// length 1 — or, with `complete` (the code-length code, which inflaters require to be complete), a second
    /// symbol gets length 1 beside it.
    static func lengths(_ frequencies: [Int], limit: Int, complete: Bool = false) -> [UInt8] {
        var used = frequencies.indices.filter { frequencies[$0] > 0 }
        var result = [UInt8](repeating: 0, count: frequencies.count)
        if used.count <= 1 {
            let first = used.first ?? 0
            result[first] = 1
            if complete { result[first == 0 ? 1 : 0] = 1 }
            return result
        }
        // Leaves sorted by frequency (then symbol), merged with a second queue of internal nodes (which come out
        // in order), recording each node's parent; then depths from the root down.
        used.sort { (frequencies[$0], $0) < (frequencies[$1], $1) }
        let leaves = used.count
        var weight = used.map { frequencies[$0] } + [Int](repeating: 0, count: leaves - 1)
        var parent = [Int](repeating: -1, count: 2 * leaves - 1)
        var nextLeaf = 0, nextNode = leaves, made = leaves
        func smallest() -> Int {
            if nextLeaf < leaves && (nextNode == made || weight[nextLeaf] <= weight[nextNode]) {
                nextLeaf += 1
                return nextLeaf - 1
            }
            nextNode += 1
            return nextNode - 1
        }
        while made < 2 * leaves - 1 {
            let a = smallest(), b = smallest()
            weight[made] = weight[a] + weight[b]
            parent[a] = made
            parent[b] = made
            made += 1
        }
        var depth = [Int](repeating: 0, count: 2 * leaves - 1)
        for node in stride(from: 2 * leaves - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        // Lengths per count; if any is over the limit, move leaves up keeping the Kraft sum at one (JPEG's
        // Annex K.3 adjustment), then hand the lengths out again, shortest to the most frequent.
        var perLength = [Int](repeating: 0, count: max(limit, depth.max()!) + 1)
        for leaf in 0..<leaves { perLength[depth[leaf]] += 1 }
        var longest = perLength.count - 1
        while longest > limit {
            while perLength[longest] > 0 {
                var j = longest - 2
                while perLength[j] == 0 { j -= 1 }
                perLength[longest] -= 2
                perLength[longest - 1] += 1
                perLength[j + 1] += 2
                perLength[j] -= 1
            }
            longest -= 1
        }
        var length = 1, kraft = 0  // Σ 2^(limit − length): a complete code sums to 2^limit
        for leaf in stride(from: leaves - 1, through: 0, by: -1) {  // most frequent first
            while perLength[length] == 0 { length += 1 }
            result[used[leaf]] = UInt8(length)
            perLength[length] -= 1
            kraft += 1 << (limit - length)
        }
        precondition(length <= limit && kraft == 1 << limit, "a Huffman code must be complete and within \(limit) bits")
        return result
    }
}

/// Packs codes least significant bit first into a buffer with room for every byte written plus 8.
struct BitWriter {
    let start: UnsafeMutablePointer<UInt8>
    var out: UnsafeMutablePointer<UInt8>
    var buffer: UInt64 = 0
    var count = 0

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        out = start
    }

    /// The low `n` (at most 32) bits of `value`.
    @inline(__always)
    mutating func bits(_ value: UInt64, _ n: Int) {
        buffer |= value << UInt64(count)
        count += n
        if count >= 32 {
            UnsafeMutableRawPointer(out).storeBytes(of: UInt32(truncatingIfNeeded: buffer).littleEndian, as: UInt32.self)
            out += 4
            buffer >>= 32
            count -= 32
        }
    }

    /// Pads with zero bits to the next byte boundary and writes out every whole byte.
    mutating func alignToByte() {
        count = (count + 7) / 8 * 8
        while count > 0 {
            out.pointee = UInt8(truncatingIfNeeded: buffer)
            out += 1
            buffer >>= 8
            count -= 8
        }
        count = 0
        buffer = 0
    }

    mutating func bytes(_ values: UInt8...) {
        alignToByte()
        for v in values { out.pointee = v; out += 1 }
    }

    mutating func copy(_ source: UnsafePointer<UInt8>, count n: Int) {
        alignToByte()
        out.update(from: source, count: n)
        out += n
    }

    /// Bytes written (after a final ``alignToByte()``).
    mutating func finish() -> Int {
        alignToByte()
        return out - start
    }
}
