import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// Convolutions beyond U²-Net's: stride 2, TensorFlow "SAME" and explicit asymmetric padding, groups and
/// depthwise, 5×5 kernels, ReLU6 — what MobileNetV2 and EfficientNet-Lite need.
final class ConvGeneralTests: XCTestCase {
    func conv(_ p: [String: Int], weight: Tensor, bias: Tensor, inChannels: Int) -> Conv2D {
        let padding: Conv2D.Padding = p["same"]! == 1 ? .same
            : .explicit(top: p["top"]!, left: p["left"]!, bottom: p["bottom"]!, right: p["right"]!)
        return Conv2D(outChannels: weight.shape[0], inChannels: inChannels, kernelSize: p["kernel"]!,
                      stride: p["stride"]!, dilation: p["dilation"]!, padding: padding, groups: p["groups"]!,
                      weight: weight.data, bias: bias.data, prepareFastKernels: true)
    }

    /// The reference, and every policy on every kernel build, against ONNX Runtime's Conv (+ Clip(0, 6)).
    func testEveryPathMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("conv-general")
        XCTAssertGreaterThanOrEqual(cases.count, 12)
        for n in 0..<cases.count {
            let x = cases.tensor(n, "input"), w = cases.tensor(n, "weight"), b = cases.tensor(n, "bias")
            let expected = cases.tensor(n, "output"), p = cases.parameters(n)
            let conv = conv(p, weight: w, bias: b, inChannels: x.shape[1])
            let size = conv.outputSize(height: x.shape[2], width: x.shape[3])
            XCTAssertEqual([size.height, size.width], Array(expected.shape[2...]), "case \(n) \(p): output size")
            let epilogue: Epilogue = p["relu6"]! == 1 ? .relu6 : .none
            let reference = Tensor(channels: conv.outChannels, height: size.height, width: size.width)
            conv.referenceForward(x.view, into: reference.view, epilogue: epilogue)
            XCTAssertLessThanOrEqual(maxAbsDiff(reference.view, expected.view), 1e-5, "case \(n) \(p): reference")
            for policy in ConvKernelPolicy.allCases {
                for (isa, context) in contextsForEveryISA(threads: 2, policy: policy) {
                    let out = Tensor(channels: conv.outChannels, height: size.height, width: size.width)
                    conv.forward(x.view, into: out.view, epilogue: epilogue, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-5, "case \(n) \(p) \(policy) \(isa)")
                }
            }
        }
    }

    /// TensorFlow "SAME" puts the odd padding pixel after: 3×3 stride 2 on an even size pads 0 before, 1 after;
    /// 5×5 pads 1 and 2; on an odd size 1 and 1 (3×3).
    func testSamePaddingIsAsymmetricOnEvenSizes() {
        let w = Tensor(shape: [1, 1, 5, 5]), b = Tensor(shape: [1])
        let conv3 = Conv2D(outChannels: 1, inChannels: 1, kernelSize: 3, stride: 2, padding: .same, weight: w.data, bias: b.data)
        let conv5 = Conv2D(outChannels: 1, inChannels: 1, kernelSize: 5, stride: 2, padding: .same, weight: w.data, bias: b.data)
        XCTAssertTrue(conv3.resolvedPadding(height: 224, width: 224) == (0, 0, 1, 1))
        XCTAssertTrue(conv5.resolvedPadding(height: 28, width: 28) == (1, 1, 2, 2))
        XCTAssertTrue(conv3.resolvedPadding(height: 7, width: 7) == (1, 1, 1, 1))
        XCTAssertTrue(conv3.outputSize(height: 224, width: 225) == (112, 113))
        XCTAssertFalse(conv3.isStrideOneSame)
    }

    /// Random strided, grouped and depthwise convs with random padding, each epilogue, every policy (they run
    /// im2col + GEMM or the depthwise kernel), one and two threads, against the reference.
    func testStridedGroupedAndDepthwiseMatchReferenceOnRandomShapes() {
        var rng = SplitMix64(seed: 23)
        for trial in 0..<80 {
            let groups = [1, 2, 3, 8][rng.nextInt(0...3)]
            let depthwise = trial % 3 == 0
            let cin = depthwise ? groups * rng.nextInt(1...4) : groups * rng.nextInt(1...5)
            let cout = depthwise ? cin : groups * rng.nextInt(1...4)
            let g = depthwise ? cin : groups
            let k = [1, 3, 5][rng.nextInt(0...2)], stride = rng.nextInt(1...3), dilation = rng.nextInt(1...2)
            let padding: Conv2D.Padding = trial % 4 == 0 ? .same
                : .explicit(top: rng.nextInt(0...2), left: rng.nextInt(0...2), bottom: rng.nextInt(0...2), right: rng.nextInt(0...2))
            let h = rng.nextInt(dilation * (k - 1) + 1...19), w = rng.nextInt(dilation * (k - 1) + 1...23)
            let weight = randomTensor(channels: cout, height: cin / g, width: k * k, seed: UInt64(500 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(600 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: k, stride: stride, dilation: dilation,
                              padding: padding, groups: g, weight: weight.data, bias: bias.data, prepareFastKernels: true)
            XCTAssertEqual(conv.isDepthwise, g > 1 && g == cin && g == cout)
            let size = conv.outputSize(height: h, width: w)
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(trial))
            let residual = randomTensor(channels: cout, height: size.height, width: size.width, seed: UInt64(700 + trial))
            let epilogues: [Epilogue] = [.none, .relu, .relu6, .relu6.adding(residual.view), Epilogue.none.adding(residual.view)]
            let epilogue = epilogues[trial % epilogues.count]
            let expected = Tensor(channels: cout, height: size.height, width: size.width)
            conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
            for threads in [1, 2] {
                for policy in [ConvKernelPolicy.gemm, .auto, .winograd] {
                    for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                        let out = Tensor(channels: cout, height: size.height, width: size.width)
                        conv.forward(x.view, into: out.view, epilogue: epilogue, context: context)
                        XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-4 * Float(cin / g * k * k).squareRoot(),
                            "cin \(cin) cout \(cout) groups \(g) k \(k) s \(stride) d \(dilation) \(padding) \(h)×\(w) \(epilogue) \(threads) \(policy) \(isa)")
                    }
                }
            }
            XCTAssertEqual(conv.macs(height: h, width: w), cout * (cin / g) * k * k * size.height * size.width)
        }
    }
}

