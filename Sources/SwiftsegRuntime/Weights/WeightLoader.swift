/// Hands out a model's tensors from a safetensors file by name, checking each shape, and afterwards checks
/// that nothing in the file was left unused — the checks every model's key mapping needs, so a wrong,
/// truncated or foreign file fails with one line naming the file and the tensor, never with a crash later.
///
/// ```swift
/// var w = WeightLoader(file: file, prepareFastKernels: true)
/// let stem = try w.conv("_conv_stem", outChannels: 32, inChannels: 3, kernelSize: 3, stride: 2, padding: .same)
/// try w.checkAllUsed(expecting: "efficientnet-lite0")
/// ```
public struct WeightLoader {
    public let file: SafeTensorsFile
    /// Prepare the weights the fast kernels read (Winograd-transformed, tap-major) as convs are handed out.
    public let prepareFastKernels: Bool
    public private(set) var used: Set<String> = []

    public init(file: SafeTensorsFile, prepareFastKernels: Bool) {
        self.file = file
        self.prepareFastKernels = prepareFastKernels
    }

    /// The float32 tensor `name`, which must have exactly `shape`.
    public mutating func tensor(_ name: String, shape: [Int]) throws -> UnsafePointer<Float> {
        guard let info = file.tensors[name], let data = file.floats(name) else {
            throw RuntimeError.invalidWeights("\(file.name): missing tensor \(name) (shape \(shape))")
        }
        guard info.shape == shape else {
            throw RuntimeError.invalidWeights("\(file.name): tensor \(name) has shape \(info.shape), expected \(shape)")
        }
        used.insert(name)
        return data
    }

    /// The shape of tensor `name` (for models whose widths the file decides, such as a MobileNetV2 export of
    /// any width multiplier); it is checked again when the tensor is taken.
    public func shape(of name: String) throws -> [Int] {
        guard let info = file.tensors[name] else {
            throw RuntimeError.invalidWeights("\(file.name): missing tensor \(name)")
        }
        return info.shape
    }

    /// The convolution at module path `path`: `path.weight` (OIHW, `outChannels × inChannels/groups × k × k`)
    /// and `path.bias` (`outChannels`), BatchNorm already folded in by the converter.
    public mutating func conv(_ path: String, outChannels: Int, inChannels: Int, kernelSize: Int, stride: Int = 1,
                              dilation: Int = 1, padding: Conv2D.Padding? = nil, groups: Int = 1) throws -> Conv2D {
        let weight = try tensor("\(path).weight",
                                shape: [outChannels, inChannels / max(groups, 1), kernelSize, kernelSize])
        let bias = try tensor("\(path).bias", shape: [outChannels])
        return Conv2D(outChannels: outChannels, inChannels: inChannels, kernelSize: kernelSize, stride: stride,
                      dilation: dilation, padding: padding, groups: groups, weight: weight, bias: bias,
                      prepareFastKernels: prepareFastKernels)
    }

    /// Throws if the file holds tensors the model did not ask for (a different architecture or a bad export).
    /// `model` names what the file was expected to be, for the message.
    public func checkAllUsed(expecting model: String) throws {
        let extra = Set(file.tensors.keys).subtracting(used).sorted()
        if let first = extra.first {
            throw RuntimeError.invalidWeights(
                "\(file.name): unexpected tensor \(first)\(extra.count > 1 ? " and \(extra.count - 1) more" : "") — not a \(model) weights file for this runtime?")
        }
    }
}
