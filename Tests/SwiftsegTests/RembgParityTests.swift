import Swiftseg
import SwiftsegModels
import SwiftsegRuntime
import XCTest

/// End to end against rembg (`remove(photo, only_mask=True)`, Tools/make_fixtures.py) on real photos.
final class RembgParityTests: XCTestCase {
    let segmenter = try! Segmenter()

    /// Our preprocessing (Pillow-exact Lanczos, max scaling, ImageNet normalisation) reproduces rembg's tensor.
    func testPreprocessingMatchesRembg() throws {
        for file in Fixtures.photos {
            let name = file.split(separator: ".")[0]
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let expected = try NPY.read(path: Fixtures.path("photos/\(name).input.npy"))
            let ours = Tensor(channels: 3, height: 320, width: 320)
            Normalization.imageNet.prepareInput(photo, into: ours.view)
            var worst: Float = 0
            for i in 0..<ours.count { worst = max(worst, abs(ours.data[i] - expected.data[i])) }
            XCTAssertLessThanOrEqual(worst, 1e-6, "\(file): input tensor differs from rembg's by \(worst)")
        }
    }

    /// The vectorised Lanczos loops give the reference loops' bytes exactly, shrinking and enlarging, for 1, 3
    /// and 4 channels and odd sizes (the preprocessing test above pins the reference to Pillow's bytes), in
    /// every kernel build this CPU runs, also with their rows shared between two threads.
    func testLanczosMatchesReference() {
        let twoThreads = ParallelParts { count, body in parallelFor(count: count, threads: 2) { part, _ in body(part) } }
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next() -> UInt64 { state &+= 0x9E3779B97F4A7C15; var z = state; z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9; return z ^ (z >> 31) }
        for (channels, w, h, ow, oh) in [(3, 512, 384, 320, 320), (1, 320, 320, 451, 300), (4, 37, 91, 64, 5),
                                          (3, 1, 7, 3, 1), (1, 600, 2, 7, 9), (3, 203, 157, 320, 320),
                                          (2, 50, 40, 17, 33), (1, 7, 5, 3, 2)] {
            let pixels = (0..<w * h * channels).map { _ in UInt8(truncatingIfNeeded: next() >> 56) }
            let fast = LanczosResampler.resize(pixels, channels: channels, width: w, height: h, toWidth: ow, toHeight: oh)
            let reference = LanczosResampler.referenceResize(pixels, channels: channels, width: w, height: h,
                                                             toWidth: ow, toHeight: oh)
            XCTAssertEqual(fast, reference, "\(channels) channels, \(w)×\(h) → \(ow)×\(oh)")
            let shared = LanczosResampler.resize(pixels, channels: channels, width: w, height: h, toWidth: ow,
                                                 toHeight: oh, parts: twoThreads)
            XCTAssertEqual(shared, reference, "two threads: \(channels) channels, \(w)×\(h) → \(ow)×\(oh)")
            for isa in KernelISA.allCases where isa.isSupported && isa != .best {
                let other = LanczosResampler.resize(pixels, channels: channels, width: w, height: h, toWidth: ow,
                                                    toHeight: oh, isa: isa)
                XCTAssertEqual(other, reference, "\(isa) build: \(channels) channels, \(w)×\(h) → \(ow)×\(oh)")
            }
        }
    }

    /// The 8-bit mask at full resolution: mean |Δ| ≤ 2/255 and IoU of the ≥128 regions ≥ 0.98.
    func testMaskMatchesRembg() throws {
        for file in Fixtures.photos {
            let name = file.split(separator: ".")[0]
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            let expected = try Image(contentsOfFile: Fixtures.path("photos/\(name).rembg-mask.png"))
            let mask = segmenter.foregroundMask(for: photo).image
            XCTAssertEqual(mask.width, photo.width)
            XCTAssertEqual(mask.height, photo.height)
            XCTAssertEqual(expected.channels, 1)
            var sumAbs = 0, inter = 0, union = 0
            for (a, b) in zip(mask.pixels, expected.pixels) {
                sumAbs += abs(Int(a) - Int(b))
                let fa = a >= 128, fb = b >= 128
                if fa && fb { inter += 1 }
                if fa || fb { union += 1 }
            }
            let meanAbs = Double(sumAbs) / Double(mask.pixels.count)
            let iou = union == 0 ? 1 : Double(inter) / Double(union)
            XCTAssertLessThanOrEqual(meanAbs, 2, "\(file): mean |Δ| = \(meanAbs)/255")
            XCTAssertGreaterThanOrEqual(iou, 0.98, "\(file): IoU = \(iou)")
            print("\(file): mean |Δ| \(meanAbs)/255, IoU \(iou)")
        }
    }
}
