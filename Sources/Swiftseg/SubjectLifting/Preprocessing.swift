import SwiftsegModels
import SwiftsegRuntime

/// rembg's input normalisation, reproduced exactly: RGB → Lanczos resize to the network size → divide by the
/// resized image's maximum sample → subtract mean, divide by std per channel (in Double, as NumPy does) →
/// float32 NCHW.
public struct Normalization: Sendable, Equatable {
    public let meanValues: [Double]
    public let stdValues: [Double]

    /// ImageNet statistics, used by U²-Net and rembg.
    public static let imageNet = Normalization(mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])

    public init(mean: [Double], std: [Double]) {
        precondition(mean.count == 3 && std.count == 3, "three channels")
        meanValues = mean
        stdValues = std
    }

    /// Writes the network input for `image` (resized to `tensor`'s size) into `tensor` (3×H×W); `parts`: threads
    /// to share the resizing with (the same values either way).
    public func prepareInput(_ image: Image, into tensor: TensorView, parts: ParallelParts = .serial) {
        precondition(tensor.channels == 3, "network input has three channels")
        let resized = LanczosResampler.resize(image.rgb(), width: tensor.width, height: tensor.height, parts: parts)
        // rembg divides by np.max of the resized array; an all-black image would divide by zero there.
        let peak = Double(max(resized.pixels.max() ?? 1, 1))
        let plane = tensor.planeSize
        resized.pixels.withUnsafeBufferPointer { px in
            for c in 0..<3 {
                // A sample's value depends on its byte alone: 256 of them computed (in Double, as NumPy), then
                // looked up, rather than two divisions per sample.
                let m = meanValues[c], s = stdValues[c]
                let table = (0..<256).map { Float((Double($0) / peak - m) / s) }
                let out = tensor.plane(c)
                table.withUnsafeBufferPointer { table in
                    for i in 0..<plane { out[i] = table[Int(px[3 &* i &+ c])] }
                }
            }
        }
    }
}

/// rembg's output step: min-max normalise d0, scale to 0…255 truncating (`astype(uint8)`), then Lanczos back to
/// the image's size.
public enum MaskPostprocessing {
    /// The 8-bit mask at the network's resolution.
    public static func quantize(_ d0: TensorView) -> Image {
        var lo = Float.infinity, hi = -Float.infinity
        for i in 0..<d0.count { lo = min(lo, d0.data[i]); hi = max(hi, d0.data[i]) }
        let range = hi - lo
        var pixels = [UInt8](repeating: 0, count: d0.count)
        if range > 0 {
            for i in 0..<d0.count { pixels[i] = UInt8(((d0.data[i] - lo) / range) * 255) }
        }
        return Image(width: d0.width, height: d0.height, channels: 1, pixels: pixels)
    }

    /// The 8-bit mask at `width × height`; `parts`: threads to share the resizing with (the same bytes either
    /// way).
    public static func mask(from d0: TensorView, width: Int, height: Int, parts: ParallelParts = .serial) -> Image {
        LanczosResampler.resize(quantize(d0), width: width, height: height, parts: parts)
    }
}
