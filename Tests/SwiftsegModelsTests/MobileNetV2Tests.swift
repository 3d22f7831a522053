import Foundation
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// MobileNetV2 from a torchvision-style ONNX export (Tools/make_mobilenetv2_fixture.py: width 0.25, 10 classes,
/// seeded random weights, converted by Tools/convert_onnx.py) against ONNX Runtime's logits.
final class MobileNetV2Tests: XCTestCase {
    func testExportMatchesONNXRuntime() throws {
        let file = try SafeTensorsFile(path: Fixtures.path("classify/mobilenetv2-tiny.safetensors"))
        let net = try ModelRegistry.builtIn.load(file)
        XCTAssertTrue(net is MobileNetV2)
        XCTAssertEqual(net.preprocessing.inputSize, 64)
        XCTAssertEqual(net.preprocessing.mean, [123.675, 116.28, 103.53])
        let input = try NPY.read(path: Fixtures.path("classify/mobilenetv2-tiny.input.npy"))
        let expected = try NPY.read(path: Fixtures.path("classify/mobilenetv2-tiny.logits.npy")).values
        XCTAssertEqual(net.outputShape(height: 64, width: 64).channels, expected.count)
        let range = expected.map(abs).max()!
        for threads in [1, 2] {
            for policy in [ConvKernelPolicy.auto, .gemm] {
                for (isa, context) in contextsForEveryISA(threads: threads, policy: policy) {
                    let logits = Tensor(channels: expected.count, height: 1, width: 1)
                    net.forward(input.view, into: logits.view, context: context)
                    let diff = zip(logits.values, expected).map { abs($0 - $1) }.max()!
                    XCTAssertLessThanOrEqual(diff / range, 1e-3, "\(threads) thread(s) \(policy) \(isa): logits vs ORT")
                }
            }
        }
    }

    /// A file missing a block's tensor, or with one misshapen, is refused in one line naming it.
    func testBrokenExportsAreRefused() throws {
        let file = try SafeTensorsFile(path: Fixtures.path("classify/mobilenetv2-tiny.safetensors"))
        var tensors: [(name: String, shape: [Int], values: [Float])] = file.tensors.values.sorted { $0.name < $1.name }.map {
            ($0.name, $0.shape, Array(UnsafeBufferPointer(start: file.floats($0.name)!, count: $0.elementCount)))
        }
        func load(_ t: [(name: String, shape: [Int], values: [Float])]) -> String {
            let path = NSTemporaryDirectory() + "swiftseg-mnv2-\(UUID().uuidString).safetensors"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(SafeTensorsFile.serialize(tensors: t, metadata: file.metadata))))
            defer { try? FileManager.default.removeItem(atPath: path) }
            do { _ = try MobileNetV2(weights: SafeTensorsFile(path: path)); return "loaded" } catch { return "\(error)" }
        }
        XCTAssertEqual(load(tensors), "loaded")
        let i = tensors.firstIndex { $0.name == "features.5.conv.1.0.weight" }!
        let removed = tensors.remove(at: i)
        XCTAssertTrue(load(tensors).contains("missing tensor features.5.conv.1.0.weight"), load(tensors))
        tensors.insert((removed.name, [removed.shape[0], 1, 1, removed.shape[3] * removed.shape[2]], removed.values), at: i)
        XCTAssertTrue(load(tensors).contains("tensor features.5.conv.1.0.weight has shape"), load(tensors))
    }
}
