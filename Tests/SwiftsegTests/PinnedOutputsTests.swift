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
    /// byte-identical to the commit before the layout change.
    static let pinned: [String: String] = [
        "astronaut/blur": "62cf3203492277b4",
        "astronaut/cutout": "aa7d7115609cdedd",
        "astronaut/cutout/labels": "835a73380d3f5553",
        "astronaut/cutout/saliency": "84bab6efdd841790",
        "astronaut/darken": "562f091d600ed7ce",
        "astronaut/highlight-png9": "c30e27540a036e51",
        "astronaut/mask": "9984cf98299b5cac",
        "astronaut/mask-postprocessed": "48fa2230566ea3c1",
        "astronaut/mask-preview": "5d7412195e5bb14a",
        "astronaut/point-colour-jpeg": "f05ab1e84d214569",
        "astronaut/report": "8972dcabfe83d42e",
        "astronaut/select-crop": "a6b836fc5c624f91",
        "chelsea/blur": "6dc16ebea91ca042",
        "chelsea/cutout": "5cacbff158ff90ad",
        "chelsea/cutout/labels": "51d14be2db2ce5a0",
        "chelsea/cutout/saliency": "ea8a6a9a2974b4ed",
        "chelsea/darken": "1b82e5ced1db00e5",
        "chelsea/highlight-png9": "ed6f227f529e12be",
        "chelsea/mask": "c4867aa249deb9ec",
        "chelsea/mask-postprocessed": "5c31229993fe17d6",
        "chelsea/mask-preview": "361dd49a3a2574e3",
        "chelsea/point-colour-jpeg": "9029a53430a5c53",
        "chelsea/report": "813d61be54cb332",
        "chelsea/select-crop": "17a4344c26798238",
        "coffee/blur": "7818dcace4038282",
        "coffee/cutout": "88eaf42a59d3bae7",
        "coffee/cutout/labels": "ed11f7b8078773e7",
        "coffee/cutout/saliency": "94ea56816cc3e570",
        "coffee/darken": "2afa8ac1136de7de",
        "coffee/highlight-png9": "348f9b9dbb95c5b4",
        "coffee/mask": "e3289680ae653c00",
        "coffee/mask-postprocessed": "9fd5121cf7e9360",
        "coffee/mask-preview": "5ec018e94dd217be",
        "coffee/point-colour-jpeg": "c687b510295c29c6",
        "coffee/report": "5e9b53835c72b04f",
        "coffee/select-crop": "19dd7b5245877bdd",
        "coins/blur": "5237be52bfcb343b",
        "coins/cutout": "32ede27b6efb2022",
        "coins/cutout/labels": "50a536f26ff65d22",
        "coins/cutout/saliency": "2ff2bb9a9b7d6ac0",
        "coins/darken": "35d58f8f51bcbeab",
        "coins/highlight-png9": "1a45416b4479016f",
        "coins/mask": "191abbc5126afda6",
        "coins/mask-postprocessed": "8617835e6a65ea4c",
        "coins/mask-preview": "b95813159655b39d",
        "coins/point-colour-jpeg": "257053da7e1da0c",
        "coins/report": "1d3d5307ae356086",
        "coins/select-crop": "b74b145129bd4de3",
        "rocket/blur": "b21f084232819205",
        "rocket/cutout": "be93ac8e82daa8c4",
        "rocket/cutout/labels": "3ffcee1c2cbf3eb7",
        "rocket/cutout/saliency": "be6964ab8f673bac",
        "rocket/darken": "1df8288bd0abe107",
        "rocket/highlight-png9": "87d3b0a881a11392",
        "rocket/mask": "eeaaf60f46ec7aec",
        "rocket/mask-postprocessed": "2d07d40bc973b0e9",
        "rocket/mask-preview": "66f32fb69fc63e31",
        "rocket/point-colour-jpeg": "e8253858e6d2785c",
        "rocket/report": "b113028099f09812",
        "rocket/select-crop": "fd40fac43c960196",
    ]
}
