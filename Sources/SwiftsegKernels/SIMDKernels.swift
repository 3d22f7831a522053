/// The runtime's SIMD layer: every vector loop lives here, written over `SIMDKernels.Vector` with an explicit
/// scalar tail. Other files call these instead of writing their own vector code, so a change of vector width is
/// made in this one file. This module is compiled three times (see Package.swift): as `SwiftsegKernels` for the
/// baseline CPU, as `SwiftsegKernelsAVX2` and as `SwiftsegKernelsAVX512`; `SwiftsegRuntime/Ops/Kernels.swift`
/// picks one at run time. Inside, `#if` picks per build (the conditions are set in Package.swift):
/// `SWIFTSEG_FMA` (or arm64) fuses multiply-adds, `SWIFTSEG_PERMUTES` (or arm64) uses lane permutes (AVX2's
/// in-lane unpacks on 8-float halves, AVX-512's two-source `vpermt2ps`, NEON's `uzp`/`zip`); SSE2 gets scalar
/// shuffles instead.
/// `SWIFTSEG_32_REGISTERS` (AVX-512) allows register blocks and transform forms that keep more than 16 vector
/// registers live (the 8×32 GEMM block, the store-saving Winograd input transforms).
import _CKernelSupport
@_exported import SwiftsegKernelTypes

public enum SIMDKernels {
    /// 16 floats: one AVX-512 register, two AVX2 or four SSE/NEON registers (LLVM splits it).
    public typealias Vector = SIMD16<Float>
    public static let width = Vector.scalarCount

    @inlinable @inline(__always) static func load(_ p: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    @inlinable @inline(__always) static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
    }

    // Plain loops instead of the standard library's generic `update(repeating:)`/`update(from:)`: their
    // specialisations would be linked once for all builds of this module (see Package.swift).
    /// Zeros `count` floats.
    @inline(__always) static func fill(_ p: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let zero = Vector(repeating: 0)
        while i + width <= count { store(zero, p + i); i += width }
        while i < count { p[i] = 0; i += 1 }
    }

    /// Copies `count` floats.
    @inline(__always) static func copy(_ src: UnsafePointer<Float>, to dst: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + width <= count { store(load(src + i), dst + i); i += width }
        while i < count { dst[i] = src[i]; i += 1 }
    }

    /// Lane-wise maximum as compare + select. The standard library's `pointwiseMax` goes lane by lane through
    /// memory (measured 60× slower than this on SIMD16<Float>), so no kernel calls it.
    /// (Concrete overloads: generic SIMD code falls back to lane-by-lane loops too.)
    @inlinable @inline(__always) static func max(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        a.replacing(with: b, where: a .< b)
    }

    /// Lane-wise minimum, as ``max(_:_:)``.
    @inlinable @inline(__always) static func min(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        a.replacing(with: b, where: b .< a)
    }

    /// ``max(_:_:)`` for 8-float halves.
    @inlinable @inline(__always) static func max8(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        a.replacing(with: b, where: a .< b)
    }

    /// a·b + c, fused where the build has FMA (the AVX2 and AVX-512 builds, arm64); a multiply and an add on
    /// baseline x86-64, where `addingProduct` would become a library call per lane.
    /// (Generic so that the AVX2 build's transforms can run on 8-float halves; always inlined, so specialised.)
    @inlinable @inline(__always) static func multiplyAdd<V: SIMD>(_ a: V, _ b: V, _ c: V) -> V where V.Scalar == Float {
        #if SWIFTSEG_FMA || arch(arm64)
        c.addingProduct(a, b)
        #else
        a * b + c
        #endif
    }

    /// Lanes `q, q+4, q+8, …` of the 64 floats `a0 ‖ a1 ‖ a2 ‖ a3`: one column phase of four consecutive
    /// vectors (LLVM turns it into two-source permutes, `vpermt2ps` on AVX-512).
    @inlinable @inline(__always) static func phase(_ a0: Vector, _ a1: Vector, _ a2: Vector, _ a3: Vector,
                                                   _ q: Int) -> Vector {
        Vector(a0[q], a0[4 + q], a0[8 + q], a0[12 + q], a1[q], a1[4 + q], a1[8 + q], a1[12 + q],
               a2[q], a2[4 + q], a2[8 + q], a2[12 + q], a3[q], a3[4 + q], a3[8 + q], a3[12 + q])
    }

