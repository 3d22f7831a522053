import Synchronization

/// Cores shared by several execution contexts that run at the same time (a server's lanes), so that a pass
/// running alone uses all of them and passes running together split them, op by op.
///
/// Each context at work holds one core (``withCore(_:)`` around the whole request: decoding and encoding use
/// it too). At every parallel op a context that shares the budget borrows the cores no one holds, up to its
/// `threads`, and gives them back when the op ends; a lone request runs on every core, two requests one each,
/// and a request that arrives while another is mid-op waits at most that op's length for its core.
///
/// Results do not depend on how many cores a pass gets: the ops split their work by the context's `threads`
/// (fixed), never by the workers that happen to run it, so a lane's output equals that of an unshared context
/// with the same `threads` byte for byte (`ParallelForTests`, `U2NetTests`).
///
/// ```swift
/// let budget = CoreBudget(cores: 2)
/// let contexts = (0..<2).map { _ in ExecutionContext(threads: 2, coreBudget: budget) }
/// budget.withCore { model.forward(x, into: y, context: contexts[0]) }   // two cores if the other lane is idle
/// ```
public final class CoreBudget: Sendable {
    public let cores: Int
    /// Cores neither held nor lent; below zero while a lane that just started waits for a lent core to return.
    private let idle: Atomic<Int>

    public init(cores: Int) {
        precondition(cores >= 1, "a budget needs at least one core")
        self.cores = cores
        idle = Atomic(cores)
    }

    /// Runs `body` holding one core of the budget (for as long as a request's work takes).
    public func withCore<R>(_ body: () throws -> R) rethrows -> R {
        idle.subtract(1, ordering: .relaxed)
        defer { idle.add(1, ordering: .relaxed) }
        return try body()
    }

    /// Cores no one holds or borrows right now.
    public var idleCores: Int { max(0, idle.load(ordering: .relaxed)) }

    /// Takes up to `wanted` idle cores for one op; returns how many it got (0 when none is idle).
    func borrow(upTo wanted: Int) -> Int {
        var current = idle.load(ordering: .relaxed)
        while current > 0 && wanted > 0 {
            let taken = min(wanted, current)
            let (exchanged, original) = idle.compareExchange(expected: current, desired: current - taken,
                                                             ordering: .relaxed)
            if exchanged { return taken }
            current = original
        }
        return 0
    }

    /// Returns cores taken by ``borrow(upTo:)``.
    func giveBack(_ count: Int) {
        if count > 0 { idle.add(count, ordering: .relaxed) }
    }
}
