import SwiftsegRuntime

// MARK: Key mapping
//
// The one place where weight names and layouts meet the model. Names are the original PyTorch module paths
// (`stage1.rebnconvin.conv_s1.weight`, `side1.bias`, `outconv.weight`) with BatchNorm folded into each conv,
// exactly as Tools/convert_onnx.py writes them; weights are OIHW float32 and used in place (no repacking).
// ``WeightLoader`` (the runtime's) fails with one line naming the file and the tensor on any missing, extra or
// wrongly shaped tensor.

extension U2NetConfiguration {
    /// The configuration a weights file declares in its metadata (`architecture` = u2net, `variant`).
    static func declared(by file: SafeTensorsFile) throws -> U2NetConfiguration {
        guard file.metadata["architecture"] == "u2net" else {
            throw RuntimeError.invalidWeights(
                "\(file.name): metadata architecture is \(file.metadata["architecture"].map { "'\($0)'" } ?? "missing"), expected 'u2net' (convert with Tools/convert_onnx.py)")
        }
        guard let variant = file.metadata["variant"], let config = U2NetConfiguration.named(variant) else {
            throw RuntimeError.invalidWeights("\(file.name): unknown U²-Net variant '\(file.metadata["variant"] ?? "")'")
        }
        return config
    }
}
