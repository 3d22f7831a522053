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
    /// Row-major `outFeatures × inFeatures` (PyTorch's layout), read by the reference.
    public let weight: UnsafePointer<Float>
    /// `outFeatures` floats.
    public let bias: UnsafePointer<Float>
    /// The same weights a column per input, for ``forward(_:into:epilogue:context:)`` (``columns(_:outFeatures:inFeatures:)``).
    let columns: RearrangedWeights

    public init(outFeatures: Int, inFeatures: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>) {
        precondition(outFeatures >= 1 && inFeatures >= 1, "a linear layer needs features")
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
        self.weight = weight
        self.bias = bias
        columns = Linear.columns(weight, outFeatures: outFeatures, inFeatures: inFeatures)
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

    /// The nonzero inputs listed, then each one's column of weights multiplied into all the outputs (the
    /// context's kernel build's `SIMDKernels.linearColumns`), the outputs split between the workers in blocks of
    /// 16, then the epilogue: within float rounding of the reference, and the same bytes however many threads run
    /// it. A classifier's pooled ReLU6 features are 28–63 % zeros on photos (a channel is zero when its whole map
    /// is), and the layer is a read of its weights from memory (5 MB for EfficientNet's 1280 → 1000, in no
    /// cache between passes): a zero's column is never read. (Not `BLAS.sgemm` with one column: OpenBLAS copied
    /// the whole weight matrix into its packed form on every call.)
    public func forward(_ input: TensorView, into output: TensorView, epilogue: Epilogue, context: ExecutionContext) {
        checkShapes(input, output, epilogue)
        let units = (outFeatures + Linear.split - 1) / Linear.split
        let blocks = min(units, 4 * context.threads)
        // The list in worker 0's scratch: the tasks use none (4-byte indices in the floats' room).
        UnsafeMutableRawPointer(context.scratch(floats: inFeatures)[0]).withMemoryRebound(to: Int32.self,
                                                                                          capacity: inFeatures) { list in
            var count = 0
            for i in 0..<inFeatures where input.data[i] != 0 {
                list[count] = Int32(i)
                count += 1
            }
            context.parallelFor(count: blocks, Outputs(layer: self, x: input.data, inputs: list, count: count,
                                                       out: output.data, units: units, blocks: blocks,
                                                       kernel: context.kernels.linearColumns))
        }
        for o in 0..<outFeatures {
            output.data[o] = epilogue.apply(output.data[o], residual: epilogue.residual?.data[o] ?? 0)
        }
    }

    /// Outputs per unit of the split between workers: one AVX-512 vector, whole vectors in every build.
    static let split = 16

    /// One task per block of outputs.
    struct Outputs: ParallelTasks {
        let layer: Linear
        let x: UnsafeMutablePointer<Float>
        let inputs: UnsafeMutablePointer<Int32>, count: Int
        let out: UnsafeMutablePointer<Float>
        let units: Int, blocks: Int
        let kernel: Kernels.LinearColumns

        func run(_ task: Int, worker: Int) {
            let lower = units * task / blocks * Linear.split
            let upper = min(units * (task + 1) / blocks * Linear.split, layer.outFeatures)
            kernel(layer.columns.floats, layer.outFeatures, x, inputs, count, layer.bias, lower..<upper, out)
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

extension Linear {
    /// The weights transposed at load, `inFeatures × outFeatures`: an input's weights to every output in a row,
    /// so that skipping a zero input skips a contiguous read.
    static func columns(_ weight: UnsafePointer<Float>, outFeatures: Int, inFeatures: Int) -> RearrangedWeights {
        RearrangedWeights(count: outFeatures * inFeatures) { w in
            for o in 0..<outFeatures {
                for i in 0..<inFeatures { w[i * outFeatures + o] = weight[o * inFeatures + i] }
            }
        }
    }
}
