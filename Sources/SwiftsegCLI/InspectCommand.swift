import Foundation
import SwiftsegModels
import SwiftsegRuntime

/// `swiftseg inspect`: what a weights file is, and whether it loads.
enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect",
        summary: "Describe a weights file (metadata, tensors) and check that it loads.",
        usage: "swiftseg inspect [<model>]",
        positionals: [("<model>", "u2netp (default, built in), efficientnet-lite0 (built in), u2net, or a\n.safetensors file.")],
        options: [],
        discussion: "Exits non-zero, with the reason, when the file is not a weights file this build can load.")

    static func run(_ args: ParsedArguments) throws {
        guard args.positionals.count <= 1 else { throw CLIError.usage("inspect takes at most one model") }
        let source = ModelSource(argument: args.positionals.first ?? "u2netp")
        do {
            let file = try source.open()
            print("file: \(file.name)")
            for key in file.metadata.keys.sorted() { print("  \(key): \(summary(of: file.metadata[key]!))") }
            let parameters = file.tensors.values.reduce(0) { $0 + $1.elementCount }
            print("tensors: \(file.tensors.count), parameters: \(parameters)")
            let model = try ModelRegistry.builtIn.load(file)
            let size = model.preprocessing.inputSize
            let gmacs = Double(model.convMACs(height: size, width: size)) / 1e9
            print("model: \(model.name), \(String(format: "%.1f", gmacs)) GMAC per \(size)×\(size) image — loads OK")
        } catch let error as RuntimeError {
            throw CLIError.failure(error.description)
        }
    }

    /// A metadata value for one line: a JSON array as its length and first items (the classifier's 1,000
    /// labels), other long values cut.
    static func summary(of value: String) -> String {
        if value.hasPrefix("["), let data = value.data(using: .utf8),
           let items = try? JSONSerialization.jsonObject(with: data) as? [String] {
            return "\(items.count) items: " + items.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (items.count > 3 ? ", …" : "")
        }
        return value.count > 100 ? String(value.prefix(100)) + "… (\(value.count) characters)" : value
    }
}
