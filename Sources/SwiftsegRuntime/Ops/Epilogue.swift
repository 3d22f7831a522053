import SwiftsegKernels

/// What follows a convolution (or a linear layer) after its bias, applied while the outputs are in cache: an
/// activation, then an optional residual add. One value every kernel takes, so a new activation touches
/// ``Activation`` and the kernels that implement it, not every signature.
///
/// ```swift
/// conv.forward(x, into: y, epilogue: .relu, context: ctx)                  // REBNCONV
/// conv.forward(x, into: y, epilogue: .relu.adding(hxin), context: ctx)     // RSU's last conv + residual
/// project.forward(x, into: y, epilogue: Epilogue.none.adding(skip), context: ctx)  // linear bottleneck + skip
/// ```
public struct Epilogue: Sendable {
    public typealias Activation = KernelEpilogue.Activation

    public var activation: Activation
    /// Added after the activation; the output's shape.
    public var residual: TensorView?

    public init(activation: Activation, residual: TensorView? = nil) {
        self.activation = activation
        self.residual = residual
    }

    /// out = conv + bias
    public static let none = Epilogue(activation: .none)
    /// out = max(conv + bias, 0)
    public static let relu = Epilogue(activation: .relu)
    /// out = min(max(conv + bias, 0), 6)
    public static let relu6 = Epilogue(activation: .relu6)

    /// This epilogue, then `+ residual`.
    public func adding(_ residual: TensorView) -> Epilogue { Epilogue(activation: activation, residual: residual) }

    /// As the SIMD kernels take it: the residual as a pointer to channel 0 of its planes.
    var kernel: KernelEpilogue { KernelEpilogue(activation: activation, residual: residual.map { UnsafePointer($0.data) }) }

    /// The epilogue on one value (the references' form), with `residual` the residual's value at that output.
    @inline(__always)
    func apply(_ value: Float, residual r: Float) -> Float {
        let activated: Float
        switch activation {
        case .none: activated = value
        case .relu: activated = max(value, 0)
        case .relu6: activated = min(max(value, 0), 6)
        }
        return residual == nil ? activated : activated + r
    }
}
