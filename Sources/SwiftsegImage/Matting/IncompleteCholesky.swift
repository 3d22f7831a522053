/// An incomplete Cholesky factor L (A ≈ L Lᵀ) with a drop tolerance, computed column by column (left-looking:
/// each column j takes the updates of the earlier columns that have an entry in row j, found through linked
/// lists of columns by their next row); a breakdown (a non-positive pivot) retries with a shifted diagonal.
/// Entries are kept as Float (computed in Double): the factor is the solver's largest allocation, and a
/// preconditioner's rounding changes only how fast CG converges, not what it converges to.
struct IncompleteCholesky: MattingPreconditioner {
    /// An ordering in two parts and a separator, A's rows and columns first (`first`, then `second`, then
    /// `separator`), with no entry of A between the two parts: the factor then has none either (eliminating one
    /// part's unknowns fills in only among that part and the separator), so each triangular solve runs the parts
    /// at once. Their updates to the separator's rows are summed apart and added part by part, the same
    /// arithmetic on one thread or two.
    struct Parts {
        let first: Range<Int>, second: Range<Int>, separator: Range<Int>
    }

    let n: Int
    var columnStart: [Int] = [0]
    var rows: [Int32] = []
    var values: [Float] = []
    /// Per column: where its entries in the separator's rows begin (a column's rows ascend, so they are its
    /// last ones); the column's end without parts.
    var separatorEntries: [Int] = []
    let parts: Parts?

    init(_ s: SparseMatrix, dropTolerance: Double, parts: Parts? = nil) throws {
        n = s.rows
        self.parts = parts
        for shift in [0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1, 10, 100, 1e3, 1e4, 1e5] {
            if factor(s, dropTolerance: dropTolerance, shift: shift) { return }
        }
        throw ClosedFormMatting.Failure(description: "alpha matting: the incomplete Cholesky factorisation broke down")
    }

    /// Returns false on a breakdown.
    private mutating func factor(_ s: SparseMatrix, dropTolerance: Double, shift: Double) -> Bool {
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
                          columnStart.withUnsafeBufferPointer { columnStart in
                            next.withUnsafeMutableBufferPointer { next in
                            head.withUnsafeMutableBufferPointer { head in
                            link.withUnsafeMutableBufferPointer { link in
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
                            }}}
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
        let separatorRow = Int32(parts?.separator.lowerBound ?? n)
        separatorEntries = (0..<n).map { j in
            var e = columnStart[j + 1]
            while e > columnStart[j] + 1 && rows[e - 1] >= separatorRow { e -= 1 }
            return e
        }
        self.columnStart = columnStart
        self.rows = rows
        self.values = values
        return true
    }

    /// (L Lᵀ)⁻¹ r into `y`: forward substitution with L, then back substitution with Lᵀ. Runs once per CG
    /// iteration over the whole factor, so on raw pointers: through the arrays, the bounds and uniqueness checks
    /// of every `y[row] -= …` made it ~40 % of a 1-megapixel matting.
    func solve(_ r: UnsafePointer<Double>, into y: UnsafeMutablePointer<Double>, chunks: RowChunks) -> Double {
        solve(r, into: y, pool: chunks.pool)
        return chunks.sum { rows in var t = 0.0; for i in rows { t += r[i] * y[i] }; return t }
    }

    func solve(_ r: UnsafePointer<Double>, into y: UnsafeMutablePointer<Double>, pool: SolverThreads? = nil) {
        columnStart.withUnsafeBufferPointer { columnStart in
            rows.withUnsafeBufferPointer { rows in
                values.withUnsafeBufferPointer { values in
                    for i in 0..<n { y[i] = r[i] }
                    // Forward: L y = r, column by column; a column's entries below the diagonal in the
                    // separator's rows go to `spill` instead when one is given (a part's columns).
                    func forward(_ columns: Range<Int>, spill: UnsafeMutablePointer<Double>?, spillStart: Int) {
                        separatorEntries.withUnsafeBufferPointer { split in
                            for j in columns {
                                let start = columnStart[j], end = columnStart[j + 1]
                                y[j] /= Double(values[start])
                                let yj = y[j]
                                let inside = spill == nil ? end : split[j]
                                var e = start + 1
                                while e < inside { y[Int(rows[e])] -= Double(values[e]) * yj; e += 1 }
                                if let spill {
                                    while e < end { spill[Int(rows[e]) - spillStart] += Double(values[e]) * yj; e += 1 }
                                }
                            }
                        }
                    }
                    // Back: Lᵀ y = (the forward result), columns from last to first; each column's sum in four
                    // partial sums (one chain of additions through a column's ~20 entries bound the loop).
                    func back(_ columns: Range<Int>) {
                        for j in columns.reversed() {
                            let start = columnStart[j], end = columnStart[j + 1]
                            var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
                            var e = start + 1
                            while e + 4 <= end {
                                s0 += Double(values[e]) * y[Int(rows[e])]
                                s1 += Double(values[e + 1]) * y[Int(rows[e + 1])]
                                s2 += Double(values[e + 2]) * y[Int(rows[e + 2])]
                                s3 += Double(values[e + 3]) * y[Int(rows[e + 3])]
                                e += 4
                            }
                            while e < end { s0 += Double(values[e]) * y[Int(rows[e])]; e += 1 }
                            y[j] = (y[j] - ((s0 + s1) + (s2 + s3))) / Double(values[start])
                        }
                    }
                    guard let parts else {
                        forward(0..<n, spill: nil, spillStart: n)
                        back(0..<n)
                        return
                    }
                    let m = parts.separator.count, s0 = parts.separator.lowerBound
                    let spills = UnsafeMutableBufferPointer<Double>.allocate(capacity: 2 * m)
                    defer { spills.deallocate() }
                    spills.initialize(repeating: 0)
                    let spill = spills.baseAddress!
                    let halves = [parts.first, parts.second]
                    func inParallel(_ body: (Int) -> Void) {
                        guard let pool else { body(0); body(1); return }
                        pool.run { worker in if worker < 2 { body(worker) } }
                    }
                    inParallel { h in forward(halves[h], spill: spill + h * m, spillStart: s0) }
                    for i in 0..<m { y[s0 + i] -= spill[i]; y[s0 + i] -= spill[m + i] }
                    forward(parts.separator, spill: nil, spillStart: n)
                    back(parts.separator)
                    inParallel { h in back(halves[h]) }
                }
            }
        }
    }
}
