import SwiftsegKernels
import SwiftsegKernelsAVX2
import SwiftsegKernelsAVX512
import SwiftsegRuntime
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

    /// The Winograd channel-mix kernel (WinogradKernels.gemm, every build the CPU runs) against the Double reference: rows
    /// not a multiple of the row blocks (8 with 32 vector registers; 6 and 4 in the other builds), columns not a
    /// multiple of the vector, leading dimensions with gaps.
    /// It computes whole 16-column vectors, so C is checked up to there and must be untouched beyond.
    func testWinogradGEMMKernelMatchesReference() {
        typealias Kernel = (Int, Int, Int, UnsafePointer<Float>, Int, UnsafePointer<Float>, Int,
                            UnsafeMutablePointer<Float>, Int) -> Void
        var kernels: [(String, Kernel)] = [("baseline", SwiftsegKernels.WinogradKernels.gemm)]
        if KernelISA.avx2.isSupported { kernels.append(("avx2", SwiftsegKernelsAVX2.WinogradKernels.gemm)) }
        if KernelISA.avx512.isSupported { kernels.append(("avx512", SwiftsegKernelsAVX512.WinogradKernels.gemm)) }
        var rng = SplitMix64(seed: 23)
        for trial in 0..<40 {
            let m = rng.nextInt(1...27), n = rng.nextInt(1...90), k = rng.nextInt(1...70)
            let columns = (n + 15) / 16 * 16
            let lda = k + rng.nextInt(0...5), ldb = columns + rng.nextInt(0...9), ldc = columns + rng.nextInt(0...9)
            let a = randomTensor(channels: 1, height: m, width: lda, seed: UInt64(trial))
            let b = randomTensor(channels: 1, height: k, width: ldb, seed: UInt64(500 + trial))
            let expected = Tensor(shape: [m * ldc])
            GEMM.reference(m: m, n: columns, k: k, a: a.data, lda: lda, b: b.data, ldb: ldb, c: expected.data, ldc: ldc)
            for (name, gemm) in kernels {
                let c = Tensor(shape: [m * ldc + 8])
                for i in 0..<c.count { c.data[i] = 12345 }
                gemm(m, n, k, a.data, lda, b.data, ldb, c.data, ldc)
                let tolerance = 1e-5 * Float(k).squareRoot() * 4
                for i in 0..<m {
                    for j in 0..<ldc {
                        let got = c.data[i * ldc + j]
                        if j < columns {
                            XCTAssertEqual(got, expected.data[i * ldc + j], accuracy: tolerance,
                                           "\(name) \(m)×\(n)×\(k) at \(i),\(j)")
                        } else {
                            XCTAssertEqual(got, 12345, "\(name) wrote past its columns at \(i),\(j)")
                        }
                    }
                }
                XCTAssertTrue((m * ldc..<c.count).allSatisfy { c.data[$0] == 12345 }, "\(name) wrote past C")
            }
        }
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