    #if SWIFTSEG_PERMUTES && !SWIFTSEG_32_REGISTERS
    // With 16 registers of 8 floats (AVX2) the phase split and its inverse run on halves (8 tiles of 4 pixels) as
    // 4×4 transposes inside 128-bit lanes: 16 shuffles per 64 pixels that never cross lanes. LLVM's lowering of
    // ``phase(_:_:_:_:_:)``'s 16-lane picks took ~3× the instructions (PERF.md); and it merges chains of
    // shuffles, even these, into one it lowers lane by lane, so each step's result goes through
    // `swiftseg_opaque8` (an empty asm statement: no instruction).

    /// The 4×4 matrices in each 128-bit lane of rows `a`, `b`, `c`, `d`, transposed: lane l of result i holds
    /// element i of lane l of each row. Its own inverse.
    @inlinable @inline(__always) static func transposeLanes4x4(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>,
                                                               _ d: SIMD8<Float>)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let a = swiftseg_opaque8(a), b = swiftseg_opaque8(b), c = swiftseg_opaque8(c), d = swiftseg_opaque8(d)
        let ab0 = swiftseg_opaque8(SIMD8(a[0], b[0], a[1], b[1], a[4], b[4], a[5], b[5]))
        let cd0 = swiftseg_opaque8(SIMD8(c[0], d[0], c[1], d[1], c[4], d[4], c[5], d[5]))
        let ab2 = swiftseg_opaque8(SIMD8(a[2], b[2], a[3], b[3], a[6], b[6], a[7], b[7]))
        let cd2 = swiftseg_opaque8(SIMD8(c[2], d[2], c[3], d[3], c[6], d[6], c[7], d[7]))
        return (swiftseg_opaque8(SIMD8(ab0[0], ab0[1], cd0[0], cd0[1], ab0[4], ab0[5], cd0[4], cd0[5])),
                swiftseg_opaque8(SIMD8(ab0[2], ab0[3], cd0[2], cd0[3], ab0[6], ab0[7], cd0[6], cd0[7])),
                swiftseg_opaque8(SIMD8(ab2[0], ab2[1], cd2[0], cd2[1], ab2[4], ab2[5], cd2[4], cd2[5])),
                swiftseg_opaque8(SIMD8(ab2[2], ab2[3], cd2[2], cd2[3], ab2[6], ab2[7], cd2[6], cd2[7])))
    }

    /// ``phase(_:_:_:_:_:)`` 0…3 of the 64 floats at `block`: each half's tiles loaded straight into the order
    /// the transposes take, [tile t | tile t + 4].
    @inlinable @inline(__always) static func phases(_ block: UnsafePointer<Float>) -> (Vector, Vector, Vector, Vector) {
        let raw = UnsafeRawPointer(block)
        @inline(__always) func tiles(_ t: Int) -> SIMD8<Float> {
            SIMD8(lowHalf: raw.loadUnaligned(fromByteOffset: 16 * t, as: SIMD4<Float>.self),
                  highHalf: raw.loadUnaligned(fromByteOffset: 16 * (t + 4), as: SIMD4<Float>.self))
        }
        let lo = transposeLanes4x4(tiles(0), tiles(1), tiles(2), tiles(3))
        let hi = transposeLanes4x4(tiles(8), tiles(9), tiles(10), tiles(11))
        return (Vector(lowHalf: lo.0, highHalf: hi.0), Vector(lowHalf: lo.1, highHalf: hi.1),
                Vector(lowHalf: lo.2, highHalf: hi.2), Vector(lowHalf: lo.3, highHalf: hi.3))
    }

    /// ``phase(_:_:_:_:_:)`` 0…3 of `a0 ‖ a1 ‖ a2 ‖ a3` already in registers (the masked edge blocks): the tiles
    /// put in the transposes' order by lane moves.
    @inlinable @inline(__always) static func phases(_ a0: Vector, _ a1: Vector, _ a2: Vector, _ a3: Vector)
        -> (Vector, Vector, Vector, Vector) {
        @inline(__always) func half(_ x: Vector, _ y: Vector) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
            transposeLanes4x4(SIMD8(lowHalf: x.lowHalf.lowHalf, highHalf: y.lowHalf.lowHalf),
                              SIMD8(lowHalf: x.lowHalf.highHalf, highHalf: y.lowHalf.highHalf),
                              SIMD8(lowHalf: x.highHalf.lowHalf, highHalf: y.highHalf.lowHalf),
                              SIMD8(lowHalf: x.highHalf.highHalf, highHalf: y.highHalf.highHalf))
        }
        let lo = half(a0, a1), hi = half(a2, a3)
        return (Vector(lowHalf: lo.0, highHalf: hi.0), Vector(lowHalf: lo.1, highHalf: hi.1),
                Vector(lowHalf: lo.2, highHalf: hi.2), Vector(lowHalf: lo.3, highHalf: hi.3))
    }

    /// ``interleaved(_:_:_:_:_:)`` 0…3 at once, the inverse of ``phases(_:)``: the same transposes give
    /// [tile t | tile t + 4] with each tile's 4 pixels in order, then lane moves put the tiles in order.
    @inlinable @inline(__always) static func interleaved(_ p0: Vector, _ p1: Vector, _ p2: Vector, _ p3: Vector)
        -> (Vector, Vector, Vector, Vector) {
        @inline(__always) func half(_ y0: SIMD8<Float>, _ y1: SIMD8<Float>, _ y2: SIMD8<Float>, _ y3: SIMD8<Float>)
            -> (Vector, Vector) {
            let r = transposeLanes4x4(y0, y1, y2, y3)
            return (Vector(lowHalf: SIMD8(lowHalf: r.0.lowHalf, highHalf: r.1.lowHalf),
                           highHalf: SIMD8(lowHalf: r.2.lowHalf, highHalf: r.3.lowHalf)),
                    Vector(lowHalf: SIMD8(lowHalf: r.0.highHalf, highHalf: r.1.highHalf),
                           highHalf: SIMD8(lowHalf: r.2.highHalf, highHalf: r.3.highHalf)))
        }
        let lo = half(p0.lowHalf, p1.lowHalf, p2.lowHalf, p3.lowHalf)
        let hi = half(p0.highHalf, p1.highHalf, p2.highHalf, p3.highHalf)
        return (lo.0, lo.1, hi.0, hi.1)
    }
    #else
    /// ``phase(_:_:_:_:_:)`` 0…3 of `a0 ‖ a1 ‖ a2 ‖ a3` (the other builds: the 16-lane picks).
    @inlinable @inline(__always) static func phases(_ a0: Vector, _ a1: Vector, _ a2: Vector, _ a3: Vector)
        -> (Vector, Vector, Vector, Vector) {
        (phase(a0, a1, a2, a3, 0), phase(a0, a1, a2, a3, 1), phase(a0, a1, a2, a3, 2), phase(a0, a1, a2, a3, 3))
    }

    /// ``interleaved(_:_:_:_:_:)`` 0…3 (the other builds: the 16-lane picks).
    @inlinable @inline(__always) static func interleaved(_ p0: Vector, _ p1: Vector, _ p2: Vector, _ p3: Vector)
        -> (Vector, Vector, Vector, Vector) {
        (interleaved(p0, p1, p2, p3, 0), interleaved(p0, p1, p2, p3, 1), interleaved(p0, p1, p2, p3, 2),
         interleaved(p0, p1, p2, p3, 3))
    }
    #endif

    /// The inverse of ``phase(_:_:_:_:_:)``: lanes `16k …< 16k+16` of the 64 floats whose phase `j` is `pj`
    /// (element `4i + j` is `pj[i]`).
    @inlinable @inline(__always) static func interleaved(_ p0: Vector, _ p1: Vector, _ p2: Vector, _ p3: Vector,
                                                         _ k: Int) -> Vector {
        let i = 4 * k
        return Vector(p0[i], p1[i], p2[i], p3[i], p0[i + 1], p1[i + 1], p2[i + 1], p3[i + 1],
                      p0[i + 2], p1[i + 2], p2[i + 2], p3[i + 2], p0[i + 3], p1[i + 3], p2[i + 3], p3[i + 3])
    }


    /// y += alpha · x
    @inlinable public static func axpy(count: Int, alpha: Float, x: UnsafePointer<Float>,
                                       y: UnsafeMutablePointer<Float>) {
        var i = 0
        let a = Vector(repeating: alpha)
        while i + width <= count {
            store(load(y + i) + a * load(x + i), y + i)
            i += width
        }
        while i < count { y[i] += alpha * x[i]; i += 1 }
    }

    /// ``multiplyAdd(_:_:_:)`` on one float, with the same rounding as a vector lane in this build.
    @inlinable @inline(__always) static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
        #if SWIFTSEG_FMA || arch(arm64)
        c.addingProduct(a, b)
        #else
        a * b + c
        #endif
    }

    /// out[o] = bias[o] + Σ_j columns[i_j·stride + o]·x[i_j] over the listed inputs `i_j = inputs[j]`, in list
    /// order, for the outputs `outputs` of a fully connected layer whose weights are stored a column per input
    /// (`stride` ≥ the outputs apart). Only the listed inputs' columns are read: a caller lists the nonzero ones,
    /// and a pooled ReLU6 map is a quarter to two thirds zeros. One input at a time across all the outputs, the
    /// sums kept in `out` (in L1): the column is read front to back, as the prefetchers like. Each output's sum
    /// is one chain of fused multiply-adds in list order, whichever lane or tail computes it: the same bytes
    /// however the outputs are split. Out of line so that each build keeps its own.
    public static func linearColumns(_ columns: UnsafePointer<Float>, stride: Int, _ x: UnsafePointer<Float>,
                                     inputs: UnsafePointer<Int32>, count: Int, bias: UnsafePointer<Float>,
                                     outputs: Range<Int>, out: UnsafeMutablePointer<Float>) {
        let lower = outputs.lowerBound, vectorEnd = lower + (outputs.count / width) * width
        for o in outputs { out[o] = bias[o] }
        for j in 0..<count {
            let i = Int(inputs[j]), column = columns + i * stride, xi = x[i], broadcast = Vector(repeating: xi)
            // The listed columns are far apart: the hardware prefetchers start cold at each one, so each column is
            // fetched while the one two places before it in the list is summed.
            let ahead = columns + Int(inputs[Swift.min(j + 2, count - 1)]) * stride
            var o = lower
            while o < vectorEnd {
                swiftseg_prefetch(ahead + o)
                store(multiplyAdd(broadcast, load(column + o), load(out + o)), out + o)
                o += width
            }
            while o < outputs.upperBound {
                out[o] = multiplyAdd(xi, column[o], out[o])
                o += 1
            }
        }
    }

    /// p[i] = activation(p[i] + bias) + residual[i] (no add without a residual): a convolution's epilogue over
    /// `count` outputs, in one pass while they are in cache. One loop per activation (``VectorActivation``).
    @inlinable public static func addBias(_ p: UnsafeMutablePointer<Float>, count: Int, bias: Float,
                                          epilogue: KernelEpilogue) {
        switch epilogue.activation {
        case .none: addBias(p, count: count, bias: bias, Identity.self, residual: epilogue.residual)
        case .relu: addBias(p, count: count, bias: bias, ReLU.self, residual: epilogue.residual)
        case .relu6: addBias(p, count: count, bias: bias, ReLU6.self, residual: epilogue.residual)
        }
    }

    /// Out of line: inlined into a transform's hot loop, its four loops made the loop slower (the edge
    /// epilogue runs on a few pixels per row).
    @inlinable @inline(never)
    static func addBias<A: VectorActivation>(_ p: UnsafeMutablePointer<Float>, count: Int, bias: Float, _: A.Type,
                                             residual r: UnsafePointer<Float>?) {
        var i = 0
        let b = Vector(repeating: bias)
        if let r {
            while i + width <= count {
                store(A.apply(load(p + i) + b) + load(r + i), p + i)
                i += width
            }
            while i < count { p[i] = A.apply(p[i] + bias) + r[i]; i += 1 }
        } else {
            while i + width <= count {
                store(A.apply(load(p + i) + b), p + i)
                i += width
            }
            while i < count { p[i] = A.apply(p[i] + bias); i += 1 }
        }
    }

    /// out[i] = max(row0[2i], row0[2i+1], row1[2i], row1[2i+1]): the 2×2 max-pool of one output row (both
    /// input rows complete). The vertical max is SIMD; the pairwise horizontal max is even/odd lane permutes on
    /// AVX2, AVX-512 and NEON, and a plain loop on baseline x86-64, which LLVM vectorises with SSE shuffles (the
    /// standard library's `evenHalf`/`oddHalf` go lane by lane).
    public static func maxPool2x2Row(row0: UnsafePointer<Float>, row1: UnsafePointer<Float>,
                                                out: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + width <= count {
            let a = max(load(row0 + 2 * i), load(row1 + 2 * i))
            let b = max(load(row0 + 2 * i + width), load(row1 + 2 * i + width))
            #if SWIFTSEG_PERMUTES && !SWIFTSEG_32_REGISTERS
            // 8 floats per register: the pairs' maxima by in-lane shuffles, then 64-bit pieces put in order.
            @inline(__always) func pooled(_ x: SIMD8<Float>, _ y: SIMD8<Float>) -> SIMD8<Float> {
                let x = swiftseg_opaque8(x), y = swiftseg_opaque8(y)
                let m = swiftseg_opaque8(max8(SIMD8(x[0], x[2], y[0], y[2], x[4], x[6], y[4], y[6]),
                                              SIMD8(x[1], x[3], y[1], y[3], x[5], x[7], y[5], y[7])))
                return SIMD8(m[0], m[1], m[4], m[5], m[2], m[3], m[6], m[7])
            }
            store(Vector(lowHalf: pooled(a.lowHalf, a.highHalf), highHalf: pooled(b.lowHalf, b.highHalf)), out + i)
            #elseif SWIFTSEG_PERMUTES || arch(arm64)
            let even = Vector(a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14],
                              b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14])
            let odd = Vector(a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15],
                             b[1], b[3], b[5], b[7], b[9], b[11], b[13], b[15])
            store(max(even, odd), out + i)
            #else
            for k in 0..<(width / 2) {
                out[i + k] = Swift.max(a[2 * k], a[2 * k + 1])
                out[i + width / 2 + k] = Swift.max(b[2 * k], b[2 * k + 1])
            }
            #endif
            i += width
        }
        while i < count {
            out[i] = Swift.max(Swift.max(row0[2 * i], row0[2 * i + 1]), Swift.max(row1[2 * i], row1[2 * i + 1]))
            i += 1
        }
    }

    /// One row of an exact 2× bilinear upsampling with half-pixel centres (`iw` inputs → `2·iw` outputs):
    /// out[2i] = x[i-1]·0.25 + x[i]·0.75, out[2i+1] = x[i]·0.75 + x[i+1]·0.25, the ends copied — the same
    /// operations, in the same order, as the general path's `row[lo]·(1-t) + row[hi]·t` with t = 0.75, 0.25.
    public static func upsample2xRow(_ x: UnsafePointer<Float>, count iw: Int, out: UnsafeMutablePointer<Float>) {
        guard iw > 1 else {
            if iw == 1 { out[0] = x[0]; out[1] = x[0] }
            return
        }
        out[0] = x[0]
        out[2 * iw - 1] = x[iw - 1]
        var i = 1  // even outputs 2i for i in 1..<iw, odd outputs 2i+1 for i in 0..<iw-1
        #if SWIFTSEG_PERMUTES || arch(arm64)
        let quarter = Vector(repeating: 0.25), threeQuarters = Vector(repeating: 0.75)
        while i + width <= iw - 1 {  // outputs 2i … 2i+31 (odd ones reach x[i+16] ≤ x[iw-1])
            let left = load(x + i - 1), centre = load(x + i), right = load(x + i + 1)
            let even = left * quarter + centre * threeQuarters   // out[2i + 2k]
            let odd = centre * threeQuarters + right * quarter   // out[2i + 2k + 1]
            #if SWIFTSEG_PERMUTES && !SWIFTSEG_32_REGISTERS
            // 8 floats per register: in-lane unpacks, then the 128-bit lanes put in order.
            @inline(__always) func zipped(_ e: SIMD8<Float>, _ o: SIMD8<Float>) -> Vector {
                let e = swiftseg_opaque8(e), o = swiftseg_opaque8(o)
                let lo = swiftseg_opaque8(SIMD8(e[0], o[0], e[1], o[1], e[4], o[4], e[5], o[5]))
                let hi = swiftseg_opaque8(SIMD8(e[2], o[2], e[3], o[3], e[6], o[6], e[7], o[7]))
                return Vector(lowHalf: SIMD8(lowHalf: lo.lowHalf, highHalf: hi.lowHalf),
                              highHalf: SIMD8(lowHalf: lo.highHalf, highHalf: hi.highHalf))
            }
            store(zipped(even.lowHalf, odd.lowHalf), out + 2 * i)
            store(zipped(even.highHalf, odd.highHalf), out + 2 * i + width)
            #else
            store(Vector(even[0], odd[0], even[1], odd[1], even[2], odd[2], even[3], odd[3],
                         even[4], odd[4], even[5], odd[5], even[6], odd[6], even[7], odd[7]), out + 2 * i)
            store(Vector(even[8], odd[8], even[9], odd[9], even[10], odd[10], even[11], odd[11],
                         even[12], odd[12], even[13], odd[13], even[14], odd[14], even[15], odd[15]), out + 2 * i + width)
            #endif
            i += width
        }
        #endif
        while i < iw {
            out[2 * i] = x[i - 1] * 0.25 + x[i] * 0.75
            if i < iw - 1 { out[2 * i + 1] = x[i] * 0.75 + x[i + 1] * 0.25 }
            i += 1
        }
        out[1] = x[0] * 0.75 + x[1] * 0.25
    }

    /// out[i] = a[i]·(1-t) + b[i]·t, the vertical step of bilinear resampling.
    public static func lerp(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, t: Float,
                                       out: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let vt = Vector(repeating: t), vs = Vector(repeating: 1 - t)
        while i + width <= count {
            store(load(a + i) * vs + load(b + i) * vt, out + i)
            i += width
        }
        while i < count { out[i] = a[i] * (1 - t) + b[i] * t; i += 1 }
    }

    /// p[i] = 1 / (1 + exp(-p[i]))
    public static func sigmoid(_ p: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { p[i] = 1 / (1 + _exp(-p[i])) }
    }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _exp(_ x: Float) -> Float { expf(x) }
