import Dispatch
import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

/// The batch side of `swiftseg infer`: progress, per-photo lines and the manifest (the work itself is
/// ``BatchRunner`` in the library).
extension InferCommand {
    static func runBatch(_ options: InferOptions, model network: any Network, configuration: Segmenter.Configuration) throws {
        let batch = BatchSession<LiftedSubject>(options.batch) { result in
            "→ \(result.item.output ?? "") (\(Int(result.milliseconds)) ms, \(result.value?.observation.instances.count ?? 0) instances)"
        }
        let (inputs, isMine) = try batch.inputs(options.inputs)
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
        let items = zip(inputs, outputs).map { BatchRunner.Item(input: $0, output: $1) }.filter { isMine($0.input) }
        let pipeline = try pipeline(options, format: format)
        // --json: one report line per finished photo on standard output (the progress is on standard error).
        let json = options.json, model = network.name
        // One segmenter per lane (they share the model's weights and the threads' cores: a photo's bytes are
        // those of a single-photo run with the same --threads).
        let segmenters = Segmenter.lanes(sharing: network, configuration: configuration, count: options.batch.concurrent)
        let report = try batch.reporter(for: items, output: { result in
            guard json, let lifted = result.value else { return nil }
            let subjects = pipeline.report(for: lifted, input: result.item.input.path, model: model,
                                           timingsMs: SubjectLiftingPipeline.timingsMs(lifted, decodeMs: result.decodeMilliseconds))
            return (try? subjects.jsonData(pretty: false)).map { String(decoding: $0, as: UTF8.self) }
        }, manifest: { ["instances": $0.value?.observation.instances.count ?? 0] })
        BatchRunner(jobs: options.batch.jobs, lanes: options.batch.concurrent, overwrite: options.overwrite,
                    decoding: options.batch.decoding, cores: configuration.coreBudget).run(
            items,
            process: { try pipeline.lift($0, with: segmenters[$1]) },
            encode: { try pipeline.encode($0).image },
            report: report)
        try batch.finish()
    }
}
