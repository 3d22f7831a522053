// swift-tools-version:6.2
import PackageDescription

// The SIMD kernels (Sources/SwiftsegKernels) are compiled three times: for the baseline CPU (any x86-64:
// SSE2; any arm64: NEON) and, as SwiftsegKernelsAVX2 and SwiftsegKernelsAVX512 (symlinks to the same files), for
// Haswell-class AVX2+FMA and for AVX-512. The runtime picks one when it starts (SwiftsegRuntime/Ops/Kernels.swift),
// so one binary runs on every CPU and uses the widest registers it has. `-target-cpu` is an unsafe flag; since
// tools version 6.2 SwiftPM accepts those in dependencies too. On arm64 the extra copies are built like the
// first and never chosen.
#if arch(x86_64)
let avx2Kernels: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"]),
                                   .define("SWIFTSEG_FMA"), .define("SWIFTSEG_PERMUTES")]
let avx512Kernels: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "skylake-avx512"]),
                                     .define("SWIFTSEG_FMA"), .define("SWIFTSEG_PERMUTES"),
                                     .define("SWIFTSEG_32_REGISTERS")]
#else
let avx2Kernels: [SwiftSetting] = []
let avx512Kernels: [SwiftSetting] = []
#endif

let package = Package(
    name: "swiftseg",
    products: [
        // Public API: the Vision-like library, the raw runtime, the CLI and the benchmark.
        .library(name: "Swiftseg", targets: ["Swiftseg"]),
        .library(name: "SwiftsegRuntime", targets: ["SwiftsegRuntime"]),
        .executable(name: "swiftseg", targets: ["swiftseg"]),
        .executable(name: "swiftseg-bench", targets: ["swiftseg-bench"]),
    ],
    targets: [
        // MARK: Public API
        .target(name: "Swiftseg", dependencies: ["SwiftsegRuntime", "_CPNG", "_CTurboJPEG"]),
        .executableTarget(name: "swiftseg", dependencies: ["Swiftseg"]),
        .executableTarget(name: "swiftseg-bench", dependencies: ["Swiftseg"]),
        // libFuzzer harness for the image and weights parsers (a file replayer when built without the fuzzer).
        .executableTarget(name: "swiftseg-fuzz", dependencies: ["Swiftseg"]),

        // MARK: Implementation details
        // Tensor, ops (reference + fast kernels side by side), BLAS seam, U²-Net model, weights.
        .target(name: "SwiftsegRuntime",
                dependencies: ["SwiftsegKernels", "SwiftsegKernelsAVX2", "SwiftsegKernelsAVX512",
                               "SwiftsegEmbeddedWeights"]),
        // Pointer-level SIMD kernels, built for the baseline CPU and again for AVX2 and AVX-512 (see the top).
        .target(name: "SwiftsegKernels", dependencies: ["_CKernelSupport"]),
        .target(name: "SwiftsegKernelsAVX2", dependencies: ["_CKernelSupport"], swiftSettings: avx2Kernels),
        .target(name: "SwiftsegKernelsAVX512", dependencies: ["_CKernelSupport"], swiftSettings: avx512Kernels),
        // The committed u2netp weights, linked into the binary (Weights/embedded_weights.c).
        .target(
            name: "SwiftsegEmbeddedWeights",
            path: "Weights",
            exclude: ["README.md", "u2netp.safetensors"],
            sources: ["embedded_weights.c"],
            cSettings: [.headerSearchPath(".")]
        ),
        // C libraries from Debian packages: libpng-dev, libturbojpeg0-dev. OpenBLAS (libopenblas-dev) is
        // opened lazily by SwiftsegRuntime/BLAS/BLAS.swift, so its core type can be chosen before it loads.
        .systemLibrary(name: "_CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "_CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        // Header only: what the kernels need from C (Sources/_CKernelSupport/kernel_support.h): the prefetch
        // instruction and an optimisation barrier for vectors.
        .systemLibrary(name: "_CKernelSupport"),

        // MARK: Tests
        .testTarget(name: "SwiftsegRuntimeTests",
                    dependencies: ["SwiftsegRuntime", "SwiftsegKernels", "SwiftsegKernelsAVX2",
                                   "SwiftsegKernelsAVX512", "SwiftsegAllocationCounter"]),
        // Test support: counts heap allocations (wraps the malloc family), for the no-allocation test.
        .target(name: "SwiftsegAllocationCounter", path: "Tests/SwiftsegAllocationCounter"),
        .testTarget(name: "SwiftsegTests", dependencies: ["Swiftseg"]),
        .testTarget(name: "swiftsegCLITests", dependencies: ["swiftseg", "swiftseg-fuzz"]),
    ]
)
