/// Threads an image operation may share its work with: ``forEach(_:_:)`` runs every part of a job, some of them
/// on other threads when this value has any, and returns when all are done. The image library has no threads of
/// its own (a server's requests and a batch's lanes already run on threads, each with its network's context); a
/// caller that owns a context passes its parts (``Swiftseg`` `Segmenter.parts`, which borrow only cores no other
/// lane is using), and every other caller gets ``serial``.
///
/// Operations cut their work into parts by their data alone, never by the threads at hand, and each part
/// writes only its own output: results are the same bytes whoever runs the parts.
///
/// ```swift
/// let small = LanczosResampler.resize(photo, width: 320, height: 320, parts: segmenter.parts)
/// ```
public struct ParallelParts: @unchecked Sendable {
    // `run(count, body)` calls body(p) for every p in 0..<count, perhaps at the same time, and returns after.
    private let run: ((Int, (Int) -> Void) -> Void)?

    /// Parts run by `run`, which must call the body once for every part in `0..<count` (on any threads) and
    /// return when all have returned.
    public init(_ run: @escaping (_ count: Int, _ body: (Int) -> Void) -> Void) { self.run = run }

    private init() { run = nil }

    /// Every part on the caller's thread, in order.
    public static let serial = ParallelParts()

    /// Runs `body(p)` for every part `p` in `0..<count`; parts may run at the same time, so each writes only its
    /// own output.
    @inline(__always)
    public func forEach(_ count: Int, _ body: (Int) -> Void) {
        guard let run, count > 1 else { for p in 0..<count { body(p) }; return }
        run(count, body)
    }
}
