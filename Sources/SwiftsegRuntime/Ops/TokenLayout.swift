/// Between a convolution's channels-first map and a transformer's channels-last tokens of the same map
/// (PyTorch's `x.flatten(2).transpose(1, 2)` and `x.view(-1, H, W, C).permute(0, 3, 1, 2)`): where Swin's patch
/// embedding hands its map to the blocks, and where each stage hands its tokens to the decoder. A transposition
/// moves floats and computes nothing, so one plain loop serves as reference and fast path alike; the rows of
/// the map are split between the workers.
public enum TokenLayout {
    /// `map` (C×H×W) as tokens (H×W×C).
    public static func tokens(from map: TensorView, into tokens: TokenView, context: ExecutionContext) {
        check(map, tokens)
        context.parallelFor(count: map.height, ToTokens(map: map, tokens: tokens))
    }

    /// `tokens` (H×W×C) as a map (C×H×W).
    public static func map(from tokens: TokenView, into map: TensorView, context: ExecutionContext) {
        check(map, tokens)
        context.parallelFor(count: map.height, ToMap(map: map, tokens: tokens))
    }

    /// `map` (C×H×W) cut into `size × size` patches, each patch one token of C·size² features in (channel, row,
    /// column) order, zero where a patch runs past the map's right or bottom: a patch embedding's convolution
    /// (kernel = stride = `size`, PyTorch's layout C×size×size) is then a ``TokenLinear`` over these tokens.
    public static func patches(from map: TensorView, size: Int, into tokens: TokenView, context: ExecutionContext) {
        precondition(tokens.height == (map.height + size - 1) / size && tokens.width == (map.width + size - 1) / size
                     && tokens.features == map.channels * size * size,
                     "\(size)×\(size) patches of a \(map.shapeDescription) map are not \(tokens.shapeDescription) tokens")
        context.parallelFor(count: tokens.height, Patches(map: map, size: size, tokens: tokens))
    }

    struct Patches: ParallelTasks {
        let map: TensorView, size: Int, tokens: TokenView
        func run(_ py: Int, worker: Int) {
            for px in 0..<tokens.width {
                let token = tokens.row(py * tokens.width + px)
                for c in 0..<map.channels {
                    for ky in 0..<size {
                        let y = py * size + ky, out = token + (c * size + ky) * size
                        for kx in 0..<size {
                            let x = px * size + kx
                            out[kx] = y < map.height && x < map.width ? map[c, y, x] : 0
                        }
                    }
                }
            }
        }
    }

    struct ToTokens: ParallelTasks {
        let map: TensorView, tokens: TokenView
        func run(_ y: Int, worker: Int) {
            let c = map.channels, w = map.width
            for ch in 0..<c {
                let src = map.plane(ch) + y * w
                var dst = tokens.row(y * w) + ch
                for x in 0..<w { dst.pointee = src[x]; dst += c }
            }
        }
    }

    struct ToMap: ParallelTasks {
        let map: TensorView, tokens: TokenView
        func run(_ y: Int, worker: Int) {
            let c = map.channels, w = map.width
            for ch in 0..<c {
                let dst = map.plane(ch) + y * w
                var src = UnsafePointer(tokens.row(y * w) + ch)
                for x in 0..<w { dst[x] = src.pointee; src += c }
            }
        }
    }

    static func check(_ map: TensorView, _ tokens: TokenView) {
        precondition(map.channels == tokens.features && map.height == tokens.height && map.width == tokens.width,
                     "a \(map.shapeDescription) map is not \(tokens.shapeDescription) tokens")
    }
}
