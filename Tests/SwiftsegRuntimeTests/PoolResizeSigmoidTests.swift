import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

final class MaxPoolTests: XCTestCase {
    func testReferenceMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("maxpool")
        for n in 0..<cases.count {
            let x = cases.tensor(n, "input"), expected = cases.tensor(n, "output")
            XCTAssertEqual(expected.shape[2], MaxPool2D.outputSize(x.shape[2]), "ceil mode")
            let out = Tensor(shape: expected.shape)
            MaxPool2D.reference(x.view, into: out.view)
            XCTAssertEqual(maxAbsDiff(out.view, expected.view), 0, "case \(n) \(x.shape)")
        }
    }

    func testFastMatchesReference() {
        var rng = SplitMix64(seed: 3)
        for trial in 0..<40 {
            let c = rng.nextInt(1...5), h = rng.nextInt(1...70), w = rng.nextInt(1...70)
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(trial))
            let expected = Tensor(channels: c, height: MaxPool2D.outputSize(h), width: MaxPool2D.outputSize(w))
            MaxPool2D.reference(x.view, into: expected.view)
            for (isa, context) in contextsForEveryISA(threads: 1 + trial % 2) {
                let out = Tensor(channels: c, height: MaxPool2D.outputSize(h), width: MaxPool2D.outputSize(w))
                MaxPool2D.forward(x.view, into: out.view, context: context)
                XCTAssertEqual(maxAbsDiff(out.view, expected.view), 0, "\(c)×\(h)×\(w) \(isa)")
            }
        }
    }
}

final class ResizeBilinearTests: XCTestCase {
    func testReferenceMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("resize")
        for n in 0..<cases.count {
            let x = cases.tensor(n, "input"), expected = cases.tensor(n, "output")
            let out = Tensor(shape: expected.shape)
            ResizeBilinear.reference(x.view, into: out.view)
            XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-5, "case \(n) \(x.shape) → \(expected.shape)")
        }
    }

    func testFastMatchesReference() {
        var rng = SplitMix64(seed: 5)
        for trial in 0..<40 {
            let c = rng.nextInt(1...4), h = rng.nextInt(1...40), w = rng.nextInt(1...40)
            let oh = rng.nextInt(1...90), ow = rng.nextInt(1...90)
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(trial))
            let expected = Tensor(channels: c, height: oh, width: ow)
            ResizeBilinear.reference(x.view, into: expected.view)
            for (isa, context) in contextsForEveryISA(threads: 1 + trial % 2) {
                let out = Tensor(channels: c, height: oh, width: ow)
                ResizeBilinear.forward(x.view, into: out.view, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-6, "\(c)×\(h)×\(w) → \(oh)×\(ow) \(isa)")
            }
        }
    }
}

extension ResizeBilinearTests {
    /// `align_corners=True` (BiRefNet's every resize), up and down at any scale, against ONNX Runtime on
    /// PyTorch's export (Tools/make_birefnet_op_fixtures.py); the fast path against the reference.
    func testAlignedCornersMatchONNXRuntime() throws {
        let cases = try Fixtures.ops("resize-aligned")
        for n in 0..<cases.count {
            let x = cases.tensor(n, "input"), expected = cases.tensor(n, "output")
            let out = Tensor(shape: expected.shape)
            ResizeBilinear.reference(x.view, into: out.view, coordinates: .alignCorners)
            XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-5, "case \(n) \(x.shape) → \(expected.shape)")
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let fast = Tensor(shape: expected.shape)
                    ResizeBilinear.forward(x.view, into: fast.view, coordinates: .alignCorners, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, out.view), 1e-6, "case \(n) \(isa) \(threads) threads")
                }
            }
        }
    }

    /// Exact 2× upsampling (U²-Net's usual case) takes a vectorised horizontal pass: bit-identical to the
    /// reference for every width (vector blocks, tails, 1 and 2 pixels), in every kernel build.
    func testExact2xUpsamplingMatchesReferenceExactly() {
        for w in [1, 2, 3, 15, 16, 17, 18, 33, 34, 40, 70] {
            let h = 1 + w % 5
            let x = randomTensor(channels: 2, height: h, width: w, seed: UInt64(w))
            let expected = Tensor(channels: 2, height: 2 * h, width: 2 * w)
            ResizeBilinear.reference(x.view, into: expected.view)
            for (isa, context) in contextsForEveryISA(threads: 1) {
                let out = Tensor(channels: 2, height: 2 * h, width: 2 * w)
                ResizeBilinear.forward(x.view, into: out.view, context: context)
                XCTAssertEqual(maxAbsDiff(out.view, expected.view), 0, "\(h)×\(w) → 2× \(isa)")
            }
        }
    }
}

final class SigmoidTests: XCTestCase {
    func testMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("sigmoid")
        let x = cases.tensor(0, "input"), expected = cases.tensor(0, "output")
        let ref = Tensor(shape: x.shape)
        Sigmoid.reference(x.view, into: ref.view)
        XCTAssertLessThanOrEqual(maxAbsDiff(ref.view, expected.view), 1e-6)
        let fast = Tensor(shape: x.shape, values: x.values)
        Sigmoid.forwardInPlace(fast.view)
        XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, ref.view), 1e-6)
    }
}
