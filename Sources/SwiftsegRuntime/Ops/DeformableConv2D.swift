/// The modulated deformable convolution (Deformable ConvNets v2; torchvision's `deform_conv2d` with a mask, one
/// offset group, stride and dilation 1): each kernel tap `k` of each output pixel reads the input not at its
/// grid position but `offset` (Δy, Δx) away, bilinearly, zero outside the map, scaled by `mask`:
///
///     out[o, y, x] = bias[o] + Σ_c Σ_k weight[o, c, k] · mask[k, y, x] · input[c](y − pad + i_k + Δy_k, x − pad + j_k + Δx_k)
///
/// with `offset` holding (Δy, Δx) for each tap in channel pairs (2k, 2k + 1). BiRefNet's decoder computes
/// offset and mask by convolutions of its own input (ASPP-deformable), as rembg's ONNX files spell out in
/// Gather and Conv nodes.
///
/// ```swift
/// let deform = DeformableConv2D(inChannels: 64, outChannels: 256, kernelSize: 3, padding: 1, weight: w, bias: nil)
/// deform.forward(x, offset: offsets, mask: modulator, into: y, context: context)
/// ```
public struct DeformableConv2D: @unchecked Sendable {
    public let inChannels: Int
    public let outChannels: Int
    public let kernelSize: Int
    public let padding: Int
    /// `outChannels × inChannels × kernelSize × kernelSize`, PyTorch's layout: row `o` is the GEMM's row over
    /// (channel, tap) in that order.
    public let weight: UnsafePointer<Float>
    public let bias: UnsafePointer<Float>?

    public init(inChannels: Int, outChannels: Int, kernelSize: Int, padding: Int, weight: UnsafePointer<Float>,
                bias: UnsafePointer<Float>?) {
        precondition(inChannels >= 1 && outChannels >= 1 && kernelSize >= 1 && padding >= 0, "a deformable conv's sizes")
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.kernelSize = kernelSize
        self.padding = padding
        self.weight = weight
        self.bias = bias
    }

    /// Taps per output pixel.
    public var taps: Int { kernelSize * kernelSize }

    /// The output's height or width for an input's.
    public func outputSize(_ size: Int) -> Int { size + 2 * padding - kernelSize + 1 }

    /// The sampled value and the four corners' weights; a corner outside the map reads zero.
    @inline(__always)
    static func sample(_ plane: UnsafePointer<Float>, height: Int, width: Int, y: Float, x: Float) -> Float {
        guard y > -1 && y < Float(height) && x > -1 && x < Float(width) else { return 0 }
        let fy = y.rounded(.down), fx = x.rounded(.down)
        let dy = y - fy, dx = x - fx
        let y0 = Int(fy), x0 = Int(fx), y1 = y0 + 1, x1 = x0 + 1
        @inline(__always) func at(_ yy: Int, _ xx: Int) -> Float {
            yy >= 0 && yy < height && xx >= 0 && xx < width ? plane[yy * width + xx] : 0
        }
        return (1 - dy) * (1 - dx) * at(y0, x0) + (1 - dy) * dx * at(y0, x1) + dy * (1 - dx) * at(y1, x0)
            + dy * dx * at(y1, x1)
    }

    /// The definition, pixel by pixel, the products summed in Double: the reference. `maskScale` multiplies the
    /// mask (BiRefNet's is 2·sigmoid); `epilogue` is an activation (no residual).
    public func reference(_ input: TensorView, offset: TensorView, mask: TensorView, maskScale: Float = 1,
                          into output: TensorView, epilogue: Epilogue = .none) {
        checkShapes(input, offset, mask, output, epilogue)
        let k = kernelSize, kk = taps
        for oy in 0..<output.height {
            for ox in 0..<output.width {
                var values = [Double](repeating: 0, count: inChannels * kk)
                for c in 0..<inChannels {
                    for t in 0..<kk {
                        let y = Float(oy - padding + t / k) + offset[2 * t, oy, ox]
                        let x = Float(ox - padding + t % k) + offset[2 * t + 1, oy, ox]
                        let v = DeformableConv2D.sample(input.plane(c), height: input.height, width: input.width, y: y, x: x)
                        values[c * kk + t] = Double(v) * Double(mask[t, oy, ox] * maskScale)
                    }
                }
                for o in 0..<outChannels {
                    var sum = bias.map { Double($0[o]) } ?? 0
                    let row = weight + o * inChannels * kk
                    for i in 0..<inChannels * kk { sum += Double(row[i]) * values[i] }
                    output[o, oy, ox] = epilogue.apply(Float(sum), residual: 0)
                }
            }
        }
    }

    /// Runs of ``run`` output pixels (row-major over the output plane) split between the workers: each run's
    /// sampled, masked inputs as a (channels·taps) × pixels matrix in the worker's scratch — each tap's corners
    /// and weights found once for all channels, then the matrix filled channel by channel, row by row, from one
    /// plane at a time — then `BLAS.sgemm` with the weights straight into the output planes, then the bias and
    /// activation. Every run has the same shape whatever the threads.
    public func forward(_ input: TensorView, offset: TensorView, mask: TensorView, maskScale: Float = 1,
                        into output: TensorView, epilogue: Epilogue = .none, context: ExecutionContext) {
        checkShapes(input, offset, mask, output, epilogue)
        let pixels = output.planeSize
        let runs = (pixels + DeformableConv2D.run - 1) / DeformableConv2D.run
        // The matrix, then per tap and pixel four weights and three corner offsets.
        let scratch = context.scratch(floats: (inChannels + 7) * taps * DeformableConv2D.run)
        context.timeOp("deformable conv") {
            context.parallelFor(count: runs, Runs(conv: self, input: input, offset: offset, mask: mask,
                                                  maskScale: maskScale, output: output, epilogue: epilogue,
                                                  scratch: scratch))
        }
    }

