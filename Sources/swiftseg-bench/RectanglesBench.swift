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
    // Each photo's file in memory, decoded as `swiftseg rectangles` decodes it (a large JPEG reduced in the DCT).
    var files: [[UInt8]] = []
    for c in set.cases {
        do { files.append(try Image.fileBytes(set.folder + "/" + c.file, options: DecodingOptions())) } catch { die("\(error)") }
    }
    func decode(_ i: Int) -> ReducedImage {
        do { return try RectanglesPipeline.decode(files[i], name: set.cases[i].file, options: DecodingOptions(), wantsFull: false).reduced }
        catch { die("\(error)") }
    }
    let rounds = options.iterationsGiven ? options.iterations : 3
    var jaccards = [Double](repeating: 0, count: files.count)
    // The best Jaccard among all results (`maximumObservations` 0), untimed: is the quad a candidate at all.
    var anywhere = [Double](repeating: 0, count: files.count)
    // Results (of all) that mix the true rectangle's sides with another's (`RectangleTestSet.Case.isHybrid`).
    var hybrids = [Int](repeating: 0, count: files.count), results = hybrids
    var times = [[Double]](repeating: [], count: files.count), decodeTimes = times
    for round in 0..<rounds {
        for i in files.indices {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let photo = decode(i)
            let t1 = DispatchTime.now().uptimeNanoseconds
            let found = (try? request.perform(on: photo)) ?? []
            times[i].append(Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6)
            decodeTimes[i].append(Double(t1 - t0) / 1e6)
            if round == 0 {
                let (w, h) = (photo.fullWidth, photo.fullHeight)
                jaccards[i] = set.cases[i].jaccard(of: found.first?.pixelCorners(width: w, height: h).points)
                let quads = ((try? all.perform(on: photo)) ?? []).map { $0.pixelCorners(width: w, height: h).points }
                anywhere[i] = quads.map { set.cases[i].jaccard(of: $0) }.max() ?? 0
                hybrids[i] = quads.filter { set.cases[i].isHybrid($0) }.count
                results[i] = quads.count
            }
        }
    }
    let ms = times.map(median), decodeMs = decodeTimes.map(median)
    if options.rectangleCases {
        for (i, c) in set.cases.enumerated() {
            print(String(format: "%@ %-8@ %-22@ J=%.3f anywhere %.3f results %d hybrids %d %6.1f ms (decode %.1f)",
                         c.file, c.kind, c.subsets.joined(separator: ","), jaccards[i], anywhere[i], results[i],
                         hybrids[i], ms[i], decodeMs[i]))
        }
    }
    var groups: [(String, [Int])] = [("all", Array(set.cases.indices))]
    var kinds: [String] = []
    for c in set.cases where !kinds.contains(c.kind) { kinds.append(c.kind) }
    if kinds.count > 1 { for kind in kinds { groups.append((kind, set.cases.indices.filter { set.cases[$0].kind == kind })) } }
    for subset in ["lowContrast", "steep"] {
        groups.append((subset, set.cases.indices.filter { set.cases[$0].subsets.contains(subset) }))
    }
    struct Summary {
        let name: String, cases: Int, hits: Int, anywhere: Int, hybrids: Int, meanJaccard: Double, decodeMs: Double, detectMs: Double
    }
    let summaries = groups.filter { !$0.1.isEmpty }.map { (name: String, idx: [Int]) -> Summary in
        let hits = idx.filter { jaccards[$0] >= RectangleTestSet.hitThreshold }.count
        let found = idx.filter { anywhere[$0] >= RectangleTestSet.hitThreshold }.count
        let meanJ = idx.map { jaccards[$0] }.reduce(0, +) / Double(idx.count)
        return Summary(name: name, cases: idx.count, hits: hits, anywhere: found,
                       hybrids: idx.filter { hybrids[$0] > 0 }.count, meanJaccard: meanJ,
                       decodeMs: median(idx.map { decodeMs[$0] }), detectMs: median(idx.map { ms[$0] }))
    }
    if options.json {
        for g in summaries {
            let object: [String: Any] = [
                "detector": "swiftseg", "subset": g.name, "cases": g.cases, "hits": g.hits, "hits_anywhere": g.anywhere,
                "hit_rate": Double(g.hits) / Double(g.cases),
                "cases_with_hybrids": g.hybrids, "mean_jaccard": g.meanJaccard,
                "median_decode_ms": g.decodeMs, "median_ms": g.detectMs, "commit": gitCommit(),
            ]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
        return
    }
    print("rectangles: \(set.cases.count) cases (\(manifest)), DetectRectanglesRequest defaults, top result, "
          + "hit = Jaccard ≥ \(RectangleTestSet.hitThreshold), median of \(rounds) timed passes, one thread; "
          + "decode as `swiftseg rectangles` decodes (a large JPEG reduced in the DCT), from memory; hybrids = cases "
          + "where a result (of all) has 1–3 sides on the true quad's and is no hit")
    print("| detector | subset | cases | hits | hit rate | anywhere | hybrids | mean J | decode ms | detect ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for g in summaries {
        print(String(format: "| swiftseg | %@ | %d | %d | %.1f %% | %.1f %% | %d | %.3f | %.2f | %.2f |", g.name, g.cases,
                     g.hits, 100 * Double(g.hits) / Double(g.cases), 100 * Double(g.anywhere) / Double(g.cases),
                     g.hybrids, g.meanJaccard, g.decodeMs, g.detectMs))
    }
}
