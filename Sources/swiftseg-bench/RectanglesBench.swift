import Foundation
import Swiftseg

/// `swiftseg-bench --rectangles`: accuracy (SmartDoc's Jaccard on the top result) and time per image on a test
/// set with exact ground truth. Tools/bench_rectangles_opencv.py prints the same table for the OpenCV peer.
func runRectangles(manifest: String, _ options: Options) {
    let set: RectangleTestSet
    do { set = try RectangleTestSet(manifest: manifest) } catch { die("\(error)") }
    let request = DetectRectanglesRequest()
    var all = request
    all.maximumObservations = 0
    var images: [Image] = []
    for c in set.cases {
        do { images.append(try Image(contentsOfFile: set.folder + "/" + c.file)) } catch { die("\(error)") }
    }
    let rounds = options.iterationsGiven ? options.iterations : 3
    var jaccards = [Double](repeating: 0, count: images.count)
    // The best Jaccard among all results (`maximumObservations` 0), untimed: is the quad a candidate at all.
    var anywhere = [Double](repeating: 0, count: images.count)
    var times = [[Double]](repeating: [], count: images.count)
    for round in 0..<rounds {
        for (i, image) in images.enumerated() {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let found = (try? request.perform(on: image)) ?? []
            times[i].append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            if round == 0 {
                jaccards[i] = set.cases[i].jaccard(of: found.first?.pixelCorners(width: image.width, height: image.height).points)
                anywhere[i] = ((try? all.perform(on: image)) ?? []).map {
                    set.cases[i].jaccard(of: $0.pixelCorners(width: image.width, height: image.height).points)
                }.max() ?? 0
            }
        }
    }
    let ms = times.map(median)
    if options.rectangleCases {
        for (i, c) in set.cases.enumerated() {
            print(String(format: "%@ %-8@ %-22@ J=%.3f anywhere %.3f %6.1f ms", c.file, c.kind,
                         c.subsets.joined(separator: ","), jaccards[i], anywhere[i], ms[i]))
        }
    }
    var groups: [(String, [Int])] = [("all", Array(set.cases.indices))]
    var kinds: [String] = []
    for c in set.cases where !kinds.contains(c.kind) { kinds.append(c.kind) }
    if kinds.count > 1 { for kind in kinds { groups.append((kind, set.cases.indices.filter { set.cases[$0].kind == kind })) } }
    for subset in ["lowContrast", "steep"] {
        groups.append((subset, set.cases.indices.filter { set.cases[$0].subsets.contains(subset) }))
    }
    if options.json {
        for (name, idx) in groups where !idx.isEmpty {
            let hits = idx.filter { jaccards[$0] >= RectangleTestSet.hitThreshold }.count
            let found = idx.filter { anywhere[$0] >= RectangleTestSet.hitThreshold }.count
            let object: [String: Any] = [
                "detector": "swiftseg", "subset": name, "cases": idx.count, "hits": hits, "hits_anywhere": found,
                "hit_rate": Double(hits) / Double(idx.count), "mean_jaccard": idx.map { jaccards[$0] }.reduce(0, +) / Double(idx.count),
                "median_ms": median(idx.map { ms[$0] }), "commit": gitCommit(),
            ]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
        return
    }
    print("rectangles: \(set.cases.count) cases (\(manifest)), DetectRectanglesRequest defaults, top result, "
          + "hit = Jaccard ≥ \(RectangleTestSet.hitThreshold), median of \(rounds) timed passes, one thread")
    print("| detector | subset | cases | hits | hit rate | anywhere | mean J | median ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (name, idx) in groups where !idx.isEmpty {
        let hits = idx.filter { jaccards[$0] >= RectangleTestSet.hitThreshold }.count
        let found = idx.filter { anywhere[$0] >= RectangleTestSet.hitThreshold }.count
        print(String(format: "| swiftseg | %@ | %d | %d | %.1f %% | %.1f %% | %.3f | %.2f |", name, idx.count, hits,
                     100 * Double(hits) / Double(idx.count), 100 * Double(found) / Double(idx.count),
                     idx.map { jaccards[$0] }.reduce(0, +) / Double(idx.count), median(idx.map { ms[$0] })))
    }
}
