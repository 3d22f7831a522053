import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// The transformer ops (Swin's, for BiRefNet) against ONNX Runtime on exports of PyTorch modules
/// (Tools/make_birefnet_op_fixtures.py), and each fast path against its reference over odd shapes, in every
/// kernel build, on one and two threads.

/// Deterministic tokens in [-scale, scale).
func randomTokens(height: Int, width: Int, features: Int, seed: UInt64, scale: Float = 1) -> Tensor {
    var rng = SplitMix64(seed: seed)
    return Tensor(shape: [height * width * features], values: (0..<height * width * features).map { _ in scale * rng.nextFloat() })
}

/// A fixture tensor's floats as tokens of the given map.
extension Tensor {
    func asTokens(_ height: Int, _ width: Int, _ features: Int) -> TokenView {
        tokens(height: height, width: width, features: features)
    }
}

/// Max |a − b| over two token views of one size; NaN if either holds one.
func maxAbsDiff(_ a: TokenView, _ b: TokenView) -> Float {
    maxAbsDiff(TensorView(channels: 1, height: 1, width: a.count, data: a.data),
               TensorView(channels: 1, height: 1, width: b.count, data: b.data))
}

final class LayerNormTests: XCTestCase {
    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("layernorm")
        for n in 0..<cases.count {
            let p = cases.parameters(n), length = p["tokens"]!, c = p["features"]!
            let x = cases.tensor(n, "input"), expected = cases.tensor(n, "output")
            let w = cases.tensor(n, "weight"), b = cases.tensor(n, "bias")
            let norm = LayerNorm(features: c, weight: w.data, bias: b.data)
            let out = Tensor(shape: [length * c])
            norm.referenceForward(x.asTokens(1, length, c), into: out.asTokens(1, length, c))
            XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(1, length, c), expected.asTokens(1, length, c)), 2e-6, "case \(n)")
            for (isa, context) in contextsForEveryISA(threads: 2) {
                norm.forward(x.asTokens(1, length, c), into: out.asTokens(1, length, c), context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(1, length, c), expected.asTokens(1, length, c)), 1e-5,
                                         "case \(n) \(isa)")
            }
            withExtendedLifetime((w, b)) {}
        }
    }

    func testFastMatchesReferenceInPlaceAndOnAnyThreads() {
        var rng = SplitMix64(seed: 11)
        for trial in 0..<30 {
            let h = rng.nextInt(1...20), w = rng.nextInt(1...20), c = rng.nextInt(1...200)
            let x = randomTokens(height: h, width: w, features: c, seed: UInt64(trial), scale: 4)
            let weight = randomTokens(height: 1, width: 1, features: c, seed: 100 + UInt64(trial))
            let bias = randomTokens(height: 1, width: 1, features: c, seed: 200 + UInt64(trial))
            let norm = LayerNorm(features: c, weight: weight.data, bias: bias.data)
            let expected = Tensor(shape: [x.count])
            norm.referenceForward(x.asTokens(h, w, c), into: expected.asTokens(h, w, c))
            var first: [Float]?
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(shape: [x.count], values: x.values)   // in place
                    norm.forward(out.asTokens(h, w, c), into: out.asTokens(h, w, c), context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(h, w, c), expected.asTokens(h, w, c)), 1e-5,
                                             "\(h)×\(w)×\(c) \(isa) \(threads) threads")
                    if isa == .best {
                        if let first { XCTAssertEqual(differingElements(first, out.values), 0, "threads change the bytes") }
                        first = out.values
                    }
                }
            }
            withExtendedLifetime((weight, bias)) {}
        }
    }
}

final class GELUTests: XCTestCase {
    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("gelu")
        let x = cases.tensor(0, "input"), expected = cases.tensor(0, "output")
        let reference = Tensor(shape: [x.count], values: x.values)
        GELU.reference(reference.floats)
        for i in 0..<x.count {
            XCTAssertEqual(reference.data[i], expected.data[i], accuracy: 2e-7 * (1 + abs(x.data[i])), "x = \(x.data[i])")
        }
        for (isa, context) in contextsForEveryISA(threads: 1) {
            let fast = Tensor(shape: [x.count], values: x.values)
            GELU.forward(fast.floats, context: context)
            var worst: Float = 0
            for i in 0..<x.count { worst = max(worst, abs(fast.data[i] - expected.data[i]) / (1 + abs(x.data[i]))) }
            XCTAssertLessThanOrEqual(worst, 4e-7, "\(isa): worst |Δ|/(1 + |x|)")
            XCTAssertEqual(fast.data[x.count - 4], 0, "GELU(0)")
        }
    }
}

