/// Closed-form alpha matting (Levin, Lischinski, Weiss 2008), as pymatting's `estimate_alpha_cf` computes it:
/// the matting Laplacian over 3×3 windows with ε = 1e-7, the linear system over the unknown pixels only
/// (L_UU α_U = −L_UK α_K), solved by conjugate gradients to a relative residual of 1e-7 with an incomplete
/// Cholesky preconditioner (drop tolerance 1e-4), then clipped to 0…1.
///
/// ```swift
/// let alpha = try ClosedFormMatting.alpha(rgb: photo, trimap: trimap)   // [Double], one per pixel
/// ```
///
/// The solution matches pymatting's to the solver's tolerance (the system is the same; the preconditioner is
/// ours), so alphas agree to well under 1/255 on average (Tests/SwiftsegImageTests/MattingTests.swift).
public enum ClosedFormMatting {
    public struct Options: Sendable {
        public var epsilon = 1e-7
        public var relativeTolerance = 1e-7
        public var maximumIterations = 10_000
        /// Fill-in smaller than this in the incomplete Cholesky factor is dropped.
        public var dropTolerance = 1e-4
        public init() {}
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The linear system over the unknown pixels, as a CSR matrix (rows and columns in raster order of the
    /// unknown pixels), and its right-hand side.
    public struct System {
        public let unknown: [Int]           // pixel index of each unknown
        public let rowStart: [Int]
        public let columns: [Int32]
        public let values: [Double]
        public let rhs: [Double]
    }

    /// α for every pixel: the trimap's known values, and the solved ones in between.
    public static func alpha(rgb image: Image, trimap: Trimap, options: Options = Options()) throws -> [Double] {
        let system = buildSystem(rgb: image, trimap: trimap, epsilon: options.epsilon)
        var alpha = trimap.labels.map { $0 == Trimap.foreground ? 1.0 : $0 == Trimap.background ? 0.0 : Double($0) / 255 }
        guard !system.unknown.isEmpty else { return alpha }
        let factor = try IncompleteCholesky(system, dropTolerance: options.dropTolerance)
        let x = try conjugateGradients(system, preconditioner: factor, options: options)
        for (k, pixel) in system.unknown.enumerated() { alpha[pixel] = min(1, max(0, x[k])) }
        return alpha
    }

    /// The pixel values as pymatting reads them, v / 255, RGB (gray repeated, alpha ignored), indexed as a
    /// 3-per-pixel array.
    struct UnitRGB {
        let pixels: [UInt8]
        let channels: Int
        // × (1 / 255): a multiply instead of a divide per read, within an ulp of pymatting's v / 255
        init(_ image: Image) { pixels = image.pixels; channels = image.channels }
        @inline(__always) subscript(_ q: Int) -> Double {
            if channels == 3 { return Double(pixels[q]) * (1.0 / 255) }
            let p = q / 3
            return Double(pixels[p * channels + (channels < 3 ? 0 : q - 3 * p)]) * (1.0 / 255)
        }
    }

    /// The pixel values as pymatting reads them: v / 255, RGB (gray repeated, alpha ignored).
    static func channels(_ image: Image) -> [Double] {
        var out = [Double](repeating: 0, count: image.width * image.height * 3)
        let c = image.channels
        for i in 0..<(image.width * image.height) {
            for k in 0..<3 { out[3 * i + k] = Double(image.pixels[i * c + (c < 3 ? 0 : k)]) / 255 }
        }
        return out
    }

    /// L_UU and −L_UK α_K. A 3×3 window (centred on an interior pixel) adds, for each pair i, j of its pixels,
    /// δ_ij − (1 + (I_i − μ)ᵀ (Σ + ε/9 · 1)⁻¹ (I_j − μ)) / 9; windows with no unknown pixel add nothing to either.
    /// Each unknown's row is gathered from the windows that contain it (up to nine), into 25 slots for its 5×5
    /// neighbourhood.
    public static func buildSystem(rgb image: Image, trimap: Trimap, epsilon: Double) -> System {
        let w = image.width, h = image.height
        let I = UnitRGB(image)  // v / 255 read on the fly: no Double copy of a whole (12 MP: 288 MB) photo
        let labels = trimap.labels
        var unknownIndex = [Int32](repeating: -1, count: w * h)
        var unknown: [Int] = []
        for p in 0..<(w * h) where labels[p] == Trimap.unknown {
            unknownIndex[p] = Int32(unknown.count)
            unknown.append(p)
        }
        // Window statistics for every interior centre with an unknown pixel in its 3×3.
        var windowIndex = [Int32](repeating: -1, count: w * h)
        var means: [Double] = [], inverses: [Double] = []   // 3 and 6 (m00 m01 m02 m11 m12 m22) per window
        if w >= 3 && h >= 3 {
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    var touches = false
                    for dy in -1...1 { for dx in -1...1 where unknownIndex[(y + dy) * w + x + dx] >= 0 { touches = true } }
                    guard touches else { continue }
                    var m0 = 0.0, m1 = 0.0, m2 = 0.0
                    for dy in -1...1 { for dx in -1...1 {
                        let q = 3 * ((y + dy) * w + x + dx)
                        m0 += I[q]; m1 += I[q + 1]; m2 += I[q + 2]
                    } }
                    m0 /= 9; m1 /= 9; m2 /= 9
                    var a00 = epsilon, a01 = 0.0, a02 = 0.0, a11 = epsilon, a12 = 0.0, a22 = epsilon
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let q = 3 * ((y + dy) * w + x + dx)
                            let c0 = I[q] - m0, c1 = I[q + 1] - m1, c2 = I[q + 2] - m2
                            a00 += c0 * c0; a01 += c0 * c1; a02 += c0 * c2
                            a11 += c1 * c1; a12 += c1 * c2; a22 += c2 * c2
                        }
                    }
                    a00 /= 9; a01 /= 9; a02 /= 9; a11 /= 9; a12 /= 9; a22 /= 9
                    let det = a00 * (a11 * a22 - a12 * a12) - a01 * (a01 * a22 - a12 * a02) + a02 * (a01 * a12 - a11 * a02)
                    windowIndex[y * w + x] = Int32(means.count / 3)
                    means.append(m0); means.append(m1); means.append(m2)
                    inverses.append((a11 * a22 - a12 * a12) / det); inverses.append((a02 * a12 - a01 * a22) / det)
                    inverses.append((a01 * a12 - a02 * a11) / det); inverses.append((a00 * a22 - a02 * a02) / det)
                    inverses.append((a01 * a02 - a00 * a12) / det); inverses.append((a00 * a11 - a01 * a01) / det)
                }
            }
        }
        var rowStart = [0], columns: [Int32] = [], values: [Double] = [], rhs = [Double](repeating: 0, count: unknown.count)
        var slots = [Double](repeating: 0, count: 25)
        for (row, p) in unknown.enumerated() {
            let px = p % w, py = p / w
            for k in 0..<25 { slots[k] = 0 }
            for cy in (py - 1)...(py + 1) {
                for cx in (px - 1)...(px + 1) {
                    guard cx >= 1, cy >= 1, cx < w - 1, cy < h - 1 else { continue }
                    let win = Int(windowIndex[cy * w + cx])
                    guard win >= 0 else { continue }
                    let mu = (means[3 * win], means[3 * win + 1], means[3 * win + 2])
                    let v = 6 * win
                    let ci = (I[3 * p] - mu.0, I[3 * p + 1] - mu.1, I[3 * p + 2] - mu.2)
                    let u0 = inverses[v] * ci.0 + inverses[v + 1] * ci.1 + inverses[v + 2] * ci.2
                    let u1 = inverses[v + 1] * ci.0 + inverses[v + 3] * ci.1 + inverses[v + 4] * ci.2
                    let u2 = inverses[v + 2] * ci.0 + inverses[v + 4] * ci.1 + inverses[v + 5] * ci.2
                    for jy in (cy - 1)...(cy + 1) {
                        for jx in (cx - 1)...(cx + 1) {
                            let q = 3 * (jy * w + jx)
                            let t = u0 * (I[q] - mu.0) + u1 * (I[q + 1] - mu.1) + u2 * (I[q + 2] - mu.2)
                            let value = (jy * w + jx == p ? 1.0 : 0.0) - (1 + t) / 9
                            slots[(jy - py + 2) * 5 + (jx - px + 2)] += value
                        }
                    }
                }
            }
            for dy in -2...2 {
                for dx in -2...2 {
                    let v = slots[(dy + 2) * 5 + dx + 2]
                    let jx = px + dx, jy = py + dy
                    guard v != 0, jx >= 0, jy >= 0, jx < w, jy < h else { continue }
                    let j = jy * w + jx
                    if unknownIndex[j] >= 0 {
                        columns.append(unknownIndex[j])
                        values.append(v)
                    } else if labels[j] == Trimap.foreground {
                        rhs[row] -= v
                    }
                }
            }
            rowStart.append(columns.count)
        }
        return System(unknown: unknown, rowStart: rowStart, columns: columns, values: values, rhs: rhs)
    }

    /// The plain reference: the whole matting Laplacian as a dense matrix, each 3×3 window's 9×9 block added
    /// from the paper's formula (the covariance inverted by cofactors), every window, known or not. For tests
    /// on small images.
    public static func referenceLaplacian(rgb image: Image, epsilon: Double) -> [[Double]] {
        let w = image.width, h = image.height, n = w * h
        let I = channels(image)
        var L = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        guard w >= 3, h >= 3 else { return L }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let pixels = (-1...1).flatMap { dy in (-1...1).map { dx in (y + dy) * w + x + dx } }
                let mean = (0..<3).map { k in pixels.map { I[3 * $0 + k] }.reduce(0, +) / 9 }
                var cov = [[Double]](repeating: [0, 0, 0], count: 3)
                for a in 0..<3 { for b in 0..<3 {
                    cov[a][b] = pixels.map { (I[3 * $0 + a] - mean[a]) * (I[3 * $0 + b] - mean[b]) }.reduce(0, +) / 9
                        + (a == b ? epsilon / 9 : 0)
                } }
                let det = cov[0][0] * (cov[1][1] * cov[2][2] - cov[1][2] * cov[2][1])
                    - cov[0][1] * (cov[1][0] * cov[2][2] - cov[1][2] * cov[2][0])
                    + cov[0][2] * (cov[1][0] * cov[2][1] - cov[1][1] * cov[2][0])
                var inverse = [[Double]](repeating: [0, 0, 0], count: 3)
                for a in 0..<3 { for b in 0..<3 {
                    let r = [0, 1, 2].filter { $0 != b }, c = [0, 1, 2].filter { $0 != a }
                    let minor = cov[r[0]][c[0]] * cov[r[1]][c[1]] - cov[r[0]][c[1]] * cov[r[1]][c[0]]
                    inverse[a][b] = ((a + b) % 2 == 0 ? 1 : -1) * minor / det
                } }
                for i in pixels {
                    for j in pixels {
                        var t = 0.0
                        for a in 0..<3 { for b in 0..<3 { t += (I[3 * i + a] - mean[a]) * inverse[a][b] * (I[3 * j + b] - mean[b]) } }
                        L[i][j] += (i == j ? 1 : 0) - (1 + t) / 9
                    }
                }
            }
        }
        return L
    }

    static func multiply(_ s: System, _ x: [Double], into y: inout [Double]) {
        for row in 0..<s.unknown.count {
            var sum = 0.0
            for k in s.rowStart[row]..<s.rowStart[row + 1] { sum += s.values[k] * x[Int(s.columns[k])] }
            y[row] = sum
        }
    }

    /// Preconditioned conjugate gradients from x = 0, stopping at ‖r‖ < tolerance · ‖b‖ (pymatting's rule).
    static func conjugateGradients(_ s: System, preconditioner: IncompleteCholesky, options: Options) throws -> [Double] {
        let n = s.unknown.count
        let b = s.rhs
        func dot(_ a: [Double], _ c: [Double]) -> Double { var t = 0.0; for i in 0..<n { t += a[i] * c[i] }; return t }
        let normB = dot(b, b).squareRoot()
        var x = [Double](repeating: 0, count: n)
        if normB == 0 { return x }
        var r = b
        var z = [Double](repeating: 0, count: n)
        preconditioner.solve(r, into: &z)
        var p = z
        var rz = dot(r, z)
        var q = [Double](repeating: 0, count: n)
        for _ in 0..<options.maximumIterations {
            multiply(s, p, into: &q)
            let step = rz / dot(p, q)
            for i in 0..<n { x[i] += step * p[i]; r[i] -= step * q[i] }
            if dot(r, r).squareRoot() < options.relativeTolerance * normB { return x }
            preconditioner.solve(r, into: &z)
            let next = dot(r, z)
            let beta = next / rz
            rz = next
            for i in 0..<n { p[i] = z[i] + beta * p[i] }
        }
        throw Failure(description: "alpha matting: conjugate gradients did not converge in \(options.maximumIterations) iterations")
    }
}

