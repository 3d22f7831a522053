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

    /// α for each mask byte: v / 255, as rembg scales the mask.
    static let levels: [Double] = (0...255).map { Double($0) / 255 }

    /// The foreground colours under `mask` (gray, the photo's size) as 8-bit RGB: × 255, clipped and truncated,
    /// as rembg converts them. The photo's own alpha, if any, is ignored (rembg converts it to RGB first).
    public func colours(of photo: Image, under mask: Image) -> Image {
        precondition(mask.channels == 1 && mask.width == photo.width && mask.height == photo.height,
                     "mask must be a gray image of the photo's size")
        var alpha = ScratchArrays.shared.array(mask.width * mask.height, repeating: 0.0)
        defer { ScratchArrays.shared.recycle(&alpha) }
        mask.pixels.withUnsafeBufferPointer { m in
            alpha.withUnsafeMutableBufferPointer { a in
                Self.levels.withUnsafeBufferPointer { levels in
                    for i in m.indices { a[i] = levels[Int(m[i])] }
                }
            }
        }
        var pixels = [UInt8](repeating: 0, count: photo.width * photo.height * 3)
        SolverThreads.with(threads: threads) { pool in
            pixels.withUnsafeMutableBufferPointer {
                ForegroundEstimation.foregroundBytes(rgb: photo, alpha: alpha, into: $0.baseAddress!, pixelStride: 3, pool: pool)
            }
        }
        return Image(width: photo.width, height: photo.height, channels: 3, pixels: pixels)
    }
}
