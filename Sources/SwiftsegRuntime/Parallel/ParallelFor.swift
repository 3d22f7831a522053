import Foundation

/// The tasks of one ``parallelFor(count:threads:_:)-(_,_,ParallelTasks)`` call as a value: the inputs it needs as
/// stored properties and `run` as the loop body. Unlike a closure, handing a value to the worker threads
/// needs no heap-allocated context, so the forward pass's ops use this form and a fork allocates nothing.
///
/// ```swift
/// struct Rows: ParallelTasks {
///     let input: TensorView, output: TensorView
///     func run(_ task: Int, worker: Int) { /* row `task` */ }
/// }
/// parallelFor(count: h, threads: 2, Rows(input: x, output: y))
/// ```
public protocol ParallelTasks: SendableMetatype {
    /// Runs task `task` (in `0..<count`) on worker `worker` (in `0..<threads`, naming per-worker scratch).
    func run(_ task: Int, worker: Int)
}

/// Runs `tasks.run(task, worker:)` for every task in `0..<count` on at most `threads` workers.
///
/// Tasks are handed out dynamically from an atomic counter, so uneven tiles balance; `worker` is in
/// `0..<threads` and names the per-worker scratch a task may use. With one thread (or one task) everything
/// runs inline on the caller's thread. Workers are long-lived ``WorkerPool`` threads, which spin briefly
/// between jobs; callers on different threads at once each get a pool of their own. A call allocates nothing
/// once its pool exists (checked by `AllocationTests`, also for two passes running at once).
public func parallelFor<Tasks: ParallelTasks>(count: Int, threads: Int, _ tasks: Tasks) {
    let workers = min(max(threads, 1), count)
    if workers <= 1 {
        for task in 0..<count { tasks.run(task, worker: 0) }
        return
    }
    let pool = WorkerPool.acquire()
    defer { pool.release() }
    pool.run(count: count, workers: workers, tasks)
}

/// Runs `body(task, worker)` for every task in `0..<count` on at most `threads` workers: the closure form of
/// ``parallelFor(count:threads:_:)-(_,_,ParallelTasks)``, for work outside the forward pass (building weights,
/// tests). Handing a closure to other threads costs a small heap block per call.
///
/// ```swift
/// parallelFor(count: tiles, threads: 2) { tile, worker in process(tile, scratch[worker]) }
/// ```
public func parallelFor(count: Int, threads: Int, _ body: (_ task: Int, _ worker: Int) -> Void) {
    if min(threads, count) <= 1 {
        for task in 0..<count { body(task, 0) }
        return
    }
    withoutActuallyEscaping(body) { body in
        parallelFor(count: count, threads: threads, ClosureTasks(body: body))
    }
}

/// A closure as ``ParallelTasks``.
private struct ClosureTasks: ParallelTasks {
    let body: (Int, Int) -> Void
    func run(_ task: Int, worker: Int) { body(task, worker) }
}

/// Part `index` of `0..<count` cut into `parts` runs as even as they go, the longer ones first (14 in 4: 4, 4,
/// 3, 3), so tasks handed out in order end level.
///
/// ```swift
/// let rows = evenPart(task, of: 4, splitting: 14)   // task 2: 8..<11
/// ```
public func evenPart(_ index: Int, of parts: Int, splitting count: Int) -> Range<Int> {
    let (q, r) = count.quotientAndRemainder(dividingBy: parts), first = index * q + min(index, r)
    return first..<(first + q + (index < r ? 1 : 0))
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
