import SwiftsegRuntime

extension ModelRegistry {
    /// Every architecture this package can build, by the name its weights file declares in `architecture`.
    /// A new model adds its folder under Sources/SwiftsegModels and one entry here.
    public static let builtIn = ModelRegistry([
        .init(architecture: "u2net", summary: "U²-Net salient object detection (u2netp, u2net, silueta, u2net_human_seg)") { file, options in
            try U2Net(weights: file, prepareFastKernels: options.prepareFastKernels)
        },
        .init(architecture: "isnet", summary: "ISNet dichotomous image segmentation (rembg's isnet-general-use, isnet-anime)") {
            file, options in
            try ISNet(weights: file, prepareFastKernels: options.prepareFastKernels)
        },
        .init(architecture: "birefnet", summary: "BiRefNet high-resolution segmentation, Swin backbone (rembg's birefnet-*, bria-rmbg)") {
            file, options in
            try BiRefNet(weights: file, prepareFastKernels: options.prepareFastKernels)
        },
        .init(architecture: "efficientnet-lite", summary: "EfficientNet-Lite ImageNet classifier (efficientnet-lite0)") {
            file, options in
            try EfficientNetLite(weights: file, prepareFastKernels: options.prepareFastKernels)
        },
        .init(architecture: "mobilenet-v2", summary: "MobileNetV2 classifier (from a torchvision export)") { file, options in
            try MobileNetV2(weights: file, prepareFastKernels: options.prepareFastKernels)
        },
    ])
}
