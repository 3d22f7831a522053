/// PNG decoding's hot loops on raw pointers — the inflater and the row unfilters — compiled three times like the
/// resampler's (SwiftsegImageKernels for the baseline CPU, …AVX2 and …AVX512 symlinked to this file): the
/// inflater shifts its bit buffer by variable counts on every symbol, which the baseline x86-64 does in three
/// micro-ops (`shr %cl`) where BMI2 has one (`shrx`), and the Paeth filter's chain is shorter with SSSE3's `pabsw`
/// and blends: built for AVX2 the whole decode took 0.84–0.87 of the baseline's time (PERF.md, "Encoding and decoding images").
/// SwiftsegImage/Codecs/Inflate.swift and PNGReader.swift pick a build; each gives the same bytes (tests against
/// the plain references beside them here, and against zlib and libpng).
public enum PNGDecodingKernels {
    // MARK: - Inflating (RFC 1950 zlib streams of RFC 1951 deflate)

    /// Zero bytes the input must be readable for past `count` (the bit buffer loads 8 bytes at a time).
    public static let inputPadding = 16
    /// Bytes the output must be writable for past `outCount` (matches are copied 8 bytes at a time).
    public static let outputSlack = 16

    /// Decodes the zlib stream `input[0 ..< count]` into exactly `outCount` bytes at `out`. False on any error:
    /// a bad header or code, a stream that ends short or would run past `outCount`, bytes left after the
    /// Adler-32, a wrong Adler-32. `input` must be readable (zeros) for ``inputPadding`` bytes past `count`, `out`
    /// writable for ``outputSlack`` past `outCount`.
    public static func zlibStream(_ input: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>,
                                  outCount: Int) -> Bool {
        guard count >= 2 + 4 else { return false }
        let cmf = Int(input[0]), flg = Int(input[1])
        guard cmf & 15 == 8, cmf >> 4 <= 7, (cmf << 8 | flg) % 31 == 0, flg & 0x20 == 0 else { return false }
        var decoder = Decoder(input: input + 2, end: input + count, out: out, outCount: outCount)
        guard let consumed = decoder.run(), decoder.outPos == outCount else { return false }
        let trailer = 2 + consumed
        guard trailer + 4 == count else { return false }
        let stored = UInt32(input[trailer]) << 24 | UInt32(input[trailer + 1]) << 16
            | UInt32(input[trailer + 2]) << 8 | UInt32(input[trailer + 3])
        return adler32(out, count: outCount) == stored
    }

    /// Adler-32 of `count` bytes (RFC 1950), 16 bytes at a time: over a run of blocks, `a` gains the bytes' sum and
    /// `b` gains 16 × each block's starting `a` plus the bytes weighted 16, 15, …, 1 by their place in a block;
    /// reduced modulo 65,521 every 5,552 bytes, as zlib does (the same checksum: a test against zlib's).
    public static func adler32(_ p: UnsafePointer<UInt8>, count: Int) -> UInt32 {
        var a: UInt64 = 1, b: UInt64 = 0, i = 0
        let weights = SIMD16<UInt32>(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
        while i < count {
            let n = min(5552, count - i), blocks = n / 16
            var sums = SIMD16<UInt32>(), before = SIMD16<UInt32>()  // per lane: Σ bytes, Σ over blocks of Σ before
            for k in 0..<blocks {
                let v = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(p + i + 16 * k).loadUnaligned(as: SIMD16<UInt8>.self))
                before &+= sums
                sums &+= v
            }
            b += 16 * (UInt64(blocks) * a + UInt64(before.wrappedSum())) + UInt64((sums &* weights).wrappedSum())
            a += UInt64(sums.wrappedSum())
            for k in (16 * blocks)..<n {
                a += UInt64(p[i + k])
                b += a
            }
            a %= 65521
            b %= 65521
            i += n
        }
        return UInt32(b << 16 | a)
    }

    /// Bits of the tables' first lookup (longer codes go through a second table).
    static let litlenRootBits = 11, distanceRootBits = 10

    /// A table entry: bits 0–4 the code's length (bits consumed), 5–9 extra bits to read after it (a length or
    /// distance) or a second table's index bits, 10–12 the kind, 16–31 the value (a literal, a base, or where the
    /// second table starts).
    typealias Entry = UInt32
    static let literal: UInt32 = 0, base: UInt32 = 1, endOfBlock: UInt32 = 2, second: UInt32 = 3, invalid: UInt32 = 4

