import Foundation

/// The matting's big working arrays, kept for the next matting in the process instead of freed: on Linux a
/// freed block that size goes back to the system, and the next matting's first touch of its fresh pages costs
/// a page fault per 4 KiB (~5,000 on a 512×512 photo, a fifth of its time). At most 64 MiB is kept, in arrays
/// of 256 KiB to 16 MiB (those of photos up to about 1 MP: bigger mattings are mostly arithmetic, and keeping
/// their arrays would hold hundreds of MB); a request takes the smallest kept array of its
/// type that fits, and room for a new one is made by dropping those kept longest (a batch's photo size
/// changes). Arrays a matting returns to its caller are not kept.
///
/// ```swift
/// var stencil = ScratchArrays.shared.array(25 * n, repeating: 0.0)   // zeros, maybe in last time's memory
/// defer { ScratchArrays.shared.recycle(&stencil) }                     // kept for next time; stencil = []
/// ```
///
/// Thread-safe: mattings at once each take their own arrays.
final class ScratchArrays: @unchecked Sendable {
    static let shared = ScratchArrays(limit: 64 << 20, largest: 16 << 20)

    private let lock = NSLock()
    /// In the order they were handed back.
    private var shelf: [(bytes: Int, capacity: Int, array: Any)] = []
    private var kept = 0
    let limit: Int, largest: Int

    /// Keeps at most `limit` bytes, in arrays of 256 KiB to `largest` bytes each.
    init(limit: Int, largest: Int) {
        self.limit = limit
        self.largest = min(largest, limit)
    }

    /// `count` copies of `value`, in a kept array's memory when one is big enough.
    func array<T>(_ count: Int, repeating value: T) -> [T] {
        var array = kept(count, repeating: value)
        array.withUnsafeMutableBufferPointer { $0.update(repeating: value) }
        return array
    }

    /// An array of `count` elements for a caller that writes every one before reading any: a kept array's
    /// memory holding what its last user left (no fill), or a new array of `value`s.
    func arrayToOverwrite<T>(_ count: Int, of value: T) -> [T] { kept(count, repeating: value) }

    /// A kept array resized to `count` (`value`s appended where it grows), or a new one of `value`s.
    private func kept<T>(_ count: Int, repeating value: T) -> [T] {
        var array: [T] = lock.withLock {
            let fitting = shelf.indices.filter { shelf[$0].array is [T] && shelf[$0].capacity >= count }
            guard let best = fitting.min(by: { shelf[$0].capacity < shelf[$1].capacity }) else { return [] }
            kept -= shelf[best].bytes
            return shelf.remove(at: best).array as! [T]   // now the only reference: refilled in place
        }
        guard array.capacity >= count else { return [T](repeating: value, count: count) }
        // the callers fill it in place through a pointer (a plain fill the compiler vectorises): appending
        // `count` repeated elements went element by element, ~3 % of a matting
        if array.count > count { array.removeLast(array.count - count) }
        if array.count < count { array.append(contentsOf: repeatElement(value, count: count - array.count)) }
        return array
    }

    /// Keeps `array`'s memory for a later request (when it is big and there is room) and empties `array`.
    func recycle<T>(_ array: inout [T]) {
        let bytes = array.capacity * MemoryLayout<T>.stride, handed = array
        array = []
        guard bytes >= 256 << 10, bytes <= largest else { return }
        lock.withLock {
            while kept + bytes > limit, !shelf.isEmpty { kept -= shelf.removeFirst().bytes }
            kept += bytes
            shelf.append((bytes, handed.capacity, handed))
        }
    }

    /// Bytes kept now.
    var keptBytes: Int { lock.withLock { kept } }
}
