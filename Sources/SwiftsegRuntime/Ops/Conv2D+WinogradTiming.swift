import Dispatch
import SwiftsegKernels

/// Timing of the Winograd transforms on their own, for `swiftseg-bench --transforms`: per 16 tiles and channel,
/// the unit the kernels work in, so that builds, tile shapes and cache residency compare directly. It is how the
/// AVX2 build's transforms were found to be instruction-bound (as fast with 8 channels in cache as with 128 from
/// memory) rather than waiting on memory (PERF.md).
///
/// ```swift
/// let t = WinogradTransformTiming.measure(tile: .f6x4, channels: 8, width: 320, isa: .best, repetitions: 200)
/// print(t.inputNanoseconds, t.outputNanoseconds)
/// ```
public enum WinogradTransformTiming {
    /// Nanoseconds per 16 tiles and channel, the fastest of the repetitions (this machine is shared: the minimum
    /// is the stable statistic for code this short).
    public struct Result: Sendable {
        /// The input transform with its phase split, per input channel.
        public let inputNanoseconds: Double
        /// The output transform with bias and ReLU, per output channel.
        public let outputNanoseconds: Double
    }

    /// Runs the input transform of one tile row (the second, so rows above and below are read) of `channels`
    /// planes `width` pixels wide, then the output transform of the same number of channels, `repetitions`
    /// times each with `isa`'s kernels (it must be supported), on one thread.
    public static func measure(tile: WinogradTile, channels: Int, width: Int, isa: KernelISA,
                               repetitions: Int) -> Result {
        precondition(channels > 0 && width > 0 && repetitions > 0, "channels, width and repetitions must be positive")
        let kernels = Kernels.of(isa)
        let height = 3 * tile.height
        let tiles = (width + tile.width - 1) / tile.width, nb = (tiles + 15) / 16 * 16
        let stride = WinogradKernels.channelStride(positions: tile.positions, ld: nb)
        let planes = Tensor(channels: channels, height: height, width: width)
        for i in 0..<planes.count { planes.data[i] = Float(i % 97) / 97 - 0.5 }
        let output = Tensor(channels: channels, height: height, width: width)
        let bias = Tensor(channels: 1, height: 1, width: channels)
        let vm = UnsafeMutablePointer<Float>.allocate(capacity: channels * stride)   // V, then read as M
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Kernels.winogradTransformScratchFloats(tiles: nb))
        defer { vm.deallocate(); scratch.deallocate() }
        vm.initialize(repeating: 0, count: channels * stride)
        var input = UInt64.max, outputTime = UInt64.max
        for _ in 0..<repetitions {
            let t0 = DispatchTime.now().uptimeNanoseconds
            kernels.winogradInput(tile)(planes.data, channels, height, width, 1, 0, nb, vm, nb, scratch, nil)
            let t1 = DispatchTime.now().uptimeNanoseconds
            kernels.winogradOutput(tile)(vm, nb, channels, bias.data, output.data, height, width, 1, 0, tiles,
                                         KernelEpilogue(activation: .relu), scratch)
            let t2 = DispatchTime.now().uptimeNanoseconds
            input = min(input, t1 - t0)
            outputTime = min(outputTime, t2 - t1)
        }
        let units = Double(channels * nb / 16)
        return Result(inputNanoseconds: Double(input) / units, outputNanoseconds: Double(outputTime) / units)
    }
}

/// Timing of the Winograd channel mix's GEMM on its own, for `swiftseg-bench --gemm`: all positions of one task's
/// V (`inChannels × positions × tiles`, laid out as the tile-row tasks lay it out) multiplied into M, as
/// ``Conv2D`` runs it, so that the register blocking can be read in GFLOP/s against the core's peak.
///
/// ```swift
/// let g = WinogradGEMMTiming.measure(inChannels: 64, outChannels: 16, tiles: 80, tile: .f6x4, isa: .best,
///                                    repetitions: 50)
/// print(g.gflops)
/// ```
public enum WinogradGEMMTiming {
    public struct Result: Sendable {
        /// The fastest repetition, in nanoseconds.
        public let nanoseconds: Double
        /// Multiply-adds × 2 per second of the fastest repetition, in GFLOP/s (padding lanes not counted).
        public let gflops: Double
    }

    /// Runs the channel mix of one task (`tiles` tiles, rounded up to the SIMD width for the leading dimension)
    /// `repetitions` times with `isa`'s kernels (it must be supported and have its own GEMM), on one thread.
    public static func measure(inChannels: Int, outChannels: Int, tiles: Int, tile: WinogradTile, isa: KernelISA,
                               repetitions: Int) -> Result {
        precondition(inChannels > 0 && outChannels > 0 && tiles > 0 && repetitions > 0, "sizes must be positive")
        let kernels = Kernels.of(isa)
        precondition(kernels.winogradGEMM != nil, "the \(isa.rawValue) build multiplies through BLAS")
        let weight = Tensor(shape: [outChannels * inChannels * 9]), bias = Tensor(shape: [outChannels])
        for i in 0..<weight.count { weight.data[i] = Float((i * 7919) % 201 - 100) / 3000 }
        let conv = Conv2D(outChannels: outChannels, inChannels: inChannels, kernelSize: 3, dilation: 1,
                          weight: weight.data, bias: bias.data, prepareFastKernels: true, winogradTile: tile)
        let ld = (tiles + 15) / 16 * 16
        let stride = WinogradKernels.channelStride(positions: tile.positions, ld: ld)
        let v = UnsafeMutablePointer<Float>.allocate(capacity: inChannels * stride)
        let m = UnsafeMutablePointer<Float>.allocate(capacity: outChannels * stride)
        defer { v.deallocate(); m.deallocate() }
        for i in 0..<inChannels * stride { v[i] = Float(i % 89) / 89 - 0.5 }
        var fastest = UInt64.max
        for _ in 0..<repetitions {
            let t0 = DispatchTime.now().uptimeNanoseconds
            conv.winogradChannelMix(conv.winograd!, channels: 0..<outChannels, columns: tiles, v: v, m: m, ld: ld,
                                    kernels: kernels)
            fastest = min(fastest, DispatchTime.now().uptimeNanoseconds - t0)
        }
        let flops = 2.0 * Double(outChannels * inChannels * tile.positions * tiles)
        return Result(nanoseconds: Double(fastest), gflops: flops / Double(fastest))
    }
}
