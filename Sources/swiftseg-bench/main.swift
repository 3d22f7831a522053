import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

// swiftseg-bench: times a network's forward pass (warm-up, repeats, medians), llama-bench style.
//
//   swift run -c release swiftseg-bench --model u2netp --size 320 --threads 2 --iterations 10 [--json]
//   swift run -c release swiftseg-bench --threads 1,2 --size 320,512      # sweeps: every combination

let help = """
    OVERVIEW: Benchmark a network's forward pass (no timing assertions; numbers for PERF.md).

    USAGE: swiftseg-bench [--model M[,M…]] [--size S[,S…]] [--threads N[,N…]] [--iterations I] [--warmup W]
                          [--policy auto|gemm|winograd|direct|reference] [--isa baseline|avx2|avx512[,…]] [--json]

    OPTIONS:
      --model         u2netp (default), u2net, efficientnet-lite0, or a .safetensors path; a comma list
                      sweeps.
      --size          Square input side in pixels (default: the model's, 320 for U²-Net, 224 for
                      EfficientNet-Lite0); a comma list sweeps.
      --input FILE.npy
                      Feed this float32 tensor (1×3×S×S or 3×S×S, already preprocessed, e.g.
                      Tests/Fixtures/classify/astronaut.input.npy) instead of the synthetic ramp in
                      [-1, 1); its side sets --size. For steps whose time depends on the data (a photo's
                      activations are mostly zeros after ReLU6; the ramp's are not).
      --threads       Worker threads (default: all cores); a comma list sweeps.
      --cores N       Run every op on at most N cores of a shared budget while the work stays split for
                      --threads, as a server lane does when the other lanes are busy (--threads 2 --cores
                      1); with --soak, the cores the lanes share. Default: as many as --threads.
      --iterations    Timed runs per configuration (default 10).
      --warmup        Untimed runs first (default 2; the first also sizes the memory plan).
      --policy        Convolution kernels: auto (default), gemm, winograd, direct, reference.
      --isa           Build of the SIMD kernels: avx512, avx2 or baseline (default: the widest the
                      CPU runs); a comma list sweeps (with --matting: the image library's builds, their
                      runs interleaved).
      --soak N        Instead: run N photos (the committed samples, repeated) through the whole batch
                      pipeline (decode, network, instances, cutout, PNG encode, write) and report photos/s
                      and peak RSS after the first 50 vs at the end.
      --jobs N        With --soak: decode/encode workers (default 2).
      --concurrent N  With --soak: photos in the network at once, sharing the threads (default as
                      `swiftseg infer`: 2, or 1 with --threads 1).
      --png-compression fast|0-9
                      With --soak: how the cutouts are compressed (default fast, as `swiftseg infer`).
      --encode        Instead: the encoding of each sample photo's cutout alone (made once, as
                      `swiftseg infer` makes it): PNG `fast` and zlib level 6, WebP lossless and
                      lossy at quality 80, in turns, --iterations times (default 20): median and
                      fastest ms, and the bytes.
      --decode        Instead: the decoding of each PNG sample photo alone (its file in memory),
                      swiftseg's PNG reader and libpng in turns, --iterations times (default 50):
                      median and fastest ms.
      --layers        Instead: time single 3×3 convs (the --size list as map sides, default 10,20,40,80;
                      channel pairs from u2netp and u2net) with the Winograd, direct and GEMM kernels, and
                      show which one the per-layer rule (Conv2D.selectKernel) picks.
      --channels      With --layers: the in×out channel pairs to time instead (e.g. 128x64,64x1).
      --transforms    Instead: time the Winograd transforms alone, ns per 16 tiles and channel (fastest of
                      --iterations, default here 200), both tile shapes, on one tile row of planes --size
                      wide (default 320) with 8 channels (in cache) and 128 (not), for each --isa.
      --gemm          Instead: time the Winograd channel mix's GEMM alone (all positions of one tile-row
                      task, operands as the convs lay them out, one thread, fastest of --iterations,
                      default here 100), GFLOP/s for each --isa with its own GEMM; in×out pairs from
                      --channels (default u2netp's and u2net's), tiles from --size (default 80, one 320
                      tile row).
      --depthwise     Instead: time EfficientNet-Lite0's depthwise convs alone on channel-blocked maps
                      (3×3 and 5×5, strides 1 and 2, 112 to 7 wide), ReLU6 after: median µs of
                      --iterations (default here 200) and GFLOP/s, for each --threads and --isa.
      --rectangles [MANIFEST]
                      Instead: rectangle detection on a test set with exact ground truth (default
                      Tests/Fixtures/rectangles/cases.json, from Tools/make_rectangle_cases.py) with
                      DetectRectanglesRequest's defaults: hit rate (SmartDoc Jaccard ≥ 0.9 on the top
                      result), the truth anywhere among all results, photos with a hybrid among them
                      (a result with one to three sides on the truth's that is no hit), mean Jaccard,
                      median ms per image decoding (the file in memory, a large JPEG reduced in the DCT
                      as `swiftseg rectangles` decodes it) and detecting (--threads ignored: one
                      thread), overall and per subset; MANIFEST a cases.json or a corners.csv of marked
                      photos; --iterations timed passes (default 3).
      --cases         With --rectangles: also one line per case (kind, subsets, J, results, hybrids, ms).
      --matting       Instead: rembg's alpha matting alone (trimap, closed-form alpha, foreground, cutout) on
                      the matting fixtures (astronaut, chelsea, rocket), median of --iterations (default 5),
                      for each --threads and --isa; and the solver's CG iterations.
      --phases        With --matting: also where the time goes, the median ms of each phase (trimap; alpha:
                      the system, the preconditioner's setup, CG's product, preconditioner and vector
                      updates; the foreground; the cutout), timed on the calling thread.
      --matting-megapixels N
                      With --matting: also chelsea scaled up to about N megapixels (one run each: time, peak
                      RSS; the peak is the process's, so give one --threads for a clean figure).
      --matting-output PNG
                      With --matting-megapixels: write the scaled photo's cutout there, for
                      `Tools/make_matting_fixtures.py --megapixels N --compare PNG` (parity at that size).
      --decontaminate With --matting: time rembg's -dc step instead (the foreground under the whole mask
                      and the RGBA cutout; --isa ignored); Tools/make_decontaminate_fixtures.py --time
                      and --megapixels N --compare PNG are rembg's side.
      --json          One JSON object per configuration (model, size, threads, input, iterations, median_ms,
                      min_ms, gflops, stages_median_ms, ops_median_ms, samples_ms, plan_mb,
                      peak_rss_mb, blas, cpu, commit).
      -h, --help      Show this help.

    """

