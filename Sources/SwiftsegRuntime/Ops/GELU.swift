#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GELU with the exact error function, ½·x·(1 + erf(x/√2)) (PyTorch's `nn.GELU()`; ONNX's Gelu, or the
/// Div–Erf–Add–Mul–Mul chain PyTorch exports at opset 17): the Swin MLP's activation. In a network it runs as
/// ``TokenLinear``'s epilogue, on the rows its product just wrote.
public enum GELU {
    /// In Double with libm's erf: the reference.
    public static func reference(_ x: Float) -> Float {
        let v = Double(x)
        return Float(0.5 * v * (1 + erf(v / 2.0.squareRoot())))
    }

    /// The reference over a view, in place.
    public static func reference(_ values: UnsafeMutableBufferPointer<Float>) {
        for i in values.indices { values[i] = reference(values[i]) }
    }

    /// In place, in float (the kernel build's `TransformerKernels.addBiasGELU`: erfc by a rational fit and e^x
    /// by a polynomial, lane by lane): within 3·10⁻⁷·(1 + |x|) of the reference.
    public static func forward(_ values: UnsafeMutableBufferPointer<Float>, context: ExecutionContext) {
        guard let start = values.baseAddress else { return }
        context.kernels.biasGELURow(start, values.count, nil)
    }
}
