/// The vector loops of a transformer's token rows: layer normalisation, GELU, the bias and residual after a
/// token matrix product, and the softmax of attention scores. Each works on one row of a channels-last token
/// matrix (a token's features side by side), written over ``SIMDKernels/Vector`` with a scalar tail that
/// computes the same function; compiled in each kernel build like the rest of this module.
public enum TransformerKernels {
    public typealias Vector = SIMDKernels.Vector
    static let width = SIMDKernels.width

    /// y = (x − mean) / √(variance + ε) · weight + bias over one token's `features` floats (`y` may be `x`):
    /// the mean first, then the variance as the mean square of the differences (two passes, as ONNX's
    /// LayerNormalization defines it), both summed in float across the vector's lanes.
    public static func layerNorm(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, features n: Int,
                                 weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, epsilon: Float) {
        var i = 0
        var lanes = Vector(repeating: 0)
        while i + width <= n { lanes += SIMDKernels.load(x + i); i += width }
        var sum = lanes.sum()
        while i < n { sum += x[i]; i += 1 }
        let mean = sum / Float(n), m = Vector(repeating: mean)
        i = 0
        lanes = Vector(repeating: 0)
        while i + width <= n {
            let d = SIMDKernels.load(x + i) - m
            lanes = SIMDKernels.multiplyAdd(d, d, lanes)
            i += width
        }
        var squares = lanes.sum()
        while i < n { let d = x[i] - mean; squares = SIMDKernels.multiplyAdd(d, d, squares); i += 1 }
        let scale = 1 / (squares / Float(n) + epsilon).squareRoot(), s = Vector(repeating: scale)
        i = 0
        while i + width <= n {
            let normalised = (SIMDKernels.load(x + i) - m) * s
            SIMDKernels.store(SIMDKernels.multiplyAdd(normalised, SIMDKernels.load(weight + i),
                                                      SIMDKernels.load(bias + i)), y + i)
            i += width
        }
        while i < n { y[i] = SIMDKernels.multiplyAdd((x[i] - mean) * scale, weight[i], bias[i]); i += 1 }
    }

    /// p[i] = GELU(p[i] + bias[i]) = ½·v·(1 + erf(v/√2)) over one row (no add without a bias): an MLP's first
    /// layer's epilogue.
    public static func addBiasGELU(_ p: UnsafeMutablePointer<Float>, count: Int, bias: UnsafePointer<Float>?) {
        var i = 0
        if let bias {
            while i + width <= count {
                SIMDKernels.store(gelu(SIMDKernels.load(p + i) + SIMDKernels.load(bias + i)), p + i)
                i += width
            }
            while i < count { p[i] = gelu(Vector(repeating: p[i] + bias[i]))[0]; i += 1 }
        } else {
            while i + width <= count { SIMDKernels.store(gelu(SIMDKernels.load(p + i)), p + i); i += width }
            while i < count { p[i] = gelu(Vector(repeating: p[i]))[0]; i += 1 }
        }
    }

    /// p[i] = p[i] + bias[i] + residual[i] over one row (either may be absent): a projection's epilogue, the
    /// residual being the block's shortcut.
    public static func addBias(_ p: UnsafeMutablePointer<Float>, count: Int, bias: UnsafePointer<Float>?,
                               residual: UnsafePointer<Float>?) {
        switch (bias, residual) {
        case (nil, nil): return
        case let (b?, nil):
            var i = 0
            while i + width <= count { SIMDKernels.store(SIMDKernels.load(p + i) + SIMDKernels.load(b + i), p + i); i += width }
            while i < count { p[i] += b[i]; i += 1 }
        case let (nil, r?):
            var i = 0
            while i + width <= count { SIMDKernels.store(SIMDKernels.load(p + i) + SIMDKernels.load(r + i), p + i); i += width }
            while i < count { p[i] += r[i]; i += 1 }
        case let (b?, r?):
            var i = 0
            while i + width <= count {
                SIMDKernels.store(SIMDKernels.load(p + i) + SIMDKernels.load(b + i) + SIMDKernels.load(r + i), p + i)
                i += width
            }
            while i < count { p[i] = p[i] + b[i] + r[i]; i += 1 }
        }
    }

