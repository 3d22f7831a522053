import SwiftsegRuntime

/// MBConv, the mobile inverted bottleneck (Sandler et al. 2018, MobileNetV2; EfficientNet's block without
/// squeeze-and-excitation): a 1×1 expansion + ReLU6 (absent when the expansion is 1), a depthwise k×k conv +
/// ReLU6 (the block's stride, TF "SAME" padding), a 1×1 linear projection, and the input added back when the
/// shape is kept. BatchNorm is folded into each conv. Property names are the PyTorch port's modules.
public struct MBConvBlock: Sendable {
    public let block: EfficientNetLiteConfiguration.Block
    /// `_expand_conv` (+ `_bn0`), nil when the expansion is 1.
    public let expandConv: Conv2D?
    /// `_depthwise_conv` (+ `_bn1`).
    public let depthwiseConv: Conv2D
    /// `_project_conv` (+ `_bn2`).
    public let projectConv: Conv2D

    init(_ w: inout WeightLoader, _ block: EfficientNetLiteConfiguration.Block) throws {
        self.block = block
        let path = "_blocks.\(block.index)", mid = block.expandedChannels
        expandConv = block.expansion == 1 ? nil
            : try w.conv("\(path)._expand_conv", outChannels: mid, inChannels: block.inChannels, kernelSize: 1)
        depthwiseConv = try w.conv("\(path)._depthwise_conv", outChannels: mid, inChannels: mid,
                                   kernelSize: block.kernelSize, stride: block.stride, padding: .same, groups: mid)
        projectConv = try w.conv("\(path)._project_conv", outChannels: block.outChannels, inChannels: mid, kernelSize: 1)
    }

    /// Output height and width for an input of this size.
    func outputSize(height: Int, width: Int) -> (height: Int, width: Int) {
        depthwiseConv.outputSize(height: height, width: width)
    }

    /// `x` → `out` (`expanded` and `filtered` are scratch of the block's expanded width at the input's and the
    /// output's size; `out` must not share memory with `x`).
    func callAsFunction(_ x: TensorView, into out: TensorView, expanded: TensorView, filtered: TensorView,
                        context: ExecutionContext) {
        var h = x
        if let expandConv {
            expandConv.forward(x, into: expanded, epilogue: .relu6, context: context)
            h = expanded
        }
        depthwiseConv.forward(h, into: filtered, epilogue: .relu6, context: context)
        projectConv.forward(filtered, into: out, epilogue: block.hasResidual ? Epilogue.none.adding(x) : .none,
                            context: context)
    }

    func macs(height: Int, width: Int) -> Int {
        let out = outputSize(height: height, width: width)
        return (expandConv?.macs(height: height, width: width) ?? 0) + depthwiseConv.macs(height: height, width: width)
            + projectConv.macs(height: out.height, width: out.width)
    }
}
