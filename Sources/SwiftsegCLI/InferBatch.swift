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
                                              fileExtension: format == .jpeg ? "jpg" : "png")
        // Names are chosen over the whole input list, then sharded, so every shard names files alike.
        var items = zip(inputs, outputs).map { BatchRunner.Item(input: $0, output: $1) }
        if let shard = options.shard {
            items = items.filter { BatchInputs.isInShard($0.input, index: shard.index, count: shard.count) }
        }
        let manifest = try options.manifestPath.map { try ManifestWriter(path: $0) }
        let pipeline = try pipeline(options, format: format)
        // --json: one report line per finished photo on standard output (the progress is on standard error).
        let json = options.json, model = network.name
        @Sendable func printReport(_ lifted: LiftedSubject, input: String) {
            let report = pipeline.report(for: lifted, input: input, model: model,
                                         timingsMs: SubjectLiftingPipeline.timingsMs(lifted))
            if let line = try? report.jsonData(pretty: false) { FileHandle.standardOutput.write(Data(line)) }
        }
        let progress = Progress(total: items.count, quiet: options.quiet)
        // One segmenter per lane (they share the model's weights), the threads split between them.
        let segmenters = Segmenter.lanes(sharing: network, configuration: configuration, count: options.concurrent)
        BatchRunner(jobs: options.jobs, lanes: options.concurrent, overwrite: options.overwrite,
                    decoding: options.decoding).run(
            items,
            process: { try pipeline.lift($0, with: segmenters[$1]) },
            encode: { try pipeline.encode($0).image },
            report: { result in
                manifest?.append(result.manifestLine(["instances": result.value?.observation.instances.count ?? 0]))
                if json, let lifted = result.value { printReport(lifted, input: result.item.input.path) }
                progress.record(result)
            })
        progress.finish()
        if progress.failed > 0 { throw CLIError.failure("\(progress.failed) of \(items.count) photos failed") }
    }

    /// Appends JSON lines to the manifest, flushed per line so a killed batch leaves whole lines.
    final class ManifestWriter: @unchecked Sendable {
        let handle: FileHandle
        init(path: String) throws {
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw CLIError.failure("\(path): cannot create the manifest")
                }
            }
            guard let h = FileHandle(forWritingAtPath: path) else { throw CLIError.failure("\(path): cannot open the manifest") }
            h.seekToEndOfFile()
            handle = h
        }
        func append(_ line: String) { handle.write(Data((line + "\n").utf8)) }
    }

    /// A progress bar on a terminal (count, photos/s, ETA), plain per-photo lines otherwise, on stderr.
    final class Progress: @unchecked Sendable {
        let total: Int
        let quiet: Bool
        let tty = isatty(STDERR_FILENO) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        var done = 0, failed = 0, skipped = 0

        init(total: Int, quiet: Bool) { self.total = total; self.quiet = quiet }

        func record(_ result: BatchRunner.Result<LiftedSubject>) {
            done += 1
            let line: String?
            switch result.status {
            case .ok: line = quiet || tty ? nil : "ok       \(result.item.input.path) → \(result.item.output) (\(Int(result.milliseconds)) ms, \(result.value?.observation.instances.count ?? 0) instances)"
            case .skipped:
                skipped += 1
                line = quiet || tty ? nil : "skipped  \(result.item.input.path) (output exists)"
            case .failed(let message):
                failed += 1
                line = "failed   \(message)"
            }
            if let line { write((tty ? "\r\u{1B}[K" : "") + line + "\n") }
            if tty && !quiet { write("\r\u{1B}[K" + bar()) }
        }

        func bar() -> String {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let rate = Double(done - skipped) / max(seconds, 1e-3)
            let remaining = rate > 0 ? Int(Double(total - done) / rate) : 0
            let width = 30, filled = total == 0 ? width : width * done / total
            return "[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(done)/\(total)  \(String(format: "%.1f", rate)) photos/s  ETA \(remaining / 60)m\(String(format: "%02d", remaining % 60))s"
        }

        func finish() {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if tty && !quiet { write("\r\u{1B}[K") }
            if !quiet {
                write("\(total) photos: \(total - failed - skipped) done, \(skipped) skipped, \(failed) failed in \(String(format: "%.1f", seconds)) s\n")
            }
        }

        func write(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }
    }
}