    @inline(__always) static func entry(length: Int, extra: Int, kind: UInt32, value: Int) -> Entry {
        UInt32(length) | UInt32(extra) << 5 | kind << 10 | UInt32(value) << 16
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
                                    115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
                                      1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                       12, 12, 13, 13]
    /// The order the code-length code's lengths are stored in.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    enum TableKind { case codeLengths, literalLength, distance }

    /// Builds the canonical Huffman table of `lengths` (0: unused symbol) into `table`; false for a code zlib
    /// refuses: over-subscribed, or incomplete unless it is a single one-bit code (distances and lengths only).
    static func build(_ lengths: UnsafePointer<UInt8>, _ n: Int, _ kind: TableKind, rootBits: Int,
                      into table: UnsafeMutablePointer<Entry>) -> Bool {
        var count = [Int](repeating: 0, count: 16)
        for s in 0..<n { count[Int(lengths[s])] += 1 }
        count[0] = 0
        var left = 1, maxLength = 0
        for len in 1...15 {
            left <<= 1
            left -= count[len]
            if left < 0 { return false }
            if count[len] > 0 { maxLength = len }
        }
        if maxLength == 0 && kind != .distance { return false }
        if left > 0 && (kind == .codeLengths || maxLength != 1) && maxLength != 0 { return false }
        let rootSize = 1 << rootBits
        for k in 0..<rootSize { table[k] = entry(length: 0, extra: 0, kind: invalid, value: 0) }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for len in 1...15 {
            code = (code + count[len - 1]) << 1
            next[len] = code
        }
        let subBits = max(0, maxLength - rootBits), subSize = 1 << subBits
        var secondStart = [Int](repeating: -1, count: rootSize), used = rootSize
        for s in 0..<n {
            let len = Int(lengths[s])
            guard len > 0 else { continue }
            let c = next[len]
            next[len] += 1
            var reversed = 0
            for k in 0..<len where c >> k & 1 != 0 { reversed |= 1 << (len - 1 - k) }
            let e: Entry
            switch kind {
            case .codeLengths: e = entry(length: len, extra: 0, kind: literal, value: s)
            case .literalLength:
                if s < 256 { e = entry(length: len, extra: 0, kind: literal, value: s) }
                else if s == 256 { e = entry(length: len, extra: 0, kind: endOfBlock, value: 0) }
                else if s < 286 { e = entry(length: len, extra: lengthExtra[s - 257], kind: base, value: lengthBase[s - 257]) }
                else { e = entry(length: len, extra: 0, kind: invalid, value: 0) }
            case .distance:
                e = s < 30 ? entry(length: len, extra: distanceExtra[s], kind: base, value: distanceBase[s])
                    : entry(length: len, extra: 0, kind: invalid, value: 0)
            }
            if len <= rootBits {
                var k = reversed
                while k < rootSize { table[k] = e; k += 1 << len }
            } else {
                let root = reversed & (rootSize - 1)
                if secondStart[root] < 0 {
                    secondStart[root] = used
                    for k in 0..<subSize { table[used + k] = entry(length: 0, extra: 0, kind: invalid, value: 0) }
                    table[root] = entry(length: rootBits, extra: subBits, kind: second, value: used)
                    used += subSize
                }
                var k = reversed >> rootBits
                while k < subSize { table[secondStart[root] + k] = e; k += 1 << (len - rootBits) }
            }
        }
        return true
    }

    /// Entries a table may need: the root and one second table per root entry at most.
    static func tableCapacity(rootBits: Int) -> Int { (1 << rootBits) + (1 << rootBits) * (1 << (15 - rootBits)) }

    struct Decoder {
        var inPos: UnsafePointer<UInt8>
        let start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>
        let out: UnsafeMutablePointer<UInt8>
        let outCount: Int
        var outPos = 0
        var bits: UInt64 = 0
        var bitCount = 0

        init(input: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>, outCount: Int) {
            inPos = input
            start = input
            self.end = end
            self.out = out
            self.outCount = outCount
        }

