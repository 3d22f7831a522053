/// Connected components of a binary mask with 8-connectivity (runs joined by union-find).
public enum ConnectedComponents {
    /// Labels of the `true` pixels: 1…count in raster order of each component's first pixel, 0 elsewhere.
    /// Components smaller than `minimumArea` pixels are dropped (their pixels get 0) before numbering.
    public static func label(_ mask: [Bool], width: Int, height: Int, minimumArea: Int = 1) -> (labels: [UInt32], count: Int, areas: [Int]) {
        precondition(mask.count == width * height)
        // A Bool is one byte holding 0 or 1.
        return mask.withUnsafeBytes { bytes in
            label(bytes.bindMemory(to: UInt8.self).baseAddress!, atLeast: 1, width: width, height: height,
                  minimumArea: minimumArea)
        }
    }

    /// ``label(_:width:height:minimumArea:)`` of the mask `values[i] ≥ cut` (a soft mask thresholded), without
    /// making that mask.
    ///
    /// ```swift
    /// let (labels, count, areas) = ConnectedComponents.label(soft.pixels, atLeast: 128, width: w, height: h)
    /// ```
    public static func label(_ values: [UInt8], atLeast cut: UInt8, width: Int, height: Int,
                             minimumArea: Int = 1) -> (labels: [UInt32], count: Int, areas: [Int]) {
        precondition(values.count == width * height)
        return values.withUnsafeBufferPointer {
            label($0.baseAddress!, atLeast: cut, width: width, height: height, minimumArea: minimumArea)
        }
    }

    /// Run-based labelling: each row's runs of foreground pixels are the union-find's nodes, joined to the
    /// runs of the row above that touch them (8-connected: overlapping or diagonal), so the work is per run,
    /// not per pixel (a subject's mask is a few runs a row). Runs come in raster order, so a component's
    /// first run holds its first pixel.
    static func label(_ values: UnsafePointer<UInt8>, atLeast cut: UInt8, width: Int, height: Int,
                      minimumArea: Int) -> (labels: [UInt32], count: Int, areas: [Int]) {
        var starts: [Int32] = [], ends: [Int32] = []   // run r covers x in starts[r] ..< ends[r] of its row
        var rowFirstRun = [Int](repeating: 0, count: height + 1)
        var parent: [Int32] = []
        func find(_ a: Int32) -> Int32 {
            var r = a
            while parent[Int(r)] != r { r = parent[Int(r)] }
            var c = a
            while parent[Int(c)] != r { let up = parent[Int(c)]; parent[Int(c)] = r; c = up }
            return r
        }
        for y in 0..<height {
            rowFirstRun[y] = starts.count
            let row = values + y &* width
            var above = y > 0 ? rowFirstRun[y - 1] : 0
            let aboveEnd = rowFirstRun[y]   // runs of row y − 1: above ..< aboveEnd
            var x = 0
            while x < width {
                while x < width && row[x] < cut { x &+= 1 }
                guard x < width else { break }
                let x0 = x
                while x < width && row[x] >= cut { x &+= 1 }
                let run = Int32(starts.count)
                starts.append(Int32(x0)); ends.append(Int32(x)); parent.append(run)
                // Runs above that end left of x0 − 1 touch neither this run nor any later one in this row.
                while above < aboveEnd && Int(ends[above]) < x0 { above &+= 1 }
                var k = above
                while k < aboveEnd && Int(starts[k]) <= x {   // touches: starts at most one past this run's end
                    let ra = find(run), rb = find(Int32(k))
                    if ra != rb { parent[Int(Swift.max(ra, rb))] = Swift.min(ra, rb) }
                    k &+= 1
                }
            }
        }
        rowFirstRun[height] = starts.count
        // Areas per root, then the kept roots numbered in the order of their first runs.
        let runs = starts.count
        var area = [Int](repeating: 0, count: runs)
        var root = [Int32](repeating: 0, count: runs)
        for r in 0..<runs {
            root[r] = find(Int32(r))
            area[Int(root[r])] += Int(ends[r] - starts[r])
        }
        var final = [UInt32](repeating: 0, count: runs)
        var numbered = [Bool](repeating: false, count: runs)
        var areas: [Int] = []
        var labels = [UInt32](repeating: 0, count: width * height)
        labels.withUnsafeMutableBufferPointer { labels in
            for y in 0..<height {
                for r in rowFirstRun[y]..<rowFirstRun[y + 1] {
                    let c = Int(root[r])
                    if !numbered[c] {
                        numbered[c] = true
                        if area[c] >= minimumArea { areas.append(area[c]); final[c] = UInt32(areas.count) }
                    }
                    guard final[c] != 0 else { continue }
                    let value = final[c], base = labels.baseAddress! + y &* width
                    for x in Int(starts[r])..<Int(ends[r]) { base[x] = value }
                }
            }
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
