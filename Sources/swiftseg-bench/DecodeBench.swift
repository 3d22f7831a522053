import Foundation
import Swiftseg

/// `swiftseg-bench --decode`: the decoding of each PNG sample photo alone (its file read into memory once), by
/// swiftseg's own PNG reader (the default) and by libpng's simplified API, in turns, --iterations times each.
func runDecode(_ options: Options) {
    let iterations = options.iterationsGiven ? options.iterations : 50
    let readers = PNGReaderChoice.allCases
    print("PNG decoding of each sample photo, one thread, \(iterations) runs each, in turns; median / fastest ms\n")
    print("| photo | size | " + readers.map { "\($0.rawValue) ms" }.joined(separator: " | ") + " | ratio (medians) |")
    print("|---|---|" + readers.map { _ in "---|" }.joined() + "---|")
    var totals = [Double](repeating: 0, count: readers.count)
    for path in samplePhotoPaths() where path.hasSuffix(".png") {
        let bytes: [UInt8]
        do { bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch { die("\(path): \(error)") }
        var times = [[Double]](repeating: [], count: readers.count), size = ""
        for _ in 0..<iterations {
            for (k, reader) in readers.enumerated() {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let image: Image
                do { image = try Image(encoded: bytes, name: path, options: DecodingOptions(pngReader: reader)) } catch { die("\(error)") }
                times[k].append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                size = "\(image.width)×\(image.height)×\(image.channels)"
            }
        }
        let medians = times.map(median)
        print("| \((path as NSString).lastPathComponent) | \(size) |"
              + readers.indices.map { String(format: " %.3f / %.3f |", medians[$0], times[$0].min()!) }.joined()
              + String(format: " %.2f |", medians[0] / medians[1]))
        for k in readers.indices { totals[k] += medians[k] }
    }
    print("| all (sum of medians) | |" + totals.map { String(format: " %.3f |", $0) }.joined()
          + String(format: " %.2f |", totals[0] / totals[1]))
}
