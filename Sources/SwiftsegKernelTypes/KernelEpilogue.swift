/// What the fast kernels do to each output after adding its bias, passed to every kernel as one value: an
/// activation, then an optional residual add. A new activation is one more case here and its arm in each
/// build's `SIMDKernels.activate` (Sources/SwiftsegKernels/SIMDKernels.swift); no kernel signature changes.
///
/// It lives in a module of its own, below the three kernel builds (Package.swift), so that all three take the
/// same type. It holds data only: the code that applies it is compiled in each build.
///
/// ```swift
/// let e = KernelEpilogue(activation: .relu, residual: skip)   // max(conv + bias, 0) + skip
/// ```
public struct KernelEpilogue: @unchecked Sendable, Equatable {
    public enum Activation: UInt8, Sendable, CaseIterable {
        /// Linear (a projection, a linear bottleneck, a logit).
        case none
        /// max(x, 0)
        case relu
        /// min(max(x, 0), 6) — MobileNet's and EfficientNet-Lite's activation.
        case relu6
    }

    public var activation: Activation
    /// Added after the activation: planes laid out like the output, pointing where the output pointer given
    /// with this epilogue points (kernels advance both alike).
    public var residual: UnsafePointer<Float>?

    @inlinable
    public init(activation: Activation, residual: UnsafePointer<Float>? = nil) {
        self.activation = activation
        self.residual = residual
    }

    /// Whether nothing follows the bias.
    @inlinable
    public var isIdentity: Bool { activation == .none && residual == nil }

    /// The same epilogue for outputs `offset` floats further on (the residual moves with them).
    @inlinable
    public func advanced(by offset: Int) -> KernelEpilogue {
        KernelEpilogue(activation: activation, residual: residual.map { $0 + offset })
    }
}
