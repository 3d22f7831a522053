import Foundation
import Swiftseg
import SwiftsegRuntime
import XCTest

/// Pins the bytes of every kind of output — cutouts, masks, composites with each effect, crops, JPEG, label
/// maps, saliency maps and the JSON report — on the committed photos, so a refactor that changes one byte
/// fails here. The network is left out (its floats depend on the CPU's kernel build): each photo's saliency is
/// ONNX Runtime's d0 from Tests/Fixtures, and everything after it is the library's scalar image code, the same
/// on every x86-64 CPU. (The whole CLI, network included, is compared build against build by
/// Tools/check_same_outputs.sh.) A change that is meant to alter outputs updates the table below, and says why
/// in its commit.
final class PinnedOutputsTests: XCTestCase {
    /// FNV-1a, 64-bit: a stable fingerprint of the bytes (not a security hash).
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return String(h, radix: 16)
    }

    /// name → pipeline settings.
    static let variants: [(String, @Sendable (inout SubjectLiftingPipeline) -> Void)] = [
        ("cutout", { $0.instanceMap = true; $0.saliencyMap = .png }),
        ("mask", { $0.lifting.output = .mask }),
        ("mask-postprocessed", { $0.lifting.output = .mask; $0.lifting.request.postProcess = true }),
        ("select-crop", { $0.lifting.selection = .instances([1]); $0.lifting.crop = true }),
        ("point-colour-jpeg", {
            $0.lifting.selection = .point(NormalizedPoint(x: 0.5, y: 0.5))
            $0.lifting.output = .composite(background: .color(RGB(51, 102, 153)), effect: nil)
            $0.format = .jpeg
        }),
        ("blur", { $0.lifting.output = .composite(background: .original, effect: .blur()) }),
        ("darken", { $0.lifting.output = .composite(background: .original, effect: .darken()) }),
        ("highlight-png9", {
            $0.lifting.output = .composite(background: .original, effect: .highlight())
            $0.encoding.pngCompression = .level(9)
        }),
        ("mask-preview", { $0.lifting.output = .composite(background: .original, effect: .maskPreview()) }),
    ]

    func testOutputsMatchPinnedBytes() throws {
        #if !arch(x86_64)
        throw XCTSkip("pinned on x86-64, where the table was recorded (libm and vector code may round otherwise)")
        #endif
        var actual: [String: String] = [:]
        for photoName in Fixtures.photos {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(photoName)"))
            let stem = String(photoName.split(separator: ".")[0])
            let d0 = try NPY.read(path: Fixtures.path("photos/\(stem).d0.npy"))
            let mask = ForegroundMask(image: MaskPostprocessing.mask(from: d0.view, width: photo.width, height: photo.height),
                                      saliency: d0.values, saliencySize: d0.shape[3])
            for (variant, configure) in Self.variants {
                var pipeline = SubjectLiftingPipeline()
                configure(&pipeline)
                let observation = pipeline.lifting.request.observation(for: mask)
                let lifted: LiftedSubject
                do { lifted = try pipeline.lifting.render(photo, observation: observation) } catch {
                    actual["\(stem)/\(variant)"] = "error: \(SwiftsegError(error).message)"
                    continue
                }
                let files = try pipeline.encode(lifted)
                actual["\(stem)/\(variant)"] = Self.fingerprint(files.image)
                if let labels = files.instanceMap { actual["\(stem)/\(variant)/labels"] = Self.fingerprint(labels) }
                if let saliency = files.saliencyMap { actual["\(stem)/\(variant)/saliency"] = Self.fingerprint(saliency) }
                if variant == "cutout" {
                    let report = pipeline.report(for: lifted, input: photoName, model: "u2netp", timingsMs: [:])
                    actual["\(stem)/report"] = Self.fingerprint(try report.jsonData())
                }
            }
        }
        if ProcessInfo.processInfo.environment["SWIFTSEG_PRINT_PINS"] != nil {
            print(actual.keys.sorted().map { "        \"\($0)\": \"\(actual[$0]!)\"," }.joined(separator: "\n"))
        }
        XCTAssertEqual(actual.count, Self.pinned.count, "outputs made vs pinned")
        for key in actual.keys.sorted() {
            XCTAssertEqual(actual[key], Self.pinned[key], "\(key) changed (SWIFTSEG_PRINT_PINS=1 prints the new table)")
        }
    }

    /// Recorded at the commit that introduced this test, whose outputs Tools/check_same_outputs.sh found
    /// byte-identical to the commit before the layout change; the PNGs of `fast` compression re-recorded when it
    /// got its own run-length deflate (2026-12-02: other bytes, the same pixels — `check_same_outputs.sh --pixels`),
    /// and the PNGs of more than one 256 KiB segment again when they were compressed in segments that threads can
    /// share (the same pixels again); and the pictures of the three photos that carry a colour profile when the
    /// profile began to go into them (2026-12-06: with the profile left out, every pin is as before).
    static let pinned: [String: String] = [
        "astronaut/blur": "1ca3d665b3a63c98",
        "astronaut/cutout": "5b4985fe01614208",
        "astronaut/cutout/labels": "ac0224b52334e86",
        "astronaut/cutout/saliency": "668963871d4982e1",
        "astronaut/darken": "3eeef3b8b8152864",
        "astronaut/highlight-png9": "ba83381f1e8872aa",
        "astronaut/mask": "434534a1a52ccf81",
        "astronaut/mask-postprocessed": "d6a2c89a8dc8b1ea",
        "astronaut/mask-preview": "d0456f4f5d1f2679",
        "astronaut/point-colour-jpeg": "cd8b7fa34a0775b2",
        "astronaut/report": "8972dcabfe83d42e",
        "astronaut/select-crop": "5810457c907bd894",
        "chelsea/blur": "5aaa1aa9a5af15be",
        "chelsea/cutout": "8393a329e87bec44",
        "chelsea/cutout/labels": "dcb9e22b07aa9244",
        "chelsea/cutout/saliency": "e09587256bf2c122",
        "chelsea/darken": "da7d648ed4357ae9",
        "chelsea/highlight-png9": "bdb6ec019019b681",
        "chelsea/mask": "3ad3f5889c7b224a",
        "chelsea/mask-postprocessed": "fdabfdbf5996fe20",
        "chelsea/mask-preview": "4afd234aebabf945",
        "chelsea/point-colour-jpeg": "87228b9c7e8ae45c",
        "chelsea/report": "813d61be54cb332",
        "chelsea/select-crop": "2afb8d78508152cf",
        "coffee/blur": "850c5f1eb055b5d4",
        "coffee/cutout": "34873997b1f3c095",
        "coffee/cutout/labels": "8d68d38dcad9d33e",
        "coffee/cutout/saliency": "34cbdbcfbfaf3552",
        "coffee/darken": "bb18356ff80d3898",
        "coffee/highlight-png9": "348f9b9dbb95c5b4",
        "coffee/mask": "3d700762389dcda5",
        "coffee/mask-postprocessed": "3f1785618a023cb8",
        "coffee/mask-preview": "16a5ee018e809d36",
        "coffee/point-colour-jpeg": "c687b510295c29c6",
        "coffee/report": "5e9b53835c72b04f",
        "coffee/select-crop": "fde4e49003ee67b8",
        "coins/blur": "5237be52bfcb343b",
        "coins/cutout": "32ede27b6efb2022",
        "coins/cutout/labels": "6fa099d2cfc17e2",
        "coins/cutout/saliency": "74f7964cda98f0cc",
        "coins/darken": "35d58f8f51bcbeab",
        "coins/highlight-png9": "1a45416b4479016f",
        "coins/mask": "6e2fba7bce956f90",
        "coins/mask-postprocessed": "34e2adb4ca4ea7f0",
        "coins/mask-preview": "173e5ddad25c611",
        "coins/point-colour-jpeg": "257053da7e1da0c",
        "coins/report": "1d3d5307ae356086",
        "coins/select-crop": "b74b145129bd4de3",
        "rocket/blur": "4ea529833acb3a28",
        "rocket/cutout": "63bbc5844f8f3cc5",
        "rocket/cutout/labels": "b4368f534ddd16c2",
        "rocket/cutout/saliency": "9cda5944014838b3",
        "rocket/darken": "a9e9a293cad60f00",
        "rocket/highlight-png9": "f77ebc6d7db3f159",
        "rocket/mask": "7e4b342d504813d8",
        "rocket/mask-postprocessed": "f24dd1f9398b9e0f",
        "rocket/mask-preview": "2eeaf2edac482a7a",
        "rocket/point-colour-jpeg": "bbc16d3e85a0c5ec",
        "rocket/report": "b113028099f09812",
        "rocket/select-crop": "a3630afbd98cb39d",
    ]
}
