import SwiftsegKernels

/// A fully connected layer, y = W·x + b, with an ``Epilogue`` (ONNX's Gemm with transB = 1, as PyTorch's
/// `nn.Linear` exports): the classifier's last layer. `x` is any view of `inFeatures` floats (a C×1×1 pooled
/// map), `y` one of `outFeatures`.
///
/// ```swift
/// let fc = Linear(outFeatures: 1000, inFeatures: 1280, weight: w, bias: b)
/// fc.forward(pooled, into: logits, epilogue: .none, context: context)
/// ```
public struct Linear: @unchecked Sendable {
    public let outFeatures: Int
    public let inFeatures: Int
    /// Row-major `outFeatures × inFeatures` (PyTorch's layout), used in place.
    public let weight: UnsafePointer<Float>
    /// `outFeatures` floats.
    public let bias: UnsafePointer<Float>

    public init(outFeatures: Int, inFeatures: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>) {
        precondition(outFeatures >= 1 && inFeatures >= 1, "a linear layer needs features")
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
        self.weight = weight
        self.bias = bias
    }

    /// Dot products in Double: the reference.
    public func referenceForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue) {
        checkShapes(input, output, epilogue)
        for o in 0..<outFeatures {
            var sum = Double(bias[o])
            for i in 0..<inFeatures { sum += Double(weight[o * inFeatures + i]) * Double(input.data[i]) }
            output.data[o] = epilogue.apply(Float(sum), residual: epilogue.residual?.data[o] ?? 0)
        }
    }

    /// A SIMD dot product per output (the context's kernel build's, `SIMDKernels.linearRows`), the outputs split
    /// between the workers in blocks, then the epilogue: exact to float rounding, and the same bytes however many
    /// threads run it. Not `BLAS.sgemm` with one column: OpenBLAS copied the whole weight matrix into its packed
    /// form on every call (5 MB for EfficientNet's 1280 → 1000, ~4 % of the network's time), where one read of it
    /// is all a matrix-vector product needs; the read is memory-bound, so two cores share it.
    public func forward(_ input: TensorView, into output: TensorView, epilogue: Epilogue, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        let blocks = min(outFeatures, 4 * context.threads)
        context.parallelFor(count: blocks, Rows(layer: self, x: input.data, out: output.data, blocks: blocks,
                                                 kernel: context.kernels.linearRows))
        for o in 0..<outFeatures {
            output.data[o] = epilogue.apply(output.data[o], residual: epilogue.residual?.data[o] ?? 0)
        }
    }

    /// One task per block of outputs.
    struct Rows: ParallelTasks {
        let layer: Linear
        let x: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
        let blocks: Int
        let kernel: Kernels.LinearRows

        func run(_ task: Int, worker: Int) {
            let n = layer.outFeatures
            kernel(layer.weight, x, layer.inFeatures, layer.bias, n * task / blocks ..< n * (task + 1) / blocks, out)
        }
    }

    /// Multiply-accumulates of one pass.
    public var macs: Int { outFeatures * inFeatures }

    func checkShapes(_ input: TensorView, _ output: TensorView, _ epilogue: Epilogue) {
        precondition(input.count == inFeatures, "linear layer takes \(inFeatures) features, got \(input.count)")
        precondition(output.count == outFeatures, "linear layer gives \(outFeatures) features, got \(output.count)")
        if let r = epilogue.residual { precondition(r.count == outFeatures, "residual of \(r.count) ≠ \(outFeatures)") }
    }
}
