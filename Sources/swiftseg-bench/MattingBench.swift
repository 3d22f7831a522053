import Foundation
import Swiftseg

/// `swiftseg-bench --matting`: rembg's alpha-matting step alone (trimap, closed-form alpha, foreground, RGBA
/// cutout) on the matting fixtures' photos and masks, median of --iterations after one warm-up; with
/// `--matting-megapixels N`, also chelsea and its mask scaled up to about N megapixels (time and peak RSS).
/// Tools/make_matting_fixtures.py --time prints rembg's (pymatting's) time on the same photos.
func runMatting(_ options: Options) {
    let root = "Tests/Fixtures"
    let cases = [("astronaut", "astronaut.png"), ("chelsea", "chelsea.png"), ("rocket", "rocket.jpg")]
    let rounds = options.iterationsGiven ? options.iterations : 5
    func time(_ photo: Image, _ mask: Image, rounds: Int) -> [Double] {
        (0..<rounds).map { _ in
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = try? AlphaMatting().cutout(photo, mask: mask)
            return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        }
    }
    for (name, file) in cases {
        let photo: Image, mask: Image
        do {
            photo = try Image(contentsOfFile: "\(root)/photos/\(file)")
            mask = try Image(contentsOfFile: "\(root)/photos/\(name).rembg-mask.png")
        } catch { die("\(error) (run from the package's root)") }
        _ = time(photo, mask, rounds: 1)
        let samples = time(photo, mask, rounds: rounds)
        let unknown = AlphaMatting().trimap(for: mask).unknownCount
        print(String(format: "%@: %dx%d, %d unknown, median %.1f ms (min %.1f) over %d", name, photo.width, photo.height,
                     unknown, median(samples), samples.min()!, rounds))
    }
    if let megapixels = options.mattingMegapixels {
        let photo0 = try! Image(contentsOfFile: "\(root)/photos/chelsea.png")
        let mask0 = try! Image(contentsOfFile: "\(root)/photos/chelsea.rembg-mask.png")
        let scale = (megapixels * 1e6 / Double(photo0.width * photo0.height)).squareRoot()
        let w = Int((Double(photo0.width) * scale).rounded()), h = Int((Double(photo0.height) * scale).rounded())
        let photo = LanczosResampler.resize(photo0, width: w, height: h)
        let mask = LanczosResampler.resize(mask0, width: w, height: h)
        let before = peakRSSMegabytes()
        let samples = time(photo, mask, rounds: 1)
        print(String(format: "chelsea ×%.1f: %dx%d (%.1f MP), %d unknown, %.1f s, peak RSS %.0f MB (%.0f before)", scale, w, h,
                     Double(w * h) / 1e6, AlphaMatting().trimap(for: mask).unknownCount, samples[0] / 1000,
                     peakRSSMegabytes(), before))
    }
}
