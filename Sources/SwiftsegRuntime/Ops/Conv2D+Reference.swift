extension Conv2D {
    /// Direct convolution in nested loops, accumulated in Double: the specification the fast kernels are tested
    /// against (and itself against ONNX Runtime, Tests/Fixtures/ops). Zero padding outside the input; stride,
    /// dilation, padding and groups exactly as ONNX's Conv defines them.
    public func referenceForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue) {
        checkShapes(input, output, epilogue)
        let k = kernelSize, h = input.height, w = input.width
        let pad = resolvedPadding(height: h, width: w)
        let inPerGroup = inChannels / groups, outPerGroup = outChannels / groups
        for co in 0..<outChannels {
            let firstInput = co / outPerGroup * inPerGroup
            for y in 0..<output.height {
                for x in 0..<output.width {
                    var sum = Double(bias[co])
                    for ci in 0..<inPerGroup {
                        for ky in 0..<k {
                            let sy = y * stride + ky * dilation - pad.top
                            if sy < 0 || sy >= h { continue }
                            for kx in 0..<k {
                                let sx = x * stride + kx * dilation - pad.left
                                if sx < 0 || sx >= w { continue }
                                let wv = weight[((co * inPerGroup + ci) * k + ky) * k + kx]
                                sum += Double(wv) * Double(input[firstInput + ci, sy, sx])
                            }
                        }
                    }
                    output[co, y, x] = epilogue.apply(Float(sum), residual: epilogue.residual.map { $0[co, y, x] } ?? 0)
                }
            }
        }
    }
}
