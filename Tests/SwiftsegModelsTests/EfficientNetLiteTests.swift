import Foundation
import SwiftsegAllocationCounter
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// Whole-network parity: EfficientNet-Lite0's logits against ONNX Runtime's on real photos
/// (Tools/make_classifier_fixtures.py builds the ONNX graph from the unfolded PyTorch weights).
final class EfficientNetLiteTests: XCTestCase {
    static let net = try! EfficientNetLite(source: .efficientNetLite0)

    func softmax(_ t: Tensor) -> [Float] {
        let v = Tensor(shape: [1, t.count, 1, 1], values: t.values)
        Softmax.forwardInPlace(v.view)
        return v.values
    }

    /// Logits within 1e-3 of ONNX Runtime's on every kernel build and policy, one and two threads; the top-5
    /// classes the same, with probabilities within 0.01.
    func checkPhoto(_ name: String, top1: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let input = try NPY.read(path: Fixtures.path("classify/\(name).input.npy"))
        let stored = try NPY.read(path: Fixtures.path("classify/\(name).logits.npy"))   // 1×1000
        let expected = Tensor(shape: [1, stored.count, 1, 1], values: stored.values)
        let expectedProbabilities = softmax(expected)
        let expectedTop = expectedProbabilities.indices.sorted { expectedProbabilities[$0] > expectedProbabilities[$1] }.prefix(5)
        for threads in [1, 2] {
            for policy in [ConvKernelPolicy.auto, .gemm] {
                for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                    let logits = Tensor(channels: 1000, height: 1, width: 1)
                    Self.net.forward(input.view, into: logits.view, context: context)
                    let label = "\(name) \(threads) thread(s) \(policy) \(isa)"
                    XCTAssertLessThanOrEqual(maxAbsDiff(logits.view, expected.view), 1e-3, "\(label): logits",
                                             file: file, line: line)
                    let p = softmax(logits)
                    let top = p.indices.sorted { p[$0] > p[$1] }.prefix(5)
                    XCTAssertEqual(Array(top), Array(expectedTop), "\(label): top 5", file: file, line: line)
                    for i in top { XCTAssertEqual(p[i], expectedProbabilities[i], accuracy: 0.01, file: file, line: line) }
                    XCTAssertEqual(Self.net.labels[top.first!], top1, "\(label): top 1", file: file, line: line)
                }
            }
        }
    }

    /// Shared cores (a server lane): the same logits on one lent core as on two (depthwise, packed 1×1, stem).
    func testSharedCoresGiveTheSameLogitsWhateverTheyLend() throws {
        let input = try NPY.read(path: Fixtures.path("classify/chelsea.input.npy"))
        for isa in supportedISAs {
            let unshared = forwardSharingCores(Self.net, input.view, cores: nil, isa: isa)
            for cores in [1, 2] {
                XCTAssertEqual(differingElements(forwardSharingCores(Self.net, input.view, cores: cores, isa: isa), unshared),
                               0, "\(isa): \(cores) core(s) of two threads")
            }
        }
    }

    /// Every block and the head run channel-blocked (ChannelBlocks) by default, from the stem's output on: in
    /// the FMA builds the same logits, bit for bit, as the planar kernels give (the same multiply-adds in the
    /// same order: the wide maps' depthwise sums as the per-channel kernel forms them, the small maps' as the
    /// 16-channel one does), on one thread or two.
    func testChannelBlockedPassGivesThePlanarBytes() throws {
        let input = try NPY.read(path: Fixtures.path("classify/coffee.input.npy"))
        let builds = [KernelISA.avx2, .avx512].filter(\.isSupported)
        try XCTSkipIf(builds.isEmpty, "needs a CPU with AVX2 or AVX-512")
        for isa in builds {
            for threads in [1, 2] {
                var logits: [[UInt32]] = []
                for blocked in [true, false] {
                    let context = ExecutionContext(threads: threads)
                    context.isa = isa
                    context.blockedLayouts = blocked
                    context.opProfile = StageProfile()
                    let out = Tensor(channels: 1000, height: 1, width: 1)
                    Self.net.forward(input.view, into: out.view, context: context)
                    logits.append(out.values.map(\.bitPattern))
                    XCTAssertEqual(context.opProfile!.order.contains("conv depthwise blocked"), blocked, "\(isa): which kernels ran")
                    XCTAssertEqual(context.opProfile!.order.contains("conv depthwise"), !blocked, "\(isa): planar depthwise ran")
                }
                let differs = logits[0].indices.first { logits[0][$0] != logits[1][$0] }
                XCTAssertNil(differs, "\(isa), \(threads) thread(s): logit \(differs ?? 0) differs")
            }
        }
    }

    func testChelseaMatchesONNXRuntime() throws { try checkPhoto("chelsea", top1: "Egyptian cat") }
    func testCoffeeMatchesONNXRuntime() throws { try checkPhoto("coffee", top1: "espresso") }
    func testRocketMatchesONNXRuntime() throws { try checkPhoto("rocket", top1: "missile") }
    func testAstronautMatchesONNXRuntime() throws { try checkPhoto("astronaut", top1: "bobsled, bobsleigh, bob") }

    /// The file describes itself: architecture, 224, (v − 127) / 128, logits, 1,000 synset-word labels.
    func testEmbeddedWeightsDescribeThemselves() throws {
        let net = Self.net
        XCTAssertEqual(net.name, "efficientnet-lite0")
        XCTAssertEqual(net.preprocessing, ModelPreprocessing(inputSize: 224, mean: [127, 127, 127],
                                                             std: [128, 128, 128], output: .logits))
        XCTAssertEqual(net.labels.count, 1000)
        XCTAssertEqual(net.labels[972], "cliff, drop, drop-off")
        XCTAssertEqual(net.labels[950], "orange")
        XCTAssertEqual(net.outputShape(height: 224, width: 224).channels, 1000)
        let gmacs = Double(net.convMACs(height: 224, width: 224)) / 1e9
        XCTAssertEqual(gmacs, 0.40, accuracy: 0.02, "EfficientNet-Lite0 is ~0.4 GMAC at 224")
        XCTAssertTrue(try ModelRegistry.builtIn.load(SafeTensorsFile.embeddedEfficientNetLite0()) is EfficientNetLite)
    }

    /// A pass after the first at a size allocates nothing, on one thread or two.
    func testSteadyStateForwardPassAllocatesNothing() throws {
        guard swiftseg_allocation_counter_available() == 1 else {
            throw XCTSkip("allocation counting needs glibc (the malloc wrappers are Linux-only)")
        }
        let input = randomTensor(channels: 3, height: 224, width: 224, seed: 5)
        let logits = Tensor(channels: 1000, height: 1, width: 1)
        for threads in [1, 2] {
            let context = ExecutionContext(threads: threads)
            Self.net.forward(input.view, into: logits.view, context: context)
            Self.net.forward(input.view, into: logits.view, context: context)
            swiftseg_allocation_counter_start()
            for _ in 0..<3 { Self.net.forward(input.view, into: logits.view, context: context) }
            XCTAssertEqual(swiftseg_allocation_counter_stop(), 0, "\(threads) thread(s): heap allocations in 3 passes")
        }
    }
}
