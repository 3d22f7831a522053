import Foundation

/// An RGB colour space given by its primaries, white point and transfer function — what a HEIF or AVIF `nclx`
/// colour description (ITU-T H.273's code points) says — and the ICC profile that says the same, so outputs
/// carry it as they carry an embedded profile.
///
/// ```swift
/// let p3 = ColourSpace(primaries: 12, transfer: 13)          // Display P3: P3 primaries, D65, sRGB's curve
/// let icc = p3?.iccProfile                                   // an ICC v4 matrix/TRC display profile
/// ColourSpace(primaries: 1, transfer: 13)?.isSRGB            // true: no profile needed
/// ```
///
/// The profile is ICC.1:2022 version 4.3, the form of Apple's Display P3 profile: a display class, XYZ PCS, the
/// colorants adapted to D50 by Bradford's transform (with the `chad` tag that records it), and one parametric
/// curve for the three channels.
public struct ColourSpace: Equatable, Sendable {
    /// CIE 1931 xy chromaticities.
    public struct Chromaticity: Equatable, Sendable {
        public var x: Double, y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
        /// XYZ with Y = 1.
        var xyz: [Double] { [x / y, 1, (1 - x - y) / y] }
    }

    /// The decoding curve (encoded value → linear light), as ICC's parametric curve of type 3:
    /// Y = (aX + b)^g for X ≥ d, else cX.
    public enum Transfer: Equatable, Sendable {
        /// IEC 61966-2-1 (H.273 13; also assumed when unspecified).
        case sRGB
        /// BT.709's (1, 6, 14, 15): the inverse of its camera curve, as browsers take it.
        case bt709
        /// A pure power (H.273 4: 2.2, 5: 2.8).
        case gamma(Double)
        /// Linear light (H.273 8).
        case linear

        /// g, a, b, c, d.
        var parameters: [Double] {
            switch self {
            case .sRGB: return [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            case .bt709:
                let alpha = 1.09929682680944, beta = 0.018053968510807
                return [1 / 0.45, 1 / alpha, (alpha - 1) / alpha, 1 / 4.5, 4.5 * beta]
            case .gamma(let g): return [g, 1, 0, 0, 0]
            case .linear: return [1, 1, 0, 0, 0]
            }
        }
    }

    public var red: Chromaticity, green: Chromaticity, blue: Chromaticity, white: Chromaticity
    public var transfer: Transfer

    public init(red: Chromaticity, green: Chromaticity, blue: Chromaticity, white: Chromaticity, transfer: Transfer) {
        self.red = red; self.green = green; self.blue = blue; self.white = white; self.transfer = transfer
    }

    static let d65 = Chromaticity(0.3127, 0.3290)

    /// The colour space of H.273's colour primaries and transfer characteristics code points; nil for those an
    /// ICC matrix/TRC profile cannot say (PQ and HLG's high dynamic range, and codes this does not know).
    /// Unspecified (2) primaries are BT.709's and an unspecified transfer sRGB's, as browsers assume.
    public init?(primaries: Int, transfer: Int) {
        switch primaries {
        case 1, 2: (red, green, blue, white) = (Chromaticity(0.64, 0.33), Chromaticity(0.30, 0.60), Chromaticity(0.15, 0.06), Self.d65)
        case 5: (red, green, blue, white) = (Chromaticity(0.64, 0.33), Chromaticity(0.29, 0.60), Chromaticity(0.15, 0.06), Self.d65)
        case 6, 7: (red, green, blue, white) = (Chromaticity(0.630, 0.340), Chromaticity(0.310, 0.595), Chromaticity(0.155, 0.070), Self.d65)
        case 9: (red, green, blue, white) = (Chromaticity(0.708, 0.292), Chromaticity(0.170, 0.797), Chromaticity(0.131, 0.046), Self.d65)
        case 11: (red, green, blue, white) = (Chromaticity(0.680, 0.320), Chromaticity(0.265, 0.690), Chromaticity(0.150, 0.060), Chromaticity(0.314, 0.351))
        case 12: (red, green, blue, white) = (Chromaticity(0.680, 0.320), Chromaticity(0.265, 0.690), Chromaticity(0.150, 0.060), Self.d65)
        default: return nil
        }
        switch transfer {
        case 2, 13: self.transfer = .sRGB
        case 1, 6, 14, 15: self.transfer = .bt709
        case 4: self.transfer = .gamma(2.2)
        case 5: self.transfer = .gamma(2.8)
        case 8: self.transfer = .linear
        default: return nil
        }
    }

    /// sRGB itself: an image in it needs no profile (every viewer assumes it).
    public var isSRGB: Bool {
        self == ColourSpace(primaries: 1, transfer: 13)
    }

    // MARK: The ICC profile

    /// The ICC profile's D50, as its PCS illuminant is written.
    static let d50 = [0.9642, 1.0, 0.8249]
    static let bradford = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]

