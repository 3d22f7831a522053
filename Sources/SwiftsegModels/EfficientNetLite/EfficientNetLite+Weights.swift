import Foundation
import SwiftsegRuntime

// MARK: Key mapping
//
// The one place weight names meet the model. Names are the PyTorch port's module paths (`_conv_stem`,
// `_blocks.N._expand_conv` / `_depthwise_conv` / `_project_conv`, `_conv_head`, `_fc`) with each BatchNorm
// folded into its conv by Tools/convert_efficientnet_lite.py; weights OIHW float32, used in place.
// ``WeightLoader`` fails with one line naming the file and the tensor on any missing, extra or misshapen tensor.

extension EfficientNetLiteConfiguration {
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