extension ConvGeneralTests {
    /// The SIMD depthwise kernel (stride 1 and 2, 3×3 and 5×5, TF "SAME" and explicit padding, odd and even
    /// sizes down to 1×1, every epilogue) against the reference, in each kernel build, one and two threads.
    func testDepthwiseKernelMatchesReference() {
        var rng = SplitMix64(seed: 31)
        for trial in 0..<48 {
            let channels = [1, 3, 16, 17][trial % 4], k = trial % 3 == 0 ? 5 : 3, stride = 1 + trial % 2
            let h = rng.nextInt(1...37), w = rng.nextInt(1...41)
            let padding: Conv2D.Padding = trial % 5 == 0 ? .symmetric(k / 2) : trial % 5 == 1 ? .explicit(top: 0, left: 2, bottom: 1, right: 0) : .same
            let weight = randomTensor(channels: channels, height: 1, width: k * k, seed: UInt64(800 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: channels, seed: UInt64(900 + trial))
            let conv = Conv2D(outChannels: channels, inChannels: channels, kernelSize: k, stride: stride, padding: padding,
                              groups: channels, weight: weight.data, bias: bias.data)
            guard channels > 1 else { XCTAssertFalse(conv.isDepthwise); continue }  // one group of one: an ordinary conv
            XCTAssertTrue(conv.supportsDepthwiseKernel)
            let size = conv.outputSize(height: h, width: w)
            guard size.height >= 1 && size.width >= 1 else { continue }
            let x = randomTensor(channels: channels, height: h, width: w, seed: UInt64(trial))
            let residual = randomTensor(channels: channels, height: size.height, width: size.width, seed: UInt64(1100 + trial))
            let epilogues: [Epilogue] = [.none, .relu, .relu6, .relu6.adding(residual.view), Epilogue.none.adding(residual.view)]
            let epilogue = epilogues[trial % epilogues.count]
            checkDepthwiseAgainstReference(conv, x, epilogue: epilogue, "\(channels) ch, k \(k), s \(stride), \(padding), \(h)×\(w)")
        }
    }

    /// `conv.depthwiseForward` against `conv.referenceForward` on `x`, in each kernel build, one and two threads.
    func checkDepthwiseAgainstReference(_ conv: Conv2D, _ x: Tensor, epilogue: Epilogue, _ label: String,
                                        file: StaticString = #filePath, line: UInt = #line) {
        let size = conv.outputSize(height: x.view.height, width: x.view.width)
        let expected = Tensor(channels: conv.outChannels, height: size.height, width: size.width)
        conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
        for threads in [1, 2] {
            for (isa, context) in contextsForEveryISA(threads: threads) {
                let out = Tensor(channels: conv.outChannels, height: size.height, width: size.width)
                conv.depthwiseForward(x.view, into: out.view, epilogue: epilogue, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-4 * Float(conv.kernelSize),
                                         "\(label), \(epilogue), \(threads) threads, \(isa)", file: file, line: line)
            }
        }
    }
}

extension ConvGeneralTests {
    /// Small maps (output rows of at most 16 pixels) run 16 channels at once through the block kernel, the last
    /// channels (under 16) one by one: against the reference at the shapes of EfficientNet's late blocks and
    /// odd ones (1×1 to 16 wide, stride 1 and 2, 3×3 and 5×5, TF "SAME" and explicit padding, every epilogue), in
    /// each kernel build, one and two threads.
    func testDepthwiseBlockKernelMatchesReference() {
        var rng = SplitMix64(seed: 37)
        let shapes = [(672, 14, 14, 5, 1), (1152, 7, 7, 3, 1), (672, 14, 14, 5, 2), (480, 14, 14, 3, 1), (40, 9, 13, 3, 2),
                      (16, 1, 1, 3, 1), (33, 31, 32, 5, 2), (17, 16, 16, 3, 1), (48, 5, 3, 5, 1)]
        for (trial, (channels, h, w, k, stride)) in shapes.enumerated() {
            let padding: Conv2D.Padding = trial % 3 == 1 ? .explicit(top: 0, left: 2, bottom: 1, right: 0)
                : trial % 3 == 2 ? .symmetric(k / 2) : .same
            let weight = randomTensor(channels: channels, height: 1, width: k * k, seed: UInt64(1400 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: channels, seed: UInt64(1500 + trial))
            let conv = Conv2D(outChannels: channels, inChannels: channels, kernelSize: k, stride: stride, padding: padding,
                              groups: channels, weight: weight.data, bias: bias.data)
            let size = conv.outputSize(height: h, width: w)
            XCTAssertLessThanOrEqual(size.width, Conv2D.depthwiseBlockMaximumWidth, "\(trial): a shape for the block kernel")
            let x = randomTensor(channels: channels, height: h, width: w, seed: UInt64(rng.nextInt(0...1000)))
            let residual = randomTensor(channels: channels, height: size.height, width: size.width, seed: UInt64(1600 + trial))
            for epilogue in [Epilogue.none, .relu, .relu6, .relu6.adding(residual.view), Epilogue.none.adding(residual.view)] {
                checkDepthwiseAgainstReference(conv, x, epilogue: epilogue, "\(channels) ch, k \(k), s \(stride), \(padding), \(h)×\(w)")
            }
        }
    }
}

extension ConvGeneralTests {
    /// Strided ungrouped convs of 8 outputs or more (a classifier's stem) run the kernels' GEMM on im2col tiles
    /// with the epilogue fused when every tile is whole vectors, and BLAS otherwise: both against the reference,
    /// every epilogue, each kernel build, one and two threads (several tiles, a short last one).
    func testStridedConvOnPackedGEMMMatchesReference() {
        // (cin, cout, k, stride, h, w): whole-vector tiles (output 32, 112 and 16 wide), then a 15-wide output
        // no tile of which is whole vectors
        let shapes = [(3, 32, 3, 2, 64, 64), (3, 32, 3, 2, 224, 224), (16, 24, 5, 2, 31, 32), (3, 32, 3, 2, 30, 30)]
        for (trial, (cin, cout, k, stride, h, w)) in shapes.enumerated() {
            let weight = randomTensor(channels: cout, height: cin, width: k * k, seed: UInt64(2100 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(2200 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: k, stride: stride, padding: .same,
                              weight: weight.data, bias: bias.data, prepareFastKernels: true)
            XCTAssertEqual(conv.strided != nil, KernelISA.best != .baseline, "packed where the default build has the GEMM")
            let size = conv.outputSize(height: h, width: w)
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(2300 + trial))
            let residual = randomTensor(channels: cout, height: size.height, width: size.width, seed: UInt64(2400 + trial))
            for epilogue in [Epilogue.relu6, .none, .relu.adding(residual.view)] {
                let expected = Tensor(channels: cout, height: size.height, width: size.width)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for threads in [1, 2] {
                    for (isa, context) in contextsForEveryISA(threads: threads) {
                        let out = Tensor(channels: cout, height: size.height, width: size.width)
                        conv.forward(x.view, into: out.view, epilogue: epilogue, context: context)
                        XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-4 * Float(conv.reductionSize).squareRoot(),
                                                 "\(cin)→\(cout) k \(k) s \(stride) \(h)×\(w) \(epilogue) \(threads) threads \(isa)")
                    }
                }
            }
        }
    }
}

extension ConvGeneralTests {
    /// The AVX-512 build's block kernel (sums held in registers, the transposes in and out as lane permutes)
    /// gives the AVX2 build's bytes (sums through memory, scalar transposes): both fuse the same multiply-adds
    /// in the same order. Row runs wider than a vector, a last plane shorter than a vector, part runs out, 1×1
    /// to 14 wide, both strides, every epilogue.
    func testDepthwiseBlockKernelIsTheSameBytesInEveryFMABuild() throws {
        try XCTSkipUnless(KernelISA.avx512.isSupported && KernelISA.avx2.isSupported, "needs a CPU with AVX-512")
        let shapes = [(672, 14, 14, 5, 1), (1152, 7, 7, 3, 1), (96, 28, 28, 5, 2), (32, 31, 32, 3, 2), (16, 1, 1, 3, 1),
                      (48, 3, 5, 5, 1), (16, 9, 11, 3, 2), (64, 16, 16, 3, 1)]
        for (trial, (channels, h, w, k, stride)) in shapes.enumerated() {
            let weight = randomTensor(channels: channels, height: 1, width: k * k, seed: UInt64(1700 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: channels, seed: UInt64(1800 + trial))
            let conv = Conv2D(outChannels: channels, inChannels: channels, kernelSize: k, stride: stride,
                              padding: trial % 2 == 0 ? .same : .symmetric(k / 2), groups: channels,
                              weight: weight.data, bias: bias.data)
            let size = conv.outputSize(height: h, width: w)
            let x = randomTensor(channels: channels, height: h, width: w, seed: UInt64(1900 + trial))
            let residual = randomTensor(channels: channels, height: size.height, width: size.width, seed: UInt64(2000 + trial))
            for epilogue in [Epilogue.none, .relu6, .relu.adding(residual.view)] {
                var outputs: [[UInt32]] = []
                for isa in [KernelISA.avx2, .avx512] {
                    let context = ExecutionContext(threads: 1)
                    context.isa = isa
                    let out = Tensor(channels: channels, height: size.height, width: size.width)
                    conv.depthwiseForward(x.view, into: out.view, epilogue: epilogue, context: context)
                    outputs.append(out.values.map(\.bitPattern))
                }
                let differs = outputs[0].indices.first { outputs[0][$0] != outputs[1][$0] }
                XCTAssertNil(differs, "\(channels) ch \(h)×\(w) k \(k) s \(stride) \(epilogue): first difference at \(differs ?? 0)")
            }
        }
    }
}

extension ConvGeneralTests {
    /// 1×1 convs through the kernels' packed GEMM (the default policy, where the build has that GEMM) against
    /// the reference: odd pixel counts (the tail through scratch), thin and wide channel counts, every epilogue,
    /// each kernel build, one and two threads.
    func testPointwiseMatchesReference() {
        var rng = SplitMix64(seed: 41)
        for trial in 0..<40 {
            let cin = [1, 3, 16, 24, 96][rng.nextInt(0...4)], cout = [8, 9, 16, 40, 144][rng.nextInt(0...4)]
            let h = rng.nextInt(1...29), w = rng.nextInt(1...31)
            let weight = randomTensor(channels: cout, height: cin, width: 1, seed: UInt64(1200 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(1300 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 1, weight: weight.data, bias: bias.data,
                              prepareFastKernels: true)
            XCTAssertEqual(conv.supportsPointwise, KernelISA.best != .baseline, "packed where the default build has the GEMM")
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(trial))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(1400 + trial))
            let epilogues: [Epilogue] = [.none, .relu, .relu6, .relu6.adding(residual.view), Epilogue.none.adding(residual.view)]
            let epilogue = epilogues[trial % epilogues.count]
            let expected = Tensor(channels: cout, height: h, width: w)
            conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(channels: cout, height: h, width: w)
                    conv.forward(x.view, into: out.view, epilogue: epilogue, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-4 * Float(cin).squareRoot(),
                                             "\(cin)→\(cout) \(h)×\(w) \(epilogue) \(threads) threads \(isa)")
                }
            }
        }
    }
}

/// The classifier's last ops against ONNX Runtime and their references.
final class ClassifierOpsTests: XCTestCase {
    /// A flat fixture tensor as an N×1×1 map, the classifier's vector layout.
    func vector(_ t: Tensor) -> Tensor { Tensor(shape: [1, t.count, 1, 1], values: t.values) }