/// An incomplete Cholesky factor L (A ≈ L Lᵀ) with a drop tolerance, computed column by column (left-looking:
/// each column j takes the updates of the earlier columns that have an entry in row j, found through linked
/// lists of columns by their next row); a breakdown (a non-positive pivot) retries with a shifted diagonal.
/// Entries are kept as Float (computed in Double): the factor is the solver's largest allocation, and a
/// preconditioner's rounding changes only how fast CG converges, not what it converges to.
struct IncompleteCholesky {
    let n: Int
    var columnStart: [Int] = [0]
    var rows: [Int32] = []
    var values: [Float] = []

    init(_ s: ClosedFormMatting.System, dropTolerance: Double) throws {
        n = s.unknown.count
        for shift in [0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1, 10, 100, 1e3, 1e4, 1e5] {
            if factor(s, dropTolerance: dropTolerance, shift: shift) { return }
        }
        throw ClosedFormMatting.Failure(description: "alpha matting: the incomplete Cholesky factorisation broke down")
    }

    /// Returns false on a breakdown.
    private mutating func factor(_ s: ClosedFormMatting.System, dropTolerance: Double, shift: Double) -> Bool {
        // Locals (not self's properties) and raw pointers in the update loop: the factor's arrays grow as
        // columns finish, and the loop reads them ~fill² times per column.
        var columnStart = [0], rows: [Int32] = [], values: [Float] = []
        rows.reserveCapacity(s.values.count * 2); values.reserveCapacity(s.values.count * 2)
        var dense = [Double](repeating: 0, count: n)     // column j being built
        var marked = [Bool](repeating: false, count: n)
        var pattern: [Int] = []
        var next = [Int](repeating: 0, count: n)          // per finished column k: index of its next entry to use
        var head = [Int](repeating: -1, count: n)         // columns whose next entry is in row j (linked list)
        var link = [Int](repeating: -1, count: n)
        for j in 0..<n {
            pattern.removeAll(keepingCapacity: true)
            var diagonal = shift
            for k in s.rowStart[j]..<s.rowStart[j + 1] {  // A's column j below the diagonal = its row j (symmetric)
                let i = Int(s.columns[k])
                if i == j { diagonal += s.values[k] }
                else if i > j {
                    dense[i] += s.values[k]
                    if !marked[i] { marked[i] = true; pattern.append(i) }
                }
            }
            var k = head[j]
            rows.withUnsafeBufferPointer { r in
                values.withUnsafeBufferPointer { v in
                    dense.withUnsafeMutableBufferPointer { d in
                        marked.withUnsafeMutableBufferPointer { m in
                            while k != -1 {
                                let following = link[k]
                                let start = next[k]
                                let ljk = Double(v[start])
                                diagonal -= ljk * ljk
                                let end = columnStart[k + 1]
                                var e = start + 1
                                while e < end {
                                    let i = Int(r[e])
                                    d[i] -= Double(v[e]) * ljk
                                    if !m[i] { m[i] = true; pattern.append(i) }
                                    e += 1
                                }
                                if start + 1 < end {  // column k moves on to its next row
                                    next[k] = start + 1
                                    let row = Int(r[start + 1])
                                    link[k] = head[row]
                                    head[row] = k
                                }
                                k = following
                            }
                        }
                    }
                }
            }
            guard diagonal > 0 else { return false }
            let pivot = diagonal.squareRoot()
            rows.append(Int32(j)); values.append(Float(pivot))
            pattern.sort()
            for i in pattern {
                let v = dense[i] / pivot
                dense[i] = 0; marked[i] = false
                if abs(v) >= dropTolerance { rows.append(Int32(i)); values.append(Float(v)) }
            }
            columnStart.append(rows.count)
            let start = columnStart[j]
            if start + 1 < columnStart[j + 1] {  // the first entry below the diagonal decides the list
                next[j] = start + 1
                let row = Int(rows[start + 1])
                link[j] = head[row]
                head[row] = j
            }
        }
        self.columnStart = columnStart
        self.rows = rows
        self.values = values
        return true
    }

