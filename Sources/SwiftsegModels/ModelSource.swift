#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SwiftsegEmbeddedWeights
import SwiftsegRuntime

/// Where a model's weights come from.
///
/// ```swift
/// let net = try U2Net(source: .u2netp)                    // the weights linked into the binary
/// let big = try U2Net(source: .named("u2net"))            // ~/.cache/swiftseg/u2net.safetensors
/// let own = try ModelSource.file("my.safetensors").load() // any registered architecture
/// ```
public enum ModelSource: Sendable, Equatable {
    /// The committed u2netp weights, embedded in the binary: always available.
    case u2netp
    /// The committed EfficientNet-Lite0 ImageNet classifier, embedded in the binary: always available.
    case efficientNetLite0
    /// A converted model looked up by name in ``searchDirectories`` (`NAME.safetensors`).
    case named(String)
    /// A safetensors file.
    case file(String)

    /// Names `--model` takes besides the built-in ones and paths: models `Tools/fetch_weights.sh` converts.
    public static let fetchableNames = ["u2net"]

    /// Parses a `--model` value: `u2netp`, `efficientnet-lite0`, a name looked up in ``searchDirectories``
    /// (`u2net`, or one converted there: `silueta`, `u2net_human_seg`), or a path (with a `/` or ending in
    /// `.safetensors`).
    public init(argument: String) {
        if argument == "u2netp" { self = .u2netp }
        else if argument == "efficientnet-lite0" { self = .efficientNetLite0 }
        else if argument.contains("/") || argument.hasSuffix(".safetensors") { self = .file(argument) }
        else { self = .named(argument) }
    }

    /// The names of the models linked into the binary.
    static let builtInNames = ["u2netp", "efficientnet-lite0"]

    /// The names of the models in ``searchDirectories`` (`NAME.safetensors`), sorted, each once: for the error
    /// that names what `--model` could have been.
    static var convertedNames: [String] {
        let names = searchDirectories.flatMap { dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
                .filter { $0.hasSuffix(".safetensors") }.map { String($0.dropLast(".safetensors".count)) }
        }
        return Array(Set(names)).sorted()
    }

    /// Folders searched for named models: `$SWIFTSEG_MODEL_DIR`, then `$XDG_CACHE_HOME/swiftseg` (default
    /// `~/.cache/swiftseg`), where `Tools/fetch_weights.sh` writes.
    public static var searchDirectories: [String] {
        var dirs: [String] = []
        if let d = getenv("SWIFTSEG_MODEL_DIR") { dirs.append(String(cString: d)) }
        if let d = getenv("XDG_CACHE_HOME") { dirs.append(String(cString: d) + "/swiftseg") }
        else if let h = getenv("HOME") { dirs.append(String(cString: h) + "/.cache/swiftseg") }
        return dirs
    }

    /// Opens the weights (memory-mapped or embedded). Throws a one-line error saying what to run when a
    /// named model has not been fetched.
    public func open() throws -> SafeTensorsFile {
        switch self {
        case .u2netp:
            return try SafeTensorsFile.embeddedU2NetP()
        case .efficientNetLite0:
            return try SafeTensorsFile.embeddedEfficientNetLite0()
        case .named(let name):
            for dir in ModelSource.searchDirectories {
                let path = "\(dir)/\(name).safetensors"
                if access(path, F_OK) == 0 { return try SafeTensorsFile(path: path) }
            }
            let folder = ModelSource.searchDirectories.first ?? "~/.cache/swiftseg"
            let how = ModelSource.fetchableNames.contains(name) ? "fetch it with: Tools/fetch_weights.sh \(name)"
                : "convert an ONNX file there with: Tools/convert_onnx.py FILE.onnx -o \(folder)/\(name).safetensors "
                  + "(rembg's ~/.u2net/\(name).onnx with --variant \(name); a MobileNetV2 export with its --mean, --std, --labels)"
            let converted = ModelSource.convertedNames
            throw RuntimeError.io(
                "model '\(name)' not found in \(ModelSource.searchDirectories.joined(separator: ", ")) (built in: "
                + "\(ModelSource.builtInNames.joined(separator: ", ")); converted there: "
                + "\(converted.isEmpty ? "none" : converted.joined(separator: ", "))); \(how)")
        case .file(let path):
            guard access(path, F_OK) == 0 else {
                let names = (ModelSource.builtInNames + ModelSource.fetchableNames).joined(separator: ", ")
                throw RuntimeError.io("model '\(path)': no such file (models: \(names), or a .safetensors path)")
            }
            return try SafeTensorsFile(path: path)
        }
    }

    /// Opens the weights and builds the network their `architecture` names (``ModelRegistry/builtIn``).
    public func load(options: ModelRegistry.LoadOptions = .init()) throws -> any Network {
        try ModelRegistry.builtIn.load(open(), options: options)
    }
}

extension SafeTensorsFile {
    /// The u2netp weights linked into the binary from Weights/u2netp.safetensors.
    public static func embeddedU2NetP() throws -> SafeTensorsFile {
        var size = 0
        let base = swiftseg_embedded_u2netp(&size)!
        return try SafeTensorsFile(file: MappedFile(staticBytes: UnsafeRawBufferPointer(start: base, count: size)),
                                   name: "embedded u2netp weights")
    }
}

extension SafeTensorsFile {
    /// The EfficientNet-Lite0 weights linked into the binary from Weights/efficientnet-lite0.safetensors.
    public static func embeddedEfficientNetLite0() throws -> SafeTensorsFile {
        var size = 0
        let base = swiftseg_embedded_efficientnet_lite0(&size)!
        return try SafeTensorsFile(file: MappedFile(staticBytes: UnsafeRawBufferPointer(start: base, count: size)),
                                   name: "embedded efficientnet-lite0 weights")
    }
}

extension EfficientNetLite {
    /// Loads and checks the model from `source`.
    public convenience init(source: ModelSource, prepareFastKernels: Bool = true) throws {
        try self.init(weights: source.open(), prepareFastKernels: prepareFastKernels)
    }
}

extension U2Net {
    /// Loads and checks the model from `source`.
    public convenience init(source: ModelSource, prepareFastKernels: Bool = true) throws {
        try self.init(weights: source.open(), prepareFastKernels: prepareFastKernels)
    }
}
