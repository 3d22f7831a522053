import Dispatch
import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

/// The batch side of `swiftseg infer`: progress, per-photo lines and the manifest (the work itself is
/// ``BatchRunner`` in the library).
extension InferCommand {
    static func runBatch(_ options: InferOptions, model network: any Network, configuration: Segmenter.Configuration) throws {
        ProcessMemory.returnLargeBlocksToSystem()  // flat, low RSS over long batches (PERF.md, "Batches")
        let inputs = try BatchInputs.collect(options.inputs)
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: options.output, isDirectory: &isDir), !isDir.boolValue {
            throw CLIError.usage("\(options.output) is a file; for several inputs -o names a folder")
        }
        do { try fm.createDirectory(atPath: options.output, withIntermediateDirectories: true) }
        catch { throw CLIError.failure("\(options.output): cannot create the output folder") }
        let format = options.format ?? .png
        let outputs = BatchInputs.outputPaths(for: inputs, in: options.output, suffix: options.suffix,
                                              fileExtension: format.extensions[0])
        // Names are chosen over the whole input list, then sharded, so every shard names files alike.
        var items = zip(inputs, outputs).map { BatchRunner.Item(input: $0, output: $1) }
        if let shard = options.batch.shard {
            items = items.filter { BatchInputs.isInShard($0.input, index: shard.index, count: shard.count) }
        }
        let manifest = try options.batch.manifestPath.map { try ManifestWriter(path: $0) }
        let pipeline = try pipeline(options, format: format)
        // --json: one report line per finished photo on standard output (the progress is on standard error).
        let json = options.json, model = network.name
        @Sendable func printReport(_ lifted: LiftedSubject, input: String, decodeMs: Double?) {
            let report = pipeline.report(for: lifted, input: input, model: model,
                                         timingsMs: SubjectLiftingPipeline.timingsMs(lifted, decodeMs: decodeMs))
            if let line = try? report.jsonData(pretty: false) { FileHandle.standardOutput.write(Data(line)) }
        }
        let progress = BatchProgress<LiftedSubject>(total: items.count, quiet: options.batch.quiet) { result in
            "→ \(result.item.output ?? "") (\(Int(result.milliseconds)) ms, \(result.value?.observation.instances.count ?? 0) instances)"
        }
        // One segmenter per lane (they share the model's weights and the threads' cores: a photo's bytes are
        // those of a single-photo run with the same --threads).
        let segmenters = Segmenter.lanes(sharing: network, configuration: configuration, count: options.batch.concurrent)
        BatchRunner(jobs: options.batch.jobs, lanes: options.batch.concurrent, overwrite: options.overwrite,
                    decoding: options.batch.decoding, cores: configuration.coreBudget).run(
            items,
            process: { try pipeline.lift($0, with: segmenters[$1]) },
            encode: { try pipeline.encode($0).image },
            report: { result in
                manifest?.append(result.manifestLine(["instances": result.value?.observation.instances.count ?? 0]))
                if json, let lifted = result.value {
                    printReport(lifted, input: result.item.input.path, decodeMs: result.decodeMilliseconds)
                }
                progress.record(result)
            })
        progress.finish()
        if progress.failed > 0 { throw CLIError.failure("\(progress.failed) of \(items.count) photos failed") }
    }
}
