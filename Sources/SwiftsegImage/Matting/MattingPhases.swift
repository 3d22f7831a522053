import Foundation
import Synchronization

/// Where an alpha matting's time goes, phase by phase (trimap, the system, the preconditioner's setup, CG and
/// its parts, the foreground, the cutout), for `swiftseg-bench --matting --phases` and PERF.md's breakdowns.
/// Off unless a benchmark turns it on; off, a phase boundary costs one atomic load. The phases are timed on the
/// calling thread (worker 0 of the solver's threads), so a parallel phase counts until its last worker is done.
///
/// ```swift
/// MattingPhases.isEnabled = true
/// _ = try AlphaMatting().cutout(photo, mask: mask)
/// for (name, ms) in MattingPhases.take() { print(name, ms) }   // "trimap" 1.4, "alpha" 35.2, "alpha.system" 5.5, …
/// ```
@_spi(Benchmarks) public enum MattingPhases {
    private static let enabled = Atomic<Bool>(false)
    /// Phase names in the order they were first seen (a parent before its parts), and their nanoseconds.
    private static let table = Mutex<(order: [String], nanoseconds: [String: UInt64])>(([], [:]))

    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// The milliseconds per phase since the last call, parents before their parts (a part's name is its parent's
    /// followed by a dot), and starts afresh.
    public static func take() -> [(name: String, milliseconds: Double)] {
        table.withLock { table in
            defer { table = ([], [:]) }
            return table.order.map { ($0, Double(table.nanoseconds[$0] ?? 0) / 1e6) }
        }
    }

    /// A stopwatch for one function's phases: `lap(name)` books the time since the last lap (or since the clock
    /// was made) to `prefix.name`.
    struct Clock {
        private let prefix: String
        private var last: UInt64

        /// `parent`: the phase this clock's laps are parts of (its place in the order is taken now, so it is
        /// listed before them).
        init(_ parent: String? = nil) {
            prefix = parent.map { $0 + "." } ?? ""
            last = 0
            guard MattingPhases.isEnabled else { return }
            if let parent { MattingPhases.book(parent, 0) }
            last = DispatchTime.now().uptimeNanoseconds
        }

        mutating func lap(_ name: String) {
            guard last != 0 else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            MattingPhases.book(prefix + name, now - last)
            last = now
        }
    }

    private static func book(_ name: String, _ nanoseconds: UInt64) {
        table.withLock { table in
            if table.nanoseconds[name] == nil { table.order.append(name) }
            table.nanoseconds[name, default: 0] += nanoseconds
        }
    }
}
