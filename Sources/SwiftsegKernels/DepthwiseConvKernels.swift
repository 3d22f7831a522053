/// Depthwise k×k convolution (any odd k, stride 1 or 2, dilation 1) on one channel's plane, one output row at a
/// time, each output vector's k² taps accumulated in a register: MobileNet's and EfficientNet's filter step. The
/// reference is `Conv2D.referenceForward` (SwiftsegRuntime/Ops/Conv2D+Reference.swift); tests compare the two.
///
/// Input rows are copied once into a ring of k zero-padded rows in the scratch — at stride 2 split into their
/// even and odd columns — so every tap reads one contiguous span the same way, edges included: tap (ky, kx) of
/// output pixel x reads padded column x·s + kx, which at stride 2 is column x + kx/2 of phase kx mod 2.
public enum DepthwiseConvKernels {
    typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width

    /// Floats of one padded row (both phases at stride 2) for an output row of `outWidth` pixels.
    static func phaseFloats(kernelSize k: Int, outWidth: Int) -> Int { (outWidth + width - 1) / width * width + k + width }

    /// Floats of scratch ``channelRows(input:height:width:weight:bias:kernelSize:stride:padTop:padLeft:output:outHeight:outWidth:rows:_:epilogue:scratch:)``
    /// needs (the caller's buffer need not be aligned).
    public static func scratchFloats(kernelSize k: Int, stride s: Int, outWidth: Int) -> Int {
        k * s * phaseFloats(kernelSize: k, outWidth: outWidth) + width + 4 * k + 32
    }

