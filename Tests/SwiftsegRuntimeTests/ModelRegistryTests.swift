import Foundation
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

/// A network that is only a shape: what the registry builds in these tests.
final class ShapeOnlyNetwork: Network {
    let weights: SafeTensorsFile
    let preprocessing: ModelPreprocessing
    let name = "shape-only"
    let channels: Int
    init(weights: SafeTensorsFile, channels: Int) throws {
        self.weights = weights
        preprocessing = try ModelPreprocessing(declaredBy: weights, defaultOutput: .logits)
        self.channels = channels
    }
    func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int) { (channels, 1, 1) }
    func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {}
    func convMACs(height: Int, width: Int) -> Int { 0 }
}

final class ModelRegistryTests: XCTestCase {
    func file(_ metadata: [String: String]) throws -> SafeTensorsFile {
        let path = NSTemporaryDirectory() + "swiftseg-registry-\(UUID().uuidString).safetensors"
        let bytes = SafeTensorsFile.serialize(tensors: [(name: "w", shape: [2], values: [1, 2])], metadata: metadata)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return try SafeTensorsFile(path: path)
    }

    let complete = ["architecture": "toy", "input_size": "224", "mean": "127,127,127", "std": "128, 128, 128"]
    let registry = ModelRegistry([.init(architecture: "toy", summary: "a toy") { file, _ in
        try ShapeOnlyNetwork(weights: file, channels: 10)
    }])

    /// The file's `architecture` picks the builder; its metadata gives the preprocessing.
    func testBuildsTheDeclaredArchitectureWithItsPreprocessing() throws {
        let network = try registry.load(file(complete))
        XCTAssertEqual(network.name, "shape-only")
        XCTAssertEqual(network.preprocessing, ModelPreprocessing(inputSize: 224, mean: [127, 127, 127],
                                                                 std: [128, 128, 128], output: .logits))
        var sigmoid = complete
        sigmoid["output"] = "sigmoid"
        XCTAssertEqual(try registry.load(file(sigmoid)).preprocessing.output, .sigmoid)
    }

    /// Unknown or missing architectures, and missing or malformed preprocessing, are one line naming the file
    /// and the key.
    func testRefusesUnknownArchitecturesAndBadMetadata() throws {
        func message(_ metadata: [String: String]) throws -> String {
            let f = try file(metadata)
            do { _ = try registry.load(f); return "loaded" } catch { return "\(error)" }
        }
        var other = complete
        other["architecture"] = "resnet"
        XCTAssertTrue(try message(other).contains("metadata architecture is 'resnet', expected 'toy'"))
        other.removeValue(forKey: "architecture")
        XCTAssertTrue(try message(other).contains("metadata architecture is missing"))
        for (key, value, expected) in [("input_size", "big", "input_size is 'big'"), ("mean", "1,2", "mean is '1,2'"),
                                       ("std", "1,0,1", "std has a value ≤ 0"), ("output", "tanh", "output is 'tanh'")] {
            var bad = complete
            bad[key] = value
            let text = try message(bad)
            XCTAssertTrue(text.contains(expected) && !text.contains("\n"), text)
        }
        var missing = complete
        missing.removeValue(forKey: "std")
        XCTAssertTrue(try message(missing).contains("metadata std is missing"))
    }

    /// The checked loader: a tensor by name and shape, then "all used".
    func testWeightLoaderChecksNamesShapesAndLeftovers() throws {
        let bytes = SafeTensorsFile.serialize(tensors: [(name: "fc.weight", shape: [2, 3], values: [1, 2, 3, 4, 5, 6]),
                                                        (name: "fc.bias", shape: [2], values: [0, 1]),
                                                        (name: "extra", shape: [1], values: [9])])
        let path = NSTemporaryDirectory() + "swiftseg-loader-\(UUID().uuidString).safetensors"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var loader = WeightLoader(file: try SafeTensorsFile(path: path), prepareFastKernels: false)
        XCTAssertEqual(try loader.tensor("fc.weight", shape: [2, 3])[5], 6)
        XCTAssertThrowsError(try loader.tensor("fc.bias", shape: [3])) { XCTAssertTrue("\($0)".contains("has shape [2], expected [3]")) }
        XCTAssertThrowsError(try loader.tensor("fc2.weight", shape: [1])) { XCTAssertTrue("\($0)".contains("missing tensor fc2.weight")) }
        _ = try loader.tensor("fc.bias", shape: [2])
        XCTAssertThrowsError(try loader.checkAllUsed(expecting: "toy")) {
            XCTAssertTrue("\($0)".contains("unexpected tensor extra — not a toy weights file"), "\($0)")
        }
        _ = try loader.tensor("extra", shape: [1])
        XCTAssertNoThrow(try loader.checkAllUsed(expecting: "toy"))
    }
}