    func testGlobalAveragePoolMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("classifier")
        let x = cases.tensor(0, "input"), expected = cases.tensor(0, "output")
        let reference = Tensor(channels: x.shape[1], height: 1, width: 1), fast = Tensor(channels: x.shape[1], height: 1, width: 1)
        GlobalAveragePool.reference(x.view, into: reference.view)
        GlobalAveragePool.forward(x.view, into: fast.view)
        XCTAssertLessThanOrEqual(maxAbsDiff(reference.view, expected.view), 1e-6)
        XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, expected.view), 1e-6)
    }

    func testLinearMatchesONNXRuntimeGemm() throws {
        let cases = try Fixtures.ops("classifier")
        let x = vector(cases.tensor(1, "input")), w = cases.tensor(1, "weight"), b = cases.tensor(1, "bias")
        let expected = vector(cases.tensor(1, "output"))
        let fc = Linear(outFeatures: 30, inFeatures: 40, weight: w.data, bias: b.data)
        let reference = Tensor(channels: 30, height: 1, width: 1), fast = Tensor(channels: 30, height: 1, width: 1)
        fc.referenceForward(x.view, into: reference.view, epilogue: .none)
        XCTAssertLessThanOrEqual(maxAbsDiff(reference.view, expected.view), 1e-5)
        let residual = randomTensor(channels: 30, height: 1, width: 1, seed: 3)
        let epilogueReference = Tensor(channels: 30, height: 1, width: 1)
        fc.referenceForward(x.view, into: epilogueReference.view, epilogue: Epilogue.relu6.adding(residual.view))
        XCTAssertEqual(fc.macs, 1200)
        // A classifier's width (outputs in blocks of 16 and a tail of 5), against the reference.
        // (the tensors held in locals for as long as the layer reads their memory)
        let wideWeight = randomTensor(channels: 37, height: 1, width: 1287, seed: 5)
        let wideBias = randomTensor(channels: 1, height: 1, width: 37, seed: 6)
        let wide = Linear(outFeatures: 37, inFeatures: 1287, weight: wideWeight.data, bias: wideBias.data)
        let features = randomTensor(channels: 1287, height: 1, width: 1, seed: 7)
        let wideReference = Tensor(channels: 37, height: 1, width: 1), wideFast = Tensor(channels: 37, height: 1, width: 1)
        wide.referenceForward(features.view, into: wideReference.view, epilogue: .none)
        // Pooled ReLU6 features as on a photo: most inputs zero (the fast path skips their columns), some -0, and
        // none at all (the bias alone).
        let sparse = randomTensor(channels: 1287, height: 1, width: 1, seed: 8)
        for i in 0..<sparse.count where i % 5 != 2 { sparse.data[i] = i % 3 == 0 ? -0.0 : 0 }
        let zeros = Tensor(channels: 1287, height: 1, width: 1)
        let sparseReference = Tensor(channels: 37, height: 1, width: 1), sparseFast = Tensor(channels: 37, height: 1, width: 1)
        wide.referenceForward(sparse.view, into: sparseReference.view, epilogue: .none)
        // Every build the CPU runs, one to three threads (outputs split in blocks): the same bytes across thread
        // counts.
        for threads in 1...3 {
            for (isa, context) in contextsForEveryISA(threads: threads) {
                fc.forward(x.view, into: fast.view, epilogue: .none, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, expected.view), 1e-5, "\(isa) \(threads)")
                // The epilogue as in a conv: ReLU6, then a residual.
                fc.forward(x.view, into: fast.view, epilogue: Epilogue.relu6.adding(residual.view), context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(epilogueReference.view, fast.view), 1e-5, "\(isa) \(threads)")
                let single = Tensor(channels: 37, height: 1, width: 1), oneThread = ExecutionContext(threads: 1)
                oneThread.isa = isa
                wide.forward(features.view, into: single.view, epilogue: .none, context: oneThread)
                wide.forward(features.view, into: wideFast.view, epilogue: .none, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(wideReference.view, wideFast.view), 1e-4, "\(isa) \(threads)")
                XCTAssertEqual(maxAbsDiff(single.view, wideFast.view), 0, "\(isa): \(threads) threads changed the bytes")
                wide.forward(sparse.view, into: sparseFast.view, epilogue: .none, context: context)
                XCTAssertLessThanOrEqual(maxAbsDiff(sparseReference.view, sparseFast.view), 1e-4, "\(isa) \(threads)")
                wide.forward(zeros.view, into: sparseFast.view, epilogue: .none, context: context)
                XCTAssertEqual(sparseFast.values, wideBias.values,
                               "\(isa) \(threads): no inputs, the bias")
            }
        }
        withExtendedLifetime((wideWeight, wideBias)) {}
    }

    func testSoftmaxMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("classifier")
        let x = vector(cases.tensor(2, "input")), expected = vector(cases.tensor(2, "output"))
        let reference = Tensor(channels: 1000, height: 1, width: 1)
        Softmax.reference(x.view, into: reference.view)
        Softmax.forwardInPlace(x.view)
        XCTAssertLessThanOrEqual(maxAbsDiff(reference.view, expected.view), 1e-7)
        XCTAssertLessThanOrEqual(maxAbsDiff(x.view, expected.view), 1e-7)
        XCTAssertEqual(x.values.reduce(0, +), 1, accuracy: 1e-5)
        // Huge logits stay finite.
        let big = Tensor(shape: [1, 3, 1, 1], values: [1000, 999, -1000])
        Softmax.forwardInPlace(big.view)
        XCTAssertEqual(big.values[0], 1 / (1 + expf(-1)), accuracy: 1e-6)
        XCTAssertEqual(big.values[2], 0)
    }
}

