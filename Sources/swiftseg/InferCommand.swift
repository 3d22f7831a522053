import Dispatch
import Foundation
import Swiftseg

/// `swiftseg infer`: photo in; cutout, mask, composite, instance map, saliency map and JSON report out.
/// The network runs once whatever the outputs.
enum InferCommand {
    static let spec = CommandSpec(
        name: "infer",
        summary: "Cut the subject out of a photo (RGBA PNG), or write its mask, instances or a composite.",
        usage: "swiftseg infer <input> [-o <output>] [--mask] [--instances <png>] [--json] [--select <list> | --point <x,y>]\n       [--crop] [--background <bg>] [--effect <effect>] [--threshold <t>] [--min-area <f>] [--model <model>]",
        positionals: [("<input>", "A PNG or JPEG file, or - for standard input.")],
        options: InferOptions.specs + ModelOptions.specs,
        discussion: """
            The photo is resized to 320×320 for the network and the mask is resized back to the photo's size, as
            rembg does. Instances are the 8-connected regions of the mask at or above --threshold, numbered 1…N
            in reading order. With --select or --point, the mask, cutout, crop and composite use only the chosen
            instances (soft edges go to the nearest instance). All outputs are written only once every one of
            them is complete; on any error nothing is written.

            EXAMPLES:
              swiftseg infer photo.jpg --instances labels.png --json
              swiftseg infer photo.jpg --point 0.5,0.6 --crop -o subject.png
              swiftseg infer photo.jpg --background beach.jpg -o postcard.png
              swiftseg infer photo.jpg --effect blur --blur-radius 20 -o portrait.png
            """)

    static func run(_ args: ParsedArguments) throws {
        let options = try InferOptions(args)
        if options.output == "-" && isatty(STDOUT_FILENO) != 0 {
            throw CLIError.usage("refusing to write a PNG to a terminal; redirect standard output or use -o <file>")
        }
        var timings: [String: Double] = [:]
        var t0 = DispatchTime.now().uptimeNanoseconds
        func lap(_ name: String) {
            let t1 = DispatchTime.now().uptimeNanoseconds
            timings[name, default: 0] += Double(t1 - t0) / 1e6
            t0 = t1
        }
        do {
            for path in [options.output, options.instancesPath, options.saliencyPath].compactMap({ $0 }) {
                try AtomicFile.checkWritable(path)
            }
            let photo = try readImage(options.input)
            let background = try options.background.map { try Background(argument: $0) } ?? .original
            lap("decode")
            let model = try ModelOptions.loadModel(args)
            var configuration = Segmenter.Configuration()
            configuration.threads = options.threads
            let segmenter = Segmenter(model: model, configuration: configuration)
            lap("load")
            let observation = options.request.perform(on: photo, using: segmenter)
            timings["preprocess"] = observation.timings.preprocessMs
            timings["network"] = observation.timings.networkMs
            timings["postprocess"] = observation.timings.postprocessMs
            timings["instances"] = observation.timings.instancesMs
            t0 = DispatchTime.now().uptimeNanoseconds

            let chosen: [Int]?
            switch options.selection {
            case .everything: chosen = nil
            case .instances(let list): chosen = list
            case .point(let p): chosen = try observation.instances(forTapAt: p)
            }
            let maskImage = try chosen.map { try observation.maskImage(forInstances: $0) } ?? observation.softMask
            var result: Image
            if options.mask {
                result = maskImage
            } else if options.effect != nil || options.background != nil {
                let soft = maskImage.pixels.map { Float($0) / 255 }
                result = try Compositing.render(photo, mask: soft, background: background, effect: options.effect)
            } else {
                result = Compositing.cutout(photo, alpha: maskImage)
            }
            if options.crop {
                let instances = chosen ?? observation.allInstances
                guard !instances.isEmpty else { throw SubjectLiftingError("--crop: no subject was found to crop to") }
                result = Compositing.crop(result, to: try observation.extent(ofInstances: instances))
            }
            lap("render")
            var files = [(path: options.output, bytes: try result.pngData())]
            if let path = options.instancesPath { files.append((path, try observation.instanceMask.pngData())) }
            if let path = options.saliencyPath {
                files.append((path, try observation.saliency.heatMap(width: photo.width, height: photo.height).pngData()))
            }
            lap("encode")
            try AtomicFile.write(files)
            if options.json {
                let report = SubjectReport(input: options.input == "-" ? nil : options.input, observation: observation,
                                           model: model.configuration.variant, minArea: options.request.minimumArea,
                                           selected: chosen ?? observation.allInstances, timingsMs: timings)
                FileHandle.standardOutput.write(Data(try report.jsonData()))
            }
        } catch let error as ImageError {
            throw CLIError.failure(error.description)
        } catch let error as SubjectLiftingError {
            throw CLIError.failure(error.description)
        }
    }

    static func readImage(_ input: String) throws -> Image {
        if input == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return try Image(encoded: [UInt8](data), name: "standard input")
        }
        return try Image(contentsOfFile: input)
    }
}
