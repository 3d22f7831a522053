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
        guard let text = try? readTextFile("/proc/cpuinfo") else { return CPUFeatures(modelName: "", flags: []) }
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
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Reads a whole (small) text file with plain POSIX calls.
func readTextFile(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw RuntimeError.io("cannot open \(path)") }
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
