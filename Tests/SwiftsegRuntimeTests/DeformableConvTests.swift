import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// The modulated deformable convolution against ONNX Runtime on deform_conv2d_onnx_exporter's decomposition (as
/// rembg's BiRefNet files were exported; Tools/make_birefnet_op_fixtures.py), and the fast path against the
/// reference on odd shapes, offsets past the border, every kernel build, one and two threads.
final class DeformableConvTests: XCTestCase {
    func testReferenceAndFastMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("deformconv")
        for n in 0..<cases.count {
            let p = cases.parameters(n), k = p["kernel"]!
            let x = cases.tensor(n, "input"), offset = cases.tensor(n, "offset"), mask = cases.tensor(n, "mask")
            let expected = cases.tensor(n, "output"), weight = cases.tensor(n, "weight")
            let bias = p["bias"] == 1 ? cases.tensor(n, "bias") : nil
            let conv = DeformableConv2D(inChannels: p["in"]!, outChannels: p["out"]!, kernelSize: k, padding: k / 2,
                                        weight: weight.data, bias: bias.map { UnsafePointer($0.data) })
            let out = Tensor(shape: expected.shape)
            conv.reference(x.view, offset: offset.view, mask: mask.view, into: out.view)
            XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 2e-5, "case \(n) \(p)")
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let fast = Tensor(shape: expected.shape)
                    conv.forward(x.view, offset: offset.view, mask: mask.view, into: fast.view, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, expected.view), 5e-5, "case \(n) \(isa) \(threads) threads")
                }
            }
            withExtendedLifetime((weight, bias)) {}
        }
    }

    func testFastMatchesReference() {
        var rng = SplitMix64(seed: 21)
        for trial in 0..<16 {
            let k = [1, 3, 5, 7][trial % 4], pad = trial % 3 == 0 ? 0 : k / 2
            let cin = rng.nextInt(1...9), cout = rng.nextInt(1...12)
            let h = rng.nextInt(max(1, k - 2 * pad)...20), w = rng.nextInt(max(1, k - 2 * pad)...23)
            let oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(trial))
            let offset = randomTensor(channels: 2 * k * k, height: oh, width: ow, seed: 100 + UInt64(trial))
            for i in 0..<offset.count { offset.data[i] *= Float(1 + trial % 5) * 2 }   // up to ±10 pixels
            let mask = randomTensor(channels: k * k, height: oh, width: ow, seed: 200 + UInt64(trial))
            let weight = randomTensor(channels: cout, height: cin, width: k * k, seed: 300 + UInt64(trial))
            let bias = randomTensor(channels: cout, height: 1, width: 1, seed: 400 + UInt64(trial))
            let conv = DeformableConv2D(inChannels: cin, outChannels: cout, kernelSize: k, padding: pad, weight: weight.data,
                                        bias: trial % 2 == 0 ? UnsafePointer(bias.data) : nil)
            let expected = Tensor(channels: cout, height: oh, width: ow)
            conv.reference(x.view, offset: offset.view, mask: mask.view, into: expected.view)
            var first: [Float]?
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(channels: cout, height: oh, width: ow)
                    conv.forward(x.view, offset: offset.view, mask: mask.view, into: out.view, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 2e-5,
                                             "\(cin)→\(cout) k\(k) pad \(pad) \(h)×\(w) \(isa) \(threads) threads")
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