    /// The matrix from linear RGB to XYZ under this space's white (its columns the primaries, white → Y = 1).
    var rgbToXYZ: [[Double]] {
        let p = [red.xyz, green.xyz, blue.xyz]   // columns
        let primaries = (0..<3).map { r in (0..<3).map { c in p[c][r] } }
        let s = Self.solve(primaries, white.xyz)
        return primaries.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    /// Bradford's adaptation from this space's white to D50.
    var adaptationToD50: [[Double]] {
        let b = Self.bradford
        let source = Self.multiply(b, white.xyz), target = Self.multiply(b, Self.d50)
        let scaled = (0..<3).map { r in (0..<3).map { c in b[r][c] * target[r] / source[r] } }
        return Self.multiply(Self.inverse(b), scaled)
    }

    /// The red, green and blue colorants in the PCS (D50): the `rXYZ`, `gXYZ` and `bXYZ` tags.
    public var colorantsD50: [[Double]] {
        let m = Self.multiply(adaptationToD50, rgbToXYZ)
        return (0..<3).map { c in (0..<3).map { r in m[r][c] } }
    }

    /// The ICC v4 display profile of this space.
    public var iccProfile: [UInt8] {
        var tags: [(signature: String, data: [UInt8])] = [
            ("desc", Self.text(description)),
            ("cprt", Self.text("No copyright, use freely")),
            ("wtpt", Self.xyz(Self.d50)),
            ("chad", Array("sf32".utf8) + [0, 0, 0, 0] + adaptationToD50.joined().flatMap(Self.s15Fixed16)),
        ]
        let colorants = colorantsD50
        for (i, name) in ["rXYZ", "gXYZ", "bXYZ"].enumerated() { tags.append((name, Self.xyz(colorants[i]))) }
        let curve = Array("para".utf8) + [0, 0, 0, 0] + Self.uint16(3) + [0, 0] + transfer.parameters.flatMap(Self.s15Fixed16)
        // the three channels share one curve: one copy of its data, three table entries
        let shared = ["rTRC", "gTRC", "bTRC"]
        var data: [UInt8] = [], entries: [(String, Int, Int)] = []
        let tableEnd = 128 + 4 + 12 * (tags.count + shared.count)
        for (signature, bytes) in tags + [("rTRC", curve)] {
            while data.count % 4 != 0 { data.append(0) }
            entries.append((signature, tableEnd + data.count, bytes.count))
            data += bytes
        }
        let curveEntry = entries.removeLast()
        for name in shared { entries.append((name, curveEntry.1, curveEntry.2)) }
        while data.count % 4 != 0 { data.append(0) }
        let size = tableEnd + data.count
        var header = Self.uint32(UInt32(size)) + [0, 0, 0, 0] + [4, 0x30, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [2026, 1, 1, 0, 0, 0].flatMap { Self.uint16(UInt16($0)) }   // a fixed date: the same bytes every time
        header += Array("acsp".utf8) + [UInt8](repeating: 0, count: 24)     // platform, flags, device: none
        header += Self.uint32(0)                                            // perceptual intent
        header += Self.d50.flatMap(Self.s15Fixed16) + [UInt8](repeating: 0, count: 4 + 16 + 28)  // creator, ID, reserved
        var table = Self.uint32(UInt32(entries.count))
        for (signature, offset, length) in entries {
            table += Array(signature.utf8) + Self.uint32(UInt32(offset)) + Self.uint32(UInt32(length))
        }
        return header + table + data
    }

    /// The profile's description: the named spaces by name, any other by its numbers.
    var description: String {
        if self == ColourSpace(primaries: 12, transfer: 13) { return "Display P3 (from HEIF nclx)" }
        if self == ColourSpace(primaries: 9, transfer: 1) { return "BT.2020 (from HEIF nclx)" }
        let xy = [red, green, blue, white].map { String(format: "%.4f,%.4f", $0.x, $0.y) }.joined(separator: " ")
        return "RGB \(xy) (from HEIF nclx)"
    }

    // MARK: Encoding and arithmetic

    static func uint32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func uint16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func s15Fixed16(_ v: Double) -> [UInt8] { uint32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
    static func xyz(_ v: [Double]) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + v.flatMap(s15Fixed16) }

    /// A `mluc` tag of one English record.
    static func text(_ s: String) -> [UInt8] {
        let utf16 = s.utf16.flatMap { uint16($0) }
        return Array("mluc".utf8) + [0, 0, 0, 0] + uint32(1) + uint32(12) + Array("enUS".utf8)
            + uint32(UInt32(utf16.count)) + uint32(28) + utf16
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { r in (0..<3).map { c in (0..<3).reduce(0) { $0 + a[r][$1] * b[$1][c] } } }
    }

    static func multiply(_ a: [[Double]], _ v: [Double]) -> [Double] {
        (0..<3).map { r in (0..<3).reduce(0) { $0 + a[r][$1] * v[$1] } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        return (0..<3).map { r in
            (0..<3).map { c in
                // cofactor of (c, r), transposed
                let rows = [0, 1, 2].filter { $0 != c }, cols = [0, 1, 2].filter { $0 != r }
                let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
                return ((r + c) % 2 == 0 ? 1 : -1) * minor / det
            }
        }
    }

    /// x with m x = v.
    static func solve(_ m: [[Double]], _ v: [Double]) -> [Double] { multiply(inverse(m), v) }
}
