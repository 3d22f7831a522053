#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one seam between the runtime and BLAS: `BLAS.sgemm`.
///
/// OpenBLAS (Debian's `libopenblas0`, DYNAMIC_ARCH) is opened lazily with `dlopen` on first use rather than
/// linked, because it picks its kernels in a load-time constructor: on CPUs newer than its CPU table (e.g.
/// Sapphire Rapids with 0.3.21) it falls back to Prescott (SSE3) kernels and runs about 3× slower. Opening it
/// ourselves lets us set `OPENBLAS_CORETYPE` from the CPU's features first (SkylakeX with AVX-512, Haswell
/// with AVX2+FMA) unless the user already set it, and `OPENBLAS_NUM_THREADS=1`: the runtime parallelises
/// across tiles itself, so OpenBLAS threads would only oversubscribe the cores.
///
/// Without OpenBLAS the pure-Swift ``GEMM/blocked(m:n:k:a:lda:b:ldb:c:ldc:)`` is used; ``BLAS/backend``
/// tells which one runs.
///
/// ```swift
/// print(BLAS.backend)   // "OpenBLAS 0.3.21 … (core SkylakeX, forced by swiftseg)"
/// ```
public enum BLAS {
    typealias SgemmFn = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
        UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32) -> Void

    struct Library: @unchecked Sendable {
        let sgemm: SgemmFn
        let coreName: String
        let config: String
        let forcedCore: String?
    }

    /// The loaded OpenBLAS, or nil when it is not installed (or `SWIFTSEG_BLAS=swift`).
    static let library: Library? = load()

    /// Human-readable description of the GEMM backend in use, for logs and benchmarks.
    public static var backend: String {
        guard let lib = library else { return "pure-Swift GEMM (OpenBLAS not loaded)" }
        let how = lib.forcedCore.map { _ in "forced by swiftseg from CPU flags" } ?? "chosen by OpenBLAS/OPENBLAS_CORETYPE"
        return "\(lib.config) (core \(lib.coreName), \(how))"
    }

    /// OpenBLAS's core name (e.g. "SkylakeX"), or nil without OpenBLAS.
    public static var coreName: String? { library?.coreName }

    /// The OpenBLAS core type the runtime asks for on this CPU, or nil to leave OpenBLAS's own choice.
    public static func preferredCoreType(for cpu: CPUFeatures) -> String? {
        #if arch(x86_64)
        if cpu.hasAVX512 { return "SkylakeX" }
        if cpu.hasAVX2FMA { return "Haswell" }
        #endif
        return nil
    }

    private static func load() -> Library? {
        if let choice = getenv("SWIFTSEG_BLAS").map({ String(cString: $0) }), choice == "swift" { return nil }
        var forced: String?
        if getenv("OPENBLAS_CORETYPE") == nil, let core = preferredCoreType(for: .current) {
            setenv("OPENBLAS_CORETYPE", core, 1)
            forced = core
        }
        setenv("OPENBLAS_NUM_THREADS", "1", 0)
        #if os(macOS)
        let names = ["libopenblas.dylib", "/opt/homebrew/opt/openblas/lib/libopenblas.dylib"]
        #else
        let names = ["libopenblas.so.0", "libopenblas.so"]
        #endif
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first,
              let sgemm = dlsym(handle, "cblas_sgemm") else { return nil }
        var core = "unknown", config = "OpenBLAS"
        typealias StringFn = @convention(c) () -> UnsafePointer<CChar>?
        if let f = dlsym(handle, "openblas_get_corename"), let s = unsafeBitCast(f, to: StringFn.self)() {
            core = String(cString: s)
        }
        if let f = dlsym(handle, "openblas_get_config"), let s = unsafeBitCast(f, to: StringFn.self)() {
            config = String(cString: s).split(separator: " ").prefix(2).joined(separator: " ")
        }
        typealias SetThreadsFn = @convention(c) (Int32) -> Void
        if let f = dlsym(handle, "openblas_set_num_threads") { unsafeBitCast(f, to: SetThreadsFn.self)(1) }
        return Library(sgemm: unsafeBitCast(sgemm, to: SgemmFn.self), coreName: core, config: config,
                       forcedCore: forced)
    }

    /// C[m×n] = A[m×k] · B[k×n] (row-major, leading dimensions given), single-threaded; with `accumulate`,
    /// C += A · B. With `transposedB`, B is given as its transpose, n×k row-major (a linear layer's weights in
    /// PyTorch's out × in layout, read where they are mapped).
    public static func sgemm(m: Int, n: Int, k: Int,
                             a: UnsafePointer<Float>, lda: Int,
                             b: UnsafePointer<Float>, ldb: Int,
                             c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool = false,
                             transposedB: Bool = false) {
        if let lib = library {
            // 101 = CblasRowMajor, 111 = CblasNoTrans, 112 = CblasTrans.
            lib.sgemm(101, 111, transposedB ? 112 : 111, Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b,
                      Int32(ldb), accumulate ? 1 : 0, c, Int32(ldc))
        } else if transposedB {
            GEMM.transposedB(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate)
        } else {
            GEMM.blocked(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, accumulate: accumulate)
        }
    }
}
