import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// Whole-network parity: u2netp's d0 against ONNX Runtime's on real photos (Tools/make_fixtures.py).
final class U2NetTests: XCTestCase {
    static let net = try! U2Net(source: .u2netp)

    /// d0 against ONNX Runtime's: the exact GEMM path within 1e-4, the default (Winograd) path within 1e-3.
    func checkPhoto(_ name: String, threads: Int = 2, file: StaticString = #filePath, line: UInt = #line) throws {
        let input = try NPY.read(path: Fixtures.path("photos/\(name).input.npy"))
        let expected = try NPY.read(path: Fixtures.path("photos/\(name).d0.npy"))
        for (policy, bound) in [(ConvKernelPolicy.gemm, Float(1e-4)), (.auto, 1e-3)] {
            for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                let output = Tensor(channels: 1, height: input.shape[2], width: input.shape[3])
                Self.net.forward(input.view, into: output.view, context: context)
                let diff = maxAbsDiff(output.view, expected.view)
                XCTAssertLessThanOrEqual(diff, bound, "\(name) \(policy) \(isa): max |Δd0| vs ONNX Runtime",
                                         file: file, line: line)
            }
        }
    }

    func testAstronautMatchesONNXRuntime() throws { try checkPhoto("astronaut") }
    func testChelseaMatchesONNXRuntime() throws { try checkPhoto("chelsea") }
    func testCoffeeMatchesONNXRuntime() throws { try checkPhoto("coffee", threads: 1) }
    func testRocketMatchesONNXRuntime() throws { try checkPhoto("rocket") }
    func testCoinsMatchesONNXRuntime() throws { try checkPhoto("coins") }
    /// 203×157: odd sizes through ceil-mode pooling and non-integer upsampling.
    func testOddSizedCropMatchesONNXRuntime() throws { try checkPhoto("coffee-crop") }

    /// The whole network with each fast policy against the same network on the reference kernels (small odd
    /// input: every stage, pooling to 1×1 and upsampling back).
    func testFastKernelsMatchReferenceKernels() {
        let x = randomTensor(channels: 3, height: 13, width: 11, seed: 42)
        let reference = Tensor(channels: 1, height: 13, width: 11)
        Self.net.forward(x.view, into: reference.view, context: ExecutionContext(threads: 1, policy: .reference))
        for policy in [ConvKernelPolicy.gemm, .winograd, .auto] {
            let fast = Tensor(channels: 1, height: 13, width: 11)
            Self.net.forward(x.view, into: fast.view, context: ExecutionContext(threads: 2, policy: policy))
            XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, reference.view), 1e-5, "\(policy)")
        }
    }
}

extension U2NetTests {
    /// A context sharing cores with others (a server lane) gives the same bytes whether an op gets one core
    /// or all of them: the work is split by the context's `threads`, not by the cores it borrows. Every kernel
    /// build, the exact and default policies, a photo and an odd crop (the whole-map and tile-row Winograd
    /// paths, dilated taps, direct and GEMM kernels).
    func testSharedCoresGiveTheSameResultWhateverTheyLend() throws {
        for name in ["astronaut", "coffee-crop"] {
            let input = try NPY.read(path: Fixtures.path("photos/\(name).input.npy"))
            for policy in [ConvKernelPolicy.auto, .gemm] {
                for isa in supportedISAs {
                    let unshared = forwardSharingCores(Self.net, input.view, cores: nil, isa: isa, policy: policy)
                    for cores in [1, 2] {
                        let shared = forwardSharingCores(Self.net, input.view, cores: cores, isa: isa, policy: policy)
                        XCTAssertEqual(differingElements(shared, unshared), 0,
                                       "\(name) \(policy) \(isa): \(cores) core(s) of two threads")
                    }
                }
            }
        }
    }

    /// Without the Winograd weights (the `--exact` load), `.auto` runs only exact kernels (GEMM, and the direct
    /// kernel on thin layers, which forms the same products in another order): within float rounding of the
    /// `.gemm` result, and different from the default model's Winograd result.
    func testModelWithoutWinogradWeightsRunsExactKernelsOnly() throws {
        let exact = try U2Net(source: .u2netp, prepareFastKernels: false)
        let input = try NPY.read(path: Fixtures.path("photos/coffee-crop.input.npy"))
        func run(_ net: U2Net, _ policy: ConvKernelPolicy) -> Tensor {
            let out = Tensor(channels: 1, height: input.shape[2], width: input.shape[3])
            net.forward(input.view, into: out.view, context: ExecutionContext(threads: 2, policy: policy))
            return out
        }
        let auto = run(exact, .auto), gemm = run(exact, .gemm), winograd = run(Self.net, .auto)
        XCTAssertLessThanOrEqual(maxAbsDiff(auto.view, gemm.view), 1e-4)  // the --exact bound against ONNX Runtime
        XCTAssertGreaterThan(maxAbsDiff(auto.view, winograd.view), 0)
    }
}

/// The full u2net model (176 MB, fetched on demand) against ONNX Runtime; skipped when it has not been fetched.
final class U2NetFullModelTests: XCTestCase {
    func testU2NetMatchesONNXRuntime() throws {
        let file: SafeTensorsFile
        do {
            file = try ModelSource.named("u2net").open()
        } catch {
            throw XCTSkip("u2net weights not fetched, so not tested (\(error))")
        }
        let net = try U2Net(weights: file)
        XCTAssertEqual(net.configuration.variant, "u2net")
        for name in ["astronaut", "coffee"] {
            let input = try NPY.read(path: Fixtures.path("photos/\(name).input.npy"))
            let expected = try NPY.read(path: Fixtures.path("photos/\(name).u2net-d0.npy"))
            for (policy, bound) in [(ConvKernelPolicy.gemm, Float(1e-4)), (.auto, 1e-3)] {
                let output = Tensor(channels: 1, height: 320, width: 320)
                net.forward(input.view, into: output.view, context: ExecutionContext(threads: 2, policy: policy))
                XCTAssertLessThanOrEqual(maxAbsDiff(output.view, expected.view), bound, "u2net \(name) \(policy)")
            }
        }
    }
}