    /// (L Lᵀ)⁻¹ r into `y`: forward substitution with L, then back substitution with Lᵀ. Runs once per CG
    /// iteration over the whole factor, so on raw pointers: through the arrays, the bounds and uniqueness checks
    /// of every `y[row] -= …` made it ~40 % of a 1-megapixel matting.
    func solve(_ r: [Double], into y: inout [Double]) {
        let n = self.n
        columnStart.withUnsafeBufferPointer { columnStart in
            rows.withUnsafeBufferPointer { rows in
                values.withUnsafeBufferPointer { values in
                    r.withUnsafeBufferPointer { r in
                        y.withUnsafeMutableBufferPointer { y in
                            for i in 0..<n { y[i] = r[i] }
                            for j in 0..<n {
                                let start = columnStart[j], end = columnStart[j + 1]
                                y[j] /= Double(values[start])
                                let yj = y[j]
                                var e = start + 1
                                while e < end { y[Int(rows[e])] -= Double(values[e]) * yj; e += 1 }
                            }
                            var j = n - 1
                            while j >= 0 {
                                let start = columnStart[j], end = columnStart[j + 1]
                                var sum = y[j]
                                var e = start + 1
                                while e < end { sum -= Double(values[e]) * y[Int(rows[e])]; e += 1 }
                                y[j] = sum / Double(values[start])
                                j -= 1
                            }
                        }
                    }
                }
            }
        }
    }
}
