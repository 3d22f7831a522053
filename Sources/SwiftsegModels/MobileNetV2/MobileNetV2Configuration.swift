import SwiftsegRuntime

/// MobileNetV2's block table (Sandler et al. 2018, "MobileNetV2: Inverted Residuals and Linear Bottlenecks", as
/// torchvision builds it): per stage the expansion t, the repeats n and the first block's stride s. Channel
/// widths are the weights file's (any width multiplier loads; 1.0 is the ImageNet model). Mirrored by
/// Tools/mobilenet_v2_arch.py, which Tools/convert_onnx.py checks an export against.
///
/// ```swift
/// MobileNetV2Configuration.standard.blocks.count   // 17
/// ```
public struct MobileNetV2Configuration: Sendable, Equatable {
    public struct Stage: Sendable, Equatable {
        public let expansion, repeats, stride: Int
    }

    /// One block: its index in torchvision's `features` (1…17), expansion and stride.
    public struct Block: Sendable, Equatable {
        public let features, expansion, stride: Int
    }

    public let stages: [Stage]

    public var blocks: [Block] {
        var out: [Block] = []
        for s in stages {
            for r in 0..<s.repeats { out.append(Block(features: out.count + 1, expansion: s.expansion, stride: r == 0 ? s.stride : 1)) }
        }
        return out
    }

    public static let standard = MobileNetV2Configuration(stages: [
        .init(expansion: 1, repeats: 1, stride: 1), .init(expansion: 6, repeats: 2, stride: 2),
        .init(expansion: 6, repeats: 3, stride: 2), .init(expansion: 6, repeats: 4, stride: 2),
        .init(expansion: 6, repeats: 3, stride: 1), .init(expansion: 6, repeats: 3, stride: 2),
        .init(expansion: 6, repeats: 1, stride: 1),
    ])
}
