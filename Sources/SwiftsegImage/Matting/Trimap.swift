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

    public init(width: Int, height: Int, labels: [UInt8]) {
        precondition(labels.count == width * height)
        self.width = width
        self.height = height
        self.labels = labels
    }

    /// rembg's trimap of an 8-bit gray mask (thresholds 0…255, strict comparisons as rembg's).
    public init(mask: Image, foregroundThreshold: Int = 240, backgroundThreshold: Int = 10, erodeSize: Int = 10) {
        precondition(mask.channels == 1 && erodeSize >= 0)
        let w = mask.width, h = mask.height
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
                    for x in max(inner.upperBound, min(w, inner.lowerBound))..<w {
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
