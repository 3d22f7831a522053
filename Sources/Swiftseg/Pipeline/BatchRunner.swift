import Dispatch
import Foundation
import Synchronization
import SwiftsegRuntime

/// Runs a batch of photos with decoding and encoding overlapped: `jobs` workers decode the next photos and
/// encode/write finished ones while the network works on the current photo — on the calling thread, or with
/// `lanes` > 1 on that many photos at once (one network workspace per lane, each with its own memory). Memory
/// stays bounded: at most `jobs + lanes` decoded photos wait, and at most `jobs` results. It is generic over
/// what `process` makes (a lifted subject, a classification, …): it only decodes, schedules, encodes and
/// writes.
///
/// ```swift
/// let runner = BatchRunner(jobs: 2)
/// runner.run(items, process: { try segmenter.lift($0, options: options) },
///            encode: { try $0.image.pngData() }) { result in print(result.status) }
/// ```
public final class BatchRunner {
    public struct Item: Sendable {
        public let input: BatchInput
        /// Where `encode`'s bytes go; nil for work that writes no file (classification: its results are
        /// reported, and nothing is skipped).
        public let output: String?
        public init(input: BatchInput, output: String?) { self.input = input; self.output = output }
    }

    public enum Status: Sendable, Equatable {
        case ok
        /// The output already existed (and `overwrite` was off).
        case skipped
        case failed(String)
    }

    /// One photo's outcome; `Value` is what `process` made.
    public struct Result<Value: Sendable>: Sendable {
        public let item: Item
        public let status: Status
        /// Wall time for this photo: decode, network and encode/write.
        public let milliseconds: Double
        /// What `process` made (nil when failed or skipped): for per-photo reports.
        public var value: Value? = nil
        /// How long its photo took to decode, when it was decoded: for per-photo reports' timings.
        public var decodeMilliseconds: Double? = nil
    }

    public let jobs: Int
    /// Photos in the network at the same time (each lane calls `process` with its own lane number).
    public let lanes: Int
    public let overwrite: Bool
    public let decoding: DecodingOptions
    /// Cores the lanes' networks share (their segmenters' or classifiers' ``CoreBudget``): a lane holds one
    /// while it processes a photo, so a lane left alone (the batch's last photos) runs on all of them. Nil:
    /// each lane keeps the threads it was given.
    public let cores: CoreBudget?

    /// `threads` split over `lanes` as evenly as whole threads allow (5 over 2: 3 and 2) — or, when the lanes
    /// share their cores through a ``CoreBudget``, all of them for every lane (each borrows what the others
    /// leave idle).
    public static func threadsPerLane(_ threads: Int, lanes: Int, sharingCores: Bool = false) -> [Int] {
        precondition(lanes >= 1 && lanes <= threads, "each lane needs a thread of its own")
        if sharingCores { return Array(repeating: threads, count: lanes) }
        return (0..<lanes).map { threads / lanes + ($0 < threads % lanes ? 1 : 0) }
    }

    public init(jobs: Int = 2, lanes: Int = 1, overwrite: Bool = false, decoding: DecodingOptions = DecodingOptions(),
                cores: CoreBudget? = nil) {
        precondition(jobs >= 1 && lanes >= 1, "jobs and lanes must be at least 1")
        self.jobs = jobs
        self.lanes = lanes
        self.overwrite = overwrite
        self.decoding = decoding
        self.cores = cores
    }

    /// Processes every item and calls `report` once per item, in completion order, from any thread but never
    /// concurrently. Returns when every output is written. With one lane, `process` runs on the calling thread.
    public func run<Value: Sendable>(_ items: [Item],
                                     process: (Image) throws -> Value,
                                     encode: @escaping @Sendable (Value) throws -> [UInt8],
                                     report: @escaping @Sendable (Result<Value>) -> Void) {
        run(items, process: { photo, _ in try process(photo) }, encode: encode, report: report)
    }

