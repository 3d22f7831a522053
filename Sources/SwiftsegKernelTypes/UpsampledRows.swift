/// Input channels of a Winograd input transform that are a 2× bilinear upsampling of a smaller map, made a row
/// at a time as the transform reads them instead of being written out in full first: U²-Net's decoders read
/// `cat(upsample(deeper), skip)`, and writing the upsampled half (up to 64 × 320 × 320 floats) and reading it
/// back was memory traffic the network waited on (PERF.md). Each row is made exactly as `ResizeBilinear` makes
/// it (the same build's 2× row and lerp kernels, the same taps), so the result is the same bytes.
///
/// It lives here, below the three kernel builds, so that all three take the same type; it holds data only.
///
/// ```swift
/// let up = UpsampledRows(source: deeper, channels: 64, sourceHeight: 160, sourceWidth: 160,
///                        lower: lo, upper: hi, weight: t, rows: scratchRows)
/// ```
public struct UpsampledRows: @unchecked Sendable {
    /// `channels` planes of `sourceHeight × sourceWidth`: input channels `0 ..< channels` are their upsampling.
    public var source: UnsafePointer<Float>
    public var channels: Int
    public var sourceHeight: Int, sourceWidth: Int
    /// Per output row y: the source rows it lerps between and the weight of the upper one (the bilinear taps).
    public var lower: UnsafePointer<Int32>, upper: UnsafePointer<Int32>, weight: UnsafePointer<Float>
    /// Room for three rows of the output's width plus one vector each (two horizontally upsampled source rows
    /// and the lerped row), per worker.
    public var rows: UnsafeMutablePointer<Float>

    @inlinable
    public init(source: UnsafePointer<Float>, channels: Int, sourceHeight: Int, sourceWidth: Int,
                lower: UnsafePointer<Int32>, upper: UnsafePointer<Int32>, weight: UnsafePointer<Float>,
                rows: UnsafeMutablePointer<Float>) {
        self.source = source
        self.channels = channels
        self.sourceHeight = sourceHeight
        self.sourceWidth = sourceWidth
        self.lower = lower
        self.upper = upper
        self.weight = weight
        self.rows = rows
    }

    /// Floats of ``rows`` for an output `width` pixels wide.
    @inlinable
    public static func rowFloats(width: Int) -> Int { 3 * (width + 16) + 16 }
}
