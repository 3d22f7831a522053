import SwiftsegKernels

/// The mean of each channel's plane: C×H×W → C×1×1 (ONNX's GlobalAveragePool), the pooling before a
/// classifier's fully connected layer.
public enum GlobalAveragePool {
    /// Sums in Double: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        for c in 0..<input.channels {
            var sum = 0.0
            for i in 0..<input.planeSize { sum += Double(input.plane(c)[i]) }
            output.data[c] = Float(sum / Double(input.planeSize))
        }
    }

    /// Vector sums in float (``SIMDKernels/sum(_:count:)``): within a few float roundings of the reference.
    public static func forward(_ input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        let scale = 1 / Float(input.planeSize)
        for c in 0..<input.channels { output.data[c] = SIMDKernels.sum(input.plane(c), count: input.planeSize) * scale }
    }

    static func checkShapes(_ input: TensorView, _ output: TensorView) {
        precondition(output.channels == input.channels && output.height == 1 && output.width == 1,
                     "global average pool of \(input.shapeDescription) is \(input.channels)×1×1, got \(output.shapeDescription)")
    }
}
