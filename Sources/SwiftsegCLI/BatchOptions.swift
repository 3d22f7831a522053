import Foundation
import Swiftseg

/// Options every subcommand that reads photos in batches shares (infer, classify, rectangles): decoding limits,
/// the workers, sharding, the manifest, quiet. One spec and one parser each, so their help and checks are the
/// same everywhere.
enum BatchOptions {
    /// The `<input>…` positional's help, from the formats swiftseg reads (``ImageFormat``).
    static let inputsHelp = "\(ImageFormat.names()) files, folders (searched recursively\nfor "
        + ImageFormat.allCases.flatMap(\.extensions).map { "." + $0 }.joined(separator: "/")
        + "), or - for one image\non standard input."
    static let ignoreOrientation = OptionSpec(names: ["--ignore-orientation"], valueName: nil,
        help: "Keep the stored pixel order instead of turning photos upright by their EXIF tag.")
    static let maxPixels = OptionSpec(names: ["--max-pixels"], valueName: "N",
        help: "Refuse images over N pixels before decoding them (\(DecodingOptions().maxPixels)).")
    static let defaultJobs = 2
    /// `--jobs`: the workers that decode and encode alongside `work` ("the network", "detection").
    static func jobs(alongside work: String) -> OptionSpec {
        OptionSpec(names: ["--jobs"], valueName: "N", help: "photos decoded/encoded alongside \(work) (\(defaultJobs)).", batchOnly: true)
    }
    static let defaultConcurrent = 2
    /// `--concurrent`: photos in the network at once; `more` continues the sentence (with its line breaks).
    static func concurrent(_ more: String) -> OptionSpec {
        OptionSpec(names: ["--concurrent"], valueName: "N",
                   help: "photos in the network at the same time (\(defaultConcurrent), or 1 with --threads 1)\(more)", batchOnly: true)
    }
    static let shard = OptionSpec(names: ["--shard"], valueName: "I/N|auto",
        help: "process only shard I of N (0 ≤ I < N), a deterministic split by path;\nauto reads I and N from the scheduler (Kubernetes Indexed Job, Slurm array,\nAWS Batch array, Cloud Run job).",
        batchOnly: true)
    static let shardCount = OptionSpec(names: ["--shard-count"], valueName: "N",
        help: "with --shard auto, the number of shards (Kubernetes sets none;\nor SWIFTSEG_SHARD_COUNT).", batchOnly: true)
    /// `--manifest`, whose lines hold `fields` besides the status, the error and the time.
    static func manifest(_ fields: String) -> OptionSpec {
        OptionSpec(names: ["--manifest"], valueName: "FILE", help: "append one JSON line per photo (\(fields), ms).", batchOnly: true)
    }
    /// Accepted for one photo too (it has no progress to hide), so a script can pass it always.
    static let quiet = OptionSpec(names: ["--quiet"], valueName: nil,
        help: "Batch: no progress or per-photo lines; failures are still reported.")

    /// A subcommand's inputs and whether they make a batch (several, or a folder). `-` (standard input) is one
    /// photo only, unless the subcommand checks that itself (`refusesStandardInputInBatch: false`).
    static func inputs(_ args: ParsedArguments, subcommand: String,
                       refusesStandardInputInBatch: Bool = true) throws -> (inputs: [String], isBatch: Bool) {
        guard !args.positionals.isEmpty else {
            throw CLIError.usage("\(subcommand) needs an input image (see 'swiftseg \(subcommand) --help')")
        }
        let inputs = args.positionals
        var isDirectory: ObjCBool = false
        let isBatch = inputs.count > 1
            || (FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isDirectory) && isDirectory.boolValue)
        if refusesStandardInputInBatch && isBatch && inputs.contains("-") {
            throw CLIError.usage("- (standard input) is for one photo; give files or folders for a batch")
        }
        return (inputs, isBatch)
    }

    static func decoding(_ args: ParsedArguments) throws -> DecodingOptions {
        var decoding = DecodingOptions()
        decoding.appliesOrientation = !args.has("--ignore-orientation")
        decoding.maxPixels = try args.positiveInt("--max-pixels", default: decoding.maxPixels)
        return decoding
    }

    static func shard(_ args: ParsedArguments) throws -> (index: Int, count: Int)? {
        let count = try args.value("--shard-count").map { _ in try args.positiveInt("--shard-count", default: 1) }
        if count != nil && args.value("--shard") != "auto" { throw CLIError.usage("--shard-count goes with --shard auto") }
        guard let text = args.value("--shard") else { return nil }
        if text == "auto" {
            do {
                let shard = try SchedulerShard(environment: ProcessInfo.processInfo.environment, count: count)
                FileHandle.standardError.write(Data("swiftseg: --shard auto: shard \(shard.index) of \(shard.count), from \(shard.source)\n".utf8))
                return (shard.index, shard.count)
            } catch {
                throw CLIError.usage(SwiftsegError(error).message)
            }
        }
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (0..<n).contains(i) else {
            throw CLIError.usage("--shard expects I/N with 0 ≤ I < N, e.g. 0/4, got '\(text)'")
        }
        return (i, n)
    }

    /// For one photo: a batch-only option given (one of `options` marked ``OptionSpec/batchOnly``) is a usage
    /// error, so it is not silently ignored.
    static func refuseBatchFlags(_ args: ParsedArguments, options: [OptionSpec]) throws {
        for option in options where option.batchOnly {
            let name = option.names.last!
            if args.value(name) != nil || args.has(name) {
                throw CLIError.usage("\(name) is for batches (several inputs or a folder)")
            }
        }
    }

    /// What these options set, parsed once for every batch subcommand.
    struct Settings {
        var decoding: DecodingOptions
        var jobs: Int
        /// Photos in the network at once; they share `--threads`' cores, one each at least.
        var concurrent: Int
        var shard: (index: Int, count: Int)?
        var manifestPath: String?
        var quiet: Bool

        /// `concurrent`: photos in flight when the subcommand fixes it (rectangles: one per thread, no network).
        init(_ args: ParsedArguments, threads: Int, concurrent fixed: Int? = nil) throws {
            decoding = try BatchOptions.decoding(args)
            jobs = try args.positiveInt("--jobs", default: BatchOptions.defaultJobs)
            concurrent = try fixed ?? args.positiveInt("--concurrent", default: min(BatchOptions.defaultConcurrent, threads))
            if concurrent > threads {  // the lanes share --threads; each needs one
                throw CLIError.usage("--concurrent \(concurrent) photos need a core each of --threads \(threads): give at most \(threads)")
            }
            shard = try BatchOptions.shard(args)
            manifestPath = args.value("--manifest")
            quiet = args.has("--quiet")
        }
    }
}
