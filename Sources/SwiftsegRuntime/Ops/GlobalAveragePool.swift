import SwiftsegKernels

/// The mean of each channel's plane: C×H×W → C×1×1 (ONNX's GlobalAveragePool), the pooling before a
/// classifier's fully connected layer.
public enum GlobalAveragePool {
    /// Sums in Double: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        for c in 0..<input.channels {
            var sum = 0.0
            for i in 0..<input.planeSize { sum += Double(input.plane(c)[i]) }
            output.data[c] = Float(sum / Double(input.planeSize))
        }
    }

    /// Each channel's floats summed in pixel order in float, times 1 / (H·W): within a few float roundings of
    /// the reference, and the bytes of ``forward(blocked:into:)``, which sums in the same order.
    public static func forward(_ input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        let scale = 1 / Float(input.planeSize)
        for c in 0..<input.channels {
            let plane = input.plane(c)
            var sum: Float = 0
            for i in 0..<input.planeSize { sum += plane[i] }
            output.data[c] = sum * scale
        }
    }

    /// The same on a channel-blocked map (``ChannelBlocks``: a vector holds one pixel's 16 channels), 16
    /// channels at once, each summed in pixel order: ``forward(_:into:)``'s bytes, with no conversion to
    /// planes first (a classifier's head map, 1280 × 7×7).
    ///
    /// ```swift
    /// GlobalAveragePool.forward(blocked: headMap, into: pooled)   // headMap blocked, pooled 1280×1×1
    /// ```
    public static func forward(blocked input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        typealias Lanes = SIMD16<Float>
        precondition(ChannelBlocks.width == Lanes.scalarCount, "blocks of 16 channels")
        let hw = input.planeSize, scale = Lanes(repeating: 1 / Float(hw))
        for b in 0..<ChannelBlocks.blocks(channels: input.channels) {
            let block = UnsafeRawPointer(input.data + b * hw * Lanes.scalarCount)
            var sum = Lanes(repeating: 0)
            for p in 0..<hw { sum += block.loadUnaligned(fromByteOffset: p * MemoryLayout<Lanes>.stride, as: Lanes.self) }
            let mean = sum * scale
            for lane in 0..<min(Lanes.scalarCount, input.channels - b * Lanes.scalarCount) {
                output.data[b * Lanes.scalarCount + lane] = mean[lane]
            }
        }
    }

    static func checkShapes(_ input: TensorView, _ output: TensorView) {
        precondition(output.channels == input.channels && output.height == 1 && output.width == 1,
                     "global average pool of \(input.shapeDescription) is \(input.channels)×1×1, got \(output.shapeDescription)")
    }
}
