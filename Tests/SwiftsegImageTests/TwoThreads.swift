import Dispatch
import SwiftsegImage

/// Parts run by Dispatch on up to two threads at once (the library's callers pass a runtime context's), to
/// check that sharing a job between threads changes no byte.
let twoThreads = ParallelParts { count, body in
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedBody(run: body)
        DispatchQueue.concurrentPerform(iterations: count) { shared.run($0) }
    }
}

private struct UncheckedBody: @unchecked Sendable {
    let run: (Int) -> Void
}
