import Dispatch
import Foundation
import Synchronization
import SwiftsegModels
import SwiftsegRuntime

/// Runs a batch of photos with decoding and encoding overlapped: `jobs` workers decode the next photos and
/// encode/write finished ones while the network works on the current photo — on the calling thread, or with
/// `lanes` > 1 on that many photos at once (one segmenter per lane, each with its own memory). Memory stays
/// bounded: at most `jobs + lanes` decoded photos wait, and at most `jobs` results.
///
/// ```swift
/// let runner = BatchRunner(jobs: 2)
/// runner.run(items, process: { try segmenter.lift($0, options: options) },
///            encode: { try $0.image.pngData() }) { result in print(result.status) }
/// ```
public final class BatchRunner {
    public struct Item: Sendable {
        public let input: BatchInput
        public let output: String
        public init(input: BatchInput, output: String) { self.input = input; self.output = output }
    }

    public enum Status: Sendable, Equatable {
        case ok
        /// The output already existed (and `overwrite` was off).
        case skipped
        case failed(String)
    }

    public struct Result: Sendable {
        public let item: Item
        public let status: Status
        /// Instances found (0 when failed or skipped).
        public let instances: Int
        /// Wall time for this photo: decode, network and encode/write.
        public let milliseconds: Double
        /// What the network found and what was rendered (nil when failed or skipped): for per-photo reports.
        public var lifted: LiftedSubject? = nil
    }

    public let jobs: Int
    /// Photos in the network at the same time (each lane calls `process` with its own lane number).
    public let lanes: Int
    public let overwrite: Bool
    public let decoding: DecodingOptions

    /// One segmenter per lane, sharing `model`'s weights, with `configuration.threads` split between them as
    /// evenly as whole threads allow (5 threads over 2 lanes: 3 and 2), each with its own activation memory.
    ///
    /// ```swift
    /// let lanes = BatchRunner.laneSegmenters(model: model, configuration: config, lanes: 2)
    /// ```
    public static func laneSegmenters(model: U2Net, configuration: Segmenter.Configuration, lanes: Int) -> [Segmenter] {
        precondition(lanes >= 1 && lanes <= configuration.threads, "each lane needs a thread of its own")
        return (0..<lanes).map { lane in
            var perLane = configuration
            perLane.threads = configuration.threads / lanes + (lane < configuration.threads % lanes ? 1 : 0)
            return Segmenter(model: model, configuration: perLane)
        }
    }

    public init(jobs: Int = 2, lanes: Int = 1, overwrite: Bool = false, decoding: DecodingOptions = DecodingOptions()) {
        precondition(jobs >= 1 && lanes >= 1, "jobs and lanes must be at least 1")
        self.jobs = jobs
        self.lanes = lanes
        self.overwrite = overwrite
        self.decoding = decoding
    }

    /// Processes every item and calls `report` once per item, in completion order, from any thread but never
    /// concurrently. Returns when every output is written. With one lane, `process` runs on the calling thread.
    public func run(_ items: [Item],
                    process: (Image) throws -> LiftedSubject,
                    encode: @escaping @Sendable (LiftedSubject) throws -> [UInt8],
                    report: @escaping @Sendable (Result) -> Void) {
        run(items, process: { photo, _ in try process(photo) }, encode: encode, report: report)
    }

