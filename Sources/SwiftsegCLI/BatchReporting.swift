import Dispatch
import Foundation
import Swiftseg

// What every batch subcommand reports (infer, classify): the manifest, and the progress on standard error.

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
