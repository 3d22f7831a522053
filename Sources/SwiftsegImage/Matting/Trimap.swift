/// The trimap rembg builds from a soft mask before alpha matting: sure foreground where the mask is above
/// `foregroundThreshold`, sure background where it is below `backgroundThreshold`, both eroded by a square of
/// `erodeSize` (scipy's `binary_erosion`: offsets −⌊k/2⌋ … k − 1 − ⌊k/2⌋; outside the image counts as not
/// foreground and as background; size 0 erodes by the 3×3 cross, as scipy does with no structure), and
/// everything else unknown.
///
/// ```swift
/// let trimap = Trimap(mask: mask)                     // rembg's defaults: 240, 10, 10
/// trimap.labels[0]                                    // 0 background, 128 unknown, 255 foreground
/// ```
public struct Trimap: Sendable, Equatable {
    public static let background: UInt8 = 0, unknown: UInt8 = 128, foreground: UInt8 = 255

    public let width: Int
    public let height: Int
    /// One label per pixel: ``background``, ``unknown`` or ``foreground``.
    public let labels: [UInt8]
    /// The erode sizes whose trimap comes from the windowed minimum and maximum (rembg's default, 10, among them).
    static let windowedSizes = 1...32

    public init(width: Int, height: Int, labels: [UInt8]) {
        precondition(labels.count == width * height)
        self.width = width
        self.height = height
        self.labels = labels
    }

    /// rembg's trimap of an 8-bit gray mask (thresholds 0…255, strict comparisons as rembg's). A square's erosion
    /// of "mask > t" is "the square's minimum > t", and of "mask < t" with the outside as background "the square's
    /// maximum < t" with the outside as 0, so both come from one windowed minimum and maximum of the mask's bytes,
    /// 16 pixels at a time (``erode(_:width:height:size:outside:)`` is the plain reference; a test keeps them equal).
    /// That costs a load per pixel of the square's side, so squares wider than ``windowedSizes`` (and size 0, the
    /// cross) take the erosions, whose sliding counts cost the same for any size.
    public init(mask: Image, foregroundThreshold: Int = 240, backgroundThreshold: Int = 10, erodeSize: Int = 10) {
        precondition(mask.channels == 1 && erodeSize >= 0)
        let w = mask.width, h = mask.height
        guard Self.windowedSizes.contains(erodeSize) else {
            let foreground = Self.erode(mask.pixels.map { Int($0) > foregroundThreshold }, width: w, height: h,
                                        size: erodeSize, outside: false)
            let background = Self.erode(mask.pixels.map { Int($0) < backgroundThreshold }, width: w, height: h,
                                        size: erodeSize, outside: true)
            var labels = [UInt8](repeating: Self.unknown, count: w * h)
            for i in 0..<(w * h) {
                if foreground[i] { labels[i] = Self.foreground }
                if background[i] { labels[i] = Self.background }  // rembg assigns background last
            }
            self.init(width: w, height: h, labels: labels)
            return
        }
        self.init(width: w, height: h, labels: Self.labels(mask.pixels, width: w, height: h, size: erodeSize,
                                                           foregroundThreshold: foregroundThreshold,
                                                           backgroundThreshold: backgroundThreshold))
    }