    /// The same with `lanes` photos in the network at once: `process(photo, lane)` is called concurrently for
    /// different lanes (0 ..< lanes), never twice at once for the same lane, so each lane can own a
    /// ``Segmenter`` (``Segmenter/lanes(sharing:configuration:count:)``).
    ///
    /// ```swift
    /// let segmenters = Segmenter.lanes(sharing: model, configuration: configuration, count: 2)
    /// BatchRunner(jobs: 2, lanes: 2).run(items, process: { try segmenters[$1].lift($0, options: options) },
    ///                                    encode: { try $0.image.pngData() }) { print($0.status) }
    /// ```
    public func run<Value: Sendable>(_ items: [Item],
                                     process: (Image, _ lane: Int) throws -> Value,
                                     encode: @escaping @Sendable (Value) throws -> [UInt8],
                                     report: @escaping @Sendable (Result<Value>) -> Void) {
        run(items, process: process, files: { value, item in
            guard let output = item.output else { return [] }
            return [(output, try encode(value))]
        }, writesWithoutOutput: false, report: report)
    }

    /// The general form: `files(value, item)` names any number of outputs for a photo (a crop per rectangle,
    /// say), encoded off the lanes and written together, all or none (``AtomicFile``); folders are created.
    /// An item whose `output` is nil and for which `files` gives nothing is reported when processed.
    public func run<Value: Sendable>(_ items: [Item],
                                     process: (Image, _ lane: Int) throws -> Value,
                                     files: @escaping @Sendable (Value, Item) throws -> [(path: String, bytes: [UInt8])],
                                     report: @escaping @Sendable (Result<Value>) -> Void) {
        run(items, process: process, files: files, writesWithoutOutput: true, report: report)
    }

    /// The same with the photos decoded by `decode(path)` (a ``ReducedImage`` for work that needs only part of
    /// a large photo's pixels, say) instead of in full with the runner's decoding options.
    public func run<Photo: Sendable, Value: Sendable>(
        _ items: [Item], decode: @escaping @Sendable (String) throws -> Photo,
        process: (Photo, _ lane: Int) throws -> Value,
        files: @escaping @Sendable (Value, Item) throws -> [(path: String, bytes: [UInt8])],
        report: @escaping @Sendable (Result<Value>) -> Void) {
        run(items, decode: decode, process: process, files: files, writesWithoutOutput: true, report: report)
    }

    func run<Value: Sendable>(_ items: [Item], process: (Image, _ lane: Int) throws -> Value,
                              files: @escaping @Sendable (Value, Item) throws -> [(path: String, bytes: [UInt8])],
                              writesWithoutOutput: Bool, report: @escaping @Sendable (Result<Value>) -> Void) {
        let decoding = self.decoding
        run(items, decode: { try Image(contentsOfFile: $0, options: decoding) }, process: process, files: files,
            writesWithoutOutput: writesWithoutOutput, report: report)
    }

