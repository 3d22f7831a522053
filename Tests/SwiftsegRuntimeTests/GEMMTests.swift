import SwiftsegKernels
import SwiftsegKernelsAVX2
import SwiftsegKernelsAVX512
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

final class GEMMTests: XCTestCase {
    /// BLAS.sgemm (OpenBLAS with the core type swiftseg chose, or the Swift fallback) and the blocked Swift
    /// GEMM against the Double reference, on awkward shapes and leading dimensions.
    func testSgemmMatchesReference() {
        var rng = SplitMix64(seed: 11)
        for trial in 0..<25 {
            let m = rng.nextInt(1...70), n = rng.nextInt(1...300), k = rng.nextInt(1...600)
            let lda = k + rng.nextInt(0...3), ldb = n + rng.nextInt(0...3), ldc = n + rng.nextInt(0...3)
            let a = randomTensor(channels: 1, height: m, width: lda, seed: UInt64(trial))
            let b = randomTensor(channels: 1, height: k, width: ldb, seed: UInt64(100 + trial))
            let expected = Tensor(shape: [m * ldc]), blas = Tensor(shape: [m * ldc]), swift = Tensor(shape: [m * ldc])
            GEMM.reference(m: m, n: n, k: k, a: a.data, lda: lda, b: b.data, ldb: ldb, c: expected.data, ldc: ldc)
            BLAS.sgemm(m: m, n: n, k: k, a: a.data, lda: lda, b: b.data, ldb: ldb, c: blas.data, ldc: ldc)
            GEMM.blocked(m: m, n: n, k: k, a: a.data, lda: lda, b: b.data, ldb: ldb, c: swift.data, ldc: ldc)
            let tolerance = 1e-5 * Float(k).squareRoot() * 4
            for i in 0..<m {
                for j in 0..<n {
                    XCTAssertEqual(blas.data[i * ldc + j], expected.data[i * ldc + j], accuracy: tolerance, "BLAS \(m)×\(n)×\(k)")
                    XCTAssertEqual(swift.data[i * ldc + j], expected.data[i * ldc + j], accuracy: tolerance, "Swift \(m)×\(n)×\(k)")
                }
            }
        }
    }

    /// B given transposed (n×k, a linear layer's out × in weights): BLAS.sgemm and the Swift fallback against the
    /// reference on B transposed back; accumulating too.
    func testSgemmWithTransposedBMatchesReference() {
        var rng = SplitMix64(seed: 12)
        for trial in 0..<20 {
            let m = rng.nextInt(1...70), n = rng.nextInt(1...200), k = rng.nextInt(1...300)
            let lda = k + rng.nextInt(0...3), ldbT = k + rng.nextInt(0...3), ldc = n + rng.nextInt(0...3)
            let a = randomTensor(channels: 1, height: m, width: lda, seed: UInt64(trial))
            let bT = randomTensor(channels: 1, height: n, width: ldbT, seed: UInt64(200 + trial))
            let b = Tensor(shape: [k * n])
            for p in 0..<k { for j in 0..<n { b.data[p * n + j] = bT.data[j * ldbT + p] } }
            let start = randomTensor(channels: 1, height: m, width: ldc, seed: UInt64(400 + trial))
            let accumulate = trial % 2 == 1
            let expected = Tensor(shape: [m * ldc])
            GEMM.reference(m: m, n: n, k: k, a: a.data, lda: lda, b: b.data, ldb: n, c: expected.data, ldc: ldc)
            if accumulate { for i in 0..<expected.count { expected.data[i] += start.data[i] } }
            let blas = Tensor(shape: [m * ldc], values: start.values), swift = Tensor(shape: [m * ldc], values: start.values)
            BLAS.sgemm(m: m, n: n, k: k, a: a.data, lda: lda, b: bT.data, ldb: ldbT, c: blas.data, ldc: ldc,
                       accumulate: accumulate, transposedB: true)
            GEMM.transposedB(m: m, n: n, k: k, a: a.data, lda: lda, b: bT.data, ldb: ldbT, c: swift.data, ldc: ldc,
                             accumulate: accumulate)
            let tolerance = 1e-5 * Float(k).squareRoot() * 4
            for i in 0..<m {
                for j in 0..<n {
                    XCTAssertEqual(blas.data[i * ldc + j], expected.data[i * ldc + j], accuracy: tolerance, "BLAS \(m)×\(n)×\(k)")
                    XCTAssertEqual(swift.data[i * ldc + j], expected.data[i * ldc + j], accuracy: tolerance, "Swift \(m)×\(n)×\(k)")
                }
            }
        }
    }

