import Swiftseg

/// Options every subcommand that reads photos in batches shares (infer, classify): decoding limits, the
/// workers, sharding, quiet. One spec and one parser each, so their help and checks are the same everywhere.
enum BatchOptions {
    static let ignoreOrientation = OptionSpec(names: ["--ignore-orientation"], valueName: nil,
        help: "Keep the stored pixel order instead of turning photos upright by their EXIF tag.")
    static let maxPixels = OptionSpec(names: ["--max-pixels"], valueName: "N",
        help: "Refuse images over N pixels before decoding them (100000000).")
    static let jobs = OptionSpec(names: ["--jobs"], valueName: "N",
        help: "Batch: photos decoded/encoded alongside the network (2).")
    static let shard = OptionSpec(names: ["--shard"], valueName: "I/N",
        help: "Batch: process only shard I of N (0 ≤ I < N), a deterministic split by path.")
    static let quiet = OptionSpec(names: ["--quiet"], valueName: nil,
        help: "Batch: no progress or per-photo lines; failures are still reported.")

    static func decoding(_ args: ParsedArguments) throws -> DecodingOptions {
        var decoding = DecodingOptions()
        decoding.appliesOrientation = !args.has("--ignore-orientation")
        decoding.maxPixels = try args.positiveInt("--max-pixels", default: decoding.maxPixels)
        return decoding
    }

    static func jobs(_ args: ParsedArguments) throws -> Int { try args.positiveInt("--jobs", default: 2) }

    static func shard(_ args: ParsedArguments) throws -> (index: Int, count: Int)? {
        guard let text = args.value("--shard") else { return nil }
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (0..<n).contains(i) else {
            throw CLIError.usage("--shard expects I/N with 0 ≤ I < N, e.g. 0/4, got '\(text)'")
        }
        return (i, n)
    }
}