    func run<Photo: Sendable, Value: Sendable>(
        _ items: [Item], decode: @escaping @Sendable (String) throws -> Photo, process: (Photo, _ lane: Int) throws -> Value,
        files: @escaping @Sendable (Value, Item) throws -> [(path: String, bytes: [UInt8])],
        writesWithoutOutput: Bool, report: @escaping @Sendable (Result<Value>) -> Void) {
        let state = State<Photo>(count: items.count)
        let decodeSlots = DispatchSemaphore(value: jobs + lanes)
        let encodeSlots = DispatchSemaphore(value: jobs)
        let workers = DispatchQueue(label: "swiftseg.batch", attributes: .concurrent)
        let decodeWorkers = DispatchSemaphore(value: jobs)
        let done = DispatchGroup()
        let overwrite = self.overwrite, cores = self.cores

        // Producer: decode ahead, in order, bounded.
        let feeding = DispatchGroup()
        feeding.enter()
        Thread.detachNewThread {
            for (i, item) in items.enumerated() {
                decodeSlots.wait()
                let skip = !overwrite && item.output.map { FileManager.default.fileExists(atPath: $0) } == true
                if skip { state.finishDecode(i, .skipped(start: DispatchTime.now().uptimeNanoseconds)); continue }
                decodeWorkers.wait()
                workers.async {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let decoded: Decoded<Photo>
                    do {
                        let photo = try decode(item.input.path)
                        decoded = .image(photo, start: start, decodeMs: BatchRunner.elapsed(start))
                    } catch { decoded = .failed("\(error)", start: start) }
                    decodeWorkers.signal()
                    state.finishDecode(i, decoded)
                }
            }
            feeding.leave()
        }

        // Lanes take the photos in order; each runs the network on one photo at a time.
        let nextItem = Atomic<Int>(0)
        @Sendable func lane(_ laneIndex: Int, _ process: (Photo, Int) throws -> Value) {
            while true {
                let i = nextItem.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < items.count else { return }
                let item = items[i]
                let decoded = state.takeDecoded(i)
                decodeSlots.signal()
                switch decoded {
                case .skipped(let start):
                    state.report(Result<Value>(item: item, status: .skipped, milliseconds: BatchRunner.elapsed(start)), report)
                case .failed(let message, let start):
                    state.report(Result<Value>(item: item, status: .failed(message), milliseconds: BatchRunner.elapsed(start)), report)
                case .image(let photo, let start, let decodeMs):
                    let value: Value
                    do {
                        if let cores { value = try cores.withCore { try process(photo, laneIndex) } }
                        else { value = try process(photo, laneIndex) }
                    } catch {
                        state.report(Result<Value>(item: item, status: .failed("\(item.input.path): \(error)"),
                                                   milliseconds: BatchRunner.elapsed(start)), report)
                        continue
                    }
                    guard item.output != nil || writesWithoutOutput else {  // nothing to write: reported as done
                        state.report(Result(item: item, status: .ok, milliseconds: BatchRunner.elapsed(start), value: value,
                                            decodeMilliseconds: decodeMs),
                                     report)
                        continue
                    }
                    encodeSlots.wait()
                    done.enter()
                    workers.async {
                        var status = Status.ok
                        do {
                            let outputs = try files(value, item)
                            for folder in Set(outputs.map { URL(fileURLWithPath: $0.path).deletingLastPathComponent().path }) {
                                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                            }
                            try AtomicFile.write(outputs)
                        } catch {
                            status = .failed("\(item.output ?? item.input.path): \(error)")
                        }
                        state.report(Result(item: item, status: status, milliseconds: BatchRunner.elapsed(start),
                                            value: status == .ok ? value : nil, decodeMilliseconds: decodeMs),
                                     report)
                        encodeSlots.signal()
                        done.leave()
                    }
                }
            }
        }
        if lanes == 1 {
            lane(0, process)
        } else {
            withoutActuallyEscaping(process) { process in
                let shared = UncheckedSendableBox(process)
                DispatchQueue.concurrentPerform(iterations: lanes) { lane($0, shared.value) }
            }
        }
        feeding.wait()
        done.wait()
    }

    @Sendable static func elapsed(_ start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    enum Decoded<Photo: Sendable>: Sendable {
        case image(Photo, start: UInt64, decodeMs: Double)
        case failed(String, start: UInt64)
        case skipped(start: UInt64)
    }

    /// Hand-off slots between the decoding workers and the network thread, and the serialised reporter.
    final class State<Photo: Sendable>: @unchecked Sendable {
        private let lock = NSCondition()
        private var decoded: [Decoded<Photo>?]
        private let reportLock = NSLock()

        init(count: Int) { decoded = Array(repeating: nil, count: count) }

        func finishDecode(_ i: Int, _ value: Decoded<Photo>) {
            lock.lock()
            decoded[i] = value
            lock.broadcast()
            lock.unlock()
        }

        func takeDecoded(_ i: Int) -> Decoded<Photo> {
            lock.lock()
            defer { lock.unlock() }
            while decoded[i] == nil { lock.wait() }
            let value = decoded[i]!
            decoded[i] = nil
            return value
        }

        func report<Value>(_ result: Result<Value>, _ callback: @Sendable (Result<Value>) -> Void) {
            reportLock.lock()
            callback(result)
            reportLock.unlock()
        }
    }
}

extension BatchRunner.Result {
    /// One JSON line for a `--manifest` file: input, output, status (ok, skipped, failed), error, ms, and the
    /// caller's `fields` (e.g. `instances`), keys sorted.
    public func manifestLine(_ fields: [String: Any] = [:]) -> String {
        var object: [String: Any] = ["input": item.input.path, "output": item.output ?? NSNull(),
                                     "ms": (milliseconds * 10).rounded() / 10]
        for (key, value) in fields { object[key] = value }
        switch status {
        case .ok: object["status"] = "ok"; object["error"] = NSNull()
        case .skipped: object["status"] = "skipped"; object["error"] = NSNull()
        case .failed(let message): object["status"] = "failed"; object["error"] = message
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Carries the per-lane `process` closure into the lanes' threads; each lane calls it for its own segmenter.
private struct UncheckedSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
