import SwiftsegKernels
/// Logistic sigmoid, 1 / (1 + e^-x): the network's output activation.
public enum Sigmoid {
    /// Scalar loop in Double: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        precondition(input.sameShape(as: output), "sigmoid keeps the shape")
        for i in 0..<input.count { output.data[i] = Float(1 / (1 + _expDouble(-Double(input.data[i])))) }
    }

    /// In place, through ``SIMDKernels/sigmoid(_:count:)``.
    public static func forwardInPlace(_ tensor: TensorView) {
        SIMDKernels.sigmoid(tensor.data, count: tensor.count)
    }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _expDouble(_ x: Double) -> Double { exp(x) }
#elseif canImport(Darwin)
import Darwin
@inline(__always) func _expDouble(_ x: Double) -> Double { exp(x) }
#endif
