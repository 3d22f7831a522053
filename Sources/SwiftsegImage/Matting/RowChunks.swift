import Foundation
import Synchronization

/// The solver's vectors cut into fixed chunks of rows, worked on by the threads of a ``SolverThreads``. The
/// chunks depend only on the length, and sums add the chunks' partial sums in chunk order, so every result is
/// the same bytes whatever the thread count.
struct RowChunks {
    static let rowsPerChunk = 2048
    let count: Int
    let chunks: Int
    let pool: SolverThreads?

    init(count: Int, pool: SolverThreads?) {
        self.count = count
        chunks = max(1, (count + Self.rowsPerChunk - 1) / Self.rowsPerChunk)
        self.pool = pool
    }

    func range(_ chunk: Int) -> Range<Int> {
        (chunk * Self.rowsPerChunk)..<min(count, (chunk + 1) * Self.rowsPerChunk)
    }

    /// Runs `body` on every chunk; the chunks of one call may run at the same time, so `body` writes only its
    /// own rows.
    func forEach(_ body: (Range<Int>) -> Void) {
        SolverThreads.each(chunks, on: pool) { body(range($0)) }
    }

    /// Σ over the chunks of `body`'s partial sums, added in chunk order.
    func sum(_ body: (Range<Int>) -> Double) -> Double {
        guard pool != nil, chunks > 1 else {
            var total = 0.0
            for c in 0..<chunks { total += body(range(c)) }
            return total
        }
        let partial = UnsafeMutableBufferPointer<Double>.allocate(capacity: chunks)
        defer { partial.deallocate() }
        forEach { rows in partial[rows.lowerBound / Self.rowsPerChunk] = body(rows) }
        var total = 0.0
        for c in 0..<chunks { total += partial[c] }
        return total
    }
}

/// Helper threads of its own for one solve (the caller is worker 0). Not Dispatch's pool: a folder's lanes
/// and a server's requests already run on its threads, and a `concurrentPerform` inside one of them gets no
/// others — the matting then ran on one core. Between jobs a helper spins on the job counter for a while before
/// it sleeps (a CG iteration's passes are microseconds apart; waking a sleeping thread for each cost more than
/// the pass on a small photo), as the runtime's worker pool does for a forward pass's ops.
final class SolverThreads: @unchecked Sendable {
    /// Workers, the caller included.
    let count: Int
    // Written by the caller before `published` is bumped (release), read by the helpers after (acquire).
    private var job: ((Int) -> Void)?
    private var stopping = false
    private let published = Atomic<Int>(0), remaining = Atomic<Int>(0)
    private let sleep = NSCondition()
    private static let spins = 20_000

    private init(threads: Int) {
        count = threads
        for helper in 1..<threads {
            Thread { [unowned self] in self.serve(helper) }.start()
        }
    }

    /// `body` with `threads` workers (nil for one: everything on the caller's thread).
    static func with<T>(threads: Int, _ body: (SolverThreads?) throws -> T) rethrows -> T {
        guard threads > 1 else { return try body(nil) }
        let pool = SolverThreads(threads: threads)
        defer { pool.stop() }
        return try body(pool)
    }

    private func serve(_ worker: Int) {
        var seen = 0   // a helper that starts after the first job still takes part in it
        while true {
            var spins = 0
            while published.load(ordering: .acquiring) == seen && spins < Self.spins { spins += 1 }
            if published.load(ordering: .acquiring) == seen {
                sleep.lock()
                while published.load(ordering: .acquiring) == seen { sleep.wait() }
                sleep.unlock()
            }
            seen = published.load(ordering: .acquiring)
            if stopping { remaining.subtract(1, ordering: .releasing); return }
            job!(worker)
            remaining.subtract(1, ordering: .releasing)
        }
    }

    private func publish() {
        remaining.store(count - 1, ordering: .relaxed)
        sleep.lock()
        published.add(1, ordering: .releasing)
        sleep.broadcast()
        sleep.unlock()
    }

    private func awaitHelpers() {
        Self.wait { remaining.load(ordering: .acquiring) == 0 }
    }

    /// Returns once `done()` holds: spins (what is awaited takes microseconds), yielding the core after a while, so
    /// that more workers than free cores do not spin away the core the awaited work needs.
    static func wait(until done: () -> Bool) {
        var spins = 0
        while !done() {
            spins += 1
            if spins > Self.spins { sched_yield() }
        }
    }

    /// `body(t)` for t in 0..<count, item t on worker t mod T (all on the caller without a pool); returns when
    /// all are done. The items of one call may run at the same time.
    static func each(_ count: Int, on pool: SolverThreads?, _ body: (Int) -> Void) {
        guard let pool, count > 1 else { for t in 0..<count { body(t) }; return }
        pool.run { worker in
            var t = worker
            while t < count { body(t); t += pool.count }
        }
    }

    /// `body(worker)` on every worker at once; returns when all are done.
    func run(_ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            job = body
            publish()
            body(0)
            awaitHelpers()
            job = nil
        }
    }

    private func stop() {
        stopping = true
        publish()
        awaitHelpers()
    }
}
