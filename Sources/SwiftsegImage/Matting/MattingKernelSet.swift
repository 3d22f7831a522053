import SwiftsegImageKernels
import SwiftsegImageKernelsAVX2
import SwiftsegImageKernelsAVX512
@_exported import SwiftsegKernelTypes   // KernelISA, for ClosedFormMatting.Options.isa

/// The matting's hot loops (the CG's, the foreground's sweep) of one ``KernelISA`` build (SwiftsegImageKernels/MattingKernels.swift), as function
/// values: the one place the image library switches between the builds. Every build gives the same bytes (a test),
/// so the choice only changes how fast; ``ClosedFormMatting/Options/isa`` picks it (the widest this CPU runs).
struct MattingKernelSet: Sendable {
    typealias StencilProduct = @Sendable (_ stencil: UnsafePointer<Double>, _ gridIndex: UnsafePointer<Int32>,
                                          _ grid: UnsafePointer<Double>, _ paddedWidth: Int, _ rows: Range<Int>,
                                          _ y: UnsafeMutablePointer<Double>) -> Double
    typealias Step = @Sendable (_ step: Double, _ grid: UnsafePointer<Double>, _ q: UnsafePointer<Double>,
                                _ gridIndex: UnsafePointer<Int32>, _ rows: Range<Int>,
                                _ x: UnsafeMutablePointer<Double>, _ r: UnsafeMutablePointer<Double>) -> Double
    typealias Direction = @Sendable (_ beta: Double, _ z: UnsafePointer<Double>, _ gridIndex: UnsafePointer<Int32>,
                                     _ rows: Range<Int>, _ grid: UnsafeMutablePointer<Double>) -> Void
    typealias ZeroFillSolve = @Sendable (_ strip: Range<Int>, _ interiorStart: Int, _ topRow: Int,
                                         _ factor: UnsafePointer<Float>, _ inverseDiagonal: UnsafePointer<Double>,
                                         _ gridIndex: UnsafePointer<Int32>, _ unknown: UnsafePointer<Int>,
                                         _ width: Int, _ paddedWidth: Int, _ r: UnsafePointer<Double>,
                                         _ grid: UnsafeMutablePointer<Double>, _ forward: Bool, _ back: Bool) -> Void
    typealias Restrict = @Sendable (_ r: UnsafePointer<Double>, _ basis: UnsafePointer<Float>,
                                    _ members: UnsafePointer<Int32>, _ memberStart: UnsafePointer<Int32>,
                                    _ aggregateOffset: UnsafePointer<Int32>, _ columnCount: UnsafePointer<UInt8>,
                                    _ aggregates: Range<Int>, _ coarse: UnsafeMutablePointer<Double>) -> Void
    typealias ProlongAndAdd = @Sendable (_ r: UnsafePointer<Double>, _ fine: UnsafePointer<Double>?,
                                         _ gridIndex: UnsafePointer<Int32>?, _ smoother: UnsafePointer<Double>?,
                                         _ basis: UnsafePointer<Float>, _ coarseOffset: UnsafePointer<Int32>,
                                         _ correction: UnsafePointer<Double>, _ rows: Range<Int>,
                                         _ z: UnsafeMutablePointer<Double>) -> Double
    typealias ForegroundSweep = @Sendable (_ base: UnsafeMutablePointer<Float>, _ up: UnsafePointer<Float>,
                                           _ down: UnsafePointer<Float>, _ steps: Int, _ block: Int,
                                           _ regularization: Float, _ gradientWeight: Float,
                                           _ ready: (Int) -> Void, _ done: (Int) -> Void) -> Void
    typealias ForegroundSweepPair = @Sendable (_ upper: UnsafeMutablePointer<Float>, _ upperUp: UnsafePointer<Float>,
                                               _ upperDown: UnsafePointer<Float>, _ lower: UnsafeMutablePointer<Float>,
                                               _ lowerUp: UnsafePointer<Float>, _ lowerDown: UnsafePointer<Float>,
                                               _ steps: Int, _ regularization: Float, _ gradientWeight: Float) -> Void

    let isa: KernelISA
    let stencilProduct: StencilProduct
    let step: Step
    let direction: Direction
    let zeroFillSolve: ZeroFillSolve
    let restrict: Restrict
    let prolongAndAdd: ProlongAndAdd
    let foregroundSweep: ForegroundSweep
    let foregroundSweepPair: ForegroundSweepPair

    /// The build `isa` (which this CPU must be able to run).
    init(_ isa: KernelISA) {
        precondition(isa.isSupported, "this CPU cannot run the \(isa) build of the matting kernels")
        self.isa = isa
        switch isa {
        case .baseline:
            stencilProduct = SwiftsegImageKernels.MattingKernels.stencilProduct
            step = SwiftsegImageKernels.MattingKernels.conjugateGradientStep
            direction = SwiftsegImageKernels.MattingKernels.conjugateGradientDirection
            zeroFillSolve = SwiftsegImageKernels.MattingKernels.zeroFillSolve
            restrict = SwiftsegImageKernels.MattingKernels.restrict
            prolongAndAdd = SwiftsegImageKernels.MattingKernels.prolongAndAdd
            foregroundSweep = SwiftsegImageKernels.MattingKernels.foregroundSweep
            foregroundSweepPair = SwiftsegImageKernels.MattingKernels.foregroundSweepPair
        case .avx2:
            stencilProduct = SwiftsegImageKernelsAVX2.MattingKernels.stencilProduct
            step = SwiftsegImageKernelsAVX2.MattingKernels.conjugateGradientStep
            direction = SwiftsegImageKernelsAVX2.MattingKernels.conjugateGradientDirection
            zeroFillSolve = SwiftsegImageKernelsAVX2.MattingKernels.zeroFillSolve
            restrict = SwiftsegImageKernelsAVX2.MattingKernels.restrict
            prolongAndAdd = SwiftsegImageKernelsAVX2.MattingKernels.prolongAndAdd
            foregroundSweep = SwiftsegImageKernelsAVX2.MattingKernels.foregroundSweep
            foregroundSweepPair = SwiftsegImageKernelsAVX2.MattingKernels.foregroundSweepPair
        case .avx512:
            stencilProduct = SwiftsegImageKernelsAVX512.MattingKernels.stencilProduct
            step = SwiftsegImageKernelsAVX512.MattingKernels.conjugateGradientStep
            direction = SwiftsegImageKernelsAVX512.MattingKernels.conjugateGradientDirection
            zeroFillSolve = SwiftsegImageKernelsAVX512.MattingKernels.zeroFillSolve
            restrict = SwiftsegImageKernelsAVX512.MattingKernels.restrict
            prolongAndAdd = SwiftsegImageKernelsAVX512.MattingKernels.prolongAndAdd
            foregroundSweep = SwiftsegImageKernelsAVX512.MattingKernels.foregroundSweep
            foregroundSweepPair = SwiftsegImageKernelsAVX512.MattingKernels.foregroundSweepPair
        }
    }

    static let best = MattingKernelSet(.best)
}
