import Dispatch
import SwiftsegRuntime
import SwiftsegTestSupport
import Synchronization
import XCTest

/// `parallelFor` runs on long-lived pool threads that spin between jobs: every task must run exactly once,
/// worker indices must stay below the thread count, jobs with fewer workers than the pool has threads must not
/// confuse the idle ones, and callers on two threads at once must both finish (one falls back to Dispatch).
final class ParallelForTests: XCTestCase {
    func testEveryTaskRunsOnceOnAValidWorker() {
        var rng = SplitMix64(seed: 77)
        for round in 0..<400 {
            let threads = 1 + round % 4, count = rng.nextInt(0...60)
            let hits = UnsafeMutablePointer<Int>.allocate(capacity: max(count, 1))
            hits.initialize(repeating: 0, count: max(count, 1))
            defer { hits.deallocate() }
            let badWorker = Atomic<Int>(0)
            parallelFor(count: count, threads: threads) { task, worker in
                hits[task] += 1  // tasks are disjoint
                if worker < 0 || worker >= threads { badWorker.add(1, ordering: .relaxed) }
            }
            XCTAssertTrue((0..<count).allSatisfy { hits[$0] == 1 }, "round \(round): \(count) tasks on \(threads)")
            XCTAssertEqual(badWorker.load(ordering: .relaxed), 0)
        }
    }

    /// Even parts cover `0..<count` in order, differ by at most one, the longer first.
    func testEvenPartsCoverTheRangeLongestFirst() {
        XCTAssertEqual((0..<4).map { evenPart($0, of: 4, splitting: 14) }, [0..<4, 4..<8, 8..<11, 11..<14])
        for count in 0...40 {
            for parts in 1...9 {
                let ranges = (0..<parts).map { evenPart($0, of: parts, splitting: count) }
                XCTAssertEqual(ranges.first?.lowerBound, 0)
                XCTAssertEqual(ranges.last?.upperBound, count)
                for (a, b) in zip(ranges, ranges.dropFirst()) {
                    XCTAssertEqual(a.upperBound, b.lowerBound)
                    XCTAssertTrue(a.count == b.count || a.count == b.count + 1, "\(count) in \(parts)")
                }
            }
        }
    }

    func testConcurrentCallersBothFinish() {
        let total = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<200 {
                parallelFor(count: 37, threads: 2) { _, _ in total.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(total.load(ordering: .relaxed), 2 * 200 * 37)
    }

    /// A budget's cores: each holder takes one for its whole request; idle ones are what ops may borrow.
    func testCoreBudgetCountsHoldersAndNeverGoesBelowZeroIdle() {
        let budget = CoreBudget(cores: 2)
        XCTAssertEqual(budget.idleCores, 2)
        budget.withCore {
            XCTAssertEqual(budget.idleCores, 1)
            budget.withCore {
                XCTAssertEqual(budget.idleCores, 0)
                budget.withCore { XCTAssertEqual(budget.idleCores, 0, "oversubscribed: none idle, not negative") }
            }
            XCTAssertEqual(budget.idleCores, 1)
        }
        XCTAssertEqual(budget.idleCores, 2)
    }
}