extension Tensor {
    /// All the floats, whatever the shape.
    var floats: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: data, count: count) }
}

final class TokenLinearTests: XCTestCase {
    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("tokenlinear")
        for n in 0..<cases.count {
            let p = cases.parameters(n), length = p["tokens"]!, cin = p["in"]!, cout = p["out"]!
            let x = cases.tensor(n, "input"), residual = cases.tensor(n, "residual"), expected = cases.tensor(n, "output")
            let w = cases.tensor(n, "fc.weight"), b = p["bias"] == 1 ? cases.tensor(n, "fc.bias") : nil
            let layer = TokenLinear(outFeatures: cout, inFeatures: cin, weight: w.data, bias: b.map { UnsafePointer($0.data) })
            let activation: TokenLinear.Activation = p["then"] == 1 ? .gelu : .none
            let skip = p["then"] == 2 ? residual.asTokens(1, length, cout) : nil
            let out = Tensor(shape: [length * cout])
            layer.referenceForward(x.asTokens(1, length, cin), into: out.asTokens(1, length, cout), activation: activation,
                                   residual: skip)
            XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(1, length, cout), expected.asTokens(1, length, cout)), 2e-5, "case \(n)")
            for (isa, context) in contextsForEveryISA(threads: 2) {
                layer.forward(x.asTokens(1, length, cin), into: out.asTokens(1, length, cout), activation: activation,
                              residual: skip, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(1, length, cout), expected.asTokens(1, length, cout)), 5e-5,
                                         "case \(n) \(isa)")
            }
            withExtendedLifetime((w, b)) {}
        }
    }

    /// Odd sizes, with and without bias, GELU, a residual elsewhere and one in place (y += x·Wᵀ + b).
    func testFastMatchesReference() {
        var rng = SplitMix64(seed: 12)
        for trial in 0..<24 {
            let h = rng.nextInt(1...17), w = rng.nextInt(1...19), cin = rng.nextInt(1...70), cout = rng.nextInt(1...70)
            let x = randomTokens(height: h, width: w, features: cin, seed: UInt64(trial))
            let weight = randomTokens(height: cout, width: 1, features: cin, seed: 50 + UInt64(trial))
            let bias = randomTokens(height: 1, width: 1, features: cout, seed: 90 + UInt64(trial))
            let skip = randomTokens(height: h, width: w, features: cout, seed: 130 + UInt64(trial))
            let layer = TokenLinear(outFeatures: cout, inFeatures: cin, weight: weight.data,
                                    bias: trial % 3 == 0 ? nil : UnsafePointer(bias.data))
            let mode = trial % 4   // 0 plain, 1 GELU, 2 residual, 3 residual in place
            let activation: TokenLinear.Activation = mode == 1 ? .gelu : .none
            let expected = Tensor(shape: [h * w * cout], values: skip.values)
            layer.referenceForward(x.asTokens(h, w, cin), into: expected.asTokens(h, w, cout), activation: activation,
                                   residual: mode >= 2 ? skip.asTokens(h, w, cout) : nil)
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(shape: [h * w * cout], values: skip.values)
                    let residual = mode == 2 ? skip.asTokens(h, w, cout) : (mode == 3 ? out.asTokens(h, w, cout) : nil)
                    layer.forward(x.asTokens(h, w, cin), into: out.asTokens(h, w, cout), activation: activation,
                                  residual: residual, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(h, w, cout), expected.asTokens(h, w, cout)), 1e-5,
                                             "\(h)×\(w) \(cin)→\(cout) mode \(mode) \(isa) \(threads) threads")
                }
            }
            withExtendedLifetime((weight, bias)) {}
        }
    }
}

