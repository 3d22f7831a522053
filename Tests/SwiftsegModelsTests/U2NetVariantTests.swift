import Foundation
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// A U²-Net file with widths of its own (as rembg's silueta.onnx has): Tools/make_u2net_variant_fixture.py builds
/// an export with seeded random weights, Tools/convert_onnx.py --variant reads the widths from its shapes, and the
/// runtime builds the network from the file's tensors; d0 against ONNX Runtime's.
final class U2NetVariantTests: XCTestCase {
    func testAVariantWithItsOwnWidthsMatchesONNXRuntime() throws {
        let file = try SafeTensorsFile(path: Fixtures.path("models/u2net-variant.safetensors"))
        let net = try XCTUnwrap(try ModelRegistry.builtIn.load(file) as? U2Net)
        XCTAssertEqual(net.name, "u2net-variant")
        XCTAssertEqual(net.configuration.stage("stage3").midChannels, 12)
        XCTAssertEqual(net.configuration.stage("stage4d").inChannels, 80)
        XCTAssertEqual(net.configuration.sideInChannels, [16, 16, 24, 32, 40, 40])
        let input = try NPY.read(path: Fixtures.path("models/u2net-variant.input.npy"))
        let expected = try NPY.read(path: Fixtures.path("models/u2net-variant.d0.npy"))
        assertMatchesONNXRuntime(net, input, expected)
    }

    /// The exact GEMM path within 1e-4 of ONNX Runtime, the default kernels within 1e-3; 1 and 2 threads, every ISA.
    private func assertMatchesONNXRuntime(_ net: any Network, _ input: Tensor, _ expected: Tensor,
                                          file: StaticString = #filePath, line: UInt = #line) {
        for threads in [1, 2] {
            for (policy, bound) in [(ConvKernelPolicy.gemm, Float(1e-4)), (.auto, 1e-3)] {
                for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                    let output = Tensor(channels: 1, height: input.shape[2], width: input.shape[3])
                    net.forward(input.view, into: output.view, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(output.view, expected.view), bound, "\(threads) \(policy) \(isa)",
                                             file: file, line: line)
                }
            }
        }
    }

    /// A variant file missing a stage's tensor is refused in one line naming it.
    func testAVariantMissingATensorIsRefused() throws {
        let file = try SafeTensorsFile(path: Fixtures.path("models/u2net-variant.safetensors"))
        let tensors: [(name: String, shape: [Int], values: [Float])] = file.tensors.values
            .filter { $0.name != "stage3.rebnconv1.conv_s1.weight" }.sorted { $0.name < $1.name }
            .map { ($0.name, $0.shape, Array(UnsafeBufferPointer(start: file.floats($0.name)!, count: $0.elementCount))) }
        let path = NSTemporaryDirectory() + "swiftseg-variant-\(UUID().uuidString).safetensors"
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(SafeTensorsFile.serialize(tensors: tensors, metadata: file.metadata))))
        XCTAssertThrowsError(try ModelRegistry.builtIn.load(try SafeTensorsFile(path: path))) { error in
            XCTAssertTrue("\(error)".contains("stage3.rebnconv1.conv_s1.weight"), "\(error)")
        }
    }

    /// ISNet (rembg's isnet-general-use layout: conv_in 3×3 stride 2, U²-Net's stages, d1 out) from a seeded
    /// random export (Tools/make_u2net_variant_fixture.py --isnet): d1 against ONNX Runtime's, and the
    /// preprocessing rembg uses for it.
    func testISNetMatchesONNXRuntime() throws {
        let file = try SafeTensorsFile(path: Fixtures.path("models/isnet-variant.safetensors"))
        let net = try XCTUnwrap(try ModelRegistry.builtIn.load(file) as? ISNet)
        XCTAssertEqual(net.name, "isnet-variant")
        XCTAssertEqual(net.preprocessing.inputSize, 1024)
        XCTAssertEqual(net.preprocessing.std, [1, 1, 1])
        XCTAssertEqual(net.preprocessing.mean, [0.485, 0.456, 0.406])
        let input = try NPY.read(path: Fixtures.path("models/isnet-variant.input.npy"))
        let expected = try NPY.read(path: Fixtures.path("models/isnet-variant.d1.npy"))
        assertMatchesONNXRuntime(net, input, expected)
        // odd sizes: conv_in's output is ⌈H/2⌉, the upsampling goes back to H
        let odd = randomTensor(channels: 3, height: 37, width: 29, seed: 7)
        let fast = Tensor(channels: 1, height: 37, width: 29), reference = Tensor(channels: 1, height: 37, width: 29)
        net.forward(odd.view, into: reference.view, context: ExecutionContext(threads: 1, policy: .reference))
        net.forward(odd.view, into: fast.view, context: ExecutionContext(threads: 2, policy: .auto))
        XCTAssertLessThanOrEqual(maxAbsDiff(fast.view, reference.view), 1e-3)
    }
}
