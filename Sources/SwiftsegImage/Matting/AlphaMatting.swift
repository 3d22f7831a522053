import Foundation

/// rembg's alpha matting (`remove(..., alpha_matting=True)`, `rembg i -a`): a trimap from the soft mask
/// (``Trimap``), closed-form alpha over its unknown band (``ClosedFormMatting``), the foreground colours under
/// that alpha (``ForegroundEstimation``), and the RGBA cutout made of them (values × 255, truncated, as rembg
/// converts them). Returns nil when the trimap has no sure foreground or no sure background (rembg then makes
/// the plain cutout).
///
/// ```swift
/// let matted = try AlphaMatting().cutout(photo, mask: softMask)      // RGBA, or nil: use the plain cutout
/// ```
///
/// Against rembg's own output on photos with hair, fur and a lattice tower: alpha within 1/255 on average
/// (99th percentile ≤ 10/255), colour within 3/255 where α ≥ 0.1 (Tests/SwiftsegImageTests/MattingTests.swift).
public struct AlphaMatting: Sendable, Equatable {
    /// rembg's `alpha_matting_foreground_threshold`, `…_background_threshold`, `…_erode_size`.
    public var foregroundThreshold = 240
    public var backgroundThreshold = 10
    public var erodeSize = 10
    /// Refuse (``ImageError`` of kind `tooLarge`) a trimap with more unknown pixels than this: the solver's
    /// memory grows with the band, about 400 bytes per unknown pixel (~550 up to half a million of them, where the
    /// solver's fine level is IC(0); PERF.md), so a service bounds it. nil: no limit.
    public var maximumUnknownPixels: Int? = nil
    /// Threads for the solver (the result is the same bytes for any count): all the machine's cores by default.
    /// Mattings on all the cores run one at a time in a process (a folder's lanes, a server's requests): a
    /// second at once would only share the same cores, and double the memory (~1.2 GB for a 12 MP photo).
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The build of the solver's and the foreground's loops (``MattingKernelSet``): the widest this CPU runs; every
    /// build gives the same bytes.
    public var isa = KernelISA.best

    private static let allCores = NSLock()

    public init(foregroundThreshold: Int = 240, backgroundThreshold: Int = 10, erodeSize: Int = 10) {
        self.foregroundThreshold = foregroundThreshold
        self.backgroundThreshold = backgroundThreshold
        self.erodeSize = erodeSize
    }

    public func trimap(for mask: Image) -> Trimap {
        Trimap(mask: mask, foregroundThreshold: foregroundThreshold, backgroundThreshold: backgroundThreshold,
               erodeSize: erodeSize)
    }

    /// The matted cutout of `photo` (its own alpha ignored, as rembg converts RGBA to RGB), or nil.
    public func cutout(_ photo: Image, mask: Image) throws -> Image? {
        precondition(mask.channels == 1 && mask.width == photo.width && mask.height == photo.height)
        var clock = MattingPhases.Clock()
        let trimap = trimap(for: mask)
        clock.lap("trimap")
        guard trimap.hasForeground, trimap.hasBackground else { return nil }
        if let limit = maximumUnknownPixels {
            let unknown = trimap.unknownCount
            if unknown > limit {
                throw ImageError(.tooLarge, "alpha matting: \(unknown) pixels of the mask are unsure, over the limit of \(limit) (the solver needs about 400 bytes each)")
            }
        }
        var options = ClosedFormMatting.Options()
        options.threads = threads
        options.isa = isa
        let exclusive = threads >= ProcessInfo.processInfo.activeProcessorCount
        if exclusive { Self.allCores.lock() }
        defer { if exclusive { Self.allCores.unlock() } }
        // one set of solver threads for all three steps
        return try SolverThreads.with(threads: threads) { pool in
            var alpha = try ClosedFormMatting.solve(rgb: photo, trimap: trimap, options: options, pool: pool).alpha
            clock.lap("alpha")
            defer { ScratchArrays.shared.recycle(&alpha) }
            var pixels = [UInt8](repeating: 0, count: photo.width * photo.height * 4)
            pixels.withUnsafeMutableBufferPointer { pixels in
                let out = pixels.baseAddress!
                ForegroundEstimation.foregroundBytes(rgb: photo, alpha: alpha, into: out, pixelStride: 4, pool: pool, isa: isa)
                clock.lap("foreground")
                alpha.withUnsafeBufferPointer { alpha in   // α × 255, truncated, as rembg converts it
                    for i in alpha.indices { out[4 * i + 3] = ForegroundEstimation.byte(alpha[i]) }
                }
            }
            clock.lap("cutout")
            return Image(width: photo.width, height: photo.height, channels: 4, pixels: pixels)
        }
    }
}
