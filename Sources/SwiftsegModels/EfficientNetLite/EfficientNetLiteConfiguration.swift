import SwiftsegRuntime

/// The blocks that make EfficientNet-Lite0, stage by stage (Tan & Le 2019, "EfficientNet: Rethinking Model
/// Scaling for Convolutional Neural Networks"; the Lite variant: no squeeze-and-excitation, ReLU6, stem and head
/// widths fixed). Mirrored by Tools/efficientnet_lite_arch.py, which the converter checks the weights against.
///
/// ```swift
/// let config = EfficientNetLiteConfiguration.lite0
/// print(config.blocks.count, config.blocks[1])   // 16, block 1: 3×3, stride 2, ×6, 16 → 24
/// ```
public struct EfficientNetLiteConfiguration: Sendable, Equatable {
    /// One MBConv stage: `repeats` blocks, the first with `stride` and `inChannels`, the rest stride 1 and
    /// `outChannels` → `outChannels`.
    public struct Stage: Sendable, Equatable {
        public let repeats, kernelSize, stride, expansion, inChannels, outChannels: Int
    }

    /// One MBConv block as it runs.
    public struct Block: Sendable, Equatable, CustomStringConvertible {
        public let index, kernelSize, stride, expansion, inChannels, outChannels: Int
        /// Channels after the 1×1 expansion (= `inChannels` when the block has none).
        public var expandedChannels: Int { inChannels * expansion }
        public var description: String {
            "block \(index): \(kernelSize)×\(kernelSize), stride \(stride), ×\(expansion), \(inChannels) → \(outChannels)"
        }
    }

    /// "efficientnet-lite0".
    public let variant: String
    public let stages: [Stage]
    public let stemChannels: Int
    public let headChannels: Int
    public let classes: Int

    /// Every block in order (`_blocks.0` … `_blocks.15` for Lite0).
    public var blocks: [Block] {
        var out: [Block] = []
        for s in stages {
            for r in 0..<s.repeats {
                out.append(Block(index: out.count, kernelSize: s.kernelSize, stride: r == 0 ? s.stride : 1,
                                 expansion: s.expansion, inChannels: r == 0 ? s.inChannels : s.outChannels,
                                 outChannels: s.outChannels))
            }
        }
        return out
    }

    public static let lite0 = EfficientNetLiteConfiguration(
        variant: "efficientnet-lite0",
        stages: [
            .init(repeats: 1, kernelSize: 3, stride: 1, expansion: 1, inChannels: 32, outChannels: 16),
            .init(repeats: 2, kernelSize: 3, stride: 2, expansion: 6, inChannels: 16, outChannels: 24),
            .init(repeats: 2, kernelSize: 5, stride: 2, expansion: 6, inChannels: 24, outChannels: 40),
            .init(repeats: 3, kernelSize: 3, stride: 2, expansion: 6, inChannels: 40, outChannels: 80),
            .init(repeats: 3, kernelSize: 5, stride: 1, expansion: 6, inChannels: 80, outChannels: 112),
            .init(repeats: 4, kernelSize: 5, stride: 2, expansion: 6, inChannels: 112, outChannels: 192),
            .init(repeats: 1, kernelSize: 3, stride: 1, expansion: 6, inChannels: 192, outChannels: 320),
        ],
        stemChannels: 32, headChannels: 1280, classes: 1000)

    public static let all = [lite0]

    /// The configuration called `variant`, or nil.
    public static func named(_ variant: String) -> EfficientNetLiteConfiguration? { all.first { $0.variant == variant } }
}