        /// At least 56 bits in the buffer: 8 bytes loaded, as many kept as fit. Past the stream's end the padding's
        /// zeros come in; false once more than 8 bytes past it would be needed (a truncated stream).
        @inline(__always) mutating func refill() -> Bool {
            guard inPos <= end + 8 else { return false }
            let word = UInt64(littleEndian: UnsafeRawPointer(inPos).loadUnaligned(as: UInt64.self))
            bits |= word << UInt64(bitCount)
            inPos += (63 - bitCount) >> 3
            bitCount |= 56
            return true
        }

        @inline(__always) mutating func take(_ n: Int) -> Int {
            let v = Int(truncatingIfNeeded: bits & ((1 << UInt64(n)) &- 1))
            bits >>= UInt64(n)
            bitCount -= n
            return v
        }

        /// Decodes blocks to the last; the bytes of input consumed (to the byte after the last block), or nil.
        mutating func run() -> Int? {
            let lit = UnsafeMutablePointer<Entry>.allocate(capacity: tableCapacity(rootBits: litlenRootBits))
            let dist = UnsafeMutablePointer<Entry>.allocate(capacity: tableCapacity(rootBits: distanceRootBits))
            let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: 320)
            defer { lit.deallocate(); dist.deallocate(); lengths.deallocate() }
            while true {
                guard refill() else { return nil }
                let final = take(1), type = take(2)
                switch type {
                case 0:
                    // stored: to the byte boundary, then LEN and its complement
                    _ = take(bitCount & 7)
                    let position = consumed
                    inPos = start + position
                    bits = 0
                    bitCount = 0
                    guard position + 4 <= end - start else { return nil }
                    let length = Int(inPos[0]) | Int(inPos[1]) << 8, check = Int(inPos[2]) | Int(inPos[3]) << 8
                    guard length == ~check & 0xFFFF, position + 4 + length <= end - start,
                          outPos + length <= outCount else { return nil }
                    (out + outPos).update(from: inPos + 4, count: length)
                    outPos += length
                    inPos += 4 + length
                case 1:
                    for s in 0..<288 { lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8 }
                    for s in 288..<320 { lengths[s] = 5 }
                    guard build(lengths, 288, .literalLength, rootBits: litlenRootBits, into: lit),
                          build(lengths + 288, 32, .distance, rootBits: distanceRootBits, into: dist),  // 30, 31: invalid
                          symbols(lit, dist) else { return nil }
                case 2:
                    guard readDynamicTables(lengths, lit, dist), symbols(lit, dist) else { return nil }
                default:
                    return nil
                }
                if final == 1 { break }
            }
            _ = take(bitCount & 7)
            let used = consumed
            return used <= end - start ? used : nil
        }

        /// Input bytes consumed so far (the buffer's unread whole bytes given back).
        var consumed: Int { inPos - start - bitCount >> 3 }

        mutating func readDynamicTables(_ lengths: UnsafeMutablePointer<UInt8>, _ lit: UnsafeMutablePointer<Entry>,
                                        _ dist: UnsafeMutablePointer<Entry>) -> Bool {
            guard refill() else { return false }
            let hlit = take(5) + 257, hdist = take(5) + 1, hclen = take(4) + 4
            guard hlit <= 286, hdist <= 30 else { return false }
            var codeLengthLengths = [UInt8](repeating: 0, count: 19)
            for k in 0..<hclen {
                if bitCount < 3 { guard refill() else { return false } }
                codeLengthLengths[codeLengthOrder[k]] = UInt8(take(3))
            }
            let clTable = UnsafeMutablePointer<Entry>.allocate(capacity: 1 << 7)
            defer { clTable.deallocate() }
            guard codeLengthLengths.withUnsafeBufferPointer({ build($0.baseAddress!, 19, .codeLengths, rootBits: 7, into: clTable) })
            else { return false }
            var i = 0
            while i < hlit + hdist {
                if bitCount < 16 { guard refill() else { return false } }
                let e = clTable[Int(truncatingIfNeeded: bits & 127)]
                guard (e >> 10) & 7 == literal else { return false }
                _ = take(Int(e & 31))
                let symbol = Int(e >> 16)
                if symbol < 16 {
                    lengths[i] = UInt8(symbol)
                    i += 1
                    continue
                }
                let (repeats, value): (Int, UInt8)
                switch symbol {
                case 16:
                    guard i > 0 else { return false }
                    (repeats, value) = (3 + take(2), lengths[i - 1])
                case 17: (repeats, value) = (3 + take(3), 0)
                default: (repeats, value) = (11 + take(7), 0)
                }
                guard i + repeats <= hlit + hdist else { return false }
                for k in 0..<repeats { lengths[i + k] = value }
                i += repeats
            }
            guard lengths[256] != 0 else { return false }  // zlib: "invalid code -- missing end-of-block"
            return build(lengths, hlit, .literalLength, rootBits: litlenRootBits, into: lit)
                && build(lengths + hlit, hdist, .distance, rootBits: distanceRootBits, into: dist)
        }

