/// x[c, y, x] ·= map[0, y, x] for every channel: a one-channel map scaling all channels of another at each pixel
/// (PyTorch's broadcasting `p * attention` of a C×H×W map by a 1×H×W one; BiRefNet's gradient attention).
public enum ScaleByMap {
    /// In Double: the reference.
    public static func reference(_ x: TensorView, by map: TensorView) {
        check(x, map)
        for c in 0..<x.channels {
            for i in 0..<x.planeSize { x.plane(c)[i] = Float(Double(x.plane(c)[i]) * Double(map.data[i])) }
        }
    }

    /// In place, channels split between the workers (one float product each: the reference's bytes).
    public static func forwardInPlace(_ x: TensorView, by map: TensorView, context: ExecutionContext) {
        check(x, map)
        context.parallelFor(count: x.channels, Channels(x: x, map: map))
    }

    struct Channels: ParallelTasks {
        let x: TensorView, map: TensorView
        func run(_ c: Int, worker: Int) {
            let plane = x.plane(c), scale = map.data
            for i in 0..<x.planeSize { plane[i] *= scale[i] }
        }
    }

    static func check(_ x: TensorView, _ map: TensorView) {
        precondition(map.channels == 1 && map.height == x.height && map.width == x.width,
                     "a \(map.shapeDescription) map cannot scale a \(x.shapeDescription) one")
    }
}
