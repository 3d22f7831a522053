import Foundation
import SwiftsegModels
import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

final class U2NetArenaTests: XCTestCase {
    /// The first pass learns the plan; later passes at the same size stay inside the block.
    func testSecondPassNeedsNoMoreMemory() {
        let net = try! U2Net(source: .u2netp)
        let context = ExecutionContext(threads: 2)
        let x = randomTensor(channels: 3, height: 40, width: 36, seed: 1)
        let out = Tensor(channels: 1, height: 40, width: 36)
        net.forward(x.view, into: out.view, context: context)
        let reserved = context.reservedBytes
        let first = out.values
        net.forward(x.view, into: out.view, context: context)
        XCTAssertFalse(context.arena.usedOverflow)
        XCTAssertEqual(context.reservedBytes, reserved)
        XCTAssertEqual(out.values, first, "same input, same output")
    }
}

final class WeightsTests: XCTestCase {
    func write(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "swiftseg-test-\(UUID().uuidString).safetensors"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func embeddedBytes() -> [UInt8] {
        let st = try! SafeTensorsFile.embeddedU2NetP()
        // Rebuild a file from the embedded one so tests can damage copies of it.
        let tensors = st.tensors.values.sorted { $0.name < $1.name }.map { info in
            (name: info.name, shape: info.shape,
             values: Array(UnsafeBufferPointer(start: st.floats(info.name)!, count: info.elementCount)))
        }
        return SafeTensorsFile.serialize(tensors: tensors, metadata: st.metadata)
    }

    func loadError(_ bytes: [UInt8]) -> String {
        do {
            _ = try U2Net(weights: SafeTensorsFile(path: write(bytes)))
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    func testEmbeddedWeightsDescribeThemselves() throws {
        let st = try SafeTensorsFile.embeddedU2NetP()
        XCTAssertEqual(st.metadata["architecture"], "u2net")
        XCTAssertEqual(st.metadata["variant"], "u2netp")
        XCTAssertEqual(st.metadata["bn_folded"], "true")
        XCTAssertEqual(st.metadata["source_sha256"]?.count, 64)
        XCTAssertEqual(st.tensors.count, 238)
        let gmacs = Double(try U2Net(weights: st).convMACs(height: 320, width: 320)) / 1e9
        XCTAssertEqual((gmacs * 10).rounded() / 10, 19.8)  // the figure for u2netp
    }

    func testRoundTripLoads() {
        XCTAssertEqual(loadError(embeddedBytes()), "loaded")
    }

    func testTruncatedFileIsRefused() {
        let bytes = embeddedBytes()
        XCTAssertTrue(loadError(Array(bytes.prefix(bytes.count - 1000))).contains("truncated"))
        XCTAssertTrue(loadError(Array(bytes.prefix(5))).contains("only 5 bytes"))
        XCTAssertTrue(loadError(Array(bytes.prefix(100))).contains("truncated"))
    }

    func testNotSafetensorsIsRefused() {
        XCTAssertTrue(loadError(Array("hello, this is not a weights file".utf8)).contains("not a valid safetensors file"))
    }

    func testMissingExtraAndMisshapenTensorsAreNamed() {
        let st = try! SafeTensorsFile.embeddedU2NetP()
        func tensors(_ edit: (inout [(name: String, shape: [Int], values: [Float])]) -> Void) -> [UInt8] {
            var list = st.tensors.values.sorted { $0.name < $1.name }.map { info in
                (name: info.name, shape: info.shape,
                 values: Array(UnsafeBufferPointer(start: st.floats(info.name)!, count: info.elementCount)))
            }
            edit(&list)
            return SafeTensorsFile.serialize(tensors: list, metadata: st.metadata)
        }
        let missing = loadError(tensors { $0.removeAll { $0.name == "stage3.rebnconv2.conv_s1.weight" } })
        XCTAssertTrue(missing.contains("missing tensor stage3.rebnconv2.conv_s1.weight"), missing)
        let extra = loadError(tensors { $0.append((name: "stage7.weight", shape: [1], values: [0])) })
        XCTAssertTrue(extra.contains("unexpected tensor stage7.weight"), extra)
        let misshapen = loadError(tensors {
            let i = $0.firstIndex { $0.name == "outconv.weight" }!
            $0[i] = (name: "outconv.weight", shape: [6, 1, 1, 1], values: $0[i].values)
        })
        XCTAssertTrue(misshapen.contains("outconv.weight has shape [6, 1, 1, 1], expected [1, 6, 1, 1]"), misshapen)
    }

    func testWrongArchitectureMetadataIsRefused() {
        let bytes = SafeTensorsFile.serialize(tensors: [(name: "w", shape: [1], values: [1])],
                                              metadata: ["architecture": "resnet"])
        XCTAssertTrue(loadError(bytes).contains("expected 'u2net'"))
    }
}
