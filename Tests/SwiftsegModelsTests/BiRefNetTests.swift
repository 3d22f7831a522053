import Foundation
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// BiRefNet with every structural part of the released models at narrow widths (Tools/make_birefnet_fixture.py:
/// Tools/birefnet_arch.py, checked against the original code, with seeded random weights, exported as BiRefNet's
/// notebook exports, run by ONNX Runtime; the weights converted by Tools/convert_birefnet.py): the map against
/// ONNX Runtime's, and the file's tensors checked by name and shape.
final class BiRefNetTests: XCTestCase {
    func load(_ name: String = "birefnet-tiny") throws -> (BiRefNet, SafeTensorsFile) {
        let file = try SafeTensorsFile(path: Fixtures.path("models/\(name).safetensors"))
        return (try XCTUnwrap(try ModelRegistry.builtIn.load(file) as? BiRefNet), file)
    }

    /// Both layouts of the released models: Swin-T's window of 7 (birefnet-general-lite) and Swin-L's of 12 (the
    /// others and RMBG-2.0), each with shifted, padded and masked windows at every stage.
    func testTheMapMatchesONNXRuntime() throws {
        for (name, window) in [("birefnet-tiny", 7), ("birefnet-tiny-l", 12)] {
            let (net, _) = try load(name)
            XCTAssertEqual(net.name, name)
            XCTAssertEqual(net.shape, SwinShape(dim: 8, depths: [2, 2, 2, 2], heads: [1, 2, 2, 4], window: window))
            XCTAssertEqual(net.preprocessing.mean, [0.485, 0.456, 0.406])
            XCTAssertEqual(net.preprocessing.std, [0.229, 0.224, 0.225])
            let input = try NPY.read(path: Fixtures.path("models/\(name).input.npy"))
            let expected = try NPY.read(path: Fixtures.path("models/\(name).output.npy"))
            for threads in [1, 2] {
                for (isa, context) in contextsForEveryISA(threads: threads) {
                    let output = Tensor(channels: 1, height: input.shape[2], width: input.shape[3])
                    net.forward(input.view, into: output.view, context: context)
                    XCTAssertLessThanOrEqual(maxAbsDiff(output.view, expected.view), 2e-5, "\(name) \(threads) threads \(isa)")
                }
            }
        }
    }

    /// A file missing a tensor, with one more, or with one misshapen is refused in one line naming it.
    func testMissingExtraAndMisshapenTensorsAreNamed() throws {
        let (_, file) = try load()
        func refused(_ edit: (inout [(name: String, shape: [Int], values: [Float])]) -> Void, naming name: String,
                     line: UInt = #line) throws {
            var tensors: [(name: String, shape: [Int], values: [Float])] = file.tensors.values.sorted { $0.name < $1.name }
                .map { ($0.name, $0.shape, Array(UnsafeBufferPointer(start: file.floats($0.name)!, count: $0.elementCount))) }
            edit(&tensors)
            let path = NSTemporaryDirectory() + "swiftseg-birefnet-\(UUID().uuidString).safetensors"
            defer { try? FileManager.default.removeItem(atPath: path) }
            XCTAssertTrue(FileManager.default.createFile(
                atPath: path, contents: Data(SafeTensorsFile.serialize(tensors: tensors, metadata: file.metadata))))
            XCTAssertThrowsError(try ModelRegistry.builtIn.load(try SafeTensorsFile(path: path)), line: line) { error in
                XCTAssertTrue("\(error)".contains(name), "\(error)", line: line)
            }
        }
        let deform = "decoder.decoder_block2.dec_att.aspp_deforms.2.atrous_conv.regular_conv.weight"
        try refused({ $0.removeAll { $0.name == deform } }, naming: deform)
        try refused({ $0.append(("decoder.conv_ms_spvn_4.weight", [1, 4, 1, 1], [0, 0, 0, 0])) },
                    naming: "decoder.conv_ms_spvn_4.weight")
        let qkv = "bb.layers.1.blocks.1.attn.qkv.bias"
        try refused({ t in
            let i = t.firstIndex { $0.name == qkv }!
            t[i] = (qkv, [t[i].shape[0] - 1], Array(t[i].values.dropLast()))
        }, naming: qkv)
    }
}
