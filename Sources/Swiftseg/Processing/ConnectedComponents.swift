/// Connected components of a binary mask with 8-connectivity (two passes with union-find).
public enum ConnectedComponents {
    /// Labels of the `true` pixels: 1…count in raster order of each component's first pixel, 0 elsewhere.
    /// Components smaller than `minimumArea` pixels are dropped (their pixels get 0) before numbering.
    public static func label(_ mask: [Bool], width: Int, height: Int, minimumArea: Int = 1) -> (labels: [UInt32], count: Int, areas: [Int]) {
        precondition(mask.count == width * height)
        var labels = [UInt32](repeating: 0, count: mask.count)
        var parent: [UInt32] = [0]  // parent[0] unused
        func find(_ a: UInt32) -> UInt32 {
            var r = a
            while parent[Int(r)] != r { r = parent[Int(r)] }
            var c = a
            while parent[Int(c)] != r { let next = parent[Int(c)]; parent[Int(c)] = r; c = next }
            return r
        }
        func union(_ a: UInt32, _ b: UInt32) {
            let ra = find(a), rb = find(b)
            if ra != rb { parent[Int(max(ra, rb))] = min(ra, rb) }
        }
        for y in 0..<height {
            for x in 0..<width where mask[y * width + x] {
                var current: UInt32 = 0
                // Already-visited neighbours: W, NW, N, NE.
                for (dx, dy) in [(-1, 0), (-1, -1), (0, -1), (1, -1)] {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < width, ny >= 0 else { continue }
                    let l = labels[ny * width + nx]
                    if l == 0 { continue }
                    if current == 0 { current = l } else if l != current { union(current, l) }
                }
                if current == 0 {
                    current = UInt32(parent.count)
                    parent.append(current)
                }
                labels[y * width + x] = current
            }
        }
        // Resolve roots, measure, then number the kept components in raster order.
        var area = [Int](repeating: 0, count: parent.count)
        for i in 0..<labels.count where labels[i] != 0 {
            let r = find(labels[i])
            labels[i] = r
            area[Int(r)] += 1
        }
        var final = [UInt32](repeating: 0, count: parent.count)
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
        var out = labels
        var queue: [Int32] = []
        queue.reserveCapacity(labels.count)
        for i in 0..<labels.count where labels[i] != 0 { queue.append(Int32(i)) }
        var head = 0
        while head < queue.count {
            let i = Int(queue[head]); head += 1
            let x = i % width, y = i / width
            for dy in -1...1 {
                let ny = y + dy
                guard ny >= 0, ny < height else { continue }
                for dx in -1...1 {
                    let nx = x + dx
                    guard nx >= 0, nx < width else { continue }
                    let j = ny * width + nx
                    if out[j] == 0 && weight[j] != 0 {
                        out[j] = out[i]
                        queue.append(Int32(j))
                    }
                }
            }
        }
        return out
    }
}
