import Foundation

/// The bounded queue in front of the network lanes. A request takes a ticket when its head arrives (before
/// its body is read, so a full server answers 503 at once and holds no bodies it will not process); with a
/// ticket it waits for a free lane, up to its deadline. At most `lanes + maxQueue` tickets exist, which bounds
/// the bodies and photos in memory whatever the number of clients.
///
/// ```swift
/// let admission = Admission(lanes: lanes, maxQueue: 8)
/// guard let ticket = admission.admit() else { return busy }          // 503 + Retry-After
/// let result = try admission.run(ticket, deadline: deadline) { lane in try work(lane) }
/// admission.release(ticket)
/// ```
public final class Admission<Lane>: @unchecked Sendable {
    public final class Ticket {
        fileprivate var released = false
        /// When the ticket was taken (its request's head arrived), for the deadline.
        public let admittedAt = DispatchTime.now()
        fileprivate init() {}
    }

    public enum Refusal: Error, Equatable {
        /// No lane came free before the request's deadline.
        case timedOut
    }

    private let condition = NSCondition()
    private var freeLanes: [Lane]
    private let maxQueue: Int
    private var tickets = 0
    private var waiting = 0
    /// Seconds a request recently held a lane: an exponential moving average (weight 1/5 for the newest), 0 until
    /// the first request finishes.
    private var serviceSeconds = 0.0
    public let laneCount: Int

    public init(lanes: [Lane], maxQueue: Int) {
        precondition(!lanes.isEmpty && maxQueue >= 0)
        freeLanes = lanes
        laneCount = lanes.count
        self.maxQueue = maxQueue
    }

    /// A ticket, or nil when `lanes + maxQueue` requests are already admitted.
    public func admit() -> Ticket? {
        condition.lock(); defer { condition.unlock() }
        guard tickets < laneCount + maxQueue else { return nil }
        tickets += 1
        return Ticket()
    }

    /// Gives the ticket back (once; later calls do nothing).
    public func release(_ ticket: Ticket) {
        condition.lock(); defer { condition.unlock() }
        guard !ticket.released else { return }
        ticket.released = true
        tickets -= 1
    }

    /// Waits for a lane (until `deadline`, if any), runs `body` on it on this thread, and gives the lane back.
    public func run<T>(_ ticket: Ticket, deadline: Date?, _ body: (Lane) throws -> T) throws -> T {
        condition.lock()
        waiting += 1
        while freeLanes.isEmpty {
            if let deadline {
                if !condition.wait(until: deadline) && freeLanes.isEmpty {
                    waiting -= 1
                    condition.unlock()
                    throw Refusal.timedOut
                }
            } else {
                condition.wait()
            }
        }
        waiting -= 1
        let lane = freeLanes.removeLast()
        condition.unlock()
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            condition.lock()
            serviceSeconds = serviceSeconds == 0 ? seconds : 0.8 * serviceSeconds + 0.2 * seconds
            freeLanes.append(lane)
            condition.signal()
            condition.unlock()
        }
        return try body(lane)
    }

    /// How long a refused client should wait before it tries again: the time the lanes need for the requests
    /// admitted now (their number × the recent service time ÷ the lanes), in whole seconds rounded up, at least 1.
    public var expectedWaitSeconds: Int {
        condition.lock(); defer { condition.unlock() }
        return max(1, Int((Double(tickets) * serviceSeconds / Double(laneCount)).rounded(.up)))
    }

    /// Requests waiting for a lane, lanes busy, and tickets out (admitted, body still arriving included).
    public var snapshot: (waiting: Int, busy: Int, admitted: Int) {
        condition.lock(); defer { condition.unlock() }
        return (waiting, laneCount - freeLanes.count, tickets)
    }
}