        /// One block's symbols, to its end-of-block code. The decoder's state is held in locals through the loop
        /// (as stored properties it went to memory on every byte written: the compiler cannot tell the output
        /// from the decoder).
        mutating func symbols(_ lit: UnsafePointer<Entry>, _ dist: UnsafePointer<Entry>) -> Bool {
            var bits = self.bits, bitCount = self.bitCount, inPos = self.inPos, outPos = self.outPos
            let out = self.out, outCount = self.outCount, limit = self.end + 8
            defer { self.bits = bits; self.bitCount = bitCount; self.inPos = inPos; self.outPos = outPos }
            let litMask = UInt64(1 << litlenRootBits - 1), distMask = UInt64(1 << distanceRootBits - 1)
            @inline(__always) func take(_ n: UInt32) -> Int {
                let v = Int(truncatingIfNeeded: bits & ((1 << UInt64(n)) &- 1))
                bits >>= UInt64(n)
                bitCount &-= Int(n)
                return v
            }
            while true {
                // 48 bits cover a length code and its extra bits (20) and a distance code and its (28)
                if bitCount < 48 {
                    guard inPos <= limit else { return false }
                    bits |= UInt64(littleEndian: UnsafeRawPointer(inPos).loadUnaligned(as: UInt64.self)) << UInt64(bitCount)
                    inPos += (63 &- bitCount) >> 3
                    bitCount |= 56
                }
                var e = lit[Int(truncatingIfNeeded: bits & litMask)]
                if (e >> 10) & 7 == second {
                    e = lit[Int(e >> 16) &+ Int(truncatingIfNeeded: (bits >> UInt64(litlenRootBits)) & ((1 << UInt64((e >> 5) & 31)) &- 1))]
                }
                let kind = (e >> 10) & 7
                if kind == literal {
                    guard outPos < outCount else { return false }
                    _ = take(e & 31)
                    out[outPos] = UInt8(truncatingIfNeeded: e >> 16)
                    outPos &+= 1
                    continue
                }
                if kind == endOfBlock {
                    _ = take(e & 31)
                    return true
                }
                guard kind == base else { return false }
                _ = take(e & 31)
                let length = Int(e >> 16) &+ take((e >> 5) & 31)
                var d = dist[Int(truncatingIfNeeded: bits & distMask)]
                if (d >> 10) & 7 == second {
                    d = dist[Int(d >> 16) &+ Int(truncatingIfNeeded: (bits >> UInt64(distanceRootBits)) & ((1 << UInt64((d >> 5) & 31)) &- 1))]
                }
                guard (d >> 10) & 7 == base else { return false }
                _ = take(d & 31)
                let distance = Int(d >> 16) &+ take((d >> 5) & 31)
                guard distance <= outPos, length <= outCount &- outPos else { return false }
                // the match: 8 bytes at a time when it does not overlap itself within 8 (the last store may run up
                // to 7 bytes past, into the output's slack or bytes yet to be written)
                var dst = out + outPos, src = UnsafePointer(dst - distance)
                let stop = dst + length
                if distance >= 8 {
                    repeat {
                        UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: UInt64.self),
                                                                as: UInt64.self)
                        dst += 8
                        src += 8
                    } while dst < stop
                } else if distance == 1 {
                    dst.update(repeating: src.pointee, count: length)
                } else {
                    repeat {
                        dst.pointee = src.pointee
                        dst += 1
                        src += 1
                    } while dst < stop
                }
                outPos &+= length
            }
        }
    }

    // MARK: - Unfiltering rows

    /// Unfilters `count` bytes of `row` into `out` (`above`: the previous row, unfiltered; zeros for the first).
    /// False for a filter type over 4. `out` must not overlap `above`; it may start before `row` and run into it
    /// (the reader unfilters in place, each row's pixels a few bytes before its filtered bytes): every byte is
    /// read before a store reaches it.
    public static func unfilter(_ filter: UInt8, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                bpp: Int, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        switch filter {
        case 0: out.update(from: row, count: count)
        case 2: for i in 0..<count { out[i] = row[i] &+ above[i] }
        case 1: pixels(Sub.self, row: row, above: above, count: count, bpp: bpp, into: out)
        case 3: pixels(Average.self, row: row, above: above, count: count, bpp: bpp, into: out)
        case 4: pixels(Paeth.self, row: row, above: above, count: count, bpp: bpp, into: out)
        default: return false
        }
        return true
    }

    /// Two consecutive rows at once (`out` and the row after it, `count` bytes apart) when both filters predict
    /// from the left (1, 3, 4) and a pixel is RGB or RGBA; false, with nothing written, otherwise (the caller then
    /// unfilters them one by one). Why: a row is one chain of dependent steps, pixel after pixel, so its time is
    /// the chain's latency; the second row follows the first a pixel at a time, its pixel above taken from the
    /// first's register, and the two chains overlap.
    ///
    /// ```swift
    /// if !PNGUnfilter.unfilterPair(f0, f1, rows: r0, r1, above: prev, count: n, bpp: 3, into: out) { /* one by one */ }
    /// ```
    public static func unfilterPair(_ filter0: UInt8, _ filter1: UInt8, rows row0: UnsafePointer<UInt8>,
                                    _ row1: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int, bpp: Int,
                                    into out: UnsafeMutablePointer<UInt8>) -> Bool {
        guard bpp >= 3, count >= 2 * bpp else { return false }
        @inline(__always) func second<P: LeftPrediction>(_: P.Type) -> Bool {
            switch filter1 {
            case 1: pair(P.self, Sub.self, row0, row1, above, count, bpp, out)
            case 3: pair(P.self, Average.self, row0, row1, above, count, bpp, out)
            case 4: pair(P.self, Paeth.self, row0, row1, above, count, bpp, out)
            default: return false
            }
            return true
        }
        switch filter0 {
        case 1: return second(Sub.self)
        case 3: return second(Average.self)
        case 4: return second(Paeth.self)
        default: return false
        }
    }

    static func pair<P: LeftPrediction, Q: LeftPrediction>(_: P.Type, _: Q.Type, _ row0: UnsafePointer<UInt8>,
                                                           _ row1: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>,
                                                           _ count: Int, _ bpp: Int, _ out0: UnsafeMutablePointer<UInt8>) {
        let out1 = out0 + count
        for i in 0..<bpp {  // the first pixels, with no left neighbour: the second row's above is the first's
            out0[i] = row0[i] &+ UInt8(truncatingIfNeeded: predicted(P.filter, 0, Int32(above[i]), 0))
            out1[i] = row1[i] &+ UInt8(truncatingIfNeeded: predicted(Q.filter, 0, Int32(out0[i]), 0))
        }
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> Lanes {
            Lanes(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
        }
        @inline(__always) func store(_ v: Lanes, _ p: UnsafeMutablePointer<UInt8>) {
            UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
        }
        var a0 = load(out0), a1 = load(out1), i = bpp  // lane 4 of an RGB pixel: a neighbour's byte, never stored last
        while i + 4 <= count {
            let x0 = (load(row0 + i) &+ P.predict(a0, load(above + i), load(above + i - bpp))) & 0xFF
            let x1 = (load(row1 + i) &+ Q.predict(a1, x0, a0)) & 0xFF
            store(x0, out0 + i)
            store(x1, out1 + i)
            a0 = x0
            a1 = x1
            i += bpp
        }
        @inline(__always) func tail(_ filter: Int, _ row: UnsafePointer<UInt8>, _ up: UnsafePointer<UInt8>,
                                    _ dst: UnsafeMutablePointer<UInt8>) {
            for k in i..<count {  // the last pixel of an RGB row
                let a = Int32(dst[k - bpp]), b = Int32(up[k]), c = Int32(up[k - bpp])
                dst[k] = row[k] &+ UInt8(truncatingIfNeeded: predicted(filter, a, b, c))
            }
        }
        tail(P.filter, row0, above, out0)
        tail(Q.filter, row1, out0, out1)
    }

    typealias Lanes = SIMD4<Int16>

    /// A filter that predicts from the left: its number and its prediction on a pixel's lanes, as a type, so each
    /// loop below is specialised into straight-line code (a closure was called once per pixel).
    protocol LeftPrediction {
        static var filter: Int { get }
        static func predict(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes
    }
    enum Sub: LeftPrediction {
        static var filter: Int { 1 }
        @inline(__always) static func predict(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes { a }
    }
    enum Average: LeftPrediction {
        static var filter: Int { 3 }
        @inline(__always) static func predict(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes { (a &+ b) &>> 1 }
    }
    enum Paeth: LeftPrediction {
        static var filter: Int { 4 }
        @inline(__always) static func predict(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes {
            // |p − a|, |p − b|, |p − c| for p = a + b − c, as |b − c|, |a − c|, |a + b − 2c|
            let pa = magnitude(b &- c), pb = magnitude(a &- c), pc = magnitude(a &+ b &- c &- c)
            return c.replacing(with: b, where: pb .<= pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
        }
        @inline(__always) static func magnitude(_ v: Lanes) -> Lanes { pointwiseMax(v, 0 &- v) }
    }

    /// Filters 1, 3 and 4: the first pixel with no left neighbour, then RGB and RGBA pixels four bytes at a time
    /// (an RGB pixel's store runs one byte into the next pixel, which overwrites it; the last pixel, which has no
    /// next, goes with the scalar tail), gray and gray + alpha bytes one at a time.
    static func pixels<P: LeftPrediction>(_: P.Type, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                          bpp: Int, into out: UnsafeMutablePointer<UInt8>) {
        let head = min(bpp, count)
        for i in 0..<head {
            out[i] = row[i] &+ UInt8(truncatingIfNeeded: predicted(P.filter, 0, Int32(above[i]), 0))
        }
        var i = head
        if bpp >= 3 {
            @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> Lanes {
                Lanes(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
            }
            // the pixel to the left stays in a register from one pixel to the next
            var a = load(out + i - bpp)
            while i + 4 <= count {
                let x = load(row + i) &+ P.predict(a, load(above + i), load(above + i - bpp))
                a = x & 0xFF
                UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: x), as: SIMD4<UInt8>.self)
                i += bpp
            }
        }
        while i < count {
            let a = Int32(out[i - bpp]), b = Int32(above[i]), c = Int32(above[i - bpp])
            out[i] = row[i] &+ UInt8(truncatingIfNeeded: predicted(P.filter, a, b, c))
            i += 1
        }
    }

    /// The plain form: one byte at a time, the prediction from ``predicted(_:_:_:_:)``.
    public static func reference(_ filter: UInt8, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                                 bpp: Int, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        guard filter <= 4 else { return false }
        for i in 0..<count {
            let a = i >= bpp ? Int32(out[i - bpp]) : 0, b = Int32(above[i]), c = i >= bpp ? Int32(above[i - bpp]) : 0
            out[i] = row[i] &+ UInt8(truncatingIfNeeded: predicted(Int(filter), a, b, c))
        }
        return true
    }

    /// The byte filter `f` (0 none, 1 sub, 2 up, 3 average, 4 Paeth) predicts at `i` from the pixel to the left
    /// (`a`), above (`b`) and above-left (`c`). 32-bit lanes and wrapping arithmetic, so the loops calling it
    /// vectorise (the Paeth distances written as |b − c|, |a − c|, |a + b − 2c|). The PNG writer's filters use it too.
    @inlinable @inline(__always)
    public static func predicted(_ f: Int, _ a: Int32, _ b: Int32, _ c: Int32) -> Int32 {
        switch f {
        case 0: return 0
        case 1: return a
        case 2: return b
        case 3: return (a &+ b) >> 1
        default:
            let pa = abs(b &- c), pb = abs(a &- c), pc = abs(a &+ b &- 2 &* c)
            return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        }
    }
}