    /// The Winograd channel-mix kernel (WinogradKernels.gemm, every build the CPU runs) against the Double reference, on A
    /// packed by that build's `packGEMMRows`: rows not a multiple of the row blocks (8 with 32 vector registers, 6
    /// in the other builds), columns not a multiple of the vector, leading dimensions with gaps, and a range of
    /// rows that starts on a row block (what a whole-map task multiplies) taken from the packed A in place.
    /// It computes whole 16-column vectors, so C is checked up to there and must be untouched beyond.
    func testWinogradGEMMKernelMatchesReference() {
        typealias Kernel = (Int, Int, Int, UnsafePointer<Float>, UnsafePointer<Float>, Int,
                            UnsafeMutablePointer<Float>, Int) -> Void
        var kernels: [(String, Kernel, Int)] = [("baseline", SwiftsegKernels.WinogradKernels.gemm,
                                                 SwiftsegKernels.WinogradKernels.gemmRowBlock)]
        if KernelISA.avx2.isSupported {
            kernels.append(("avx2", SwiftsegKernelsAVX2.WinogradKernels.gemm, SwiftsegKernelsAVX2.WinogradKernels.gemmRowBlock))
        }
        if KernelISA.avx512.isSupported {
            kernels.append(("avx512", SwiftsegKernelsAVX512.WinogradKernels.gemm,
                            SwiftsegKernelsAVX512.WinogradKernels.gemmRowBlock))
        }
        var rng = SplitMix64(seed: 23)
        for trial in 0..<40 {
            let m = rng.nextInt(1...27), n = rng.nextInt(1...90), k = rng.nextInt(1...70)
            let columns = (n + 15) / 16 * 16
            let lda = k + rng.nextInt(0...5), ldb = columns + rng.nextInt(0...9), ldc = columns + rng.nextInt(0...9)
            let a = randomTensor(channels: 1, height: m, width: lda, seed: UInt64(trial))
            let b = randomTensor(channels: 1, height: k, width: ldb, seed: UInt64(500 + trial))
            let expected = Tensor(shape: [m * ldc])
            GEMM.reference(m: m, n: columns, k: k, a: a.data, lda: lda, b: b.data, ldb: ldb, c: expected.data, ldc: ldc)
            for (name, gemm, rowBlock) in kernels {
                let packed = Tensor(shape: [m * k])
                SwiftsegKernels.WinogradKernels.packGEMMRows(a.data, m: m, k: k, lda: lda, rowBlock: rowBlock,
                                                             into: packed.data)
                // All rows, then the rows from the last whole row block before m/2 on.
                let first = m / 2 / rowBlock * rowBlock
                for rows in [0..<m, first..<m] {
                    let c = Tensor(shape: [m * ldc + 8])
                    for i in 0..<c.count { c.data[i] = 12345 }
                    gemm(rows.count, n, k, packed.data + rows.lowerBound * k, b.data, ldb,
                         c.data + rows.lowerBound * ldc, ldc)
                    let tolerance = 1e-5 * Float(k).squareRoot() * 4
                    for i in 0..<m {
                        for j in 0..<ldc {
                            let got = c.data[i * ldc + j]
                            if rows.contains(i) && j < columns {
                                XCTAssertEqual(got, expected.data[i * ldc + j], accuracy: tolerance,
                                               "\(name) \(m)×\(n)×\(k) rows \(rows) at \(i),\(j)")
                            } else {
                                XCTAssertEqual(got, 12345, "\(name) rows \(rows) wrote outside them at \(i),\(j)")
                            }
                        }
                    }
                    XCTAssertTrue((m * ldc..<c.count).allSatisfy { c.data[$0] == 12345 }, "\(name) wrote past C")
                }
            }
        }
    }