final class WindowAttentionTests: XCTestCase {
    func attention(_ cases: Fixtures.OpCases, _ n: Int) -> (WindowAttention, [Tensor]) {
        let p = cases.parameters(n)
        let weights = ["qkv.weight", "qkv.bias", "proj.weight", "proj.bias", "relative_position_bias_table"]
            .map { cases.tensor(n, $0) }
        let layer = WindowAttention(features: p["features"]!, heads: p["heads"]!, windowSize: p["window"]!,
                                    shift: p["shift"]!, qkvWeight: weights[0].data, qkvBias: weights[1].data,
                                    projectionWeight: weights[2].data, projectionBias: weights[3].data,
                                    biasTable: weights[4].data)
        return (layer, weights)
    }

    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("windowattention")
        for n in 0..<cases.count {
            let p = cases.parameters(n), h = p["height"]!, w = p["width"]!, c = p["features"]!
            let (layer, weights) = attention(cases, n)
            let x = cases.tensor(n, "input"), shortcut = cases.tensor(n, "shortcut"), expected = cases.tensor(n, "output")
            let out = Tensor(shape: [h * w * c])
            layer.referenceForward(x.asTokens(h, w, c), into: out.asTokens(h, w, c), residual: shortcut.asTokens(h, w, c))
            XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(h, w, c), expected.asTokens(h, w, c)), 2e-5, "case \(n) \(p)")
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let inPlace = Tensor(shape: [h * w * c], values: shortcut.values)
                    layer.forward(x.asTokens(h, w, c), into: inPlace.asTokens(h, w, c), residual: inPlace.asTokens(h, w, c),
                                  context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(inPlace.asTokens(h, w, c), expected.asTokens(h, w, c)), 5e-5,
                                             "case \(n) \(p) \(isa) \(threads) threads")
                }
            }
            withExtendedLifetime(weights) {}
        }
    }

    /// Random layers over maps whole and partial in windows, smaller than a window, shifted or not.
    func testFastMatchesReference() {
        var rng = SplitMix64(seed: 13)
        for trial in 0..<16 {
            let heads = rng.nextInt(1...3), d = rng.nextInt(1...9), c = heads * d
            let window = rng.nextInt(2...7), shift = trial % 2 == 0 ? 0 : rng.nextInt(1...(window - 1))
            let h = rng.nextInt(1...17), w = rng.nextInt(1...17)
            let seed = UInt64(trial) * 10
            let qkvW = randomTokens(height: 3 * c, width: 1, features: c, seed: seed + 1)
            let qkvB = randomTokens(height: 1, width: 1, features: 3 * c, seed: seed + 2)
            let projW = randomTokens(height: c, width: 1, features: c, seed: seed + 3)
            let projB = randomTokens(height: 1, width: 1, features: c, seed: seed + 4)
            let table = randomTokens(height: (2 * window - 1) * (2 * window - 1), width: 1, features: heads, seed: seed + 5)
            let layer = WindowAttention(features: c, heads: heads, windowSize: window, shift: shift, qkvWeight: qkvW.data,
                                        qkvBias: qkvB.data, projectionWeight: projW.data, projectionBias: projB.data,
                                        biasTable: table.data)
            let x = randomTokens(height: h, width: w, features: c, seed: seed + 6, scale: 2)
            let expected = Tensor(shape: [h * w * c])
            layer.referenceForward(x.asTokens(h, w, c), into: expected.asTokens(h, w, c))
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(shape: [h * w * c])
                    layer.forward(x.asTokens(h, w, c), into: out.asTokens(h, w, c), context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(h, w, c), expected.asTokens(h, w, c)), 2e-5,
                                             "\(h)×\(w)×\(c) heads \(heads) window \(window) shift \(shift) \(isa) \(threads)")
                }
            }
            withExtendedLifetime((qkvW, qkvB, projW, projB, table)) {}
        }
    }
}

