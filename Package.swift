// swift-tools-version:6.0
import PackageDescription

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

        // MARK: Implementation details
        // Tensor, ops (reference + fast kernels side by side), BLAS seam, U²-Net model, weights.
        .target(name: "SwiftsegRuntime", dependencies: ["SwiftsegEmbeddedWeights"]),
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

        // MARK: Tests
        .testTarget(name: "SwiftsegRuntimeTests", dependencies: ["SwiftsegRuntime"]),
        .testTarget(name: "SwiftsegTests", dependencies: ["Swiftseg"]),
        .testTarget(name: "swiftsegCLITests", dependencies: ["swiftseg"]),
    ]
)
