import SwiftsegRuntime

/// The channel widths that make one U²-Net definition into u2netp or u2net.
///
/// Mirrors the original `u2net.py` (`U2NET`, `U2NETP`) and Tools/u2net_arch.py (used by the converter).
///
/// ```swift
/// let config = U2NetConfiguration.u2netp
/// print(config.stages.map(\.name))   // ["stage1", …, "stage1d"]
/// ```
public struct U2NetConfiguration: Sendable, Equatable {
    /// One RSU stage: `RSU-L` (L = 7…4, with pooling) or `RSU-4F` (dilated, no pooling).
    public struct Stage: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case rsu(height: Int)
            case rsu4F
        }
        public let name: String
        public let kind: Kind
        public let inChannels: Int
        public let midChannels: Int
        public let outChannels: Int
    }

    /// "u2netp" or "u2net".
    public let variant: String
    /// stage1…stage6 (encoder), then stage5d…stage1d (decoder): the order `forward` runs them.
    public let stages: [Stage]
    /// Input channels of side1…side6 (outputs of stage1d…stage5d and stage6).
    public let sideInChannels: [Int]
    /// The input size the network was trained at (rembg resizes to it).
    public let trainingSize = 320

    public func stage(_ name: String) -> Stage { stages.first { $0.name == name }! }

    /// The small model: 1.13 M parameters, 16 middle channels everywhere.
    public static let u2netp = U2NetConfiguration(
        variant: "u2netp",
        stages: [
            .init(name: "stage1", kind: .rsu(height: 7), inChannels: 3, midChannels: 16, outChannels: 64),
            .init(name: "stage2", kind: .rsu(height: 6), inChannels: 64, midChannels: 16, outChannels: 64),
            .init(name: "stage3", kind: .rsu(height: 5), inChannels: 64, midChannels: 16, outChannels: 64),
            .init(name: "stage4", kind: .rsu(height: 4), inChannels: 64, midChannels: 16, outChannels: 64),
            .init(name: "stage5", kind: .rsu4F, inChannels: 64, midChannels: 16, outChannels: 64),
            .init(name: "stage6", kind: .rsu4F, inChannels: 64, midChannels: 16, outChannels: 64),
            .init(name: "stage5d", kind: .rsu4F, inChannels: 128, midChannels: 16, outChannels: 64),
            .init(name: "stage4d", kind: .rsu(height: 4), inChannels: 128, midChannels: 16, outChannels: 64),
            .init(name: "stage3d", kind: .rsu(height: 5), inChannels: 128, midChannels: 16, outChannels: 64),
            .init(name: "stage2d", kind: .rsu(height: 6), inChannels: 128, midChannels: 16, outChannels: 64),
            .init(name: "stage1d", kind: .rsu(height: 7), inChannels: 128, midChannels: 16, outChannels: 64),
        ],
        sideInChannels: [64, 64, 64, 64, 64, 64])

    /// The full model: 44 M parameters.
    public static let u2net = U2NetConfiguration(
        variant: "u2net",
        stages: [
            .init(name: "stage1", kind: .rsu(height: 7), inChannels: 3, midChannels: 32, outChannels: 64),
            .init(name: "stage2", kind: .rsu(height: 6), inChannels: 64, midChannels: 32, outChannels: 128),
            .init(name: "stage3", kind: .rsu(height: 5), inChannels: 128, midChannels: 64, outChannels: 256),
            .init(name: "stage4", kind: .rsu(height: 4), inChannels: 256, midChannels: 128, outChannels: 512),
            .init(name: "stage5", kind: .rsu4F, inChannels: 512, midChannels: 256, outChannels: 512),
            .init(name: "stage6", kind: .rsu4F, inChannels: 512, midChannels: 256, outChannels: 512),
            .init(name: "stage5d", kind: .rsu4F, inChannels: 1024, midChannels: 256, outChannels: 512),
            .init(name: "stage4d", kind: .rsu(height: 4), inChannels: 1024, midChannels: 128, outChannels: 256),
            .init(name: "stage3d", kind: .rsu(height: 5), inChannels: 512, midChannels: 64, outChannels: 128),
            .init(name: "stage2d", kind: .rsu(height: 6), inChannels: 256, midChannels: 32, outChannels: 64),
            .init(name: "stage1d", kind: .rsu(height: 7), inChannels: 128, midChannels: 16, outChannels: 64),
        ],
        sideInChannels: [64, 64, 128, 256, 512, 512])

    public static let all = [u2netp, u2net]

    /// The configuration called `variant`, or nil.
    public static func named(_ variant: String) -> U2NetConfiguration? { all.first { $0.variant == variant } }
}
