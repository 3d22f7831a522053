/// U²-Net's pooling: MaxPool 2×2, stride 2, `ceil_mode=True`, so an odd edge row/column forms a window of its own.
public enum MaxPool2D {
    /// Output size for an input extent: ⌈n / 2⌉.
    public static func outputSize(_ n: Int) -> Int { (n + 1) / 2 }

    /// Plain loops over each window, skipping cells outside the input: the reference.
    public static func reference(_ input: TensorView, into output: TensorView) {
        checkShapes(input, output)
        for c in 0..<input.channels {
            for oy in 0..<output.height {
                for ox in 0..<output.width {
                    var m = -Float.infinity
                    for dy in 0..<2 where 2 * oy + dy < input.height {
                        for dx in 0..<2 where 2 * ox + dx < input.width {
                            m = max(m, input[c, 2 * oy + dy, 2 * ox + dx])
                        }
                    }
                    output[c, oy, ox] = m
                }
            }
        }
    }

    /// SIMD over full windows (``SIMDKernels/maxPool2x2Row(row0:row1:out:count:)``), the odd edges by hand,
    /// channels in parallel.
    public static func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        checkShapes(input, output)
        context.timeOp("maxpool") { run(input, into: output, context: context) }
    }

    static func run(_ input: TensorView, into output: TensorView, context: ExecutionContext) {
        context.parallelFor(count: input.channels,
                    Channels(input: input, output: output, row: context.kernels.maxPool2x2Row))
    }

    /// One task per channel.
    struct Channels: ParallelTasks {
        let input: TensorView, output: TensorView
        let row: Kernels.MaxPoolRow

        func run(_ c: Int, worker: Int) {
            MaxPool2D.pool(input.plane(c), height: input.height, width: input.width, into: output.plane(c),
                           rows: 0..<output.height, columns: 0..<output.width, row: row)
        }
    }

    /// Output rows `rows` × columns `columns` of one channel: whole windows through the SIMD row kernel, the
    /// odd last row and column (`ceil_mode`) as windows of their own. Also run by convolutions that pool their
    /// own output while it is in cache (``Conv2D/forward(_:into:epilogue:pooledInto:context:)``).
    static func pool(_ src: UnsafePointer<Float>, height h: Int, width w: Int, into dst: UnsafeMutablePointer<Float>,
                     rows: Range<Int>, columns: Range<Int>, row: Kernels.MaxPoolRow) {
        let ow = outputSize(w), fullX = w / 2
        let whole = columns.lowerBound..<min(columns.upperBound, fullX)
        for oy in rows {
            let r0 = src + 2 * oy * w
            let r1 = 2 * oy + 1 < h ? r0 + w : r0  // odd last row: its window is the row alone
            let out = dst + oy * ow
            if !whole.isEmpty {
                row(r0 + 2 * whole.lowerBound, r1 + 2 * whole.lowerBound, out + whole.lowerBound, whole.count)
            }
            if fullX < ow && columns.contains(fullX) { out[fullX] = max(r0[w - 1], r1[w - 1]) }
        }
    }

    static func checkShapes(_ input: TensorView, _ output: TensorView) {
        precondition(output.channels == input.channels && output.height == outputSize(input.height)
                     && output.width == outputSize(input.width),
                     "maxpool output \(output.shapeDescription) for input \(input.shapeDescription)")
    }
}
