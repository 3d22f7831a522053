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
            var config = Segmenter.Configuration()
            config.threads = threads
            let segmenters = BatchRunner.laneSegmenters(model: model, configuration: config, lanes: lanes)
            XCTAssertEqual(segmenters.map(\.configuration.threads), expected, "\(threads) threads, \(lanes) lanes")
            XCTAssertTrue(segmenters.allSatisfy { $0.model === model })
        }
    }
}
