import Dispatch

/// The solver's vectors cut into fixed chunks of rows, worked on by up to `threads` threads. The chunks depend
/// only on the length, and sums add the chunks' partial sums in chunk order, so every result is the same bytes
/// whatever the thread count.
struct RowChunks {
    static let rowsPerChunk = 8192
    let count: Int
    let chunks: Int
    let threads: Int

    init(count: Int, threads: Int) {
        self.count = count
        chunks = max(1, (count + Self.rowsPerChunk - 1) / Self.rowsPerChunk)
        self.threads = max(1, min(threads, chunks))
    }

    func range(_ chunk: Int) -> Range<Int> {
        (chunk * Self.rowsPerChunk)..<min(count, (chunk + 1) * Self.rowsPerChunk)
    }

    /// Runs `body` on every chunk; the chunks of one call may run at the same time, so `body` writes only its
    /// own rows.
    func forEach(_ body: (Range<Int>) -> Void) {
        if threads == 1 {
            for c in 0..<chunks { body(range(c)) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = UnsafeSendable(body)
            DispatchQueue.concurrentPerform(iterations: threads) { worker in
                var c = worker
                while c < chunks { shared.value(range(c)); c += threads }
            }
        }
    }

    /// Σ over the chunks of `body`'s partial sums, added in chunk order.
    func sum(_ body: (Range<Int>) -> Double) -> Double {
        if threads == 1 {
            var total = 0.0
            for c in 0..<chunks { total += body(range(c)) }
            return total
        }
        let partial = UnsafeMutableBufferPointer<Double>.allocate(capacity: chunks)
        defer { partial.deallocate() }
        let slots = UnsafeSendable(partial)
        forEach { rows in slots.value[rows.lowerBound / Self.rowsPerChunk] = body(rows) }
        var total = 0.0
        for c in 0..<chunks { total += partial[c] }
        return total
    }
}

/// Hands a value to the worker threads of one ``RowChunks`` call, which touch disjoint rows of it.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
