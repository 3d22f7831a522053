import Foundation

/// rembg 2.0.86's edge decontamination (`rembg i -dc`, `dc=true` on its server): a cutout's colours are the
/// foreground estimated under the mask (``ForegroundEstimation``, pymatting's `estimate_foreground_ml` with its
/// defaults, α = mask level / 255) instead of the photo's own, so soft edges — hair, fur, motion blur — lose the
/// background's colour that the photo mixed into them. The alpha is the mask, unchanged.
///
/// ```swift
/// let colours = Decontamination().colours(of: photo, under: mask)    // RGB, the photo's size
/// let cutout = Compositing.cutout(colours, alpha: mask)                // rembg's -dc cutout
/// ```
public struct Decontamination: Sendable, Equatable {
    /// Threads for the estimator's sweeps (the same bytes for any count).
    public var threads = 1

    public init(threads: Int = 1) { self.threads = threads }

    /// The foreground colours under `mask` (gray, the photo's size) as 8-bit RGB: × 255, clipped and truncated,
    /// as rembg converts them. The photo's own alpha, if any, is ignored (rembg converts it to RGB first).
    public func colours(of photo: Image, under mask: Image) -> Image {
        precondition(mask.channels == 1 && mask.width == photo.width && mask.height == photo.height,
                     "mask must be a gray image of the photo's size")
        var alpha = ScratchArrays.shared.array(mask.width * mask.height, repeating: 0.0)
        mask.pixels.withUnsafeBufferPointer { m in
            for i in m.indices { alpha[i] = Double(m[i]) / 255 }
        }
        var foreground = ForegroundEstimation.foreground(rgb: photo, alpha: alpha, threads: threads)
        defer { ScratchArrays.shared.recycle(&alpha); ScratchArrays.shared.recycle(&foreground) }
        let pixels = foreground.map(ForegroundEstimation.byte)
        return Image(width: photo.width, height: photo.height, channels: 3, pixels: pixels)
    }
}