    /// Output pixels per task: a 64-channel, 49-tap run's matrix is 1.6 MB.
    static let run = 128

    struct Runs: ParallelTasks {
        let conv: DeformableConv2D
        let input: TensorView, offset: TensorView, mask: TensorView
        let maskScale: Float
        let output: TensorView
        let epilogue: Epilogue
        let scratch: [UnsafeMutablePointer<Float>]

        func run(_ task: Int, worker: Int) {
            let c = conv, k = c.kernelSize, kk = c.taps, plane = output.planeSize
            let first = task * DeformableConv2D.run, count = min(DeformableConv2D.run, plane - first)
            let columns = scratch[worker]
            let h = input.height, w = input.width
            // Each tap's corners for the run's pixels, once: the top-left index (clamped so any read is valid),
            // the step to the right and down (0 at the map's last column or row), and four weights (zero for a
            // corner outside the map, the mask folded in).
            let weights = columns + c.inChannels * kk * count, stride = kk * count
            UnsafeMutableRawPointer(weights + 4 * stride).withMemoryRebound(to: Int32.self, capacity: 3 * stride) { corners in
                for t in 0..<kk {
                    let dyPlane = offset.plane(2 * t), dxPlane = offset.plane(2 * t + 1), maskPlane = mask.plane(t)
                    for p in 0..<count {
                        let pixel = first + p, oy = pixel / output.width, ox = pixel % output.width, e = t * count + p
                        let y = Float(oy - c.padding + t / k) + dyPlane[pixel]
                        let x = Float(ox - c.padding + t % k) + dxPlane[pixel]
                        let m = maskPlane[pixel] * maskScale
                        guard y > -1 && y < Float(h) && x > -1 && x < Float(w) else {
                            weights[e] = 0; weights[stride + e] = 0; weights[2 * stride + e] = 0; weights[3 * stride + e] = 0
                            corners[e] = 0; corners[stride + e] = 0; corners[2 * stride + e] = 0
                            continue
                        }
                        let fy = y.rounded(.down), fx = x.rounded(.down)
                        let dy = y - fy, dx = x - fx
                        let y0 = Int(fy), x0 = Int(fx)
                        let inY0 = y0 >= 0, inY1 = y0 + 1 < h, inX0 = x0 >= 0, inX1 = x0 + 1 < w
                        weights[e] = inY0 && inX0 ? (1 - dy) * (1 - dx) * m : 0
                        weights[stride + e] = inY0 && inX1 ? (1 - dy) * dx * m : 0
                        weights[2 * stride + e] = inY1 && inX0 ? dy * (1 - dx) * m : 0
                        weights[3 * stride + e] = inY1 && inX1 ? dy * dx * m : 0
                        let r0 = Swift.max(y0, 0), r1 = Swift.min(y0 + 1, h - 1)
                        let c0 = Swift.max(x0, 0), c1 = Swift.min(x0 + 1, w - 1)
                        corners[e] = Int32(r0 * w + c0)
                        corners[stride + e] = Int32(c1 - c0)
                        corners[2 * stride + e] = Int32((r1 - r0) * w)
                    }
                }
                // Then channel by channel, each tap's row of the matrix written in order from one plane.
                for ch in 0..<c.inChannels {
                    let src = UnsafePointer(input.plane(ch))
                    for t in 0..<kk {
                        let row = columns + (ch * kk + t) * count
                        for p in 0..<count {
                            let e = t * count + p
                            let i = Int(corners[e]), right = Int(corners[stride + e]), down = Int(corners[2 * stride + e])
                            row[p] = weights[e] * src[i] + weights[stride + e] * src[i + right]
                                + weights[2 * stride + e] * src[i + down] + weights[3 * stride + e] * src[i + down + right]
                        }
                    }
                }
            }
            BLAS.sgemm(m: c.outChannels, n: count, k: c.inChannels * kk, a: c.weight, lda: c.inChannels * kk,
                       b: columns, ldb: count, c: output.data + first, ldc: plane)
            if c.bias != nil || epilogue.activation != .none {
                for o in 0..<c.outChannels {
                    let out = output.plane(o) + first, b = c.bias?[o] ?? 0
                    for p in 0..<count { out[p] = epilogue.apply(out[p] + b, residual: 0) }
                }
            }
        }
    }

    func checkShapes(_ input: TensorView, _ offset: TensorView, _ mask: TensorView, _ output: TensorView,
                     _ epilogue: Epilogue) {
        precondition(epilogue.residual == nil, "a deformable conv's epilogue is an activation only")
        precondition(input.channels == inChannels, "deformable conv takes \(inChannels) channels, got \(input.channels)")
        precondition(output.channels == outChannels && output.height == outputSize(input.height)
                     && output.width == outputSize(input.width),
                     "deformable conv gives \(outChannels)×\(outputSize(input.height))×\(outputSize(input.width)), not \(output.shapeDescription)")
        precondition(offset.channels == 2 * taps && offset.height == output.height && offset.width == output.width,
                     "offsets \(offset.shapeDescription) ≠ \(2 * taps)×\(output.height)×\(output.width)")
        precondition(mask.channels == taps && mask.height == output.height && mask.width == output.width,
                     "mask \(mask.shapeDescription) ≠ \(taps)×\(output.height)×\(output.width)")
    }
}
