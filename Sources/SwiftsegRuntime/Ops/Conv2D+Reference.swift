extension Conv2D {
    /// Direct convolution in nested loops, accumulated in Double: the specification the fast kernels are tested
    /// against. Zero padding outside the input.
    public func referenceForward(_ input: TensorView, into output: TensorView, epilogue: Epilogue) {
        checkShapes(input, output, epilogue)
        let k = kernelSize, pad = padding, h = input.height, w = input.width
        for co in 0..<outChannels {
            for y in 0..<h {
                for x in 0..<w {
                    var sum = Double(bias[co])
                    for ci in 0..<inChannels {
                        for ky in 0..<k {
                            let sy = y + ky * dilation - pad
                            if sy < 0 || sy >= h { continue }
                            for kx in 0..<k {
                                let sx = x + kx * dilation - pad
                                if sx < 0 || sx >= w { continue }
                                let wv = weight[((co * inChannels + ci) * k + ky) * k + kx]
                                sum += Double(wv) * Double(input[ci, sy, sx])
                            }
                        }
                    }
                    var v = Float(sum)
                    switch epilogue {
                    case .bias: break
                    case .biasReLU: v = max(v, 0)
                    case .biasReLUResidual(let r): v = max(v, 0) + r[co, y, x]
                    }
                    output[co, y, x] = v
                }
            }
        }
    }
}