    /// The labels from the minimum and maximum of the mask's `bytes` over each pixel's square of `size` (offsets
    /// −⌊size/2⌋ … size − 1 − ⌊size/2⌋, scipy's), 0 outside the image: rows first, then columns, 16 pixels at a time.
    private static func labels(_ bytes: [UInt8], width w: Int, height h: Int, size: Int,
                               foregroundThreshold: Int, backgroundThreshold: Int) -> [UInt8] {
        typealias V = SIMD16<UInt8>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<UInt8>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }
        // as selects, which compile to one instruction each (the standard library's lane-wise min was a call)
        @inline(__always) func lower(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .< a) }
        @inline(__always) func higher(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .> a) }
        let before = size / 2, after = size - 1 - size / 2
        let vectors = (w + 15) / 16, stride = vectors * 16
        var rowMinimum = [UInt8](repeating: 0, count: stride * h), rowMaximum = rowMinimum
        var labels = [UInt8](repeating: 0, count: w * h)
        bytes.withUnsafeBufferPointer { bytes in
            rowMinimum.withUnsafeMutableBufferPointer { rowMinimum in
                rowMaximum.withUnsafeMutableBufferPointer { rowMaximum in
                    let rowMinimum = rowMinimum.baseAddress!, rowMaximum = rowMaximum.baseAddress!
                    // rows: each in a zero-padded line (`before` zeros, the row, then zeros past a whole vector)
                    let lineCount = before + stride + after + 16
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: lineCount) { line in
                        let line = line.baseAddress!
                        line.initialize(repeating: 0, count: lineCount)
                        for y in 0..<h {
                            (line + before).update(from: bytes.baseAddress! + y * w, count: w)
                            for v in 0..<vectors {
                                let start = line + 16 * v
                                var low = load(start), high = low
                                for k in 1..<size { let x = load(start + k); low = lower(low, x); high = higher(high, x) }
                                store(low, rowMinimum + y * stride + 16 * v)
                                store(high, rowMaximum + y * stride + 16 * v)
                            }
                        }
                    }
                    // columns: rows y − before … y + after (a square reaching past the top or bottom holds a 0), then
                    // the labels: foreground where the minimum > the threshold, background (last, as rembg) where
                    // the maximum < its threshold
                    let foreground = V(repeating: Self.foreground), background = V(repeating: Self.background)
                    let unknown = V(repeating: Self.unknown)
                    let ft = V(repeating: UInt8(clamping: foregroundThreshold)), bt = V(repeating: UInt8(clamping: backgroundThreshold))
                    let anyForeground = foregroundThreshold < 255, anyBackground = backgroundThreshold > 0
                    labels.withUnsafeMutableBufferPointer { labels in
                        for y in 0..<h {
                            let first = y - before, last = y + after
                            let out = labels.baseAddress! + y * w
                            for v in 0..<vectors {
                                var low = V(repeating: 0), high = V(repeating: 0)
                                if first >= 0 && last < h {
                                    low = V(repeating: 255)
                                    for row in first...last { low = lower(low, load(rowMinimum + row * stride + 16 * v)) }
                                }
                                for row in max(0, first)...min(h - 1, last) {
                                    high = higher(high, load(rowMaximum + row * stride + 16 * v))
                                }
                                var label = unknown
                                if anyForeground { label.replace(with: foreground, where: low .> ft) }
                                if anyBackground { label.replace(with: background, where: high .< bt) }
                                if 16 * v + 16 <= w {
                                    store(label, out + 16 * v)
                                } else {
                                    for lane in 0..<(w - 16 * v) { out[16 * v + lane] = label[lane] }
                                }
                            }
                        }
                    }
                }
            }
        }
        return labels
    }

    public var hasForeground: Bool { labels.contains(Self.foreground) }
    public var hasBackground: Bool { labels.contains(Self.background) }
    public var unknownCount: Int { labels.reduce(0) { $0 + ($1 == Self.unknown ? 1 : 0) } }

    /// Binary erosion: a square of `size` (separable: rows, then columns, each a sliding window with a count of
    /// falses; the columns' counts kept for a whole row at once, so both passes run along rows), or the 3×3
    /// cross for size 0. `outside` is the value beyond the border.
    public static func erode(_ input: [Bool], width w: Int, height h: Int, size: Int, outside: Bool) -> [Bool] {
        if size == 0 {
            func at(_ x: Int, _ y: Int) -> Bool { x < 0 || y < 0 || x >= w || y >= h ? outside : input[y * w + x] }
            var out = input
            for y in 0..<h { for x in 0..<w {
                out[y * w + x] = at(x, y) && at(x - 1, y) && at(x + 1, y) && at(x, y - 1) && at(x, y + 1)
            } }
            return out
        }
        let before = size / 2, after = size - 1 - size / 2
        let outsideFalse: Int32 = outside ? 0 : 1
        var rows = [Bool](repeating: false, count: w * h), out = rows
        var falses = [Int32](repeating: 0, count: w)
        // Bools as their bytes (0, 1): counts by arithmetic, loops without branches (vectorised)
        input.withUnsafeBytes { input in
            rows.withUnsafeMutableBytes { rows in
                // rows: out[x] = no false in line[x − before … x + after]
                let input = input.bindMemory(to: UInt8.self).baseAddress!, rows = rows.bindMemory(to: UInt8.self).baseAddress!
                for y in 0..<h {
                    let line = input + y * w, result = rows + y * w
                    @inline(__always) func isFalse(_ x: Int) -> Int32 { x < 0 || x >= w ? outsideFalse : 1 - Int32(line[x]) }
                    var count: Int32 = 0
                    for x in -before...after { count += isFalse(x) }
                    // the window wholly inside the row from x = before to w − after − 2
                    let inner = before..<max(before, w - after - 1)
                    for x in 0..<min(w, inner.lowerBound) {
                        result[x] = count == 0 ? 1 : 0
                        count += isFalse(x + after + 1) - isFalse(x - before)
                    }
                    for x in inner where x < w {
                        result[x] = count == 0 ? 1 : 0
                        count += Int32(line[x - before]) - Int32(line[x + after + 1])
                    }
                    for x in min(w, inner.upperBound)..<w {   // none when the square is wider than the row
                        result[x] = count == 0 ? 1 : 0
                        count += isFalse(x + after + 1) - isFalse(x - before)
                    }
                }
            }
        }
        rows.withUnsafeBytes { rows in
            out.withUnsafeMutableBytes { out in
                falses.withUnsafeMutableBufferPointer { falses in
                    // columns: every column's count of falses in rows y − before … y + after, moved down a row at a time
                    let rows = rows.bindMemory(to: UInt8.self).baseAddress!, out = out.bindMemory(to: UInt8.self).baseAddress!
                    let falses = falses.baseAddress!
                    func add(_ y: Int, _ sign: Int32) {
                        if y < 0 || y >= h {
                            for x in 0..<w { falses[x] += sign * outsideFalse }
                        } else {
                            let line = rows + y * w
                            for x in 0..<w { falses[x] += sign * (1 - Int32(line[x])) }
                        }
                    }
                    for y in -before...after { add(y, 1) }
                    for y in 0..<h {
                        let result = out + y * w
                        for x in 0..<w { result[x] = falses[x] == 0 ? 1 : 0 }
                        add(y + after + 1, 1)
                        add(y - before, -1)
                    }
                }
            }
        }
        return out
    }
}
