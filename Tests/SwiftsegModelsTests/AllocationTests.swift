import SwiftsegAllocationCounter
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// The memory standard: no heap allocation inside a steady-state forward pass. The arena and per-worker scratch
/// are sized by the first pass at a size; afterwards every buffer comes from them. Counted by wrapping the
/// malloc family (Tests/SwiftsegAllocationCounter), so the Swift runtime's, Dispatch's and Foundation's
/// allocations count too; OpenBLAS's own (a work buffer inside some sgemm calls) are reported apart.
final class AllocationTests: XCTestCase {
    func testSteadyStateForwardPassAllocatesNothing() throws {
        #if os(Linux)
        XCTAssertEqual(swiftseg_allocation_counter_available(), 1, "the malloc wrappers should be active on Linux")
        #endif
        guard swiftseg_allocation_counter_available() == 1 else {
            throw XCTSkip("allocation counting needs glibc (the malloc wrappers are Linux-only)")
        }
        // The counter sees allocations: a check that the wrappers are really in place.
        swiftseg_allocation_counter_start()
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 64)
        probe.deallocate()
        XCTAssertGreaterThanOrEqual(swiftseg_allocation_counter_stop(), 1, "the malloc wrappers are not linked in")
        XCTAssertEqual(swiftseg_allocation_counter_large(), 1)

        let net = U2NetTests.net
        let input = randomTensor(channels: 3, height: 96, width: 80, seed: 9)
        let output = Tensor(channels: 1, height: 96, width: 80)
        for threads in [1, 2] {
            for policy in [ConvKernelPolicy.auto, .gemm] {
                for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                    net.forward(input.view, into: output.view, context: context)   // sizes the plan
                    net.forward(input.view, into: output.view, context: context)   // starts the pool's threads
                    swiftseg_allocation_counter_start()
                    for _ in 0..<3 { net.forward(input.view, into: output.view, context: context) }
                    let allocations = swiftseg_allocation_counter_stop(), large = swiftseg_allocation_counter_large()
                    let label = "\(threads) thread(s), \(isa), \(policy)"
                    print("allocations in 3 passes, \(label): \(allocations), \(large) of them ≥ 4 KiB "
                          + "(+ \(swiftseg_allocation_counter_blas()) inside OpenBLAS)")
                    // Nothing at all, on one thread or two: the ops hand their tasks to the pool as values
                    // (`ParallelTasks`), not closures, so a fork forms no heap-allocated context.
                    XCTAssertEqual(large, 0, "\(label): buffer-sized heap allocations in 3 passes")
                    XCTAssertEqual(allocations, 0, "\(label): heap allocations in 3 passes")
                }
            }
        }
    }

    /// BiRefNet's pass too (window attention, token layers, deformable convolutions; the fixture's narrow layout).
    func testBiRefNetSteadyStateAllocatesNothing() throws {
        guard swiftseg_allocation_counter_available() == 1 else {
            throw XCTSkip("allocation counting needs glibc (the malloc wrappers are Linux-only)")
        }
        let net = try BiRefNet(weights: SafeTensorsFile(path: Fixtures.path("models/birefnet-tiny.safetensors")))
        let input = randomTensor(channels: 3, height: 96, width: 64, seed: 4)
        let output = Tensor(channels: 1, height: 96, width: 64)
        for threads in [1, 2] {
            for (isa, context) in contextsForEveryISA(threads: threads) {
                net.forward(input.view, into: output.view, context: context)
                net.forward(input.view, into: output.view, context: context)
                swiftseg_allocation_counter_start()
                for _ in 0..<2 { net.forward(input.view, into: output.view, context: context) }
                let allocations = swiftseg_allocation_counter_stop()
                XCTAssertEqual(allocations, 0, "\(threads) thread(s), \(isa): heap allocations in 2 BiRefNet passes")
            }
        }
    }

    /// Two forward passes at once, each on its own context with two threads (batch lanes, or a server with a
    /// context per request): each takes a worker pool of its own, so neither allocates once warm.
    func testConcurrentPassesAllocateNothing() throws { try checkConcurrentPasses(sharingCores: false) }

    /// The same with the two contexts sharing two cores (how batch and server lanes run): ops run on one core
    /// or two as the other lane leaves them, and once both have been seen nothing is allocated.
    func testConcurrentPassesSharingCoresAllocateNothing() throws { try checkConcurrentPasses(sharingCores: true) }

    private func checkConcurrentPasses(sharingCores: Bool) throws {
        guard swiftseg_allocation_counter_available() == 1 else {
            throw XCTSkip("allocation counting needs glibc (the malloc wrappers are Linux-only)")
        }
        let net = U2NetTests.net
        let input = randomTensor(channels: 3, height: 64, width: 72, seed: 3)
        let budget = sharingCores ? CoreBudget(cores: 2) : nil
        final class Lane: @unchecked Sendable {
            let context: ExecutionContext
            let output = Tensor(channels: 1, height: 64, width: 72)
            let go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            init(_ budget: CoreBudget?) { context = ExecutionContext(threads: 2, coreBudget: budget) }
        }
        let lanes = [Lane(budget), Lane(budget)]
        @Sendable func pass(_ lane: Lane) {
            if let budget { budget.withCore { net.forward(input.view, into: lane.output.view, context: lane.context) } }
            else { net.forward(input.view, into: lane.output.view, context: lane.context) }
        }
        if let budget {  // each lane once on both cores, once on one (the other core held): every split sized
            for lane in lanes {
                pass(lane)
                budget.withCore { pass(lane) }
            }
        }
        for lane in lanes {
            Thread.detachNewThread {
                for round in 0..<3 {  // round 0 warms up (plan, pool, helpers); rounds 1 and 2 are counted
                    lane.go.wait()
                    for _ in 0..<(round == 0 ? 2 : 3) { pass(lane) }
                    lane.done.signal()
                }
            }
        }
        for round in 0..<3 {
            if round == 1 { swiftseg_allocation_counter_start() }
            lanes.forEach { $0.go.signal() }
            lanes.forEach { $0.done.wait() }
        }
        let allocations = swiftseg_allocation_counter_stop()
        print("allocations in 2 × 6 concurrent passes (2 threads each\(sharingCores ? ", sharing 2 cores" : "")): "
              + "\(allocations) (+ \(swiftseg_allocation_counter_blas()) inside OpenBLAS)")
        XCTAssertEqual(allocations, 0, "heap allocations while two contexts ran passes at once")
    }
}
