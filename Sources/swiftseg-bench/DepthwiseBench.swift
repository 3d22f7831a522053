import Foundation
import SwiftsegRuntime

/// `swiftseg-bench --depthwise`: EfficientNet-Lite0's depthwise convs alone, on channel-blocked maps as the pass
/// runs them (`Conv2D.blockedForward`: a ring of rows on maps wider than 16, padded tiles on the small ones),
/// ReLU6 after, median µs of --iterations (default here 200) after a warm-up, and GFLOP/s, for each --isa and
/// --threads. In the pass the wide maps' depthwise convs run inside the fused blocks (their rows made by the
/// expansion, not copied); the row kernels are the same. Numbers, not assertions: PERF.md quotes them.
func runDepthwise(_ options: Options) {
    let repetitions = options.iterationsGiven ? options.iterations : 200
    // (channels, input side, kernel, stride, the blocks that have it)
    let layers = [(32, 112, 3, 1, "0"), (96, 112, 3, 2, "1"), (144, 56, 3, 1, "2"), (144, 56, 5, 2, "3"),
                  (240, 28, 5, 1, "4"), (240, 28, 3, 2, "5"), (480, 14, 3, 1, "6–7"), (480, 14, 5, 1, "8"),
                  (672, 14, 5, 1, "9–10"), (672, 14, 5, 2, "11"), (1152, 7, 5, 1, "12–14"), (1152, 7, 3, 1, "15")]
    emitLine("EfficientNet-Lite0's depthwise convs alone, blocked, ReLU6; median of \(repetitions)\n")
    emitLine("| blocks | channels | map | k | stride | threads | isa | µs | GFLOP/s |")
    emitLine("|---|---|---|---|---|---|---|---|---|")
    for (channels, side, k, stride, blocks) in layers {
        let weight = Tensor(shape: [channels * k * k]), bias = Tensor(shape: [channels])
        for i in 0..<weight.count { weight.data[i] = Float((i * 7919) % 200) / 100 - 1 }
        for i in 0..<channels { bias.data[i] = Float(i % 7) / 10 - 0.3 }
        let conv = Conv2D(outChannels: channels, inChannels: channels, kernelSize: k, stride: stride, padding: .same,
                          groups: channels, weight: weight.data, bias: bias.data)
        guard conv.supportsBlocked else { die("the blocked depthwise conv needs whole channel blocks") }
        let out = conv.outputSize(height: side, width: side)
        let input = Tensor(shape: [ChannelBlocks.floats(channels: channels, height: side, width: side)])
        // a photo's inputs here follow a ReLU6: about half zeros (the kernels do not skip them)
        for i in 0..<input.count { input.data[i] = i % 2 == 0 ? 0 : Float((i * 104729) % 600) / 100 }
        let output = Tensor(shape: [ChannelBlocks.floats(channels: channels, height: out.height, width: out.width)])
        let x = TensorView(channels: channels, height: side, width: side, data: input.data)
        let y = TensorView(channels: channels, height: out.height, width: out.width, data: output.data)
        let flops = 2.0 * Double(channels * out.height * out.width * k * k)
        for threads in options.threads {
            for isa in options.isas {
                let context = ExecutionContext(threads: threads)
                context.isa = isa
                conv.blockedForward(x, into: y, epilogue: .relu6, context: context)
                let times = (0..<repetitions).map { _ in
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    conv.blockedForward(x, into: y, epilogue: .relu6, context: context)
                    return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3
                }
                let us = median(times)
                emitLine(String(format: "| %@ | %d | %d→%d | %d | %d | %d | %@ | %.1f | %.1f |", blocks, channels, side,
                                out.width, k, stride, threads, isa.rawValue, us, flops / us / 1e3))
            }
        }
        withExtendedLifetime((weight, bias, input, output)) {}
    }
}
