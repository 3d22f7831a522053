import Foundation
import SwiftsegRuntime

// MARK: Key mapping
//
// The one place weight names meet the model. Names are the PyTorch port's module paths (`_conv_stem`,
// `_blocks.N._expand_conv` / `_depthwise_conv` / `_project_conv`, `_conv_head`, `_fc`) with each BatchNorm
// folded into its conv by Tools/convert_efficientnet_lite.py; weights OIHW float32, used in place.
// ``WeightLoader`` fails with one line naming the file and the tensor on any missing, extra or misshapen tensor.

extension EfficientNetLiteConfiguration {
    /// The network from the file's tensors: every conv with TF "SAME" padding, the depthwise ones with the
    /// block's kernel size and stride.
    func build(_ w: inout WeightLoader) throws -> InvertedBottleneckClassifier {
        let stem = try w.conv("_conv_stem", outChannels: stemChannels, inChannels: 3, kernelSize: 3, stride: 2,
                              padding: .same)
        let blocks = try self.blocks.map { b in
            let path = "_blocks.\(b.index)", mid = b.expandedChannels
            return InvertedBottleneck(
                expand: b.expansion == 1 ? nil
                    : try w.conv("\(path)._expand_conv", outChannels: mid, inChannels: b.inChannels, kernelSize: 1),
                depthwise: try w.conv("\(path)._depthwise_conv", outChannels: mid, inChannels: mid,
                                      kernelSize: b.kernelSize, stride: b.stride, padding: .same, groups: mid),
                project: try w.conv("\(path)._project_conv", outChannels: b.outChannels, inChannels: mid, kernelSize: 1))
        }
        let head = try w.conv("_conv_head", outChannels: headChannels, inChannels: self.blocks.last!.outChannels,
                              kernelSize: 1)
        let fc = Linear(outFeatures: classes, inFeatures: headChannels,
                        weight: try w.tensor("_fc.weight", shape: [classes, headChannels]),
                        bias: try w.tensor("_fc.bias", shape: [classes]))
        return InvertedBottleneckClassifier(stem: stem, blocks: blocks, head: head, fc: fc)
    }

    /// The configuration a weights file declares (`architecture` = efficientnet-lite, `variant`).
    static func declared(by file: SafeTensorsFile) throws -> EfficientNetLiteConfiguration {
        guard file.metadata["architecture"] == "efficientnet-lite" else {
            throw RuntimeError.invalidWeights(
                "\(file.name): metadata architecture is \(file.metadata["architecture"].map { "'\($0)'" } ?? "missing"), expected 'efficientnet-lite' (convert with Tools/convert_efficientnet_lite.py)")
        }
        guard let variant = file.metadata["variant"], let config = named(variant) else {
            throw RuntimeError.invalidWeights("\(file.name): unknown EfficientNet-Lite variant '\(file.metadata["variant"] ?? "")'")
        }
        return config
    }

    /// The `labels` metadata: a JSON array of `count` class names.
    static func labels(in file: SafeTensorsFile, count: Int) throws -> [String] {
        guard let text = file.metadata["labels"], let data = text.data(using: .utf8),
              let labels = try? JSONSerialization.jsonObject(with: data) as? [String] else {
            throw RuntimeError.invalidWeights("\(file.name): metadata labels is missing or not a JSON array of names")
        }
        guard labels.count == count else {
            throw RuntimeError.invalidWeights("\(file.name): \(labels.count) labels for \(count) classes")
        }
        return labels
    }
}
