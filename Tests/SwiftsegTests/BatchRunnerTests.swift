import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

final class BatchRunnerTests: XCTestCase {
    /// Lanes split the threads as evenly as whole threads allow (no thread left idle for an odd count) and
    /// share one model.
    func testLaneSegmentersSplitThreadsEvenly() throws {
        let model = try U2Net(source: .u2netp)
        for (threads, lanes, expected) in [(2, 2, [1, 1]), (5, 2, [3, 2]), (3, 3, [1, 1, 1]), (8, 3, [3, 3, 2]), (4, 1, [4])] {
            XCTAssertEqual(BatchRunner.threadsPerLane(threads, lanes: lanes), expected)
            var config = Segmenter.Configuration()
            config.threads = threads
            let segmenters = Segmenter.lanes(sharing: model, configuration: config, count: lanes)
            XCTAssertEqual(segmenters.map(\.configuration.threads), expected, "\(threads) threads, \(lanes) lanes")
            XCTAssertTrue(segmenters.allSatisfy { $0.model === model })
        }
    }

    /// The runner is generic over what `process` makes: here the photo's size, written as text. Good photos are
    /// reported with their value; a corrupt one fails with its name and leaves no output; an existing output
    /// is skipped.
    func testRunsAnyValueAndReportsEachPhoto() throws {
        let dir = NSTemporaryDirectory() + "swiftseg-batch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let corrupt = "\(dir)/corrupt.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: corrupt, contents: Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])))
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dir)/existing.txt", contents: Data("old".utf8)))
        let inputs = [Fixtures.path("photos/coins.png"), corrupt, Fixtures.path("photos/rocket.jpg"),
                      Fixtures.path("photos/chelsea.png")]
        let outputs = ["\(dir)/coins.txt", "\(dir)/corrupt.txt", "\(dir)/rocket.txt", "\(dir)/existing.txt"]
        let items = zip(inputs, outputs).map { BatchRunner.Item(input: BatchInput(path: $0, relativePath: $0), output: $1) }
        final class Collected: @unchecked Sendable { var results: [BatchRunner.Result<String>] = [] }
        let collected = Collected()
        BatchRunner(jobs: 2, lanes: 2).run(items, process: { photo, _ in "\(photo.width)×\(photo.height)" },
                                           encode: { Array($0.utf8) }, report: { collected.results.append($0) })
        let byOutput = Dictionary(uniqueKeysWithValues: collected.results.map { ($0.item.output, $0) })
        XCTAssertEqual(byOutput.count, 4)
        XCTAssertEqual(byOutput[outputs[0]]?.status, .ok)
        XCTAssertEqual(byOutput[outputs[0]]?.value, "384×303")
        XCTAssertEqual(try String(contentsOfFile: outputs[0], encoding: .utf8), "384×303")
        guard case .failed(let message)? = byOutput[outputs[1]]?.status else { return XCTFail("corrupt photo did not fail") }
        XCTAssertTrue(message.contains("corrupt.png"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: outputs[1]))
        XCTAssertEqual(byOutput[outputs[2]]?.status, .ok)
        XCTAssertGreaterThan(byOutput[outputs[2]]?.decodeMilliseconds ?? 0, 0, "a decoded photo's decoding time")
        XCTAssertNil(byOutput[outputs[1]]?.decodeMilliseconds)
        XCTAssertEqual(byOutput[outputs[3]]?.status, .skipped)
        XCTAssertNil(byOutput[outputs[3]]?.decodeMilliseconds)
        XCTAssertNil(byOutput[outputs[3]]?.value)
        XCTAssertEqual(try String(contentsOfFile: outputs[3], encoding: .utf8), "old")
        let line = byOutput[outputs[0]]!.manifestLine(["instances": 7])
        XCTAssertTrue(line.contains("\"instances\":7") && line.contains("\"status\":\"ok\""), line)
    }
}