    /// The 1×1 convs' GEMM with the epilogue fused (bias per row, activation, residual laid out as C) gives the
    /// bytes of the plain GEMM followed by `addBias` on each row, in every build the CPU runs: the same
    /// operations in the same order, one pass over C fewer. Rows not a multiple of the row block, whole-vector
    /// columns (what the 1×1 path hands it), every activation, with and without a residual.
    func testEpilogueGEMMIsTheGEMMThenItsEpilogue() {
        typealias Plain = (Int, Int, Int, UnsafePointer<Float>, UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>, Int) -> Void
        typealias Fused = (Int, Int, Int, UnsafePointer<Float>, UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>, Int,
                           UnsafePointer<Float>, KernelEpilogue) -> Void
        typealias AddBias = (UnsafeMutablePointer<Float>, Int, Float, KernelEpilogue) -> Void
        var builds: [(String, Plain, Fused, AddBias, Int)] = [
            ("baseline", SwiftsegKernels.WinogradKernels.gemm, SwiftsegKernels.WinogradKernels.gemm,
             SwiftsegKernels.SIMDKernels.addBias, SwiftsegKernels.WinogradKernels.gemmRowBlock)]
        if KernelISA.avx2.isSupported {
            builds.append(("avx2", SwiftsegKernelsAVX2.WinogradKernels.gemm, SwiftsegKernelsAVX2.WinogradKernels.gemm,
                           SwiftsegKernelsAVX2.SIMDKernels.addBias, SwiftsegKernelsAVX2.WinogradKernels.gemmRowBlock))
        }
        if KernelISA.avx512.isSupported {
            builds.append(("avx512", SwiftsegKernelsAVX512.WinogradKernels.gemm, SwiftsegKernelsAVX512.WinogradKernels.gemm,
                           SwiftsegKernelsAVX512.SIMDKernels.addBias, SwiftsegKernelsAVX512.WinogradKernels.gemmRowBlock))
        }
        var rng = SplitMix64(seed: 29)
        for trial in 0..<24 {
            let m = rng.nextInt(1...40), n = 16 * rng.nextInt(1...6), k = rng.nextInt(1...50), ld = n + 16 * rng.nextInt(0...1)
            let a = randomTensor(channels: 1, height: m, width: k, seed: UInt64(700 + trial))
            let b = randomTensor(channels: 1, height: k, width: ld, seed: UInt64(800 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: m, seed: UInt64(900 + trial))
            let residual = randomTensor(channels: 1, height: m, width: ld, seed: UInt64(1000 + trial))
            let activation = KernelEpilogue.Activation.allCases[trial % 3]
            let epilogue = KernelEpilogue(activation: activation, residual: trial % 2 == 0 ? UnsafePointer(residual.data) : nil)
            for (name, plain, fused, addBias, rowBlock) in builds {
                let packed = Tensor(shape: [m * k])
                SwiftsegKernels.WinogradKernels.packGEMMRows(a.data, m: m, k: k, lda: k, rowBlock: rowBlock, into: packed.data)
                let expected = Tensor(shape: [m * ld]), got = Tensor(shape: [m * ld])
                plain(m, n, k, packed.data, b.data, ld, expected.data, ld)
                for i in 0..<m {
                    var row = epilogue
                    row.residual = row.residual.map { $0 + i * ld }
                    addBias(expected.data + i * ld, n, bias.data[i], row)
                }
                fused(m, n, k, packed.data, b.data, ld, got.data, ld, bias.data, epilogue)
                for i in 0..<m {
                    for j in 0..<n where got.data[i * ld + j].bitPattern != expected.data[i * ld + j].bitPattern {
                        XCTFail("\(name) \(m)×\(n)×\(k) \(activation) residual \(epilogue.residual != nil): differs at \(i),\(j)")
                        return
                    }
                }
            }
        }
    }

    /// Packing in row blocks: each block of `rowBlock` rows (the last one shorter) column by column at its first
    /// row · k; a row block of 1 leaves A row-major (what BLAS reads).
    func testPackGEMMRowsLayout() {
        let m = 11, k = 3, lda = 5
        let a = Tensor(shape: [m * lda])
        for i in 0..<a.count { a.data[i] = Float(i) }
        let packed = Tensor(shape: [m * k])
        SwiftsegKernels.WinogradKernels.packGEMMRows(a.data, m: m, k: k, lda: lda, rowBlock: 4, into: packed.data)
        // Blocks: rows 0–3, 4–7, 8–10.
        XCTAssertEqual(Array(UnsafeBufferPointer(start: packed.data, count: 8)), [0, 5, 10, 15, 1, 6, 11, 16])
        XCTAssertEqual(packed.data[12], 20)            // row 4, column 0: block 2 starts at 4 · k
        XCTAssertEqual(Array(UnsafeBufferPointer(start: packed.data + 24, count: 9)),
                       [40, 45, 50, 41, 46, 51, 42, 47, 52])   // rows 8–10, column by column
        SwiftsegKernels.WinogradKernels.packGEMMRows(a.data, m: m, k: k, lda: lda, rowBlock: 1, into: packed.data)
        for i in 0..<m { for kk in 0..<k { XCTAssertEqual(packed.data[i * k + kk], a.data[i * lda + kk]) } }
    }

    /// The OpenBLAS trap: on a CPU with AVX2 or AVX-512, OpenBLAS must not run its SSE3 (Prescott) or other
    /// pre-AVX2 kernels.
    func testOpenBLASRunsWideKernelsWhereTheCPUHasThem() throws {
        guard let core = BLAS.coreName else { throw XCTSkip("OpenBLAS not installed: \(BLAS.backend)") }
        let cpu = CPUFeatures.current
        let legacy = ["Prescott", "Katmai", "Coppermine", "Northwood", "Banias", "Core2", "Penryn", "Dunnington",
                      "Nehalem", "Atom", "Opteron", "Barcelona", "Bobcat", "Sandybridge", "Bulldozer", "Piledriver"]
        if cpu.hasAVX2FMA {
            XCTAssertFalse(legacy.contains { $0.caseInsensitiveCompare(core) == .orderedSame },
                           "OpenBLAS runs '\(core)' kernels on \(cpu.summary)")
        }
        if cpu.hasAVX512 && getenv("OPENBLAS_CORETYPE").map({ String(cString: $0) }) == "SkylakeX" {
            XCTAssertEqual(core.lowercased(), "skylakex")
        }
    }
}
