import SwiftsegKernels
/// Pure-Swift GEMM: the reference (oracle for tests) and a cache-blocked fallback used when OpenBLAS is absent.
/// Both compute C[m×n] = A[m×k] · B[k×n], row-major, overwriting C (`blocked` can also accumulate into it).
public enum GEMM {
    /// Plain triple loop in Double: the oracle.
    public static func reference(m: Int, n: Int, k: Int,
                                 a: UnsafePointer<Float>, lda: Int,
                                 b: UnsafePointer<Float>, ldb: Int,
                                 c: UnsafeMutablePointer<Float>, ldc: Int) {
        for i in 0..<m {
            for j in 0..<n {
                var sum = 0.0
                for p in 0..<k { sum += Double(a[i * lda + p]) * Double(b[p * ldb + j]) }
                c[i * ldc + j] = Float(sum)
            }
        }
    }

    /// Blocked i-k-j loop over SIMD rows of B; correct for any shape, a fraction of OpenBLAS's speed.
    public static func blocked(m: Int, n: Int, k: Int,
                               a: UnsafePointer<Float>, lda: Int,
                               b: UnsafePointer<Float>, ldb: Int,
                               c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool = false) {
        let nBlock = 512, kBlock = 128
        if !accumulate { for i in 0..<m { (c + i * ldc).update(repeating: 0, count: n) } }
        var j0 = 0
        while j0 < n {
            let jn = min(nBlock, n - j0)
            var p0 = 0
            while p0 < k {
                let pk = min(kBlock, k - p0)
                for i in 0..<m {
                    let crow = c + i * ldc + j0
                    for p in p0..<(p0 + pk) {
                        let s = a[i * lda + p]
                        if s == 0 { continue }
                        SIMDKernels.axpy(count: jn, alpha: s, x: b + p * ldb + j0, y: crow)
                    }
                }
                p0 += pk
            }
            j0 += jn
        }
    }

    /// C[m×n] (+)= A[m×k] · Bᵀ with B given n×k row-major: each output a dot product of two rows, in float, in
    /// order. The fallback of `BLAS.sgemm(…transposedB: true)` when OpenBLAS is absent.
    public static func transposedB(m: Int, n: Int, k: Int,
                                   a: UnsafePointer<Float>, lda: Int,
                                   b: UnsafePointer<Float>, ldb: Int,
                                   c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool = false) {
        for i in 0..<m {
            let row = a + i * lda
            for j in 0..<n {
                let column = b + j * ldb
                var sum: Float = 0
                for p in 0..<k { sum += row[p] * column[p] }
                c[i * ldc + j] = accumulate ? c[i * ldc + j] + sum : sum
            }
        }
    }
}
