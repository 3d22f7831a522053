import Dispatch
import Foundation
import Swiftseg

/// `swiftseg rectangles`: documents, cards, prints and screens in photos, as Vision's `VNDetectRectanglesRequest`
/// finds them; optionally each one cut out upright (`--extract`) and the photo with the quads drawn (`--draw`).
enum RectanglesCommand {
    static let spec = CommandSpec(
        name: "rectangles",
        summary: "Find rectangles (documents, cards, prints) and cut them out upright.",
        usage: "swiftseg rectangles <input>… [--min-aspect <a>] [--max-aspect <b>] [--quadrature-tolerance <deg>] [--min-size <s>] [--min-confidence <c>] [--max-observations <n>] [--json] [--extract <path>] [--draw <path>] […]",
        positionals: [("<input>…", BatchOptions.inputsHelp)],
        options: DetectRectanglesRequest.Parameters.all.map(OptionSpec.init) + [
            OptionSpec(names: ["--json"], valueName: nil,
                       help: "Print one JSON object per photo (JSON Lines for several): input, width,\nheight, rectangles (topLeft … bottomLeft normalized with a bottom-left\norigin, boundingBox, confidence, pixelCorners with a top-left origin),\ntimingsMs."),
            OptionSpec(names: ["--extract"], valueName: "PATH",
                       help: "Write each rectangle upright (perspective-corrected) to PATH (.png, .jpg or\n.webp); NAME-1.png, NAME-2.png … when there are several. Batch: a folder, files\n<name>.rect.png (<name>.rect-1.png … for several)."),
            OptionSpec(names: ["--draw"], valueName: "PATH",
                       help: "Write the photo with the rectangles drawn (the best in yellow, a dot on each\ntop-left corner) to PATH (.png, .jpg or .webp). Batch: a folder, files\n<name>.rectangles.png."),
            BatchOptions.ignoreOrientation,
            BatchOptions.maxPixels,
            OptionSpec(names: ["--threads"], valueName: "N",
                       help: "photos detected at the same time (default: all cores); one photo\nuses one thread.", batchOnly: true),
            BatchOptions.jobs(alongside: "detection"),
            BatchOptions.shard,
            BatchOptions.shardCount,
            BatchOptions.manifest("input, status, error, rectangles\nfound, best confidence"),
            BatchOptions.quiet,
        ],
        discussion: """
            Corners are found on the photo turned upright by its EXIF orientation. Text output is one line per
            rectangle, most prominent first: its confidence and its corners in pixels (top-left origin; x right,
            y down), top-left, top-right, bottom-right, bottom-left as the photo is displayed. The confidence
            (0…1) is how much of the four sides the photo's edges support, less where a side's edge runs on past
            a corner or stops short of it, weighted toward larger quads (0.55 when tiny, 1 when as large as the
            photo's shorter side). Nested rectangles (a sheet and the grid printed on it) come back apart, the
            enclosing one first when it is at least 0.75 as confident.

            Several inputs or a folder run as a batch: one block of lines (or one JSON line) per photo as it
            finishes; a bad photo is reported and skipped, and the exit status is 1 if any failed. Batch
            outputs are rewritten on every run.

            EXAMPLES:
              swiftseg rectangles page.jpg
              swiftseg rectangles card.jpg --min-aspect 0.6 --max-aspect 0.75 --extract card.png
              swiftseg rectangles desk.jpg --max-observations 0 --draw found.png --json
              swiftseg rectangles ~/Scans --extract pages/ --quiet --json > rectangles.jsonl
            """)

    struct Options {
        var inputs: [String]
        var isBatch: Bool
        var request: DetectRectanglesRequest
        var json: Bool
        var extract: String?
        var draw: String?
        var batch: BatchOptions.Settings

        init(_ args: ParsedArguments) throws {
            (inputs, isBatch) = try BatchOptions.inputs(args, subcommand: "rectangles")
            request = try args.parse(DetectRectanglesRequest.init(parameters:))
            json = args.has("--json")
            extract = args.value("--extract")
            draw = args.value("--draw")
            for (flag, path) in [("--extract", extract), ("--draw", draw)] {
                guard let path else { continue }
                if path == "-" { throw CLIError.usage("\(flag) writes files; give a path") }
                if !isBatch && ImageFormat(path: path)?.isWritable != true {
                    throw CLIError.usage("\(flag) \(path): name a \(ImageFormat.writableExtensions) file")
                }
            }
            let threads = try args.positiveInt("--threads", default: ProcessInfoCores.count)
            batch = try BatchOptions.Settings(args, threads: threads, concurrent: threads)
            if !isBatch { try BatchOptions.refuseBatchFlags(args, options: RectanglesCommand.spec.options) }
        }
    }

    static func run(_ args: ParsedArguments) throws {
        let options = try Options(args)
        do {
            if options.isBatch { try runBatch(options) } else { try runSingle(options) }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure(SwiftsegError(error).message)
        }
    }

