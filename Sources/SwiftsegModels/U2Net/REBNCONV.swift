import SwiftsegRuntime

/// REBNCONV: 3×3 conv (dilation `dirate`) → BatchNorm → ReLU. The ONNX export folds BatchNorm into the
/// conv's weight and bias, so here it is one ``Conv2D`` with a ReLU epilogue.
public struct REBNCONV: Sendable {
    /// `conv_s1` with `bn_s1` folded in.
    public let conv: Conv2D

    init(_ weights: inout WeightLoader, _ path: String, inChannels: Int, outChannels: Int, dirate: Int) throws {
        conv = try weights.conv("\(path).conv_s1", outChannels: outChannels, inChannels: inChannels,
                                kernelSize: 3, dilation: dirate)
    }

    /// `relu(bn(conv(x)))`, plus `residual` when given (the RSU block's final `hx1d + hxin`); its 2×2 max-pool
    /// into `pooled` when given (the encoder levels, pooled for the next one down). With `head`, `x`'s first
    /// channels are `upsample(head)`, not yet written (the decoders' `cat(upsample(deeper), skip)`: see
    /// ``Conv2D/forward(_:upsampling:into:epilogue:pooledInto:context:)``).
    public func callAsFunction(_ x: TensorView, upsampling head: TensorView? = nil, into out: TensorView,
                               residual: TensorView? = nil, pooledInto pooled: TensorView? = nil,
                               context: ExecutionContext) {
        conv.forward(x, upsampling: head, into: out, epilogue: residual.map { Epilogue.relu.adding($0) } ?? .relu,
                     pooledInto: pooled, context: context)
    }
}
