import Foundation
import Swiftseg
@_spi(Benchmarks) import SwiftsegImage

/// `swiftseg-bench --matting`: rembg's alpha-matting step alone (trimap, closed-form alpha, foreground, RGBA
/// cutout) on the matting fixtures' photos and masks, median of --iterations after one warm-up, for each
/// --threads (with several --isa builds, their runs interleaved, one line each); with `--matting-megapixels N`, also chelsea and its mask scaled up to about N megapixels (one run:
/// time and peak RSS). Each line also gives the solver's CG iterations and preconditioner.
/// Tools/make_matting_fixtures.py --time prints rembg's (pymatting's) time on the same photos. With --phases, each
/// line is followed by the median ms of each phase (``MattingPhases``). With --decontaminate, rembg 2.0.86's `-dc`
/// step instead (``Decontamination``: the foreground under the whole mask, then the RGBA cutout);
/// Tools/make_decontaminate_fixtures.py --time prints rembg's.
func runMatting(_ options: Options) {
    MattingPhases.isEnabled = options.mattingPhases
    var phases = [KernelISA: [[(name: String, milliseconds: Double)]]]()
    let root = "Tests/Fixtures"
    let cases = [("astronaut", "astronaut.png"), ("chelsea", "chelsea.png"), ("rocket", "rocket.jpg")]
    let rounds = options.iterationsGiven ? options.iterations : 5
    func time(_ photo: Image, _ mask: Image, threads: Int, isa: KernelISA = .best, rounds: Int) -> [Double] {
        var matting = AlphaMatting()
        matting.threads = threads
        matting.isa = isa
        return (0..<rounds).map { _ in
            _ = MattingPhases.take()
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = options.decontaminate ? decontaminated(photo, mask, threads: threads) : try? matting.cutout(photo, mask: mask)
            let ms = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            if options.mattingPhases { phases[isa, default: []].append(MattingPhases.take()) }
            return ms
        }
    }
    func decontaminated(_ photo: Image, _ mask: Image, threads: Int) -> Image {
        Compositing.cutout(Decontamination(threads: threads).colours(of: photo, under: mask), alpha: mask)
    }
    func solver(_ photo: Image, _ mask: Image) -> String? {
        if options.decontaminate { return nil }   // no solver in that step
        guard let s = try? ClosedFormMatting.solve(rgb: photo, trimap: AlphaMatting().trimap(for: mask)) else { return "failed" }
        return "CG \(s.iterations) iterations (\(s.preconditioner)" + (s.coarseUnknowns > 0 ? ", \(s.coarseUnknowns) coarse unknowns)" : ")")
    }
    for (name, file) in cases {
        let photo: Image, mask: Image
        do {
            photo = try Image(contentsOfFile: "\(root)/photos/\(file)")
            mask = try Image(contentsOfFile: "\(root)/photos/\(name).rembg-mask.png")
        } catch { die("\(error) (run from the package's root)") }
        let unknown = AlphaMatting().trimap(for: mask).unknownCount
        for threads in options.threads {
            // the builds' runs interleaved, so that a slow stretch of a shared machine hits them alike
            var samples = [KernelISA: [Double]]()
            for isa in options.isas { _ = time(photo, mask, threads: threads, isa: isa, rounds: 1) }
            phases = [:]
            for _ in 0..<rounds {
                for isa in options.isas { samples[isa, default: []] += time(photo, mask, threads: threads, isa: isa, rounds: 1) }
            }
            for isa in options.isas {
                let runs = samples[isa]!
                print(String(format: "%@: %dx%d, %d unknown, %d thread(s), %@, median %.1f ms (min %.1f) over %d", name,
                             photo.width, photo.height, unknown, threads, isa.rawValue, median(runs), runs.min()!, rounds))
                if let runs = phases[isa] { print("  phases, median ms: " + phaseMedians(runs)) }
            }
        }
        if let line = solver(photo, mask) { print("  " + line) }
    }
    if let megapixels = options.mattingMegapixels {
        let photo0 = try! Image(contentsOfFile: "\(root)/photos/chelsea.png")
        let mask0 = try! Image(contentsOfFile: "\(root)/photos/chelsea.rembg-mask.png")
        let scale = (megapixels * 1e6 / Double(photo0.width * photo0.height)).squareRoot()
        let w = Int((Double(photo0.width) * scale).rounded()), h = Int((Double(photo0.height) * scale).rounded())
        let photo = LanczosResampler.resize(photo0, width: w, height: h)
        let mask = LanczosResampler.resize(mask0, width: w, height: h)
        let unknown = AlphaMatting().trimap(for: mask).unknownCount
        for threads in options.threads {
            let before = peakRSSMegabytes()
            phases = [:]
            let samples = time(photo, mask, threads: threads, rounds: 1)
            print(String(format: "chelsea ×%.1f: %dx%d (%.1f MP), %d unknown, %d thread(s), %.2f s, peak RSS %.0f MB (%.0f before)",
                         scale, w, h, Double(w * h) / 1e6, unknown, threads, samples[0] / 1000, peakRSSMegabytes(), before))
            if let runs = phases[.best] { print("  phases, ms: " + phaseMedians(runs)) }
        }
        if let line = solver(photo, mask) { print("  " + line) }
        if let path = options.mattingOutput {
            do {
                let matted = options.decontaminate ? decontaminated(photo, mask, threads: 1) : try AlphaMatting().cutout(photo, mask: mask)
                guard let cutout = matted else { die("no sure foreground or background") }
                try AtomicFile.write(try cutout.pngData(), to: path)
                print("  wrote \(path)")
            } catch { die("\(path): \(error)") }
        }
    }
}

/// "trimap 1.4, alpha 35.2 (system 5.5 (windows 1.1, rows 4.4), …), …": each phase's median over the runs, a
/// phase's parts in brackets after it.
private func phaseMedians(_ runs: [[(name: String, milliseconds: Double)]]) -> String {
    var order: [String] = [], values: [String: [Double]] = [:]
    for run in runs {
        for (name, ms) in run {
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(ms)
        }
    }
    func parts(of parent: String?) -> String {
        let prefix = parent.map { $0 + "." } ?? ""
        let children = order.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains(".") }
        return children.map { name in
            let inner = parts(of: name)
            let all = values[name]! + [Double](repeating: 0, count: runs.count - values[name]!.count)
            return String(format: "%@ %.2f", String(name.dropFirst(prefix.count)), median(all)) + (inner.isEmpty ? "" : " (\(inner))")
        }.joined(separator: ", ")
    }
    return parts(of: nil)
}
