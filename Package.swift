// swift-tools-version:6.2
import PackageDescription

// The SIMD kernels (Sources/SwiftsegKernels, and the image library's Sources/SwiftsegImageKernels) are compiled three
// times: for the baseline CPU (any x86-64: SSE2; any arm64: NEON) and, as …AVX2 and …AVX512 (symlinks to the same
// files), for Haswell-class AVX2+FMA and for AVX-512. The runtime and the image library pick one when they start
// (SwiftsegRuntime/Ops/Kernels.swift, SwiftsegImage/Matting/MattingKernelSet.swift), so one binary runs on every
// CPU and uses the widest registers it has. `-target-cpu` is an unsafe flag; since
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
        // Public API. Swiftseg is the Vision-like library (it re-exports SwiftsegImage); SwiftsegImage alone is
        // the image library with no network code; SwiftsegModels and SwiftsegRuntime are the networks and the
        // runtime under them. The CLI's product is `swiftseg` (its folder is Sources/SwiftsegCLI, so that no
        // two paths differ only by case).
        .library(name: "Swiftseg", targets: ["Swiftseg"]),
        .library(name: "SwiftsegImage", targets: ["SwiftsegImage"]),
        .library(name: "SwiftsegModels", targets: ["SwiftsegModels"]),
        .library(name: "SwiftsegRuntime", targets: ["SwiftsegRuntime"]),
        .library(name: "SwiftsegService", targets: ["SwiftsegService"]),
        .executable(name: "swiftseg", targets: ["SwiftsegCLI"]),
        .executable(name: "swiftseg-bench", targets: ["swiftseg-bench"]),
    ],
    targets: [
        // MARK: Public API
        // Requests (subject lifting, …) and the per-photo pipeline and batch runner the CLI and a server share.
        .target(name: "Swiftseg", dependencies: ["SwiftsegImage", "SwiftsegModels", "SwiftsegRuntime"]),
        // Images, codecs, resampling, filters, geometry, compositing, atomic writes: no network code.
        .target(name: "SwiftsegImage", dependencies: ["_CPNG", "_CTurboJPEG", "_CWebP", "_CHEIF", "_CTIFF", "_CGIF", "SwiftsegKernelTypes", "SwiftsegImageKernels",
                                                      "SwiftsegImageKernelsAVX2", "SwiftsegImageKernelsAVX512"]),
        // The image library's hot loops (the matting's CG) on raw pointers, built three times like the network's
        // kernels (the same flags): the library picks one per CPU (SwiftsegImage/Matting/MattingKernelSet.swift).
        .target(name: "SwiftsegImageKernels"),
        .target(name: "SwiftsegImageKernelsAVX2", swiftSettings: avx2Kernels),
        .target(name: "SwiftsegImageKernelsAVX512", swiftSettings: avx512Kernels),
        // One folder per network (blocks, configuration, key mapping), registered by architecture name, and
        // the built-in weights.
        .target(name: "SwiftsegModels", dependencies: ["SwiftsegRuntime", "SwiftsegEmbeddedWeights"]),
        // The HTTP service (`swiftseg serve`): libmicrohttpd, the bounded queue, routes (one file per group),
        // metrics. Routes call the requests library's pipelines; no image or math logic here.
        .target(name: "SwiftsegService", dependencies: ["Swiftseg", "SwiftsegRuntime", "_CMicroHTTPD"]),
        // Thin front ends: argument parsing and printing only.
        .executableTarget(name: "SwiftsegCLI",
                          dependencies: ["Swiftseg", "SwiftsegModels", "SwiftsegRuntime", "SwiftsegService"]),
        .executableTarget(name: "swiftseg-bench", dependencies: ["Swiftseg", "SwiftsegModels", "SwiftsegRuntime"]),
        // libFuzzer harness for the image and weights parsers (a file replayer when built without the fuzzer).
        .executableTarget(name: "swiftseg-fuzz", dependencies: ["Swiftseg", "SwiftsegModels", "SwiftsegRuntime"]),

        // MARK: Implementation details
        // The model-agnostic runtime: tensors, arena, parallel, BLAS seam, CPU dispatch, ops (reference + fast
        // kernels side by side), weights (safetensors, the checked loader, the architecture registry).
        .target(name: "SwiftsegRuntime",
                dependencies: ["SwiftsegKernels", "SwiftsegKernelsAVX2", "SwiftsegKernelsAVX512"]),
        // Pointer-level SIMD kernels, built for the baseline CPU and again for AVX2 and AVX-512 (see the top).
        .target(name: "SwiftsegKernels", dependencies: ["_CKernelSupport", "SwiftsegKernelTypes"]),
        .target(name: "SwiftsegKernelsAVX2", dependencies: ["_CKernelSupport", "SwiftsegKernelTypes"],
                swiftSettings: avx2Kernels),
        .target(name: "SwiftsegKernelsAVX512", dependencies: ["_CKernelSupport", "SwiftsegKernelTypes"],
                swiftSettings: avx512Kernels),
        // What all three kernel builds take, as one type: the epilogue value (data only, built once).
        .target(name: "SwiftsegKernelTypes"),
        // The committed u2netp and efficientnet-lite0 weights, linked into the binary (Weights/embedded_weights.c).
        .target(
            name: "SwiftsegEmbeddedWeights",
            path: "Weights",
            exclude: ["README.md", "u2netp.safetensors", "efficientnet-lite0.safetensors"],
            sources: ["embedded_weights.c"],
            cSettings: [.headerSearchPath(".")]
        ),
        // C libraries from Debian packages: libpng-dev, libturbojpeg0-dev, libmicrohttpd-dev (the service; its
        // shim wraps the two variadic calls Swift cannot make). OpenBLAS (libopenblas-dev) is
        // opened lazily by SwiftsegRuntime/BLAS/BLAS.swift, so its core type can be chosen before it loads.
        .systemLibrary(name: "_CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "_CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "_CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "_CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "_CTIFF", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "_CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "_CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        // Header only: what the kernels need from C (Sources/_CKernelSupport/kernel_support.h): the prefetch
        // instruction and an optimisation barrier for vectors.
        .systemLibrary(name: "_CKernelSupport"),

        // MARK: Tests
        .testTarget(name: "SwiftsegImageTests", dependencies: ["SwiftsegImage", "_CPNG"]),  // zlib: the reference inflater
        .testTarget(name: "SwiftsegRuntimeTests",
                    dependencies: ["SwiftsegRuntime", "SwiftsegKernels", "SwiftsegKernelsAVX2",
                                   "SwiftsegKernelsAVX512", "SwiftsegTestSupport"]),
        .testTarget(name: "SwiftsegModelsTests",
                    dependencies: ["SwiftsegModels", "SwiftsegRuntime", "SwiftsegTestSupport",
                                   "SwiftsegAllocationCounter"]),
        .testTarget(name: "SwiftsegTests", dependencies: ["Swiftseg", "SwiftsegModels", "SwiftsegRuntime"]),
        .testTarget(name: "SwiftsegServiceTests",
                    dependencies: ["SwiftsegService", "Swiftseg", "SwiftsegModels", "SwiftsegServiceTestSupport"]),
        .testTarget(name: "SwiftsegCLITests", dependencies: ["SwiftsegCLI", "swiftseg-fuzz", "SwiftsegServiceTestSupport"]),
        // Test support: fixture paths and tensor helpers for the runtime's and the models' tests.
        .target(name: "SwiftsegTestSupport", dependencies: ["SwiftsegRuntime"], path: "Tests/SwiftsegTestSupport"),
        // A raw-socket HTTP client for the service's tests (and the CLI's `serve` tests).
        .target(name: "SwiftsegServiceTestSupport", path: "Tests/SwiftsegServiceTestSupport"),
        // Counts heap allocations (wraps the malloc family), for the no-allocation test.
        .target(name: "SwiftsegAllocationCounter", path: "Tests/SwiftsegAllocationCounter"),
    ]
)