    static func runSingle(_ options: Options) throws {
        let input = options.inputs[0]
        for path in [options.extract, options.draw].compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
        let start = DispatchTime.now().uptimeNanoseconds
        let decoding = options.batch.decoding
        let (bytes, name) = try InferCommand.readBytes(input, options: decoding)
        let photo = try RectanglesPipeline.decode(bytes, name: name, options: decoding,
                                                  wantsFull: options.extract != nil || options.draw != nil)
        let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let result = try RectanglesPipeline.detect(photo.reduced, request: options.request, decodeMs: decodeMs)
        var files: [(path: String, bytes: [UInt8])] = []
        if let extract = options.extract, let full = photo.full {
            let crops = result.extracts(from: full)
            for (path, crop) in zip(RectanglesPipeline.extractPaths(extract, count: crops.count), crops) {
                files.append((path, try RectanglesPipeline.encoded(crop, forPath: path)))
            }
            if crops.isEmpty { FileHandle.standardError.write(Data("swiftseg: no rectangle found in \(input); nothing extracted\n".utf8)) }
        }
        if let draw = options.draw, let full = photo.full {
            files.append((draw, try RectanglesPipeline.encoded(result.drawn(on: full), forPath: draw)))
        }
        try AtomicFile.write(files)  // all or none
        print(try text(result, input: input == "-" ? nil : input, options: options, header: false), terminator: "")
    }

    /// One photo's output: `(0.97) (x, y) (x, y) (x, y) (x, y)` lines (under the file's name in a batch), or its
    /// JSON object.
    static func text(_ result: RectanglesResult, input: String?, options: Options, header: Bool) throws -> String {
        if options.json {
            return String(decoding: try result.report(input: input).jsonData(pretty: !options.isBatch), as: UTF8.self)
        }
        let indent = header ? "  " : ""
        var lines = result.observations.map { o -> String in
            let q = o.pixelCorners(width: result.width, height: result.height)
            return indent + String(format: "(%.2f) ", o.confidence)
                + "topLeft \(q.topLeft) topRight \(q.topRight) bottomRight \(q.bottomRight) bottomLeft \(q.bottomLeft)"
        }
        if lines.isEmpty { lines = [indent + "no rectangles"] }
        return ((header ? ["\(input ?? "standard input"):"] : []) + lines).joined(separator: "\n") + "\n"
    }

    /// The value a batch photo carries from detection to encoding: the result and, with --draw, the drawing.
    struct Detected: Sendable {
        let result: RectanglesResult
        let drawn: Image?
        let crops: [Image]
    }

    static func runBatch(_ options: Options) throws {
        let batch = BatchSession<Detected>(options.batch) { result in
            let found = result.value?.result.observations ?? []
            return "(\(Int(result.milliseconds)) ms, \(found.count) found\(found.first.map { String(format: ", best %.2f", $0.confidence) } ?? ""))"
        }
        let (inputs, isMine) = try batch.inputs(options.inputs)
        let fm = FileManager.default
        for folder in [options.extract, options.draw].compactMap({ $0 }) {
            do { try fm.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            catch { throw CLIError.failure("\(folder): cannot create the output folder") }
        }
        let drawPaths = options.draw.map { BatchInputs.outputPaths(for: inputs, in: $0, suffix: "rectangles", fileExtension: "png") }
        let extractBases = options.extract.map { BatchInputs.outputPaths(for: inputs, in: $0, suffix: "rect", fileExtension: "png") }
        let items = inputs.enumerated().map { BatchRunner.Item(input: $1, output: drawPaths?[$0]) }.filter { isMine($0.input) }
        let extractBase = Dictionary(zip(inputs.map(\.path), extractBases ?? []), uniquingKeysWith: { a, _ in a })
        let request = options.request
        let wantsDrawing = options.draw != nil, wantsCrops = options.extract != nil
        let decoding = options.batch.decoding
        let report = try batch.reporter(for: items, output: { result in
            try? result.value.map { try text($0.result.addingDecodeTime(result.decodeMilliseconds),
                                             input: result.item.input.path, options: options, header: true) }
        }, manifest: { result in
            let found = result.value?.result.observations ?? []
            return ["rectangles": result.value == nil ? NSNull() : found.count, "confidence": found.first?.confidence ?? NSNull()]
        })
        BatchRunner(jobs: options.batch.jobs, lanes: options.batch.concurrent, overwrite: true, decoding: decoding).run(
            items,
            decode: { path in
                try RectanglesPipeline.decode(try Image.fileBytes(path, options: decoding), name: path,
                                              options: decoding, wantsFull: wantsDrawing || wantsCrops)
            },
            process: { photo, _ in
                let result = try RectanglesPipeline.detect(photo.reduced, request: request)
                let full = photo.full
                return Detected(result: result, drawn: wantsDrawing ? full.map { result.drawn(on: $0) } : nil,
                                crops: wantsCrops ? full.map { result.extracts(from: $0) } ?? [] : [])
            },
            files: { detected, item in
                var files: [(path: String, bytes: [UInt8])] = []
                if let base = extractBase[item.input.path] {
                    for (path, crop) in zip(RectanglesPipeline.extractPaths(base, count: detected.crops.count), detected.crops) {
                        files.append((path, try crop.pngData()))
                    }
                }
                if let output = item.output, let drawn = detected.drawn { files.append((output, try drawn.pngData())) }
                return files
            },
            report: report)
        try batch.finish()
    }
}
