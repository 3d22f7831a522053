import Dispatch
import Foundation
import Synchronization

/// Runs `body(task, worker)` for every task in `0..<count` on at most `threads` workers.
///
/// Tasks are handed out dynamically from an atomic counter, so uneven tiles balance; `worker` is in
/// `0..<threads` and names the per-worker scratch a task may use. With one thread (or one task) everything
/// runs inline on the caller's thread. Workers are ``WorkerPool``'s long-lived threads, which spin briefly
/// between jobs; when another thread is already using the pool, this call falls back to Dispatch's
/// `concurrentPerform`. (Either way a fork costs a small heap block or a few, for the closure: measured by
/// `AllocationTests`.)
///
/// ```swift
/// parallelFor(count: tiles, threads: 2) { tile, worker in process(tile, scratch[worker]) }
/// ```
public func parallelFor(count: Int, threads: Int, _ body: (_ task: Int, _ worker: Int) -> Void) {
    let workers = min(max(threads, 1), count)
    if workers <= 1 {
        for task in 0..<count { body(task, 0) }
        return
    }
    if WorkerPool.shared.run(count: count, workers: workers, body) { return }
    let next = Atomic<Int>(0)  // the pool is busy (another thread's job): Dispatch
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedSendable(body)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            while true {
                let task = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if task >= count { break }
                shared.value(task, worker)
            }
        }
    }
}

/// Carries a value the compiler cannot prove Sendable across the fork in ``parallelFor(count:threads:_:)``;
/// the tasks it runs write disjoint memory.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Number of cores the process may use (Foundation honours affinity masks and cgroup quotas on Linux), read
/// once: Foundation reads cgroup files on every query.
///
/// ```swift
/// let ctx = ExecutionContext(threads: ProcessInfoCores.count)
/// ```
public enum ProcessInfoCores {
    public static let count: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
}
