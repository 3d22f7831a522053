import Dispatch
import SwiftsegKernelTypes

/// Which convolution kernel the runtime uses. Tests and the benchmark force one; `.auto` picks per layer.
public enum ConvKernelPolicy: String, Sendable, CaseIterable {
    /// Plain nested loops (Conv2D+Reference.swift): the oracle, slow.
    case reference
    /// im2col + `BLAS.sgemm` with a fused bias/ReLU/residual epilogue (Conv2D+GEMM.swift): exact to float
    /// rounding, the `--exact` path.
    case gemm
    /// Winograd (F(6×4) or F(4×4), per layer) wherever a layer supports it, GEMM elsewhere (Conv2D+Winograd.swift).
    case winograd
    /// The direct 3×3 kernel wherever a layer supports it (3×3, dilation 1), GEMM elsewhere (Conv2D+Direct.swift).
    case direct
    /// The fastest kernel for each layer's shape (``Conv2D/selectKernel(policy:)``).
    case auto
}

/// Everything one forward pass needs besides weights: the activation arena, per-worker scratch for im2col,
/// the thread count and the kernel policy. Reused across passes; after the first pass at an input size, a pass
/// allocates nothing. Not thread-safe: one context per concurrent forward pass.
public final class ExecutionContext {
    /// Workers an op may use, and the number every op splits its work by (so results depend on it, never on
    /// how many workers actually run: see ``coreBudget``).
    public let threads: Int
    /// Cores shared with other contexts (a server's lanes): each op runs on as many of `threads` as the budget
    /// has idle, at least one. Nil: always `threads`.
    public let coreBudget: CoreBudget?
    public var policy: ConvKernelPolicy
    /// Whether a network may run its small maps in the channel-blocked layout (``ChannelBlocks``: a
    /// classifier's 14×14 and 7×7 blocks) when its layers allow it and the policy is `.auto`; tests and the
    /// benchmark turn it off to compare with the planar kernels (the same bytes in the FMA builds).
    public var blockedLayouts = true
    /// Which build of the SIMD kernels runs; defaults to the fastest this CPU supports.
    public var isa: KernelISA = .best {
        didSet { precondition(isa.isSupported, "this CPU cannot run the \(isa.rawValue) kernels") }
    }
    var kernels: Kernels { Kernels.of(isa) }
    public let arena = Arena()
    /// Set to collect per-stage wall times (the benchmark does); nil costs nothing.
    public var profile: StageProfile?
    /// Set to collect wall times per kind of op (conv kernels, pooling, resizing); nil costs nothing.
    public var opProfile: StageProfile?
    private var scratch: [UnsafeMutablePointer<Float>] = []
    private var scratchCapacity = 0

    /// - Parameters:
    ///   - threads: worker threads for the kernels (≥ 1).
    ///   - policy: convolution kernel choice.
    ///   - coreBudget: cores shared with other contexts; the ops borrow idle ones, up to `threads`.
    public init(threads: Int = 1, policy: ConvKernelPolicy = .auto, coreBudget: CoreBudget? = nil) {
        precondition(threads >= 1, "threads must be at least 1")
        self.threads = threads
        self.policy = policy
        self.coreBudget = coreBudget
    }

    deinit { scratch.forEach { $0.deallocate() } }

    /// Per-worker scratch of at least `floats` floats (grows only when a larger layer first needs it).
    func scratch(floats: Int) -> [UnsafeMutablePointer<Float>] {
        if floats > scratchCapacity || scratch.count != threads {
            scratch.forEach { $0.deallocate() }
            scratch = (0..<threads).map { _ in
                LargeBuffer.allocate(byteCount: floats * 4)
                    .bindMemory(to: Float.self, capacity: floats)
            }
            scratchCapacity = floats
        }
        return scratch
    }

    /// Bytes held by the arena and the scratch buffers.
    public var reservedBytes: Int { arena.capacityBytes + scratch.count * scratchCapacity * 4 }
}

/// Wall time per named part of the forward pass, accumulated while ``ExecutionContext/profile`` is set.
public final class StageProfile {
    public private(set) var order: [String] = []
    public private(set) var nanoseconds: [String: UInt64] = [:]

    public init() {}

    func add(_ name: String, _ ns: UInt64) {
        if nanoseconds[name] == nil { order.append(name) }
        nanoseconds[name, default: 0] += ns
    }

    public func reset() { order = []; nanoseconds = [:] }
}

extension ExecutionContext {
    /// Runs `body` with the number of workers the next op may use: `threads`, or with a ``coreBudget`` the
    /// caller's own core plus the idle ones it lends (up to `threads`), given back when `body` returns. Ops whose
    /// results do not depend on how their work is split (each output element computed by one task in a fixed
    /// order) size their tasks by it; ops that call BLAS, whose sums depend on the shape of each call, split by
    /// `threads` and use ``parallelFor(count:_:)``.
    /// `atMost`: the op's task count, when it is known first (no core is borrowed to sit idle).
    @inline(__always)
    func withWorkers(atMost limit: Int = .max, _ body: (_ workers: Int) -> Void) {
        guard threads > 1, let coreBudget else { body(threads); return }
        let lent = coreBudget.borrow(upTo: min(threads, limit) - 1)
        body(1 + lent)
        coreBudget.giveBack(lent)
    }

    /// An op's ``parallelFor(count:threads:_:)-(_,_,ParallelTasks)`` on the workers ``withWorkers(_:)`` gives;
    /// the tasks, and so the results, are the same however many run them.
    @inline(__always)
    func parallelFor<Tasks: ParallelTasks>(count: Int, _ tasks: Tasks) {
        if count <= 1 || threads == 1 || coreBudget == nil {
            SwiftsegRuntime.parallelFor(count: count, threads: threads, tasks)
            return
        }
        withWorkers(atMost: count) { SwiftsegRuntime.parallelFor(count: count, threads: $0, tasks) }
    }

    /// `body(task)` for every task in `0..<count` on the workers ``withWorkers(atMost:_:)`` gives (with a core
    /// budget, only cores no other context holds): for work beside the forward pass that the same thread does
    /// between passes (resizing a photo, encoding its cutout). Tasks may run at the same time; whatever runs
    /// them, each task is the same.
    ///
    /// ```swift
    /// context.forEachTask(rows) { row in resize(row) }
    /// ```
    public func forEachTask(_ count: Int, _ body: (_ task: Int) -> Void) {
        guard count > 1, threads > 1 else { for task in 0..<count { body(task) }; return }
        withWorkers(atMost: count) { workers in
            SwiftsegRuntime.parallelFor(count: count, threads: workers) { task, _ in body(task) }
        }
    }

    /// Runs `body`, adding its wall time to `profile[name]` when profiling stages.
    @inline(__always)
    public func time(_ name: String, _ body: () -> Void) { measure(name, into: profile, body) }

    /// Runs `body`, adding its wall time to `opProfile[name]` when profiling ops.
    @inline(__always)
    public func timeOp(_ name: String, _ body: () -> Void) { measure(name, into: opProfile, body) }

    @inline(__always)
    private func measure(_ name: String, into profile: StageProfile?, _ body: () -> Void) {
        guard let profile else { body(); return }
        let t0 = DispatchTime.now().uptimeNanoseconds
        body()
        profile.add(name, DispatchTime.now().uptimeNanoseconds - t0)
    }
}
