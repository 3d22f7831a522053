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
    /// falses), or the 3×3 cross for size 0. `outside` is the value beyond the border.
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
        /// out[i] = all of line[i − before … i + after], over a line of `n` values read through `get`.
        func pass(_ n: Int, _ get: (Int) -> Bool, _ set: (Int, Bool) -> Void) {
            var falses = 0
            func value(_ i: Int) -> Bool { i < 0 || i >= n ? outside : get(i) }
            for i in -before...after where !value(i) { falses += 1 }
            for i in 0..<n {
                set(i, falses == 0)
                if !value(i - before) { falses -= 1 }
                if !value(i + after + 1) { falses += 1 }
            }
        }
        var rows = input, out = input
        for y in 0..<h { pass(w, { input[y * w + $0] }, { rows[y * w + $0] = $1 }) }
        for x in 0..<w { pass(h, { rows[$0 * w + x] }, { out[$0 * w + x] = $1 }) }
        return out
    }
}