final class PatchMergingTests: XCTestCase {
    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("patchmerging")
        for n in 0..<cases.count {
            let p = cases.parameters(n), h = p["height"]!, w = p["width"]!, c = p["features"]!
            let oh = PatchMerging.outputSize(h), ow = PatchMerging.outputSize(w)
            let weights = ["norm.weight", "norm.bias", "reduction.weight"].map { cases.tensor(n, $0) }
            let merging = PatchMerging(features: c, normWeight: weights[0].data, normBias: weights[1].data,
                                       reductionWeight: weights[2].data)
            let x = cases.tensor(n, "input"), expected = cases.tensor(n, "output")
            let out = Tensor(shape: [oh * ow * 2 * c])
            merging.referenceForward(x.asTokens(h, w, c), into: out.asTokens(oh, ow, 2 * c))
            XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(oh, ow, 2 * c), expected.asTokens(oh, ow, 2 * c)), 2e-5, "case \(n)")
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    merging.forward(x.asTokens(h, w, c), into: out.asTokens(oh, ow, 2 * c), context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.asTokens(oh, ow, 2 * c), expected.asTokens(oh, ow, 2 * c)), 5e-5,
                                             "case \(n) \(isa) \(threads) threads")
                }
            }
            withExtendedLifetime(weights) {}
        }
    }
}

final class TokenLayoutTests: XCTestCase {
    /// Map → tokens → map gives the map back; a token's features are its pixel's channels.
    func testTokensAreTheMapsPixelsAndGoBack() {
        for (c, h, w) in [(1, 1, 1), (3, 5, 7), (16, 9, 4), (5, 1, 13)] {
            let map = randomTensor(channels: c, height: h, width: w, seed: UInt64(c * h * w))
            for (isa, context) in contextsForEveryISA(threads: 2) {
                let tokens = Tensor(shape: [c * h * w])
                TokenLayout.tokens(from: map.view, into: tokens.asTokens(h, w, c), context: context)
                for y in 0..<h { for x in 0..<w { for ch in 0..<c {
                    XCTAssertEqual(tokens.asTokens(h, w, c)[y, x, ch], map.view[ch, y, x], "\(isa)")
                } } }
                let back = Tensor(channels: c, height: h, width: w)
                TokenLayout.map(from: tokens.asTokens(h, w, c), into: back.view, context: context)
                XCTAssertEqual(maxAbsDiff(back.view, map.view), 0)
            }
        }
    }

    /// Patches of a map (odd sizes: the last patches run past the edge and read zeros), in (channel, row, column)
    /// order: a patch embedding's convolution weights line up with them.
    func testPatchesAreTheMapsBlocksZeroPastTheEdge() {
        for (c, h, w, p) in [(3, 9, 10, 4), (2, 4, 4, 2), (1, 1, 3, 4)] {
            let map = randomTensor(channels: c, height: h, width: w, seed: UInt64(h * w))
            let th = (h + p - 1) / p, tw = (w + p - 1) / p
            let tokens = Tensor(shape: [th * tw * c * p * p])
            for (isa, context) in contextsForEveryISA(threads: 2) {
                TokenLayout.patches(from: map.view, size: p, into: tokens.asTokens(th, tw, c * p * p), context: context)
                for ty in 0..<th { for tx in 0..<tw { for ch in 0..<c { for ky in 0..<p { for kx in 0..<p {
                    let y = ty * p + ky, x = tx * p + kx
                    XCTAssertEqual(tokens.asTokens(th, tw, c * p * p)[ty, tx, (ch * p + ky) * p + kx],
                                   y < h && x < w ? map.view[ch, y, x] : 0, "\(isa)")
                } } } } }
            }
        }
    }
}

final class ScaleByMapTests: XCTestCase {
    func testFastIsTheReference() {
        let x = randomTensor(channels: 5, height: 7, width: 9, seed: 1), map = randomTensor(channels: 1, height: 7, width: 9, seed: 2)
        let expected = Tensor(shape: x.shape, values: x.values)
        ScaleByMap.reference(expected.view, by: map.view)
        XCTAssertEqual(expected.view[3, 2, 4], x.view[3, 2, 4] * map.view[0, 2, 4])
        for (isa, context) in contextsForEveryISA(threads: 2) {
            let out = Tensor(shape: x.shape, values: x.values)
            ScaleByMap.forwardInPlace(out.view, by: map.view, context: context)
            XCTAssertEqual(differingElements(out.values, expected.values), 0, "\(isa)")
        }
    }
}