    /// The same with `lanes` photos in the network at once: `process(photo, lane)` is called concurrently for
    /// different lanes (0 ..< lanes), never twice at once for the same lane, so each lane can own a
    /// ``Segmenter``.
    ///
    /// ```swift
    /// let segmenters = (0..<2).map { _ in Segmenter(model: model, configuration: oneThread) }
    /// BatchRunner(jobs: 2, lanes: 2).run(items, process: { try segmenters[$1].lift($0, options: options) },
    ///                                    encode: { try $0.image.pngData() }) { print($0.status) }
    /// ```
    public func run(_ items: [Item],
                    process: (Image, _ lane: Int) throws -> LiftedSubject,
                    encode: @escaping @Sendable (LiftedSubject) throws -> [UInt8],
                    report: @escaping @Sendable (Result) -> Void) {
        let state = State(count: items.count)
        let decodeSlots = DispatchSemaphore(value: jobs + lanes)
        let encodeSlots = DispatchSemaphore(value: jobs)
        let workers = DispatchQueue(label: "swiftseg.batch", attributes: .concurrent)
        let decodeWorkers = DispatchSemaphore(value: jobs)
        let done = DispatchGroup()
        let decoding = self.decoding, overwrite = self.overwrite

        // Producer: decode ahead, in order, bounded.
        let feeding = DispatchGroup()
        feeding.enter()
        Thread.detachNewThread {
            for (i, item) in items.enumerated() {
                decodeSlots.wait()
                let skip = !overwrite && FileManager.default.fileExists(atPath: item.output)
                if skip { state.finishDecode(i, .skipped(start: DispatchTime.now().uptimeNanoseconds)); continue }
                decodeWorkers.wait()
                workers.async {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let decoded: Decoded
                    do { decoded = .image(try Image(contentsOfFile: item.input.path, options: decoding), start: start) }
                    catch { decoded = .failed("\(error)", start: start) }
                    decodeWorkers.signal()
                    state.finishDecode(i, decoded)
                }
            }
            feeding.leave()
        }

        // Lanes take the photos in order; each runs the network on one photo at a time.
        let nextItem = Atomic<Int>(0)
        @Sendable func lane(_ laneIndex: Int, _ process: (Image, Int) throws -> LiftedSubject) {
            while true {
                let i = nextItem.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < items.count else { return }
                let item = items[i]
                let decoded = state.takeDecoded(i)
                decodeSlots.signal()
                switch decoded {
                case .skipped(let start):
                    state.report(Result(item: item, status: .skipped, instances: 0, milliseconds: BatchRunner.elapsed(start)), report)
                case .failed(let message, let start):
                    state.report(Result(item: item, status: .failed(message), instances: 0, milliseconds: BatchRunner.elapsed(start)), report)
                case .image(let photo, let start):
                    let lifted: LiftedSubject
                    do { lifted = try process(photo, laneIndex) } catch {
                        state.report(Result(item: item, status: .failed("\(item.input.path): \(error)"), instances: 0,
                                            milliseconds: BatchRunner.elapsed(start)), report)
                        continue
                    }
                    encodeSlots.wait()
                    done.enter()
                    workers.async {
                        var status = Status.ok
                        do {
                            try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: item.output).deletingLastPathComponent().path,
                                                                    withIntermediateDirectories: true)
                            try AtomicFile.write(try encode(lifted), to: item.output)
                        } catch {
                            status = .failed("\(item.output): \(error)")
                        }
                        state.report(Result(item: item, status: status, instances: lifted.observation.instances.count,
                                            milliseconds: BatchRunner.elapsed(start), lifted: status == .ok ? lifted : nil),
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

    enum Decoded: Sendable {
        case image(Image, start: UInt64)
        case failed(String, start: UInt64)
        case skipped(start: UInt64)
    }

    /// Hand-off slots between the decoding workers and the network thread, and the serialised reporter.
    final class State: @unchecked Sendable {
        private let lock = NSCondition()
        private var decoded: [Decoded?]
        private let reportLock = NSLock()

        init(count: Int) { decoded = Array(repeating: nil, count: count) }

        func finishDecode(_ i: Int, _ value: Decoded) {
            lock.lock()
            decoded[i] = value
            lock.broadcast()
            lock.unlock()
        }

        func takeDecoded(_ i: Int) -> Decoded {
            lock.lock()
            defer { lock.unlock() }
            while decoded[i] == nil { lock.wait() }
            let value = decoded[i]!
            decoded[i] = nil
            return value
        }

        func report(_ result: Result, _ callback: @Sendable (Result) -> Void) {
            reportLock.lock()
            callback(result)
            reportLock.unlock()
        }
    }
}

extension BatchRunner.Result {
    /// One JSON line for a `--manifest` file: input, output, status (ok, skipped, failed), error, instances, ms.
    public func manifestLine() -> String {
        var object: [String: Any] = ["input": item.input.path, "output": item.output, "instances": instances,
                                     "ms": (milliseconds * 10).rounded() / 10]
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
