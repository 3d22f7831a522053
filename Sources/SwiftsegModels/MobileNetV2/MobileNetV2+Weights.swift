import SwiftsegRuntime

// MARK: Key mapping
//
// The one place weight names meet the model: torchvision's module paths, as Tools/convert_onnx.py names an
// export's anonymous initializers by the graph's structure — `features.0.0` (stem), per block
// `features.N.conv.0.0` (expand), `.conv.1.0` (depthwise), `.conv.2` (project) (blocks with expansion 1:
// `.conv.0.0` depthwise, `.conv.1` project), `features.18.0` (head), `classifier.1`. BatchNorm is folded in.
// Widths are read from the tensors' shapes; ``WeightLoader`` checks each shape and that every tensor is used.

extension MobileNetV2Configuration {
    func build(_ w: inout WeightLoader) throws -> InvertedBottleneckClassifier {
        func outChannels(_ path: String) throws -> Int { try w.shape(of: "\(path).weight")[0] }
        let stemWidth = try outChannels("features.0.0")
        let stem = try w.conv("features.0.0", outChannels: stemWidth, inChannels: 3, kernelSize: 3, stride: 2)
        var channels = stemWidth
        var built: [InvertedBottleneck] = []
        for b in blocks {
            let p = "features.\(b.features).conv"
            let hidden = channels * b.expansion
            let expand = b.expansion == 1 ? nil
                : try w.conv("\(p).0.0", outChannels: hidden, inChannels: channels, kernelSize: 1)
            let dwPath = b.expansion == 1 ? "\(p).0.0" : "\(p).1.0", projectPath = b.expansion == 1 ? "\(p).1" : "\(p).2"
            let depthwise = try w.conv(dwPath, outChannels: hidden, inChannels: hidden, kernelSize: 3, stride: b.stride,
                                       groups: hidden)
            let out = try outChannels(projectPath)
            let project = try w.conv(projectPath, outChannels: out, inChannels: hidden, kernelSize: 1)
            built.append(InvertedBottleneck(expand: expand, depthwise: depthwise, project: project))
            channels = out
        }
        let headPath = "features.\(blocks.count + 1).0"
        let head = try w.conv(headPath, outChannels: try outChannels(headPath), inChannels: channels, kernelSize: 1)
        let classes = try w.shape(of: "classifier.1.weight")[0]
        let fc = Linear(outFeatures: classes, inFeatures: head.outChannels,
                        weight: try w.tensor("classifier.1.weight", shape: [classes, head.outChannels]),
                        bias: try w.tensor("classifier.1.bias", shape: [classes]))
        return InvertedBottleneckClassifier(stem: stem, blocks: built, head: head, fc: fc)
    }
}
