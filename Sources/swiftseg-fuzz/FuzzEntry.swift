import Foundation
import Swiftseg
import SwiftsegModels
import SwiftsegRuntime

// swiftseg-fuzz: the libFuzzer harness for the parsers that read untrusted bytes — image decoding (every
// ImageFormat: PNG, JPEG, WebP, HEIC, AVIF, TIFF, BMP, GIF; EXIF, limits) and safetensors weights (header, names, shapes, offsets). Each input goes through both, and an
// image that decodes goes through the PNG writer and back (the same pixels, or a crash); a PNG input also goes,
// its CRCs made right, through swiftseg's PNG reader and libpng (the same image or the same error, or a crash).
// The harness fails only by crashing, hanging or running out of memory (errors are the expected outcome).
//
//   swift build -c release --product swiftseg-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DSWIFTSEG_LIBFUZZER
//       (if ld.gold stops with "internal error in format_file_lineno", link with the toolchain's lld instead:
//        add -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
//   mkdir -p /tmp/corpus && cp Tests/Fixtures/decode/* Weights/u2netp.safetensors /tmp/corpus/
//   .build/release/swiftseg-fuzz /tmp/corpus -max_len=2000000 -rss_limit_mb=2048 -max_total_time=600
//
// Built normally (without the two flags) it replays files instead: `swiftseg-fuzz FILE…` runs each through
// the same function and prints what happened — the way to reproduce a crash libFuzzer saved.

enum FuzzTarget {
    /// Decoding limits small enough that a hostile header cannot make one input take seconds.
    static let decoding = DecodingOptions(maxPixels: 4_000_000, maxDimension: 8_192, maxFileBytes: 8 << 20)

    /// Runs one input through the image decoder and the weights loader; returns what each said.
    static func run(_ bytes: [UInt8]) -> (image: String, weights: String) {
        let image: String
        do {
            let decoded = try Image(encoded: bytes, name: "input", options: decoding)
            // Whatever decodes must survive our own PNG writer (its run-length deflate, `fast`): same pixels back.
            let again = try Image(encoded: try decoded.pngData(), name: "re-encoded", options: decoding)
            precondition(again == decoded, "a decoded image re-encoded as PNG came back different")
            // Decoded reduced (a JPEG at 1/8 in the DCT): the same size, turned the same way.
            let reduced = try ReducedImage(encoded: bytes, name: "input", options: decoding, minimumLongerSide: 1)
            precondition([reduced.fullWidth, reduced.fullHeight] == [decoded.width, decoded.height],
                         "a reduced decode reported another full size")
            image = "image \(decoded.width)×\(decoded.height)×\(decoded.channels), re-encoded as PNG"
        } catch {
            image = "image error: \(error)"
        }
        checkPNGReaders(bytes)
        let weights: String = bytes.withUnsafeBytes { raw in
            do {
                let file = try SafeTensorsFile(file: MappedFile(staticBytes: raw), name: "input")
                _ = try U2Net(weights: file, prepareFastKernels: false)
                return "weights: a complete U²-Net"
            } catch {
                return "weights error: \(error)"
            }
        }
        return (image, weights)
    }

    /// A PNG input again with every chunk's CRC made right (a wrong CRC alone sends a file to libpng), so the
    /// mutations reach swiftseg's own PNG reader: it must give libpng's pixels, or hand the file to libpng.
    static func checkPNGReaders(_ input: [UInt8]) {
        guard ImageFormat(sniffing: input) == .png else { return }
        var b = input, i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length <= b.count - i - 12 else { break }
            let crc = crc32(b[(i + 4)..<(i + 8 + length)])
            for k in 0..<4 { b[i + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
            i += 12 + length
        }
        var libpng = decoding
        libpng.pngReader = .libpng
        let ours = Result { try Image(encoded: b, name: "input", options: decoding) }
        let theirs = Result { try Image(encoded: b, name: "input", options: libpng) }
        switch (ours, theirs) {
        case (.success(let a), .success(let c)): precondition(a == c, "swiftseg's PNG reader and libpng disagree")
        case (.failure(let a), .failure(let c)): precondition("\(a)" == "\(c)", "different errors: \(a) / \(c)")
        default: preconditionFailure("swiftseg's PNG reader: \(ours), libpng: \(theirs)")
        }
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(0xFFFF_FFFF as UInt32) { c, byte in crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    }
}

#if SWIFTSEG_LIBFUZZER
/// libFuzzer's entry for a program that has its own `main` (SwiftPM points an executable's `main` at the
/// module's entry point, so libFuzzer's own `main` is not linked in).
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct FuzzDriver {
    static func main() {
        var argc = CommandLine.argc
        var argv = Optional(CommandLine.unsafeArgv)
        exit(llvmFuzzerRunDriver(&argc, &argv) { data, size in
            _ = FuzzTarget.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        })
    }
}
#else
@main
struct FuzzReplay {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty || paths.contains("-h") || paths.contains("--help") {
            print("""
                usage: swiftseg-fuzz FILE…   (replays inputs through the fuzz target)
                Build with -Xswiftc -sanitize=fuzzer -Xswiftc -DSWIFTSEG_LIBFUZZER for the libFuzzer harness;
                see the top of Sources/swiftseg-fuzz/FuzzEntry.swift and the README.
                """)
            exit(paths.isEmpty ? 2 : 0)
        }
        var unreadable = 0
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("swiftseg-fuzz: \(path): cannot read\n".utf8))
                unreadable += 1
                continue
            }
            let (image, weights) = FuzzTarget.run([UInt8](data))
            print("\(path): \(image); \(weights)")
        }
        exit(unreadable == 0 ? 0 : 1)
    }
}
#endif