/// The channel-blocked layout's ops (Conv2D+Blocked.swift) against the planar references, on every kernel build.
final class ChannelBlockedTests: XCTestCase {
    /// A planar tensor's blocked copy, with the slack the blocked kernels read past the end.
    func blocked(_ t: Tensor, context: ExecutionContext) -> Tensor {
        let out = Tensor(shape: [ChannelBlocks.floats(channels: t.view.channels, height: t.view.height, width: t.view.width)])
        ChannelBlocks.block(t.view, into: view(out, like: t.view), context: context)
        return out
    }

    func view(_ storage: Tensor, like v: TensorView) -> TensorView {
        TensorView(channels: v.channels, height: v.height, width: v.width, data: storage.data)
    }

    func planar(_ storage: Tensor, like v: TensorView, context: ExecutionContext) -> Tensor {
        let out = Tensor(channels: v.channels, height: v.height, width: v.width)
        ChannelBlocks.unblock(view(storage, like: v), into: out.view, context: context)
        return out
    }

    /// Into the layout and back is the identity, for maps of 1 pixel to more than a vector's worth.
    func testBlockingRoundTrips() {
        for (trial, (c, h, w)) in [(16, 1, 1), (32, 7, 7), (48, 14, 14), (16, 3, 17), (24, 5, 11), (40, 28, 28)].enumerated() {
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(3100 + trial))
            for (isa, context) in contextsForEveryISA(threads: 1) {
                let b = blocked(x, context: context)
                XCTAssertEqual(planar(b, like: x.view, context: context).values, x.values, "\(c)×\(h)×\(w) \(isa)")
                // element (c, p) at (c / 16) · hw · 16 + p · 16 + c % 16
                let hw = h * w, cc = c - 1, p = hw - 1
                XCTAssertEqual(b.data[(cc / 16) * hw * 16 + p * 16 + cc % 16], x.view.plane(cc)[p], "\(isa): layout")
                // a last block of fewer channels: its padded lanes are zero
                for pad in c..<ChannelBlocks.paddedChannels(c) {
                    XCTAssertEqual(b.data[(pad / 16) * hw * 16 + p * 16 + pad % 16], 0, "\(isa): padded lane \(pad)")
                }
            }
        }
    }

    /// The expansion and depthwise conv fused (rows expanded into the depthwise ring) give the bytes of the two
    /// blocked convs one after the other: EfficientNet's wide blocks (24 and 40 inputs: a padded last block),
    /// strides 1 and 2, 3×3 and 5×5, odd sizes, every kernel build, one and two threads (two bands).
    func testFusedExpandDepthwiseGivesTheTwoConvsBytes() {
        let shapes = [(16, 96, 3, 2, 112, 112), (24, 144, 5, 2, 56, 56), (40, 240, 5, 1, 28, 28), (24, 48, 3, 1, 17, 30),
                      (32, 64, 5, 2, 21, 19)]
        for (trial, (cin, mid, k, stride, h, w)) in shapes.enumerated() {
            let ew = randomTensor(channels: mid, height: cin, width: 1, seed: UInt64(4100 + trial))
            let eb = randomTensor(channels: 1, height: 1, width: mid, seed: UInt64(4150 + trial))
            let dw = randomTensor(channels: mid, height: 1, width: k * k, seed: UInt64(4200 + trial))
            let db = randomTensor(channels: 1, height: 1, width: mid, seed: UInt64(4250 + trial))
            let expand = Conv2D(outChannels: mid, inChannels: cin, kernelSize: 1, weight: ew.data, bias: eb.data,
                                prepareFastKernels: true)
            let depthwise = Conv2D(outChannels: mid, inChannels: mid, kernelSize: k, stride: stride, padding: .same,
                                   groups: mid, weight: dw.data, bias: db.data)
            guard Conv2D.fusesBlocked(expand: expand, depthwise: depthwise) else { XCTAssertEqual(KernelISA.best, .baseline); return }
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(4300 + trial))
            let size = depthwise.outputSize(height: h, width: w)
            let outView = TensorView(channels: mid, height: size.height, width: size.width, data: x.data)
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let bx = blocked(x, context: context)
                    let expanded = Tensor(shape: [ChannelBlocks.floats(channels: mid, height: h, width: w)])
                    let separate = Tensor(shape: [ChannelBlocks.floats(channels: mid, height: size.height, width: size.width)])
                    let fused = Tensor(shape: [ChannelBlocks.floats(channels: mid, height: size.height, width: size.width)])
                    let e = TensorView(channels: mid, height: h, width: w, data: expanded.data)
                    expand.blockedForward(view(bx, like: x.view), into: e, epilogue: .relu6, context: context)
                    depthwise.blockedForward(e, into: view(separate, like: outView), epilogue: .relu6, context: context)
                    Conv2D.blockedExpandDepthwise(expand: expand, depthwise: depthwise, view(bx, like: x.view),
                                                  into: view(fused, like: outView), context: context)
                    let n = mid * size.height * size.width
                    XCTAssertEqual(differingElements(Array(fused.values[0..<n]), Array(separate.values[0..<n])), 0,
                                   "\(cin)→\(mid) k \(k) s \(stride) \(h)×\(w) \(threads) threads \(isa)")
                    // and both against the planar reference
                    let expectedE = Tensor(channels: mid, height: h, width: w)
                    expand.referenceForward(x.view, into: expectedE.view, epilogue: .relu6)
                    let expected = Tensor(channels: mid, height: size.height, width: size.width)
                    depthwise.referenceForward(expectedE.view, into: expected.view, epilogue: .relu6)
                    let got = planar(fused, like: expected.view, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(got.view, expected.view), 1e-4 * Float(cin * k * k).squareRoot(),
                                             "\(cin)→\(mid) k \(k) s \(stride) against the reference, \(isa)")
                }
            }
        }
    }

    /// An inverted bottleneck on a wide map as one op (expansion into the depthwise ring, each filtered row
    /// projected at once) gives the bytes of the fused expansion + depthwise conv followed by the projection:
    /// with a residual (stride 1, in = out) and without, strides 1 and 2, 3×3 and 5×5, 24 and 40 outputs (a
    /// half last block), odd sizes, one and two threads, every kernel build; and with half the filtered channels
    /// (nearly) all zero, as a photo's are after the ReLU6, so the projection skips their terms.
    func testExpandDepthwiseProjectGivesTheSeparateBytes() {
        let shapes = [(24, 144, 3, 1, 56, 56, 24), (16, 96, 3, 2, 30, 32, 24), (40, 240, 5, 1, 28, 28, 40),
                      (24, 144, 5, 2, 21, 19, 40), (32, 64, 3, 1, 17, 30, 32)]
        for (index, (cin, mid, k, stride, h, w, cout)) in (shapes + shapes).enumerated() {
            let trial = index % shapes.count, sparse = index >= shapes.count
            func tensor(_ c: Int, _ hh: Int, _ ww: Int, _ seed: Int) -> Tensor { randomTensor(channels: c, height: hh, width: ww, seed: UInt64(seed + trial)) }
            let ew = tensor(mid, cin, 1, 5900), eb = tensor(1, 1, mid, 5950), dw = tensor(mid, 1, k * k, 6000)
            let db = tensor(1, 1, mid, 6050), pw = tensor(cout, mid, 1, 6100), pb = tensor(1, 1, cout, 6150)
            if sparse { for c in 0..<mid where c % 2 == 0 { db.data[c] -= 20 } }
            let expand = Conv2D(outChannels: mid, inChannels: cin, kernelSize: 1, weight: ew.data, bias: eb.data,
                                prepareFastKernels: true)
            let depthwise = Conv2D(outChannels: mid, inChannels: mid, kernelSize: k, stride: stride, padding: .same,
                                   groups: mid, weight: dw.data, bias: db.data)
            let project = Conv2D(outChannels: cout, inChannels: mid, kernelSize: 1, weight: pw.data, bias: pb.data,
                                 prepareFastKernels: true)
            guard Conv2D.fusesBlocked(expand: expand, depthwise: depthwise, project: project) else {
                XCTAssertEqual(KernelISA.best, .baseline); return
            }
            let x = tensor(cin, h, w, 6200)
            let size = depthwise.outputSize(height: h, width: w)
            let hasResidual = stride == 1 && cin == cout
            let midView = TensorView(channels: mid, height: size.height, width: size.width, data: x.data)
            let outView = TensorView(channels: cout, height: size.height, width: size.width, data: x.data)
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let bx = blocked(x, context: context)
                    let filtered = Tensor(shape: [ChannelBlocks.floats(channels: mid, height: size.height, width: size.width)])
                    let separate = Tensor(shape: [ChannelBlocks.floats(channels: cout, height: size.height, width: size.width)])
                    let fused = Tensor(shape: [ChannelBlocks.floats(channels: cout, height: size.height, width: size.width)])
                    let input = view(bx, like: x.view)
                    Conv2D.blockedExpandDepthwise(expand: expand, depthwise: depthwise, input, into: view(filtered, like: midView),
                                                  context: context)
                    project.blockedForward(view(filtered, like: midView), into: view(separate, like: outView),
                                           epilogue: hasResidual ? Epilogue.none.adding(input) : .none, context: context)
                    Conv2D.blockedExpandDepthwiseProject(expand: expand, depthwise: depthwise, project: project, input,
                                                         residual: hasResidual ? input : nil,
                                                         into: view(fused, like: outView), context: context)
                    let n = ChannelBlocks.paddedChannels(cout) * size.height * size.width
                    let label = "\(cin)→\(mid)→\(cout) k \(k) s \(stride) \(h)×\(w)\(sparse ? " sparse" : "") \(threads) threads \(isa)"
                    XCTAssertEqual(differingElements(Array(fused.values[0..<n]), Array(separate.values[0..<n])), 0, label)
                    if sparse {   // enough zero inputs that the kernel skips them (an eighth of 7-pixel groups)
                        let filteredCount = ChannelBlocks.paddedChannels(mid) * size.height * size.width
                        let zero = filtered.values[0..<filteredCount].filter { $0 == 0 }.count
                        XCTAssertGreaterThan(Double(zero) / Double(filteredCount), 0.5, label)
                    }
                    withExtendedLifetime((bx, filtered)) {}
                }
            }
        }
    }

    /// A strided conv from planes into the layout (a classifier's stem) against the planar reference: the 3→32
    /// 3×3 stride-2 stem at 224 (TF "SAME") and odd sizes, explicit padding, 5×5, stride 3, a padded last block
    /// (20 outputs), every kernel build, one and two threads; and the im2col GEMM's bytes in the FMA builds.
    func testBlockedStridedConvMatchesTheReference() {
        let shapes: [(Int, Int, Int, Int, Conv2D.Padding, Int, Int)] = [
            (3, 32, 3, 2, .same, 224, 224), (3, 32, 3, 2, .same, 57, 41), (5, 20, 5, 2, .symmetric(2), 30, 31),
            (4, 16, 3, 3, .explicit(top: 0, left: 1, bottom: 2, right: 0), 19, 23)]
        for (trial, (cin, cout, k, stride, padding, h, w)) in shapes.enumerated() {
            let weight = randomTensor(channels: cout, height: cin * k * k, width: 1, seed: UInt64(3900 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(3950 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: k, stride: stride, padding: padding,
                              weight: weight.data, bias: bias.data, prepareFastKernels: true)
            guard conv.supportsBlockedFromPlanes else { XCTAssertEqual(KernelISA.best, .baseline); return }
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(3990 + trial))
            let size = conv.outputSize(height: h, width: w)
            for epilogue in [Epilogue.relu6, .none] {
                let expected = Tensor(channels: cout, height: size.height, width: size.width)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for threads in [1, 2] {
                    for (isa, context) in contextsForEveryISA(threads: threads) {
                        let out = Tensor(shape: [ChannelBlocks.floats(channels: cout, height: size.height, width: size.width)])
                        conv.blockedForward(planes: x.view, into: view(out, like: expected.view), epilogue: epilogue,
                                            context: context)
                        let got = planar(out, like: expected.view, context: context)
                        let label = "\(cin)→\(cout) k \(k) s \(stride) \(h)×\(w) \(epilogue) \(threads) threads \(isa)"
                        XCTAssertLessThanOrEqual(maxAbsDiff(got.view, expected.view), 1e-4 * Float(cin * k * k).squareRoot(), label)
                        for pad in cout..<ChannelBlocks.paddedChannels(cout) {   // padded lanes stay zero
                            XCTAssertEqual(out.data[(pad / 16) * size.height * size.width * 16 + pad % 16], 0, "\(label): lane \(pad)")
                        }
                        // the stem's tiles are whole vectors, so the GEMM path runs the kernels' own GEMM there
                        guard isa != .baseline && trial == 0 else { continue }
                        let gemm = Tensor(channels: cout, height: size.height, width: size.width)
                        conv.gemmForward(x.view, into: gemm.view, epilogue: epilogue, context: context)
                        XCTAssertEqual(differingElements(got.values, gemm.values), 0, "\(label): the GEMM's bytes")
                    }
                }
            }
        }
    }

    /// 1×1 and depthwise convs on blocked maps against the planar reference: EfficientNet's maps from 112×112
    /// to 7×7 (the wide ones split by pixels or bands of rows), channel counts that leave a padded last block
    /// (24, 40) in and out, three output blocks, a map of 1 pixel and odd ones (49 and 28 pixels: groups of 7), strides 1 and 2, 3×3 and 5×5, TF "SAME", every
    /// epilogue the blocks use, every kernel build, one and two threads.
    /// Global average pooling straight from a blocked map gives the planar pooling's bytes: a classifier's head
    /// map, a last block of 8 channels, one pixel, a map wider than a vector.
    func testBlockedGlobalAveragePoolGivesThePlanarBytes() {
        for (trial, (c, h, w)) in [(1280, 7, 7), (40, 7, 7), (16, 1, 1), (24, 5, 19)].enumerated() {
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(5800 + trial))
            let planarMean = Tensor(channels: c, height: 1, width: 1), blockedMean = Tensor(channels: c, height: 1, width: 1)
            GlobalAveragePool.forward(x.view, into: planarMean.view)
            let bx = blocked(x, context: ExecutionContext())
            GlobalAveragePool.forward(blocked: view(bx, like: x.view), into: blockedMean.view)
            withExtendedLifetime(bx) {}
            XCTAssertEqual(blockedMean.values.map(\.bitPattern), planarMean.values.map(\.bitPattern), "\(c)×\(h)×\(w)")
        }
    }

    /// A depthwise conv on a blocked map gives the planar path's bytes, and the same bytes in both FMA builds,
    /// on one thread or two. Small maps (rows of at most 16 pixels: groups of blocks through one padded tile, in
    /// the AVX-512 build each tap row's inputs held in registers at stride 1): EfficientNet's 14×14 and 7×7
    /// shapes, both strides, 3×3 and 5×5, a 1×1 map, a map narrower than its kernel, explicit padding. Wide
    /// maps (a ring of rows, a sum per tap column; the 16-register builds' 5×5 by halves of the block, two
    /// pixels at a time): EfficientNet's 112, 56 and 28 wide shapes and odd widths, so a row ends on one pixel.
    func testBlockedDepthwiseGivesThePlanarBytes() throws {
        let builds = [KernelISA.avx2, .avx512].filter(\.isSupported)
        try XCTSkipIf(builds.isEmpty, "needs a CPU with AVX2 or AVX-512")
        let shapes = [(1152, 7, 7, 5, 1), (480, 14, 14, 3, 1), (672, 14, 14, 5, 2), (1152, 7, 7, 3, 1), (48, 3, 5, 5, 1),
                      (16, 1, 1, 3, 1), (32, 9, 13, 3, 2), (64, 16, 16, 5, 1), (32, 11, 6, 3, 1),
                      (32, 112, 112, 3, 1), (96, 112, 112, 3, 2), (144, 56, 56, 5, 2), (48, 28, 28, 5, 1),
                      (32, 20, 23, 5, 1), (16, 19, 37, 3, 1), (32, 21, 35, 5, 2)]
        for (trial, (c, h, w, k, stride)) in shapes.enumerated() {
            let weight = randomTensor(channels: c, height: 1, width: k * k, seed: UInt64(5100 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: c, seed: UInt64(5200 + trial))
            let padding: Conv2D.Padding = trial % 3 == 2 && h >= k ? .explicit(top: 0, left: 2, bottom: 1, right: 0) : .same
            let conv = Conv2D(outChannels: c, inChannels: c, kernelSize: k, stride: stride, padding: padding, groups: c,
                              weight: weight.data, bias: bias.data)
            let size = conv.outputSize(height: h, width: w)
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(5300 + trial))
            var outputs: [[UInt32]] = []
            for isa in builds {
                for threads in [1, 2] {
                    for blockedLayout in [true, false] {
                        let context = ExecutionContext(threads: threads)
                        context.isa = isa
                        let out: Tensor
                        if blockedLayout {
                            let bx = blocked(x, context: context)
                            let bo = Tensor(shape: [ChannelBlocks.floats(channels: c, height: size.height, width: size.width)])
                            let like = TensorView(channels: c, height: size.height, width: size.width, data: bo.data)
                            conv.blockedForward(view(bx, like: x.view), into: like, epilogue: .relu6, context: context)
                            out = planar(bo, like: like, context: context)
                        } else {
                            out = Tensor(channels: c, height: size.height, width: size.width)
                            conv.depthwiseForward(x.view, into: out.view, epilogue: .relu6, context: context)
                        }
                        outputs.append(out.values.map(\.bitPattern))
                        let differs = outputs[0].indices.first { outputs[0][$0] != outputs.last![$0] }
                        XCTAssertNil(differs, "\(c) ch \(h)×\(w) k \(k) s \(stride) \(padding), \(isa), \(threads) thread(s), "
                                     + "\(blockedLayout ? "blocked" : "planar"): first difference at \(differs ?? 0)")
                    }
                }
            }
        }
    }

    /// Blocked 1×1 and depthwise convs against the planar reference, each kernel build, one and two threads.
    /// The 1×1 convs also give the planar packed GEMM's bytes in the FMA builds and write zeros into a last
    /// block's padded lanes over an output that held NaNs — 24 and 40 outputs sum their last block 8 lanes wide
    /// in the AVX-512 build — on wide maps (split by pixels) and small ones, with and without a residual, on
    /// dense inputs and on inputs mostly zero, whose zero terms the kernel skips (the same bytes still).
    func testBlockedConvsMatchTheReference() {
        let pointwiseShapes = [(80, 480, 14, 14), (1152, 192, 7, 7), (672, 112, 14, 14), (480, 80, 14, 14),
                               (16, 32, 1, 1), (48, 16, 5, 9),
                               (16, 96, 112, 112), (144, 24, 56, 56), (24, 144, 30, 29), (240, 40, 28, 28),
                               (40, 24, 3, 37), (40, 48, 4, 7), (80, 24, 7, 7), (40, 40, 5, 9), (16, 8, 3, 3)]
        for (trial, (cin, cout, h, w)) in pointwiseShapes.enumerated() {
            let weight = randomTensor(channels: cout, height: cin, width: 1, seed: UInt64(3200 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(3300 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 1, weight: weight.data, bias: bias.data,
                              prepareFastKernels: true)
            guard conv.supportsBlocked else { XCTAssertEqual(KernelISA.best, .baseline); return }
            let dense = randomTensor(channels: cin, height: h, width: w, seed: UInt64(3400 + trial))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(3500 + trial))
            // and an input zero like a projection's on a photo (after ReLU6): on whole channels (half, some as
            // -0) and on runs of 7 pixels, so the kernel skips them (more than an eighth of each 7 or 8 pixels)
            let sparse = Tensor(channels: cin, height: h, width: w)
            for c in 0..<cin {
                for p in 0..<(h * w) {
                    let zero = c % 2 == 0 || (p / 7 + c / 2) % 3 == 0
                    sparse.data[c * h * w + p] = zero ? (c % 4 == 0 ? -0.0 : 0) : dense.data[c * h * w + p]
                }
            }
            for (x, epilogue) in [dense, sparse].flatMap({ x in [Epilogue.relu6, .none, Epilogue.none.adding(residual.view)].map { (x, $0) } }) {
                let expected = Tensor(channels: cout, height: h, width: w)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for threads in [1, 2] {
                    for (isa, context) in contextsForEveryISA(threads: threads) {
                        let bx = blocked(x, context: context), br = blocked(residual, context: context)
                        let out = Tensor(shape: [ChannelBlocks.floats(channels: cout, height: h, width: w)])
                        let lanes = ChannelBlocks.width, blocks = ChannelBlocks.blocks(channels: cout)
                        out.data.update(repeating: .nan, count: blocks * lanes * h * w)
                        let e = epilogue.residual == nil ? epilogue : Epilogue.none.adding(view(br, like: residual.view))
                        conv.blockedForward(view(bx, like: x.view), into: view(out, like: expected.view), epilogue: e,
                                            context: context)
                        let label = "1×1 \(cin)→\(cout) \(h)×\(w) \(x === sparse ? "sparse " : "")\(epilogue) \(threads) threads \(isa)"
                        let padded = (0..<(h * w)).flatMap { p in
                            (cout % lanes..<lanes).map { out.data[((blocks - 1) * h * w + p) * lanes + $0] }
                        }
                        XCTAssertTrue(cout % lanes == 0 || padded.allSatisfy { $0 == 0 }, "\(label): padded lanes are zero")
                        let got = planar(out, like: expected.view, context: context)
                        XCTAssertLessThanOrEqual(maxAbsDiff(got.view, expected.view), 1e-4 * Float(cin).squareRoot(), label)
                        if isa != .baseline {
                            let planarOut = Tensor(channels: cout, height: h, width: w)
                            conv.forward(x.view, into: planarOut.view, epilogue: epilogue, context: context)
                            XCTAssertEqual(differingElements(got.values, planarOut.values), 0, "\(label): the planar path's bytes")
                        }
                    }
                }
            }
        }
        let depthwiseShapes = [(480, 14, 14, 3, 1), (672, 14, 14, 5, 2), (1152, 7, 7, 5, 1), (16, 1, 1, 3, 1),
                               (32, 9, 13, 3, 2), (96, 112, 112, 3, 2), (144, 56, 56, 5, 2), (32, 40, 37, 3, 1),
                               (48, 20, 23, 5, 1), (16, 35, 34, 7, 1), (32, 33, 36, 3, 2)]
        for (trial, (c, h, w, k, stride)) in depthwiseShapes.enumerated() {
            let weight = randomTensor(channels: c, height: 1, width: k * k, seed: UInt64(3600 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: c, seed: UInt64(3700 + trial))
            let conv = Conv2D(outChannels: c, inChannels: c, kernelSize: k, stride: stride, padding: .same, groups: c,
                              weight: weight.data, bias: bias.data)
            XCTAssertTrue(conv.supportsBlocked)
            let size = conv.outputSize(height: h, width: w)
            let x = randomTensor(channels: c, height: h, width: w, seed: UInt64(3800 + trial))
            for epilogue in [Epilogue.relu6, .none] {
                let expected = Tensor(channels: c, height: size.height, width: size.width)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for threads in [1, 2] {
                    for (isa, context) in contextsForEveryISA(threads: threads) {
                        let bx = blocked(x, context: context)
                        let out = Tensor(shape: [ChannelBlocks.floats(channels: c, height: size.height, width: size.width)])
                        conv.blockedForward(view(bx, like: x.view), into: view(out, like: expected.view), epilogue: epilogue,
                                            context: context)
                        let got = planar(out, like: expected.view, context: context)
                        XCTAssertLessThanOrEqual(maxAbsDiff(got.view, expected.view), 1e-4 * Float(k),
                                                 "depthwise \(c) ch \(h)×\(w) k \(k) s \(stride) \(epilogue) \(threads) threads \(isa)")
                    }
                }
            }
        }
    }
}