#elseif canImport(Darwin)
import Darwin
@inline(__always) func _exp(_ x: Float) -> Float { expf(x) }
#endif

/// An epilogue's activation as a type (``KernelEpilogue/Activation`` is the value callers pass). The kernels'
/// hot loops are generic over it, each entry point switching once on the value, so every loop is specialised
/// per activation with nothing tested per vector: a switch per vector, even on a loop-invariant value, made
/// the AVX-512 Winograd output transform 2× slower.
@usableFromInline protocol VectorActivation {
    /// Whether ``apply(_:)`` returns its input (then an epilogue without a residual does nothing).
    static var isIdentity: Bool { get }
    static func apply(_ v: SIMDKernels.Vector) -> SIMDKernels.Vector
    static func apply(_ v: Float) -> Float
}

extension VectorActivation {
    @inlinable static var isIdentity: Bool { false }
}

/// x
@usableFromInline enum Identity: VectorActivation {
    @inlinable static var isIdentity: Bool { true }
    @inlinable @inline(__always) static func apply(_ v: SIMDKernels.Vector) -> SIMDKernels.Vector { v }
    @inlinable @inline(__always) static func apply(_ v: Float) -> Float { v }
}

/// max(x, 0)
@usableFromInline enum ReLU: VectorActivation {
    @inlinable @inline(__always) static func apply(_ v: SIMDKernels.Vector) -> SIMDKernels.Vector {
        SIMDKernels.max(v, SIMDKernels.Vector(repeating: 0))
    }
    @inlinable @inline(__always) static func apply(_ v: Float) -> Float { Swift.max(v, 0) }
}

/// min(max(x, 0), 6)
@usableFromInline enum ReLU6: VectorActivation {
    @inlinable @inline(__always) static func apply(_ v: SIMDKernels.Vector) -> SIMDKernels.Vector {
        SIMDKernels.min(SIMDKernels.max(v, SIMDKernels.Vector(repeating: 0)), SIMDKernels.Vector(repeating: 6))
    }
    @inlinable @inline(__always) static func apply(_ v: Float) -> Float { Swift.min(Swift.max(v, 0), 6) }
}
