import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Long-lived helper threads for ``parallelFor(count:threads:_:)``: helper `i` is worker `i`, the caller is
/// worker 0. Between jobs a helper spins for a short while before it sleeps on a condition variable, as ONNX
/// Runtime's pool does: a forward pass is a few hundred parallel ops separated by microseconds of serial work,
/// and waking a sleeping thread for each let Linux place it on the waker's core (wake-affine), which made
/// whole two-thread runs ~25 % slower at random. A pool runs one job at a time: each caller of `parallelFor`
/// takes a free pool for the call (``acquire()``), so passes running concurrently (batch lanes, servers with
/// one context per request) each get their own helpers; a pool is created the first time that many callers
/// overlap and reused afterwards, so the steady state allocates nothing.
final class WorkerPool: @unchecked Sendable {
    /// Every pool created so far; `busy` marks the ones a caller holds. Guarded by the mutex.
    private static let registry = Mutex<[WorkerPool]>([])
    private var busy = false

    /// A pool no other caller holds (a new one if all are taken). Give it back with ``release()``.
    static func acquire() -> WorkerPool {
        registry.withLock { pools in
            for pool in pools where !pool.busy {
                pool.busy = true
                return pool
            }
            let pool = WorkerPool()
            pool.busy = true
            pools.append(pool)
            return pool
        }
    }

    /// Hands the pool back for the next caller.
    func release() {
        WorkerPool.registry.withLock { _ in busy = false }
    }

    /// Spin iterations (atomic loads) a helper waits for the next job before sleeping: ~50–100 µs.
    private static let spinLimit = 20_000

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The published job's number and its helper count in one word (`number << 16 | helpers`), so a helper
    /// reads both from the same job.
    private let state = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private let next = Atomic<Int>(0)
    // Written by the caller before `state` is bumped (release), read by participating helpers after (acquire).
    private var job: UnsafePointer<Job>?
    private var helpers = 0  // caller only

    /// The job as the helpers see it: the caller's tasks value (on its stack) and the function that runs one of
    /// its tasks. No closure context is formed, so publishing a job allocates nothing.
    private struct Job {
        let tasks: UnsafeRawPointer
        let invoke: (UnsafeRawPointer, Int, Int) -> Void
        let count: Int
    }

    /// Runs task `task` of the `Tasks` value at `tasks` on worker `worker` (specialised per `Tasks`, so the
    /// function value has no context).
    private static func invoker<Tasks: ParallelTasks>(_: Tasks.Type) -> (UnsafeRawPointer, Int, Int) -> Void {
        { tasks, task, worker in tasks.assumingMemoryBound(to: Tasks.self).pointee.run(task, worker: worker) }
    }

    private init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
    }

    /// Runs the job on the caller and `workers - 1` helpers. The caller must hold the pool (``acquire()``).
    @inline(__always)
    func run<Tasks: ParallelTasks>(count: Int, workers: Int, _ tasks: Tasks) {
        startHelpers(workers - 1)
        withUnsafePointer(to: tasks) { pointer in
            var current = Job(tasks: UnsafeRawPointer(pointer), invoke: WorkerPool.invoker(Tasks.self), count: count)
            withUnsafePointer(to: &current) { publishAndRun($0, workers: workers) }
        }
    }

    /// Creates helper threads up to `count` (once, on first need).
    private func startHelpers(_ count: Int) {
        while helpers < count {
            helpers += 1
            // The job number it has "seen" is taken now, before this call publishes: a thread that starts
            // late still takes part in the job below.
            let index = helpers, seen = state.load(ordering: .acquiring) >> 16
            let thread = Thread { [unowned self] in self.helperLoop(index: index, seen: seen) }
            thread.name = "swiftseg-worker-\(index)"
            thread.start()
        }
    }

    /// Publishes `current` to `workers - 1` helpers, runs tasks on the caller too, and waits for the helpers.
    @inline(never)
    private func publishAndRun(_ current: UnsafePointer<Job>, workers: Int) {
        job = current
        next.store(0, ordering: .relaxed)
        pending.store(workers - 1, ordering: .relaxed)
        pthread_mutex_lock(mutex)
        let number = (state.load(ordering: .relaxed) >> 16) &+ 1
        state.store(number << 16 | (workers - 1), ordering: .releasing)
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(mutex)

        runTasks(current, worker: 0)

        var spins = 0
        while pending.load(ordering: .acquiring) > 0 {  // helpers finish their last task
            spins += 1
            if spins > WorkerPool.spinLimit { sched_yield() }
        }
        job = nil
    }

    private func runTasks(_ work: UnsafePointer<Job>, worker: Int) {
        let count = work.pointee.count, invoke = work.pointee.invoke, tasks = work.pointee.tasks
        while true {
            let task = next.wrappingAdd(1, ordering: .relaxed).oldValue
            if task >= count { return }
            invoke(tasks, task, worker)
        }
    }

    /// A helper's share of the current job.
    private func runJob(worker: Int) {
        guard let work = job else { return }
        runTasks(work, worker: worker)
    }

    private func helperLoop(index: Int, seen start: Int) {
        var seen = start
        while true {
            // Spin briefly for the next job, then sleep until one is published.
            var spins = 0
            var current = state.load(ordering: .acquiring)
            while current >> 16 == seen && spins < WorkerPool.spinLimit {
                spins += 1
                current = state.load(ordering: .acquiring)
            }
            if current >> 16 == seen {
                pthread_mutex_lock(mutex)
                while state.load(ordering: .acquiring) >> 16 == seen { pthread_cond_wait(wake, mutex) }
                pthread_mutex_unlock(mutex)
                current = state.load(ordering: .acquiring)
            }
            seen = current >> 16
            // A job this helper is part of cannot end, nor the next be published, until it reports back.
            guard index <= current & 0xFFFF else { continue }
            runJob(worker: index)
            pending.subtract(1, ordering: .releasing)
        }
    }
}
