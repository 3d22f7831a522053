import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

final class ConvTests: XCTestCase {
    /// The reference conv against ONNX Runtime's Conv on every fixture case (dilations 1/2/4/8, 1×1, edges).
    func testReferenceMatchesONNXRuntime() throws {
        let cases = try Fixtures.ops("conv")
        XCTAssertGreaterThanOrEqual(cases.count, 10)
        for n in 0..<cases.count {
            let x = cases.tensor(n, "input"), w = cases.tensor(n, "weight"), b = cases.tensor(n, "bias")
            let expected = cases.tensor(n, "output")
            let p = cases.parameters(n)
            let conv = Conv2D(outChannels: w.shape[0], inChannels: w.shape[1], kernelSize: p["kernel"]!,
                              dilation: p["dilation"]!, weight: w.data, bias: b.data)
            let out = Tensor(channels: conv.outChannels, height: x.shape[2], width: x.shape[3])
            conv.referenceForward(x.view, into: out.view, epilogue: .none)
            XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 1e-5, "case \(n) \(p) shape \(x.shape)")
        }
    }

    /// Every fast policy against the reference over random shapes: odd sizes, all four dilations, 1×1,
    /// 1- and 3-channel edges, each epilogue, one and two threads.
    func testGEMMMatchesReferenceOnRandomShapes() {
        var rng = SplitMix64(seed: 7)
        for trial in 0..<60 {
            let cin = [1, 2, 3, 16, 17, 64][rng.nextInt(0...5)]
            let cout = [1, 3, 16, 64][rng.nextInt(0...3)]
            let kernel = trial % 7 == 0 ? 1 : 3
            let dilation = kernel == 1 ? 1 : [1, 2, 4, 8][rng.nextInt(0...3)]
            let h = rng.nextInt(1...23), w = rng.nextInt(1...29)
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(trial))
            let weight = randomTensor(channels: cout, height: cin, width: kernel * kernel, seed: UInt64(1000 + trial))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(2000 + trial))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(3000 + trial))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: kernel, dilation: dilation,
                              weight: weight.data, bias: bias.data, prepareFastKernels: true)
            let epilogues: [Epilogue] = [.none, .relu, .relu6, .relu.adding(residual.view), Epilogue.none.adding(residual.view)]
            let epilogue = epilogues[trial % epilogues.count]
            let expected = Tensor(channels: cout, height: h, width: w)
            conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
            for threads in [1, 2] {
                for policy in [ConvKernelPolicy.gemm, .winograd, .direct, .auto] {
                    for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                        let out = Tensor(channels: cout, height: h, width: w)
                        conv.forward(x.view, into: out.view, epilogue: epilogue, context: context)
                        let diff = maxAbsDiff(out.view, expected.view)
                        XCTAssertLessThanOrEqual(diff, 1e-4 * Float(cin * kernel * kernel).squareRoot(),
                            "cin \(cin) cout \(cout) k \(kernel) d \(dilation) \(h)×\(w) \(epilogue) threads \(threads) \(policy) \(isa)")
                    }
                }
            }
        }
    }

    /// Winograd in both tile shapes, F(4×4, 3×3) and F(6×4, 3×3), against the reference, over every tile-edge case
    /// (sizes 1…21, rows split into 2 and 3 chunks), 1- and 3-channel edges and wide layers, all epilogues, each
    /// build of the kernels the CPU can run.
    func testWinogradMatchesReference() {
        var rng = SplitMix64(seed: 19)
        let shapes = [(1, 1, 1, 1), (3, 8, 5, 7), (16, 16, 9, 13), (32, 64, 20, 21), (64, 32, 3, 259), (128, 64, 17, 16),
                      (2, 3, 21, 4), (48, 1, 8, 8), (5, 9, 6, 130), (24, 40, 11, 64), (7, 13, 4, 63),
                      (3, 5, 6, 331), (16, 16, 2, 650)]
        for (n, (cin, cout, h, w)) in shapes.enumerated() {
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(100 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(200 + n))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(300 + n))
            for tile in WinogradTile.allCases {
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                              bias: bias.data, prepareFastKernels: true, winogradTile: tile)
            XCTAssertTrue(conv.supportsWinograd)
            XCTAssertEqual(conv.winograd?.tile, tile)
            for epilogue in [Epilogue.none, .relu, .relu6, .relu.adding(residual.view), Epilogue.none.adding(residual.view)] {
                let expected = Tensor(channels: cout, height: h, width: w)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for (isa, context) in contextsForEveryISA(threads: 1 + rng.nextInt(0...1)) {
                    let out = Tensor(channels: cout, height: h, width: w)
                    conv.winogradForward(x.view, into: out.view, epilogue: epilogue, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 2e-5 * Float(cin * 9).squareRoot(),
                                             "\(tile) \(cin)→\(cout) \(h)×\(w) \(epilogue) \(isa)")
                }
            }
            }
        }
        // Small maps run whole-map, their GEMMs split into blocks of output channels, one per task: each block must
        // start on a row block of the packed U (6 rows in the AVX2 build, 8 in the AVX-512 one), whatever the
        // channel count and the number of workers.
        for (n, (cin, cout, h, w)) in [(16, 40, 20, 20), (8, 13, 16, 16), (24, 64, 18, 22)].enumerated() {
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(400 + n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(500 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(600 + n))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                              bias: bias.data, prepareFastKernels: true)
            let expected = Tensor(channels: cout, height: h, width: w)
            conv.referenceForward(x.view, into: expected.view, epilogue: .relu)
            for threads in [2, 3] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let out = Tensor(channels: cout, height: h, width: w)
                    conv.winogradForward(x.view, into: out.view, epilogue: .relu, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(out.view, expected.view), 2e-5 * Float(cin * 9).squareRoot(),
                                             "whole map \(cin)→\(cout) \(h)×\(w) \(threads) threads \(isa)")
                }
            }
        }
        // Dilated or 1×1 convs never take the Winograd path.
        let w1 = randomTensor(channels: 4, height: 4, width: 9, seed: 1), b1 = randomTensor(channels: 1, height: 1, width: 4, seed: 2)
        let dilated = Conv2D(outChannels: 4, inChannels: 4, kernelSize: 3, dilation: 2, weight: w1.data, bias: b1.data, prepareFastKernels: true)
        XCTAssertFalse(dilated.supportsWinograd)
        XCTAssertEqual(dilated.selectKernel(policy: .winograd, height: 40, width: 40), .gemm)
        // The shape rule: tiny maps take GEMM under `.auto`, Winograd only when forced.
        let w3 = randomTensor(channels: 8, height: 8, width: 9, seed: 3), b3 = randomTensor(channels: 1, height: 1, width: 8, seed: 4)
        let plain = Conv2D(outChannels: 8, inChannels: 8, kernelSize: 3, dilation: 1, weight: w3.data, bias: b3.data, prepareFastKernels: true)
        XCTAssertEqual(plain.selectKernel(policy: .auto, height: 10, width: 10), .gemm)
        XCTAssertEqual(plain.selectKernel(policy: .auto, height: 16, width: 13), .winograd)
        XCTAssertEqual(plain.selectKernel(policy: .auto, height: 20, width: 20), .winograd)
        XCTAssertEqual(plain.selectKernel(policy: .winograd, height: 10, width: 10), .winograd)
        // The tile-shape rule: 6×4 tiles up to 128×64 weights, 4×4 above (u2net's wide layers on small maps).
        XCTAssertEqual(plain.winograd?.tile, .f6x4)
        XCTAssertEqual(WinogradTile.forLayer(inChannels: 128, outChannels: 64), .f6x4)
        XCTAssertEqual(WinogradTile.forLayer(inChannels: 256, outChannels: 64), .f4x4)
    }

    /// A conv that also max-pools its output (`pooledInto:`) writes exactly what the conv and then
    /// `MaxPool2D.reference` write: Winograd pooling inside its tasks (both tile shapes; whole-map and tile-row
    /// maps, rows split into chunks, odd sizes for `ceil_mode`, one and two threads), the other kernels after.
    func testConvWithPoolingMatchesConvThenPool() {
        let shapes = [(16, 16, 9, 13), (8, 24, 21, 20), (16, 8, 47, 331), (4, 16, 14, 650), (32, 1, 25, 27), (3, 8, 33, 65)]
        for (n, (cin, cout, h, w)) in shapes.enumerated() {
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(500 + n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(600 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(700 + n))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(800 + n))
            for tile in WinogradTile.allCases {
                let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                                  bias: bias.data, prepareFastKernels: true, winogradTile: tile)
                for policy in [ConvKernelPolicy.winograd, .gemm, .direct, .auto] {
                    for (isa, context) in contextsForEveryISA(threads: 1 + n % 2, policy: policy) {
                        for epilogue in [Epilogue.relu, .relu6, .relu.adding(residual.view), Epilogue.none.adding(residual.view)] {
                            let out = Tensor(channels: cout, height: h, width: w)
                            let pooled = Tensor(channels: cout, height: MaxPool2D.outputSize(h), width: MaxPool2D.outputSize(w))
                            conv.forward(x.view, into: out.view, epilogue: epilogue, pooledInto: pooled.view, context: context)
                            let expected = Tensor(channels: cout, height: MaxPool2D.outputSize(h), width: MaxPool2D.outputSize(w))
                            MaxPool2D.reference(out.view, into: expected.view)
                            XCTAssertEqual(maxAbsDiff(pooled.view, expected.view), 0,
                                           "\(tile) \(policy) \(cin)→\(cout) \(h)×\(w) \(epilogue) \(isa)")
                        }
                    }
                }
            }
        }
    }

    /// A conv on `cat(upsample(head), skip)` with the upsampling made inside the Winograd input transform
    /// (``Conv2D/forward(_:upsampling:into:epilogue:pooledInto:context:)``) gives the same bytes as writing the
    /// upsampling out first (``ResizeBilinear``) and convolving: both tile shapes, every build, one and two
    /// threads, maps on the tile-row path (odd source sizes, a 320-pixel row) and ones that write the upsampling
    /// out first (a map small enough for the whole-map path, one wider than a chunk); with a residual and a
    /// max-pool.
    func testUpsamplingInsideTheInputTransformIsTheSameBytes() {
        // head, skip channels, head h×w: the tile-row path (odd sizes, 320 wide), then a map small enough for the
        // whole-map path and one wide enough for two chunks a row, both written out first
        let cases = [(3, 5, 27, 33), (16, 16, 40, 40), (2, 7, 31, 160), (4, 4, 6, 6), (2, 3, 30, 170)]
        for (n, (k, skip, hh, hw)) in cases.enumerated() {
            let h = 2 * hh, w = 2 * hw, cin = k + skip, cout = 6
            let head = randomTensor(channels: k, height: hh, width: hw, seed: UInt64(900 + n))
            let skipMap = randomTensor(channels: skip, height: h, width: w, seed: UInt64(910 + n))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(920 + n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(930 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(940 + n))
            for tile in WinogradTile.allCases {
                let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                                  bias: bias.data, prepareFastKernels: true, winogradTile: tile)
                XCTAssertEqual(conv.winogradCanUpsample(head.view, into: Tensor(channels: cin, height: h, width: w).view),
                               n < 3, "case \(n) \(tile): made in the input transform")
                for (isa, context) in contextsForEveryISA(threads: 1 + n % 2, policy: .winograd) {
                    // written out: the upsampling into the concat's first channels, then the conv
                    let cat = Tensor(channels: cin, height: h, width: w)
                    ResizeBilinear.forward(head.view, into: cat.view.channels(0..<k), context: context)
                    cat.view.channels(k..<cin).data.update(from: skipMap.data, count: skip * h * w)
                    let expected = Tensor(channels: cout, height: h, width: w)
                    let expectedPooled = Tensor(channels: cout, height: hh, width: hw)
                    conv.forward(cat.view, into: expected.view, epilogue: Epilogue.relu.adding(residual.view),
                                 pooledInto: expectedPooled.view, context: context)
                    // made inside: the concat's first channels never written (NaN, so a read of them shows)
                    let fused = Tensor(channels: cin, height: h, width: w)
                    for i in 0..<k * h * w { fused.data[i] = .nan }
                    fused.view.channels(k..<cin).data.update(from: skipMap.data, count: skip * h * w)
                    let got = Tensor(channels: cout, height: h, width: w), gotPooled = Tensor(channels: cout, height: hh, width: hw)
                    conv.forward(fused.view, upsampling: head.view, into: got.view,
                                 epilogue: Epilogue.relu.adding(residual.view), pooledInto: gotPooled.view, context: context)
                    // bit patterns, not maxAbsDiff: a NaN read from the unwritten channels would slip past max()
                    func same(_ a: Tensor, _ b: Tensor) -> Bool {
                        (0..<a.count).allSatisfy { a.data[$0].bitPattern == b.data[$0].bitPattern }
                    }
                    XCTAssertTrue(same(got, expected), "case \(n) \(tile) \(isa)")
                    XCTAssertTrue(same(gotPooled, expectedPooled), "case \(n) \(tile) \(isa) pooled")
                }
            }
        }
    }

    /// The direct 3×3 kernel against the reference: widths below, at and just past a vector (1, 15, 16, 17, 33)
    /// and long rows, one and two rows, output channels covering the 8-, 4- and 1-channel blocks, odd input
    /// channel counts (the paired partial sums), one output channel (the thin path, its row groups and what they
    /// leave), every epilogue, writing into a channel slice, each build the CPU runs, one and two threads.
    func testDirectMatchesReference() {
        let shapes = [(1, 1, 1, 1), (3, 64, 17, 33), (64, 1, 9, 16), (5, 13, 2, 15), (3, 5, 1, 17), (2, 4, 23, 31),
                      (17, 3, 6, 320), (64, 8, 5, 48), (4, 16, 20, 20), (3, 11, 7, 1),
                      // one output channel (the thin path): row groups of 4 and the 1–3 left over, short and odd rows
                      (2, 1, 1, 1), (7, 1, 2, 15), (16, 1, 3, 17), (9, 1, 4, 33), (64, 1, 11, 47), (5, 1, 13, 320)]
        for (n, (cin, cout, h, w)) in shapes.enumerated() {
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(60 + n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(160 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(260 + n))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(360 + n))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                              bias: bias.data)
            XCTAssertTrue(conv.supportsDirect)
            for (e, epilogue) in [Epilogue.none, .relu, .relu6, .relu.adding(residual.view), Epilogue.none.adding(residual.view)].enumerated() {
                let expected = Tensor(channels: cout, height: h, width: w)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                for (isa, context) in contextsForEveryISA(threads: 1 + (n + e) % 2) {
                    let cat = Tensor(channels: cout + 2, height: h, width: w)
                    for i in 0..<cat.count { cat.data[i] = 7 }
                    conv.directForward(x.view, into: cat.view.channels(1..<(cout + 1)), epilogue: epilogue,
                                       context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(cat.view.channels(1..<(cout + 1)), expected.view),
                                             1e-5 * Float(cin * 9).squareRoot(), "\(cin)→\(cout) \(h)×\(w) \(epilogue) \(isa)")
                    for c in [0, cout + 1] {
                        XCTAssertTrue(UnsafeBufferPointer(start: cat.view.plane(c), count: h * w).allSatisfy { $0 == 7 },
                                      "\(cin)→\(cout) \(h)×\(w) wrote outside its channels")
                    }
                }
            }
        }
        // The shape rule: few output channels unless the input outgrows the caches (Winograd then), few input
        // channels from 64×64 up (GEMM below); wide layers never.
        func conv(_ cin: Int, _ cout: Int, dilation: Int = 1) -> Conv2D {
            let w = randomTensor(channels: cout, height: cin, width: 9, seed: 5), b = randomTensor(channels: 1, height: 1, width: cout, seed: 6)
            return Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: dilation, weight: w.data,
                          bias: b.data, prepareFastKernels: true)
        }
        XCTAssertEqual(conv(64, 1).selectKernel(policy: .auto, height: 10, width: 10), .direct)
        XCTAssertEqual(conv(64, 1).selectKernel(policy: .auto, height: 160, width: 160), .direct)
        XCTAssertEqual(conv(64, 1).selectKernel(policy: .auto, height: 320, width: 320), .direct)   // the thin path
        XCTAssertEqual(conv(64, 4).selectKernel(policy: .auto, height: 320, width: 320), .winograd)
        let exactOnly = Conv2D(outChannels: 1, inChannels: 64, kernelSize: 3, dilation: 1,
                               weight: randomTensor(channels: 1, height: 64, width: 9, seed: 7).data,
                               bias: randomTensor(channels: 1, height: 1, width: 1, seed: 8).data)
        XCTAssertEqual(exactOnly.selectKernel(policy: .auto, height: 320, width: 320), .direct)  // no Winograd weights
        XCTAssertEqual(conv(3, 64).selectKernel(policy: .auto, height: 320, width: 320), .direct)
        XCTAssertEqual(conv(3, 64).selectKernel(policy: .auto, height: 40, width: 40), .gemm)
        XCTAssertEqual(conv(16, 16).selectKernel(policy: .auto, height: 320, width: 320), .winograd)
        XCTAssertEqual(conv(16, 1, dilation: 2).selectKernel(policy: .auto, height: 40, width: 40), .gemm)
        XCTAssertEqual(conv(16, 1, dilation: 2).selectKernel(policy: .direct, height: 40, width: 40), .gemm)
        XCTAssertEqual(conv(16, 16).selectKernel(policy: .direct, height: 40, width: 40), .direct)
        XCTAssertEqual(conv(64, 1).selectKernel(policy: .gemm, height: 40, width: 40), .gemm)
    }

    /// The tap-wise dilated kernel against the reference: dilations as large as the map or larger (taps that
    /// never land inside), odd sizes, output channels not a multiple of the per-worker block, every epilogue,
    /// writing into a channel slice.
    func testDilatedTapsMatchReference() {
        let shapes = [(3, 5, 2, 10, 10), (16, 17, 8, 10, 10), (32, 16, 8, 20, 20), (8, 3, 4, 7, 13), (5, 9, 8, 8, 3),
                      (64, 64, 2, 20, 20), (12, 24, 4, 1, 1), (2, 1, 2, 23, 5)]
        for (n, (cin, cout, d, h, w)) in shapes.enumerated() {
            let x = randomTensor(channels: cin, height: h, width: w, seed: UInt64(40 + n))
            let weight = randomTensor(channels: cout, height: cin, width: 9, seed: UInt64(140 + n))
            let bias = randomTensor(channels: 1, height: 1, width: cout, seed: UInt64(240 + n))
            let residual = randomTensor(channels: cout, height: h, width: w, seed: UInt64(340 + n))
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: d, weight: weight.data,
                              bias: bias.data, prepareFastKernels: true)
            XCTAssertTrue(conv.supportsDilatedTaps(height: h, width: w))
            for (e, epilogue) in [Epilogue.none, .relu, .relu6, .relu.adding(residual.view), Epilogue.none.adding(residual.view)].enumerated() {
                let expected = Tensor(channels: cout, height: h, width: w)
                conv.referenceForward(x.view, into: expected.view, epilogue: epilogue)
                let cat = Tensor(channels: cout + 2, height: h, width: w)
                for i in 0..<cat.count { cat.data[i] = 7 }
                conv.dilatedTapsForward(x.view, into: cat.view.channels(1..<(cout + 1)), epilogue: epilogue,
                                        context: ExecutionContext(threads: 1 + (n + e) % 2))
                XCTAssertLessThanOrEqual(maxAbsDiff(cat.view.channels(1..<(cout + 1)), expected.view),
                                         1e-5 * Float(cin * 9).squareRoot(), "\(cin)→\(cout) d\(d) \(h)×\(w) \(epilogue)")
                for c in [0, cout + 1] {
                    XCTAssertTrue(UnsafeBufferPointer(start: cat.view.plane(c), count: h * w).allSatisfy { $0 == 7 })
                }
            }
        }
    }

    /// The widest build the CPU runs is the default, so the tests above exercise every build a machine has
    /// (all three here) rather than silently testing only the baseline one.
    func testBestISAFollowsCPU() {
        XCTAssertTrue(KernelISA.baseline.isSupported)
        #if arch(x86_64)
        let cpu = CPUFeatures.current
        XCTAssertEqual(KernelISA.best, cpu.hasAVX512 ? .avx512 : cpu.hasAVX2FMA ? .avx2 : .baseline)
        #else
        XCTAssertEqual(KernelISA.best, .baseline)
        #endif
        XCTAssertEqual(ExecutionContext().isa, KernelISA.best)
    }

    /// A conv writing into a channel slice (how concatenation is done) leaves the other channels alone.
    func testWritesIntoChannelSliceOnly() {
        let x = randomTensor(channels: 4, height: 9, width: 7, seed: 1)
        let weight = randomTensor(channels: 2, height: 4, width: 9, seed: 2)
        let bias = randomTensor(channels: 1, height: 1, width: 2, seed: 3)
        let conv = Conv2D(outChannels: 2, inChannels: 4, kernelSize: 3, dilation: 2, weight: weight.data, bias: bias.data)
        let cat = Tensor(channels: 5, height: 9, width: 7)
        for i in 0..<cat.count { cat.data[i] = 42 }
        conv.forward(x.view, into: cat.view.channels(1..<3), epilogue: .none, context: ExecutionContext(threads: 2))
        let expected = Tensor(channels: 2, height: 9, width: 7)
        conv.referenceForward(x.view, into: expected.view, epilogue: .none)
        XCTAssertLessThanOrEqual(maxAbsDiff(cat.view.channels(1..<3), expected.view), 1e-4)
        for c in [0, 3, 4] { XCTAssertTrue(UnsafeBufferPointer(start: cat.view.plane(c), count: 63).allSatisfy { $0 == 42 }) }
    }
}