    /// p[i] = e^(p[i] − max) / Σ e^(p[j] − max) over one row of attention scores; −∞ (a masked pair) gives 0.
    public static func softmax(_ p: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        var peaks = Vector(repeating: -.infinity)
        while i + width <= count { peaks = SIMDKernels.max(peaks, SIMDKernels.load(p + i)); i += width }
        var peak = peaks.max()
        while i < count { peak = Swift.max(peak, p[i]); i += 1 }
        let m = Vector(repeating: peak)
        i = 0
        var lanes = Vector(repeating: 0)
        while i + width <= count {
            let e = exp(SIMDKernels.load(p + i) - m)
            SIMDKernels.store(e, p + i)
            lanes += e
            i += width
        }
        var sum = lanes.sum()
        while i < count { let e = exp(Vector(repeating: p[i] - peak))[0]; p[i] = e; sum += e; i += 1 }
        let s = Vector(repeating: 1 / sum)
        i = 0
        while i + width <= count { SIMDKernels.store(SIMDKernels.load(p + i) * s, p + i); i += width }
        while i < count { p[i] *= 1 / sum; i += 1 }
    }

    /// e^x lane by lane, within 2 ulp for x in [−87, 88] (clamped there; below −87, 0): x = n·ln 2 + r with
    /// |r| ≤ ½ ln 2, e^r by its Taylor polynomial to r⁶, 2ⁿ written into the exponent bits. n is rounded by
    /// adding 1.5·2²³, which leaves it in the sum's low mantissa bits.
    @inlinable @inline(__always) static func exp(_ x: Vector) -> Vector {
        let clamped = SIMDKernels.min(SIMDKernels.max(x, Vector(repeating: -87)), Vector(repeating: 88))
        let shifter = Vector(repeating: 12_582_912)
        let shifted = SIMDKernels.multiplyAdd(clamped, Vector(repeating: 1.442_695_04), shifter)
        let n = shifted - shifter
        var r = SIMDKernels.multiplyAdd(n, Vector(repeating: -0.693_145_75), clamped)   // ln 2's high part
        r = SIMDKernels.multiplyAdd(n, Vector(repeating: -1.428_606_8e-6), r)             // and the rest
        var poly = Vector(repeating: 1.0 / 720)
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 1.0 / 120))
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 1.0 / 24))
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 1.0 / 6))
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 0.5))
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 1))
        poly = SIMDKernels.multiplyAdd(poly, r, Vector(repeating: 1))
        let exponent = (unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- 0x4B40_0000 &+ 127) &<< 23
        return (poly * unsafeBitCast(exponent, to: Vector.self)).replacing(with: 0, where: x .< -87)
    }

    /// ½·x·(1 + erf(x/√2)) lane by lane. 1 + erf(u) is computed as erfc(−u), by Abramowitz and Stegun's 7.1.26
    /// (|error| ≤ 1.5·10⁻⁷): erfc(z) = t·P(t)·e^(−z²) with t = 1/(1 + 0.3275911·z) for z = |u|, and 2 − that
    /// for u ≥ 0 — so the negative side, where GELU is tiny, loses nothing to cancellation.
    @inlinable @inline(__always) static func gelu(_ x: Vector) -> Vector {
        let u = x * Vector(repeating: 0.707_106_77)
        let z = u.replacing(with: -u, where: u .< 0)
        let t = 1 / SIMDKernels.multiplyAdd(z, Vector(repeating: 0.327_591_1), Vector(repeating: 1))
        var poly = Vector(repeating: 1.061_405_429)
        poly = SIMDKernels.multiplyAdd(poly, t, Vector(repeating: -1.453_152_027))
        poly = SIMDKernels.multiplyAdd(poly, t, Vector(repeating: 1.421_413_741))
        poly = SIMDKernels.multiplyAdd(poly, t, Vector(repeating: -0.284_496_736))
        poly = SIMDKernels.multiplyAdd(poly, t, Vector(repeating: 0.254_829_592))
        let tail = poly * t * exp(-(z * z))          // erfc(z)
        let onePlusErf = tail.replacing(with: 2 - tail, where: u .>= 0)
        return 0.5 * x * onePlusErf
    }
}
