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
        guard let variant = file.metadata["variant"], !variant.isEmpty else {
            throw RuntimeError.invalidWeights("\(file.name): no U²-Net variant in the metadata (convert with Tools/convert_onnx.py)")
        }
        return try U2NetConfiguration.named(variant) ?? U2NetConfiguration(variant: variant, widthsFrom: file)
    }

    /// A variant with widths of its own (rembg's silueta, or u2net_human_seg under its name): the stages and
    /// RSU heights are U²-Net's, each stage's in and out channels read from its `rebnconvin` weight, its
    /// middle channels from `rebnconv1`'s, the sides' from theirs. The loader then checks every tensor.
    init(variant: String, widthsFrom file: SafeTensorsFile) throws {
        func shape(_ name: String) throws -> [Int] {
            guard let t = file.tensors[name], t.shape.count == 4 else {
                throw RuntimeError.invalidWeights("\(file.name): U²-Net variant '\(variant)' has no 4-D tensor \(name)")
            }
            return t.shape
        }
        let stages = try U2NetConfiguration.u2netp.stages.map { stage in
            let input = try shape("\(stage.name).rebnconvin.conv_s1.weight")
            return Stage(name: stage.name, kind: stage.kind, inChannels: input[1],
                         midChannels: try shape("\(stage.name).rebnconv1.conv_s1.weight")[0], outChannels: input[0])
        }
        self.init(variant: variant, stages: stages, sideInChannels: try (1...6).map { try shape("side\($0).weight")[1] })
    }
}
