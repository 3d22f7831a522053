#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Softmax over all values of a view, e^(x − max) / Σ e^(x − max) (ONNX's Softmax on a 1×C vector): a
/// classifier's logits to probabilities. Subtracting the maximum keeps e^x finite for any logits.
public enum Softmax {
    /// In Double: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        precondition(input.count == output.count && input.count > 0, "softmax keeps the size")
        var peak = -Double.infinity
        for i in 0..<input.count { peak = max(peak, Double(input.data[i])) }
        var sum = 0.0
        for i in 0..<input.count { sum += exp(Double(input.data[i]) - peak) }
        for i in 0..<input.count { output.data[i] = Float(exp(Double(input.data[i]) - peak) / sum) }
    }

    /// In place, in float (expf), the sum in Double: within 1e-6 relative of the reference.
    public static func forwardInPlace(_ values: TensorView) {
        precondition(values.count > 0, "softmax of nothing")
        let p = values.data, n = values.count
        var peak = -Float.infinity
        for i in 0..<n { peak = max(peak, p[i]) }
        var sum = 0.0
        for i in 0..<n {
            p[i] = expf(p[i] - peak)
            sum += Double(p[i])
        }
        let scale = Float(1 / sum)
        for i in 0..<n { p[i] *= scale }
    }
}
