/// Connected components of a binary mask with 8-connectivity (two passes with union-find).
public enum ConnectedComponents {
    /// Labels of the `true` pixels: 1…count in raster order of each component's first pixel, 0 elsewhere.
    /// Components smaller than `minimumArea` pixels are dropped (their pixels get 0) before numbering.
    public static func label(_ mask: [Bool], width: Int, height: Int, minimumArea: Int = 1) -> (labels: [UInt32], count: Int, areas: [Int]) {
        precondition(mask.count == width * height)
        var labels = [UInt32](repeating: 0, count: mask.count)
        // Provisional labels: at most one per `true` pixel (parent[0] unused).
        var parent = [UInt32](repeating: 0, count: mask.reduce(0) { $0 + ($1 ? 1 : 0) } + 1)
        var next = 1
        labels.withUnsafeMutableBufferPointer { labels in
            parent.withUnsafeMutableBufferPointer { parent in
                func find(_ a: UInt32) -> UInt32 {
                    var r = a
                    while parent[Int(r)] != r { r = parent[Int(r)] }
                    var c = a
                    while parent[Int(c)] != r { let up = parent[Int(c)]; parent[Int(c)] = r; c = up }
                    return r
                }
                @inline(__always) func merge(_ current: inout UInt32, _ l: UInt32) {
                    if l == 0 { return }
                    if current == 0 { current = l; return }
                    if l != current {
                        let ra = find(current), rb = find(l)
                        if ra != rb { parent[Int(Swift.max(ra, rb))] = Swift.min(ra, rb) }
                    }
                }
                for y in 0..<height {
                    let row = y &* width, above = row &- width
                    for x in 0..<width where mask[row &+ x] {
                        var current: UInt32 = 0
                        // Already-visited neighbours: W, NW, N, NE.
                        if x > 0 { merge(&current, labels[row &+ x &- 1]) }
                        if y > 0 {
                            if x > 0 { merge(&current, labels[above &+ x &- 1]) }
                            merge(&current, labels[above &+ x])
                            if x + 1 < width { merge(&current, labels[above &+ x &+ 1]) }
                        }
                        if current == 0 {
                            current = UInt32(next)
                            parent[next] = current
                            next += 1
                        }
                        labels[row &+ x] = current
                    }
                }
                for i in 0..<labels.count where labels[i] != 0 { labels[i] = find(labels[i]) }
            }
        }
        // Resolve roots, measure, then number the kept components in raster order.
        var area = [Int](repeating: 0, count: next)
        for i in 0..<labels.count where labels[i] != 0 { area[Int(labels[i])] += 1 }
        var final = [UInt32](repeating: 0, count: next)
        var areas: [Int] = []
        for i in 0..<labels.count where labels[i] != 0 {
            let r = Int(labels[i])
            if final[r] == 0 && area[r] >= minimumArea {
                areas.append(area[r])
                final[r] = UInt32(areas.count)
            }
            labels[i] = final[r]
        }
        return (labels, areas.count, areas)
    }

    /// Extends labels into unlabelled pixels whose `weight` is non-zero by a multi-source breadth-first search
    /// (8-connected): each such pixel gets the label that reaches it first, i.e. of the nearest component in
    /// chessboard distance (ties to the earlier one in scan order). Pixels the search cannot reach keep 0.
    public static func grow(_ labels: [UInt32], into weight: [UInt8], width: Int, height: Int) -> [UInt32] {
        precondition(labels.count == width * height && weight.count == labels.count)
        var out = labels
        // The queue holds x and y (no division per pixel), seeded in scan order: the labelled pixels that
        // have an unlabelled neighbour with weight (the others can claim nothing, so leaving them out changes
        // no result).
        var qx: [Int32] = [], qy: [Int32] = []
        out.withUnsafeMutableBufferPointer { out in
            weight.withUnsafeBufferPointer { weight in
                @inline(__always) func claimable(_ j: Int) -> Bool { out[j] == 0 && weight[j] != 0 }
                for y in 0..<height {
                    for x in 0..<width where out[y &* width &+ x] != 0 {
                        var boundary = false
                        for ny in Swift.max(0, y - 1)...Swift.min(height - 1, y + 1) where !boundary {
                            for nx in Swift.max(0, x - 1)...Swift.min(width - 1, x + 1) where claimable(ny &* width &+ nx) {
                                boundary = true
                                break
                            }
                        }
                        if boundary { qx.append(Int32(x)); qy.append(Int32(y)) }
                    }
                }
                var head = 0
                while head < qx.count {
                    let x = Int(qx[head]), y = Int(qy[head]); head += 1
                    let label = out[y &* width &+ x]
                    for ny in Swift.max(0, y - 1)...Swift.min(height - 1, y + 1) {
                        for nx in Swift.max(0, x - 1)...Swift.min(width - 1, x + 1) {
                            let j = ny &* width &+ nx
                            if claimable(j) {
                                out[j] = label
                                qx.append(Int32(nx)); qy.append(Int32(ny))
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
