import Foundation
import Swiftseg
import SwiftsegModels

/// The committed sample photos the soak and the encode benchmark run (Tests/Fixtures/photos).
func samplePhotoPaths() -> [String] {
    let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/photos").path
    return ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "coins.png"].map { "\(photos)/\($0)" }
}

/// `swiftseg-bench --encode`: the encoding of a cutout alone, as `swiftseg infer` and the server's
/// `/api/remove` make it, for each sample photo: the cutouts are made once (the model's defaults), then each is
/// encoded --iterations times as PNG with `fast` (the default) and with zlib level 6 (libpng's and Pillow's), and
/// as WebP lossless (the default for .webp) and lossy at quality 80 (Pillow's default), in turns.
func runEncode(_ options: Options) {
    let iterations = options.iterationsGiven ? options.iterations : 20
    let model: U2Net
    do { model = try U2Net(source: ModelSource(argument: options.models[0])) } catch { die("\(error)") }
    var configuration = Segmenter.Configuration()
    configuration.threads = options.threads[0]
    let segmenter = Segmenter(model: model, configuration: configuration)
    let pipeline = SubjectLiftingPipeline()
    let settings: [(String, ImageFormat, EncodingOptions)] = [
        ("PNG fast", .png, EncodingOptions(pngCompression: .fast)), ("PNG 6", .png, EncodingOptions(pngCompression: .level(6))),
        ("WebP lossless", .webp, EncodingOptions()), ("WebP q80", .webp, EncodingOptions(webpQuality: 80)),
    ]
    print("Encoding of each sample's cutout (\(options.models[0])), one thread, \(iterations) runs each; median / fastest ms, bytes\n")
    print("| photo | size | " + settings.map { "\($0.0) ms | \($0.0) bytes" }.joined(separator: " | ") + " |")
    print("|---|---|" + settings.map { _ in "---|---" }.joined(separator: "|") + "|")
    var totals = [Double](repeating: 0, count: settings.count), bytes = [Int](repeating: 0, count: settings.count)
    for path in samplePhotoPaths() {
        let cutout: Image
        do { cutout = try pipeline.lift(try Image(contentsOfFile: path), with: segmenter).image } catch { die("\(error)") }
        var times = [[Double]](repeating: [], count: settings.count), sizes = [Int](repeating: 0, count: settings.count)
        for _ in 0..<iterations {
            for (k, setting) in settings.enumerated() {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let file: [UInt8]
                do { file = try cutout.encoded(as: setting.1, options: setting.2) } catch { die("\(error)") }
                times[k].append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                sizes[k] = file.count
            }
        }
        var row = "| \((path as NSString).lastPathComponent) | \(cutout.width)×\(cutout.height) |"
        for k in settings.indices {
            row += String(format: " %.2f / %.2f | %d |", median(times[k]), times[k].min()!, sizes[k])
            totals[k] += times[k].min()!
            bytes[k] += sizes[k]
        }
        print(row)
    }
    print("| all five (sum of fastest) | |" + settings.indices.map { String(format: " %.2f | %d |", totals[$0], bytes[$0]) }.joined())
}