    /// Output rows `y0 ..< y1` of one channel: `output[y][x] = epilogue(bias + Σ weight[ky][kx] ·
    /// input[y·s + ky − padTop][x·s + kx − padLeft])`, zero outside the input. `output` (and the epilogue's
    /// residual) point at the channel's plane of `outHeight × outWidth`. Rows before `y1 − 1` may be written a
    /// vector past their end (into the next row, rewritten right after), so one call owns rows `y0 ..< y1`
    /// whole.
    @inline(never)
    public static func channelRows(input: UnsafePointer<Float>, height h: Int, width w: Int, weight: UnsafePointer<Float>,
                                   bias: Float, kernelSize k: Int, stride s: Int, padTop: Int, padLeft: Int,
                                   output: UnsafeMutablePointer<Float>, outHeight: Int, outWidth: Int,
                                   rows y0: Int, _ y1: Int, epilogue: KernelEpilogue,
                                   scratch: UnsafeMutablePointer<Float>) {
        precondition(s == 1 || s == 2, "depthwise kernel: stride 1 or 2")
        switch epilogue.activation {
        case .none:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, Identity.self, scratch: scratch)
        case .relu:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, ReLU.self, scratch: scratch)
        case .relu6:
            channelRowsBody(input: input, height: h, width: w, weight: weight, bias: bias, kernelSize: k, stride: s,
                            padTop: padTop, padLeft: padLeft, output: output, outHeight: outHeight, outWidth: outWidth,
                            rows: y0, y1, residual: epilogue.residual, ReLU6.self, scratch: scratch)
        }
    }

    @inline(never)
    static func channelRowsBody<A: VectorActivation>(input: UnsafePointer<Float>, height h: Int, width w: Int,
                                                     weight: UnsafePointer<Float>, bias: Float, kernelSize k: Int,
                                                     stride s: Int, padTop: Int, padLeft: Int,
                                                     output: UnsafeMutablePointer<Float>, outHeight: Int,
                                                     outWidth: Int, rows y0: Int, _ y1: Int,
                                                     residual: UnsafePointer<Float>?, _ activation: A.Type,
                                                     scratch: UnsafeMutablePointer<Float>) {
        let phase = phaseFloats(kernelSize: k, outWidth: outWidth)   // floats per phase
        let slot = s * phase                                            // floats per ring slot
        let aligned = UnsafeMutableRawPointer(scratch).alignedUp(toMultipleOf: 64)
        let ring = aligned.bindMemory(to: Float.self, capacity: k * slot + width)
        let tail = ring + k * slot  // one vector for the right edge's partial store
        // Each tap column's offset in a ring slot, and each tap row's slot, worked out once instead of with an
        // integer division per tap and vector (which took most of the kernel's time).
        let offsets = UnsafeMutableRawPointer(tail + width).alignedUp(toMultipleOf: 16).bindMemory(to: Int.self, capacity: 2 * k)
        let slots = offsets + k
        for kx in 0..<k { offsets[kx] = (kx % s) * phase + kx / s }
        let b = Vector(repeating: bias)
        var loaded = Int.min  // the last input row copied into the ring
        for y in y0..<y1 {
            let first = y * s - padTop  // input row of tap row 0
            // Copy the rows this output row needs that are not in the ring yet (rows only move forward).
            var r = Swift.max(first, loaded + 1, 0)
            while r < Swift.min(first + k, h) {
                let dst = ring + (r % k) * slot, src = input + r * w
                // Padded column c is input column c − padLeft; stored at phase c mod s, index c / s.
                if s == 1 {
                    dst.update(repeating: 0, count: phase)
                    let c0 = padLeft, n = Swift.min(w, phase - c0)
                    if n > 0 { (dst + c0).update(from: src, count: n) }
                } else {
                    dst.update(repeating: 0, count: 2 * phase)
                    // Each parity's columns in one strided loop (no division or test per pixel).
                    for parity in 0..<2 {
                        let out = dst + parity * phase
                        var x = (parity - padLeft) & 1
                        while x < w {
                            out[(x &+ padLeft) >> 1] = src[x]
                            x &+= 2
                        }
                    }
                }
                loaded = r
                r += 1
            }
            let ky0 = Swift.max(0, -first), ky1 = Swift.min(k, h - first)  // tap rows inside the input
            for ky in ky0..<Swift.max(ky0, ky1) { slots[ky] = ((first + ky) % k) * slot }
            let out = output + y * outWidth, res = residual.map { $0 + y * outWidth }
            var x = 0
            while x < outWidth {
                // One accumulator per tap column, so the FMAs are k independent chains instead of one of k²
                // (whose latency, not the arithmetic, bound the kernel); summed at the end.
                var acc: Vector
                if k == 3 {
                    let o0 = offsets[0], o1 = offsets[1], o2 = offsets[2]
                    var c0 = b, c1 = Vector(repeating: 0), c2 = Vector(repeating: 0)
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * 3
                        c0 = SIMDKernels.multiplyAdd(Vector(repeating: taps[0]), SIMDKernels.load(row + o0), c0)
                        c1 = SIMDKernels.multiplyAdd(Vector(repeating: taps[1]), SIMDKernels.load(row + o1), c1)
                        c2 = SIMDKernels.multiplyAdd(Vector(repeating: taps[2]), SIMDKernels.load(row + o2), c2)
                    }
                    acc = c0 + c1 + c2
                } else if k == 5 {
                    let o0 = offsets[0], o1 = offsets[1], o2 = offsets[2], o3 = offsets[3], o4 = offsets[4]
                    var c0 = b, c1 = Vector(repeating: 0), c2 = Vector(repeating: 0)
                    var c3 = Vector(repeating: 0), c4 = Vector(repeating: 0)
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * 5
                        c0 = SIMDKernels.multiplyAdd(Vector(repeating: taps[0]), SIMDKernels.load(row + o0), c0)
                        c1 = SIMDKernels.multiplyAdd(Vector(repeating: taps[1]), SIMDKernels.load(row + o1), c1)
                        c2 = SIMDKernels.multiplyAdd(Vector(repeating: taps[2]), SIMDKernels.load(row + o2), c2)
                        c3 = SIMDKernels.multiplyAdd(Vector(repeating: taps[3]), SIMDKernels.load(row + o3), c3)
                        c4 = SIMDKernels.multiplyAdd(Vector(repeating: taps[4]), SIMDKernels.load(row + o4), c4)
                    }
                    acc = (c0 + c1) + (c2 + c3) + c4
                } else {
                    acc = b
                    for ky in ky0..<Swift.max(ky0, ky1) {
                        let row = ring + slots[ky] + x, taps = weight + ky * k
                        for kx in 0..<k {
                            acc = SIMDKernels.multiplyAdd(Vector(repeating: taps[kx]), SIMDKernels.load(row + offsets[kx]), acc)
                        }
                    }
                }
                acc = A.apply(acc)
                // A whole vector also where the row ends short of one, when the lanes past it land in rows this
                // call computes after it (a scalar tail on every short row took a sixth of the kernel's time).
                if x + width <= (y1 - y) * outWidth {
                    if let res { acc += SIMDKernels.load(res + x) }
                    SIMDKernels.store(acc, out + x)
                } else {
                    SIMDKernels.store(acc, tail)
                    for lane in 0..<(outWidth - x) { out[x + lane] = tail[lane] + (res?[x + lane] ?? 0) }
                }
                x += width
            }
        }
    }
}
