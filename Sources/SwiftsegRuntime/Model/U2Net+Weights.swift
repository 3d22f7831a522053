// MARK: Key mapping
//
// The one place where weight names and layouts meet the model. Names are the original PyTorch module paths
// (`stage1.rebnconvin.conv_s1.weight`, `side1.bias`, `outconv.weight`) with BatchNorm folded into each conv,
// exactly as Tools/convert_onnx.py writes them; weights are OIHW float32 and used in place (no repacking).
// Loading fails with one line naming the file and the tensor on any missing, extra or wrongly shaped tensor.

/// Hands out convolutions from a safetensors file by module path, checking each shape, and afterwards
/// checks that nothing in the file was left unused.
struct U2NetWeightLoader {
    let file: SafeTensorsFile
    /// Transform 3×3 dilation-1 weights for the Winograd kernels as they are handed out.
    let prepareFastKernels: Bool
    private(set) var used: Set<String> = []

    init(file: SafeTensorsFile, prepareFastKernels: Bool) {
        self.file = file
        self.prepareFastKernels = prepareFastKernels
    }

    mutating func conv(_ path: String, outChannels: Int, inChannels: Int, kernelSize: Int,
                       dilation: Int) throws -> Conv2D {
        let weight = try tensor("\(path).weight", shape: [outChannels, inChannels, kernelSize, kernelSize])
        let bias = try tensor("\(path).bias", shape: [outChannels])
        return Conv2D(outChannels: outChannels, inChannels: inChannels, kernelSize: kernelSize, dilation: dilation,
                      weight: weight, bias: bias, prepareFastKernels: prepareFastKernels)
    }

    private mutating func tensor(_ name: String, shape: [Int]) throws -> UnsafePointer<Float> {
        guard let info = file.tensors[name], let data = file.floats(name) else {
            throw RuntimeError.invalidWeights("\(file.name): missing tensor \(name) (shape \(shape))")
        }
        guard info.shape == shape else {
            throw RuntimeError.invalidWeights("\(file.name): tensor \(name) has shape \(info.shape), expected \(shape)")
        }
        used.insert(name)
        return data
    }

    /// Throws if the file holds tensors the model did not ask for (a different architecture or a bad export).
    func checkAllUsed() throws {
        let extra = Set(file.tensors.keys).subtracting(used).sorted()
        if let first = extra.first {
            throw RuntimeError.invalidWeights(
                "\(file.name): unexpected tensor \(first)\(extra.count > 1 ? " and \(extra.count - 1) more" : "") — not a \(file.metadata["variant"] ?? "U²-Net") weights file for this runtime?")
        }
    }
}

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
