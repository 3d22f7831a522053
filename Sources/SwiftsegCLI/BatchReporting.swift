import Dispatch
import Foundation
import Swiftseg

// What every batch subcommand does around its work (infer, classify, rectangles): its photos found and sharded,
// the manifest, the progress on standard error, and the tally at the end.

/// One batch subcommand's run: the subcommand finds its photos with ``inputs(_:)``, checks and names its
/// outputs, then hands ``reporter(for:output:manifest:)`` to ``BatchRunner`` and calls ``finish()``.
///
/// ```swift
/// let batch = BatchSession<Detected>(options.batch) { "(\(Int($0.milliseconds)) ms)" }
/// let (all, isMine) = try batch.inputs(options.inputs)
/// let report = try batch.reporter(for: items, output: { … }, manifest: { … })   // opens the manifest
/// BatchRunner(…).run(items, …, report: report)
/// try batch.finish()
/// ```
final class BatchSession<Value: Sendable>: @unchecked Sendable {
    let settings: BatchOptions.Settings
    let okDetail: @Sendable (BatchRunner.Result<Value>) -> String
    private var progress: BatchProgress<Value>?

    init(_ settings: BatchOptions.Settings, okDetail: @escaping @Sendable (BatchRunner.Result<Value>) -> String) {
        ProcessMemory.returnLargeBlocksToSystem()  // flat, low RSS over long batches (PERF.md, "Batches")
        self.settings = settings
        self.okDetail = okDetail
    }

    /// Every photo of the inputs (folders searched), and which are this shard's. Outputs are named over all
    /// of them before the rest are left out, so every shard names its files as the whole batch would.
    func inputs(_ paths: [String]) throws -> (all: [BatchInput], isMine: (BatchInput) -> Bool) {
        let all = try BatchInputs.collect(paths)
        guard let shard = settings.shard else { return (all, { _ in true }) }
        return (all, { BatchInputs.isInShard($0, index: shard.index, count: shard.count) })
    }

    /// The runner's report for `items`: the photo's manifest line (the status, error and time, and `manifest`'s
    /// fields), its `output` on standard output, and the progress. Opens the manifest: call it once the
    /// subcommand's checks have passed, so a refused batch leaves no file behind.
    func reporter(for items: [BatchRunner.Item], output: @escaping @Sendable (BatchRunner.Result<Value>) -> String?,
                  manifest fields: @escaping @Sendable (BatchRunner.Result<Value>) -> [String: Any]) throws
        -> @Sendable (BatchRunner.Result<Value>) -> Void {
        let manifest = try settings.manifestPath.map { try ManifestWriter(path: $0) }
        let progress = BatchProgress<Value>(total: items.count, quiet: settings.quiet, okDetail: okDetail)
        self.progress = progress
        return { result in
            manifest?.append(result.manifestLine(fields(result)))
            if let text = output(result) { FileHandle.standardOutput.write(Data(text.utf8)) }
            progress.record(result)
        }
    }

    /// The summary line, and a failure (exit 1) when any photo failed.
    func finish() throws {
        guard let progress else { return }
        progress.finish()
        if progress.failed > 0 { throw CLIError.failure("\(progress.failed) of \(progress.total) photos failed") }
    }
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

/// A progress bar on a terminal (count, photos/s, ETA), plain per-photo lines otherwise, on stderr;
/// `okDetail` says what a finished photo made, after its name.
final class BatchProgress<Value: Sendable>: @unchecked Sendable {
    let total: Int
    let quiet: Bool
    let okDetail: @Sendable (BatchRunner.Result<Value>) -> String
    let tty = isatty(STDERR_FILENO) != 0
    let start = DispatchTime.now().uptimeNanoseconds
    var done = 0, failed = 0, skipped = 0

    init(total: Int, quiet: Bool, okDetail: @escaping @Sendable (BatchRunner.Result<Value>) -> String) {
        self.total = total
        self.quiet = quiet
        self.okDetail = okDetail
    }

    func record(_ result: BatchRunner.Result<Value>) {
        done += 1
        let line: String?
        switch result.status {
        case .ok: line = quiet || tty ? nil : "ok       \(result.item.input.path) \(okDetail(result))"
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
            let processed = total - failed - skipped
            // two decimals for short runs (a few photos take tens of milliseconds), the rate when any were made
            let time = String(format: seconds < 10 ? "%.2f" : "%.1f", seconds)
            let rate = processed > 0 ? String(format: " (%.1f photos/s)", Double(processed) / max(seconds, 1e-3)) : ""
            write("\(total) photos: \(processed) done, \(skipped) skipped, \(failed) failed in \(time) s\(rate)\n")
        }
    }

    func write(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }
}