struct Options {
    var models = ["u2netp"], sizes = [320], threads = [ProcessInfoCores.count]
    var iterations = 10, warmup = 2, policy = ConvKernelPolicy.auto, json = false
    var isas = [KernelISA.best]
    var soak = 0, jobs = 2, concurrent: Int? = nil, layers = false, transforms = false, gemm = false, depthwise = false, sizesGiven = false
    var iterationsGiven = false
    var pngCompression = PNGCompression.fast
    var channelPairs: [(Int, Int)]? = nil
    var rectangles: String? = nil, rectangleCases = false
    var encode = false, decode = false
    var matting = false, mattingMegapixels: Double? = nil, mattingOutput: String? = nil, mattingPhases = false
    var decontaminate = false
    var cores: Int? = nil
    var input: String? = nil
}

func die(_ message: String) -> Never {
    FileHandle.standardError.write(Data("swiftseg-bench: error: \(message)\n".utf8))
    exit(2)
}

func parseOptions(_ args: [String]) -> Options {
    var o = Options()
    var i = 0
    func value() -> String {
        i += 1
        guard i < args.count else { die("\(args[i - 1]) needs a value") }
        return args[i]
    }
    func ints(_ s: String, _ name: String) -> [Int] {
        let list = s.split(separator: ",").map { Int($0) }
        guard !list.isEmpty, list.allSatisfy({ ($0 ?? 0) >= 1 }) else { die("\(name) expects positive integers, got '\(s)'") }
        return list.map { $0! }
    }
    while i < args.count {
        switch args[i] {
        case "--model": o.models = value().split(separator: ",").map(String.init)
        case "--size": o.sizes = ints(value(), "--size"); o.sizesGiven = true
        case "--threads": o.threads = ints(value(), "--threads")
        case "--cores": o.cores = ints(value(), "--cores")[0]
        case "--iterations": o.iterations = ints(value(), "--iterations")[0]; o.iterationsGiven = true
        case "--warmup":
            guard let w = Int(value()), w >= 0 else { die("--warmup expects an integer ≥ 0") }
            o.warmup = w
        case "--policy":
            let v = value()
            guard let p = ConvKernelPolicy(rawValue: v) else {
                die("--policy must be one of \(ConvKernelPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            o.policy = p
        case "--isa":
            o.isas = value().split(separator: ",").map { name in
                guard let isa = KernelISA(rawValue: String(name)) else {
                    die("--isa must be one of \(KernelISA.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard isa.isSupported else { die("this CPU cannot run the \(isa.rawValue) kernels") }
                return isa
            }
        case "--json": o.json = true
        case "--input": o.input = value()
        case "--soak": o.soak = ints(value(), "--soak")[0]
        case "--jobs": o.jobs = ints(value(), "--jobs")[0]
        case "--concurrent": o.concurrent = ints(value(), "--concurrent")[0]
        case "--png-compression":
            let v = value()
            guard let compression = PNGCompression(v) else { die("--png-compression expects fast or 0…9, got '\(v)'") }
            o.pngCompression = compression
        case "--layers": o.layers = true
        case "--rectangles":
            if i + 1 < args.count, !args[i + 1].hasPrefix("-") { o.rectangles = value() }
            else { o.rectangles = "Tests/Fixtures/rectangles/cases.json" }
        case "--cases": o.rectangleCases = true
        case "--encode": o.encode = true
        case "--decode": o.decode = true
        case "--matting": o.matting = true
        case "--matting-megapixels":
            guard let mp = Double(value()), mp > 0 else { die("--matting-megapixels expects a positive number") }
            o.mattingMegapixels = mp
        case "--matting-output": o.mattingOutput = value()
        case "--phases": o.mattingPhases = true
        case "--decontaminate": o.decontaminate = true
        case "--transforms": o.transforms = true
        case "--gemm": o.gemm = true
        case "--depthwise": o.depthwise = true
        case "--channels":
            let v = value()
            o.channelPairs = v.split(separator: ",").map { pair in
                let parts = pair.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 >= 1 }) else {
                    die("--channels expects in×out pairs like 128x64,32x16, got '\(v)'")
                }
                return (parts[0], parts[1])
            }
        case "-h", "--help": print(help, terminator: ""); exit(0)
        default: die("unknown option '\(args[i])' (see --help)")
        }
        i += 1
    }
    return o
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // KiB on Linux
}

func gitCommit() -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["git", "rev-parse", "--short", "HEAD"]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return "unknown" }
    p.waitUntilExit()
    let s = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return p.terminationStatus == 0 && !s.isEmpty ? s : "unknown"
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
if options.soak > 0 {
    runSoak(options)
    exit(0)
}
if options.encode {
    runEncode(options)
    exit(0)
}
if options.decode {
    runDecode(options)
    exit(0)
}
if let manifest = options.rectangles {
    runRectangles(manifest: manifest, options)
    exit(0)
}
if options.mattingMegapixels != nil && !options.matting { die("--matting-megapixels goes with --matting") }
if options.mattingOutput != nil && options.mattingMegapixels == nil { die("--matting-output goes with --matting-megapixels") }
if options.mattingPhases && !options.matting { die("--phases goes with --matting") }
if options.decontaminate && !options.matting { die("--decontaminate goes with --matting") }
if options.matting {
    runMatting(options)
    exit(0)
}
if options.layers {
    runLayers(options)
    exit(0)
}
if options.transforms {
    runTransforms(options)
    exit(0)
}
if options.gemm {
    runGEMM(options)
    exit(0)
}
if options.depthwise {
    runDepthwise(options)
    exit(0)
}
/// The --input tensor, if any, checked once: 3 channels, square (its side is the run's size).
let fedInput: Tensor? = options.input.map { path in
    let t: Tensor
    do { t = try NPY.read(path: path) } catch { die("\(error)") }
    let dims = t.shape.count == 4 && t.shape[0] == 1 ? Array(t.shape.dropFirst()) : t.shape
    guard dims.count == 3, dims[0] == 3, dims[1] == dims[2] else {
        die("--input \(path): expected a 1×3×S×S or 3×S×S tensor, got \(t.shape.map(String.init).joined(separator: "×"))")
    }
    if options.sizesGiven, options.sizes != [dims[1]] {
        die("--input \(path) is \(dims[1])×\(dims[1]); drop --size or give --size \(dims[1])")
    }
    return t
}

let commit = gitCommit()
let cpu = CPUFeatures.current.summary
let blas = BLAS.backend  // loads OpenBLAS (choosing its core type) before anything runs
if !options.json {
    print("cpu: \(cpu)\nblas: \(blas)\ncommit: \(commit), policy: \(options.policy.rawValue), iterations: \(options.iterations), warm-up: \(options.warmup), input: \(options.input ?? "ramp")\n")
    print("| model | size | threads | isa | median ms | min ms | GFLOP/s | plan MB | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
}

var stageTables: [String] = []
for modelName in options.models {
    let model: any Network
    let winograd = [.auto, .winograd].contains(options.policy)  // the exact paths never read the transformed weights
    do { model = try ModelSource(argument: modelName).load(options: .init(prepareFastKernels: winograd)) } catch { die("\(error)") }
    for size in fedInput.map({ [$0.shape[$0.shape.count - 1]] }) ?? (options.sizesGiven ? options.sizes : [model.preprocessing.inputSize]) {
        for threads in options.threads { for isa in options.isas {
            if let problem = model.inputProblem(height: size, width: size) { die(problem) }
            let budget = options.cores.map { CoreBudget(cores: $0) }
            let context = ExecutionContext(threads: threads, policy: options.policy, coreBudget: budget)
            context.isa = isa
            let input = Tensor(channels: 3, height: size, width: size)
            if let fedInput { input.data.update(from: fedInput.data, count: input.count) }
            else { for i in 0..<input.count { input.data[i] = Float(i % 251) / 125 - 1 } }
            let shape = model.outputShape(height: size, width: size)
            let output = Tensor(channels: shape.channels, height: shape.height, width: shape.width)
            func pass() {
                if let budget { budget.withCore { model.forward(input.view, into: output.view, context: context) } }
                else { model.forward(input.view, into: output.view, context: context) }
            }
            for _ in 0..<options.warmup { pass() }
            var samples: [Double] = []
            var stageSamples: [String: [Double]] = [:]
            var stageOrder: [String] = []
            let profile = StageProfile(), ops = StageProfile()
            var opSamples: [String: [Double]] = [:]
            var opOrder: [String] = []
            for _ in 0..<options.iterations {
                profile.reset()
                ops.reset()
                context.profile = profile
                context.opProfile = ops
                let t0 = DispatchTime.now().uptimeNanoseconds
                pass()
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                context.profile = nil
                context.opProfile = nil
                stageOrder = profile.order
                opOrder = ops.order
                for (name, ns) in profile.nanoseconds { stageSamples[name, default: []].append(Double(ns) / 1e6) }
                for (name, ns) in ops.nanoseconds { opSamples[name, default: []].append(Double(ns) / 1e6) }
            }
            let med = median(samples), best = samples.min() ?? 0
            let flops = 2 * Double(model.convMACs(height: size, width: size))
            let gflops = flops / (med / 1e3) / 1e9
            let rss = peakRSSMegabytes()
            let stages = stageOrder.map { ($0, median(stageSamples[$0]!)) }
            let opTimes = opOrder.map { ($0, median(opSamples[$0]!)) }.sorted { $0.1 > $1.1 }
            if options.json {
                let object: [String: Any] = [
                    "model": model.name, "size": size, "threads": threads, "input": options.input ?? "ramp",
                    "iterations": options.iterations, "warmup": options.warmup, "policy": options.policy.rawValue,
                    "isa": isa.rawValue,
                    "median_ms": med, "min_ms": best, "gflops": gflops, "gflop_per_image": flops / 1e9,
                    "samples_ms": samples, "stages_median_ms": Dictionary(uniqueKeysWithValues: stages),
                    "ops_median_ms": Dictionary(uniqueKeysWithValues: opTimes),
                    "peak_rss_mb": rss, "plan_mb": Double(context.reservedBytes) / 1e6, "blas": blas, "blas_core": BLAS.coreName ?? "none", "cpu": cpu, "commit": commit,
                ]
                let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(String(format: "| %@ | %d | %d | %@ | %.1f | %.1f | %.1f | %.0f | %.0f |", model.name,
                             size, threads, isa.rawValue, med, best, gflops, Double(context.reservedBytes) / 1e6, rss))
                var table = "\(model.name) @\(size), \(threads) thread(s), \(isa.rawValue): median ms per stage\n"
                for (name, ms) in stages {
                    table += "  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + String(format: "%8.2f\n", ms)
                }
                table += "  by kind of op (the remainder: sigmoid, glue, timer overhead):\n"
                for (name, ms) in opTimes {
                    table += "  " + name.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%8.2f  %4.1f %%\n", ms, ms / med * 100)
                }
                stageTables.append(table)
            }
        } }
    }
}
if !options.json { print("\n" + stageTables.joined(separator: "\n"), terminator: "") }

/// The batch pipeline on `options.soak` photos: throughput and whether memory stays flat.
func runSoak(_ options: Options) {
    ProcessMemory.returnLargeBlocksToSystem()  // as `swiftseg infer` does for batches
    let files = samplePhotoPaths()
    let out = NSTemporaryDirectory() + "swiftseg-soak-\(getpid())"
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: out) }
    let items = (0..<options.soak).map { i in
        BatchRunner.Item(input: BatchInput(path: files[i % files.count], relativePath: "\(i)"), output: "\(out)/\(i % 100).png")
    }
    let lanes = options.concurrent ?? min(2, options.threads[0])
    guard lanes <= options.threads[0] else { die("--concurrent \(lanes) needs at least as many --threads") }
    var configuration = Segmenter.Configuration()
    configuration.threads = options.threads[0]
    let cores = CoreBudget(cores: options.cores ?? options.threads[0])  // the lanes share them, as in `swiftseg infer`
    configuration.coreBudget = cores
    let model: U2Net
    do { model = try U2Net(source: ModelSource(argument: options.models[0])) } catch { die("\(error)") }
    let segmenters = Segmenter.lanes(sharing: model, configuration: configuration, count: lanes)
    var pipeline = SubjectLiftingPipeline()  // what `swiftseg infer` runs per photo
    pipeline.encoding.pngCompression = options.pngCompression
    final class Samples: @unchecked Sendable { var done = 0, rssAt50 = 0.0, failed = 0 }
    let samples = Samples()
    let t0 = DispatchTime.now().uptimeNanoseconds
    BatchRunner(jobs: options.jobs, lanes: lanes, overwrite: true, cores: cores).run(
        items, process: { try pipeline.lift($0, with: segmenters[$1]) }, encode: { [pipeline] in try pipeline.encode($0).image },
        report: { result in
            samples.done += 1
            if case .failed = result.status { samples.failed += 1 }
            if samples.done == 50 { samples.rssAt50 = peakRSSMegabytes() }
        })
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    let end = peakRSSMegabytes(), at50 = samples.rssAt50 > 0 ? samples.rssAt50 : end
    let growth = (end - at50) / at50 * 100
    let object: [String: Any] = ["photos": options.soak, "failed": samples.failed, "seconds": seconds,
                                 "photos_per_s": Double(options.soak) / seconds, "peak_rss_mb_after_50": at50,
                                 "peak_rss_mb_end": end, "growth_percent": growth, "threads": options.threads[0],
                                 "jobs": options.jobs, "concurrent": lanes, "model": options.models[0],
                                 "png_compression": options.pngCompression.description,
                                 "commit": gitCommit()]
    if options.json {
        print(String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
    } else {
        print(String(format: "%d photos in %.1f s (%.2f photos/s; %d lane(s) sharing %d thread(s); %d jobs; PNG %@), %d failed; peak RSS %.0f MB after 50, %.0f MB at the end (%+.1f %%)",
                     options.soak, seconds, Double(options.soak) / seconds, lanes, options.threads[0], options.jobs,
                     options.pngCompression.description,
                     samples.failed, at50, end, growth))
    }
}

/// The Winograd transforms alone (`WinogradTransformTiming`): ns per 16 tiles and channel with the planes in cache
/// (8 channels) and not (128), so that instruction-bound and memory-bound kernels tell themselves apart.
func runTransforms(_ options: Options) {
    let widths = options.sizesGiven ? options.sizes : [320]
    let repetitions = options.iterationsGiven ? options.iterations : 200
    print("fastest of \(repetitions), one thread; ns per 16 tiles and channel\n")
    print("| tile | width | channels | isa | input + split ns | output ns |")
    print("|---|---|---|---|---|---|")
    for tile in WinogradTile.allCases {
        for width in widths {
            for channels in [8, 128] {
                for isa in options.isas {
                    let t = WinogradTransformTiming.measure(tile: tile, channels: channels, width: width, isa: isa,
                                                            repetitions: repetitions)
                    print(String(format: "| %@ | %d | %d | %@ | %.1f | %.1f |", "\(tile)", width, channels, isa.rawValue,
                                 t.inputNanoseconds, t.outputNanoseconds))
                }
            }
        }
    }
}

/// The Winograd channel mix's GEMM alone (`WinogradGEMMTiming`), both tile shapes: how near the register blocking
/// runs to the core's peak (Tools/peak_flops.c) on the channel counts the networks have.
func runGEMM(_ options: Options) {
    let tiles = options.sizesGiven ? options.sizes : [80]
    let repetitions = options.iterationsGiven ? options.iterations : 100
    let pairs = options.channelPairs ?? [(16, 16), (32, 16), (64, 16), (16, 64), (32, 64), (64, 64), (128, 64), (128, 128), (256, 256)]
    print("fastest of \(repetitions), one thread\n")
    print("| tile | tiles | in→out | isa | µs | GFLOP/s |")
    print("|---|---|---|---|---|---|")
    for tile in WinogradTile.allCases {
        for n in tiles {
            for (cin, cout) in pairs {
                for isa in options.isas where isa != .baseline {
                    let g = WinogradGEMMTiming.measure(inChannels: cin, outChannels: cout, tiles: n, tile: tile,
                                                       isa: isa, repetitions: repetitions)
                    print(String(format: "| %@ | %d | %d→%d | %@ | %.1f | %.1f |", "\(tile)", n, cin, cout, isa.rawValue,
                                 g.nanoseconds / 1000, g.gflops))
                }
            }
        }
    }
}

/// One line to stdout, written at once: `print` is block-buffered into a pipe or file, so a sweep cut off by
/// `timeout` (or watched through `tee`) would show nothing of the rows it had already measured.
func emitLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Single 3×3 dilation-1 convs timed with each kernel (Winograd, direct, GEMM): the data behind `Conv2D.selectKernel`.
func runLayers(_ options: Options) {
    let sizes = options.sizesGiven ? options.sizes : [10, 20, 40, 80]
    let pairs = options.channelPairs
        ?? [(16, 16), (64, 64), (128, 128), (256, 256), (512, 256), (512, 512), (1024, 256), (1024, 512)]
    let threads = options.threads[0]
    emitLine("threads: \(threads), isa: \(options.isas[0].rawValue), median of \(options.iterations)\n")
    emitLine("| size | in→out | winograd ms | direct ms | gemm ms | winograd/gemm | direct/gemm | rule picks |")
    emitLine("|---|---|---|---|---|---|---|---|")
    for size in sizes {
        for (cin, cout) in pairs {
            let weight = Tensor(shape: [cout * cin * 9]), bias = Tensor(shape: [cout])
            for i in 0..<weight.count { weight.data[i] = Float((i * 7919) % 201 - 100) / 3000 }
            let conv = Conv2D(outChannels: cout, inChannels: cin, kernelSize: 3, dilation: 1, weight: weight.data,
                              bias: bias.data, prepareFastKernels: true)
            let input = Tensor(channels: cin, height: size, width: size), output = Tensor(channels: cout, height: size, width: size)
            for i in 0..<input.count { input.data[i] = Float(i % 17) / 17 }
            var ms: [ConvKernelPolicy: Double] = [:]
            for policy in [ConvKernelPolicy.winograd, .direct, .gemm] {
                let context = ExecutionContext(threads: threads, policy: policy)
                context.isa = options.isas[0]
                let run = {
                    switch policy {
                    case .winograd: conv.winogradForward(input.view, into: output.view, epilogue: .relu, context: context)
                    case .direct: conv.directForward(input.view, into: output.view, epilogue: .relu, context: context)
                    default: conv.gemmForward(input.view, into: output.view, epilogue: .relu, context: context)
                    }
                }
                for _ in 0..<options.warmup { run() }
                var samples: [Double] = []
                for _ in 0..<options.iterations {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    run()
                    samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                }
                ms[policy] = median(samples)
            }
            let pick = conv.selectKernel(policy: .auto, height: size, width: size)
            emitLine(String(format: "| %d | %d→%d | %.3f | %.3f | %.3f | %.2f | %.2f | %@ |", size, cin, cout, ms[.winograd]!,
                         ms[.direct]!, ms[.gemm]!, ms[.winograd]! / ms[.gemm]!, ms[.direct]! / ms[.gemm]!, pick.rawValue))
        }
    }
}
