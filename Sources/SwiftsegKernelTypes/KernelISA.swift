#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the CPU can do, read once from the OS (`/proc/cpuinfo` on Linux).
public struct CPUFeatures: Sendable {
    public let modelName: String
    public let flags: Set<String>

    public static let current = CPUFeatures.read()

    /// AVX2 and the rest of what `-target-cpu haswell` lets the compiler use (FMA, BMI1/2, F16C, MOVBE, LZCNT).
    public var hasAVX2FMA: Bool { ["avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"].allSatisfy(flags.contains) }
    public var hasAVX512: Bool { ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains) }

    /// The widest float vector the kernels should use: 16 lanes with AVX-512, else 8.
    public var summary: String {
        #if arch(x86_64)
        let isa = hasAVX512 ? "AVX-512" : hasAVX2FMA ? "AVX2+FMA" : "SSE"
        #elseif arch(arm64)
        let isa = "NEON"
        #else
        let isa = "scalar"
        #endif
        return "\(modelName.isEmpty ? "unknown CPU" : modelName) (\(isa))"
    }

    static func read() -> CPUFeatures {
        #if os(Linux)
        guard let text = readTextFile("/proc/cpuinfo") else { return CPUFeatures(modelName: "", flags: []) }
        var model = ""
        var flags = Set<String>()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: " \t") }
            guard parts.count == 2 else { continue }
            if model.isEmpty && (parts[0] == "model name" || parts[0] == "Model") { model = parts[1] }
            if flags.isEmpty && (parts[0] == "flags" || parts[0] == "Features") {
                flags = Set(parts[1].split(separator: " ").map(String.init))
            }
        }
        return CPUFeatures(modelName: model, flags: flags)
        #else
        return CPUFeatures(modelName: "", flags: [])
        #endif
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Reads a whole (small) text file with plain POSIX calls; nil if it cannot be opened.
fileprivate func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Which build of the SIMD kernels modules runs (Package.swift compiles the network's kernels and the image
/// library's three times each).
///
/// ```swift
/// let ctx = ExecutionContext(threads: 2)
/// ctx.isa = .baseline   // e.g. to compare against the AVX2 or AVX-512 build
/// ```
public enum KernelISA: String, Sendable, CaseIterable {
    /// Built for the architecture's baseline (x86-64 SSE2, arm64 NEON): runs on every CPU.
    case baseline
    /// Built with `-target-cpu haswell` (AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT): most x86-64 CPUs since 2013–2015.
    case avx2
    /// Built with `-target-cpu skylake-avx512` (AVX-512 F/CD/BW/DQ/VL and FMA): needs such a CPU.
    case avx512

    /// The fastest build this CPU can run.
    public static let best: KernelISA = avx512.isSupported ? .avx512 : avx2.isSupported ? .avx2 : .baseline

    /// Whether this CPU (and OS) can run this build.
    /// Read once (the kernels' dispatch asks on every use; each answer was a set lookup per feature).
    public var isSupported: Bool {
        switch self {
        case .baseline: return true
        case .avx2: return Self.supported.avx2
        case .avx512: return Self.supported.avx512
        }
    }

    private static let supported: (avx2: Bool, avx512: Bool) = {
        #if arch(x86_64)
        return (CPUFeatures.current.hasAVX2FMA, CPUFeatures.current.hasAVX512)
        #else
        return (false, false)
        #endif
    }()
}

