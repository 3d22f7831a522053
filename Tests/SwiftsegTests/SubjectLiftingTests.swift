import Swiftseg
import XCTest

/// Subject lifting on the committed photos: instances, hit tests, crops, composites, geometry.
final class SubjectLiftingTests: XCTestCase {
    /// Network masks per photo, computed once for the whole class (tests only read them).
    nonisolated(unsafe) static var masks: [String: (Image, ForegroundMask)] = [:]

    func observe(_ file: String, request: ForegroundInstanceMaskRequest = ForegroundInstanceMaskRequest())
        throws -> (Image, ForegroundInstanceMaskObservation) {
        if Self.masks[file] == nil {
            let photo = try Image(contentsOfFile: Fixtures.path("photos/\(file)"))
            Self.masks[file] = (photo, try Segmenter().foregroundMask(for: photo))
        }
        let (photo, mask) = Self.masks[file]!
        return (photo, request.observation(for: mask))
    }

    /// Independent flood fill (8-connectivity) of the thresholded mask, components ≥ minPixels, numbered in
    /// raster order of their first pixel.
    func floodFill(_ mask: Image, threshold: Double, minPixels: Int) -> [Int] {
        let w = mask.width, h = mask.height
        let on = mask.pixels.map { Double($0) / 255 >= threshold - 1e-9 && Double($0) >= (threshold * 255).rounded(.up) }
        var labels = [Int](repeating: 0, count: w * h), next = 0
        var seen = [Bool](repeating: false, count: w * h)
        for start in 0..<(w * h) where on[start] && !seen[start] {
            var stack = [start], members: [Int] = []
            seen[start] = true
            while let i = stack.popLast() {
                members.append(i)
                for dy in -1...1 {
                    for dx in -1...1 {
                        let x = i % w + dx, y = i / w + dy
                        if x >= 0, x < w, y >= 0, y < h, on[y * w + x], !seen[y * w + x] {
                            seen[y * w + x] = true
                            stack.append(y * w + x)
                        }
                    }
                }
            }
            if members.count >= minPixels {
                next += 1
                for i in members { labels[i] = next }
            }
        }
        return labels
    }

    func testSeparateCoinsAreSeparateInstances() throws {
        let (_, obs) = try observe("coins.png")
        XCTAssertEqual(obs.instances.count, 22, "coins.png at threshold 0.5, min area 0.1 %")
        XCTAssertEqual(obs.allInstances, Array(1...22))
        XCTAssertEqual(obs.instanceMask.bitDepth, 8)
        XCTAssertEqual(obs.instanceMask.width, 384)
    }

    func testLabelMapEqualsComponentsOfThresholdedMask() throws {
        for file in ["coins.png", "coffee.png", "astronaut.png"] {
            let (_, obs) = try observe(file)
            let minPixels = Int((0.001 * Double(obs.width * obs.height)).rounded(.up))
            let expected = floodFill(obs.softMask, threshold: 0.5, minPixels: minPixels)
            for i in expected.indices where expected[i] != obs.instanceMask[i] {
                return XCTFail("\(file): pixel \(i) labelled \(obs.instanceMask[i]), flood fill says \(expected[i])")
            }
        }
    }

    func testBoundsAreaAndScoreMatchLabels() throws {
        let (_, obs) = try observe("coins.png")
        for info in obs.instances {
            var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1, area = 0, sum = 0
            for y in 0..<obs.height {
                for x in 0..<obs.width where obs.instanceMask[x: x, y: y] == info.index {
                    x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
                    area += 1
                    sum += Int(obs.softMask.pixels[y * obs.width + x])
                }
            }
            XCTAssertEqual(info.bounds, PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1))
            XCTAssertEqual(info.area, area)
            XCTAssertEqual(info.score, Double(sum) / Double(area) / 255, accuracy: 1e-12)
            XCTAssertEqual(info.normalizedBounds, VisionGeometry.normalizedRect(for: info.bounds, width: obs.width, height: obs.height))
        }
    }

    func testHitTesting() throws {
        let (photo, rocket) = try observe("rocket.jpg")
        XCTAssertEqual(try rocket.instance(at: NormalizedPoint(x: 0.5, y: 0.5)), 1, "the rocket's body")
        XCTAssertEqual(try rocket.instance(at: NormalizedPoint(x: 0.05, y: 0.05)), 0, "sky")
        XCTAssertNil(try rocket.subject(at: NormalizedPoint(x: 0.05, y: 0.05), in: photo))
        XCTAssertEqual(try rocket.subject(at: NormalizedPoint(x: 0.5, y: 0.5), in: photo)?.index, 1)

        let (_, coins) = try observe("coins.png")
        for info in coins.instances {
            // The first pixel of the instance in raster order, as a normalized top-left point at its centre.
            let i = (0..<(coins.width * coins.height)).first { coins.instanceMask[$0] == info.index }!
            let p = NormalizedPoint(x: (Double(i % coins.width) + 0.5) / Double(coins.width),
                                    y: (Double(i / coins.width) + 0.5) / Double(coins.height))
            XCTAssertEqual(try coins.instances(forTapAt: p), [info.index])
        }
        XCTAssertEqual(try coins.instances(forTapAt: NormalizedPoint(x: 0, y: 1)), coins.allInstances, "background tap → all")
        XCTAssertThrowsError(try coins.instance(at: NormalizedPoint(x: 1.2, y: 0.5)))
        XCTAssertThrowsError(try coins.maskImage(forInstances: [23])) { XCTAssertTrue("\($0)".contains("instance 23 does not exist")) }
    }

    func testCropIsTheUnionOfChosenBounds() throws {
        let (photo, obs) = try observe("coins.png")
        let union = obs.instances[2].bounds.union(obs.instances[9].bounds)
        let cropped = try obs.maskedImage(ofInstances: [3, 10], from: photo, croppedToInstancesExtent: true)
        XCTAssertEqual(cropped.width, union.width)
        XCTAssertEqual(cropped.height, union.height)
        XCTAssertEqual(cropped.channels, 4)
        let full = try obs.maskedImage(ofInstances: [3, 10], from: photo, croppedToInstancesExtent: false)
        XCTAssertEqual(full.width, photo.width)
        let subjects = try obs.subjects(in: photo)
        XCTAssertEqual(subjects.count, 22)
        XCTAssertEqual(subjects[4].image.width, obs.instances[4].bounds.width)
        let combined = try obs.image(for: [subjects[2], subjects[9]], from: photo)
        XCTAssertEqual(combined, cropped)
    }

    /// The owner map and the salient boxes are made on first use: threads that ask for them at once all get
    /// the same answer as a single thread does.
    func testOnDemandPartsAgreeAcrossThreads() throws {
        let (_, single) = try observe("coins.png")
        let expected = try single.maskImage(forInstances: [1]).pixels, boxes = single.saliency.salientObjects
        let (_, shared) = try observe("coins.png")  // a fresh observation: nothing made yet
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var masks: [[UInt8]] = [], boxes: [Int] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let mask = (try? shared.maskImage(forInstances: [1]).pixels) ?? [], count = shared.saliency.salientObjects.count
            results.lock.withLock { results.masks.append(mask); results.boxes.append(count) }
        }
        XCTAssertEqual(results.masks, [[UInt8]](repeating: expected, count: 8))
        XCTAssertEqual(results.boxes, [Int](repeating: boxes.count, count: 8))
    }

    func testInstanceMasksSplitTheSoftMask() throws {
        let (_, obs) = try observe("coins.png")
        let all = try obs.scaledMask(forInstances: obs.allInstances)
        let odd = try obs.scaledMask(forInstances: obs.allInstances.filter { $0 % 2 == 1 })
        let even = try obs.scaledMask(forInstances: obs.allInstances.filter { $0 % 2 == 0 })
        for i in all.indices {
            XCTAssertEqual(odd[i] + even[i], all[i])
            if obs.instanceMask[i] != 0 { XCTAssertEqual(all[i], Float(obs.softMask.pixels[i]) / 255) }
            if obs.instanceMask[i] % 2 == 1 { XCTAssertEqual(even[i], 0) }
        }
    }

    func testCompositeKeepsSubjectAndScalesBackground() throws {
        let (photo, obs) = try observe("astronaut.png")
        let beach = try Image(contentsOfFile: Fixtures.path("photos/coffee.png"))
        let mask = obs.softMask.pixels.map { Float($0) / 255 }
        let out = try Compositing.render(photo, mask: mask, background: .image(beach), effect: nil)
        XCTAssertEqual(out.channels, 3)
        let scaled = LanczosResampler.resize(beach, width: photo.width, height: photo.height)
        var checkedFg = 0, checkedBg = 0
        for i in 0..<mask.count {
            for c in 0..<3 {
                if mask[i] == 1 { XCTAssertEqual(Int(out.pixels[3 * i + c]), Int(photo.pixels[3 * i + c]), accuracy: 1); checkedFg += 1 }
                if mask[i] == 0 { XCTAssertEqual(Int(out.pixels[3 * i + c]), Int(scaled.pixels[3 * i + c]), accuracy: 1); checkedBg += 1 }
            }
        }
        XCTAssertGreaterThan(checkedFg, 1000)
        XCTAssertGreaterThan(checkedBg, 1000)
        let transparent = try Compositing.render(photo, mask: mask, background: .transparent, effect: nil)
        XCTAssertEqual(transparent.channels, 4)
        XCTAssertThrowsError(try Compositing.render(photo, mask: mask, background: .transparent, effect: .darken()))
    }

    /// The cutout keeps the photo's colour where any alpha remains and stores fully transparent pixels as
    /// 0, 0, 0, 0 (as rembg and Vision do); gray and RGBA photos too (an RGBA photo's alpha multiplies in).
    func testCutoutKeepsColourAndZeroesTransparentPixels() throws {
        let (photo, obs) = try observe("astronaut.png")
        let alpha = obs.softMask
        var partly = 0, transparent = 0
        var rgba = [UInt8]()
        for i in 0..<(photo.width * photo.height) {
            let opacity: UInt8 = i % 3 == 0 ? 0 : 255
            rgba += [photo.pixels[3 * i], photo.pixels[3 * i + 1], photo.pixels[3 * i + 2], opacity]
        }
        let rgbaPhoto = Image(width: photo.width, height: photo.height, channels: 4, pixels: rgba)
        let grayPhoto = Image(width: photo.width, height: photo.height, channels: 1,
                              pixels: (0..<(photo.width * photo.height)).map { photo.pixels[3 * $0 + 1] })
        for input in [photo, grayPhoto, rgbaPhoto] {
            let cut = Compositing.cutout(input, alpha: alpha)
            XCTAssertEqual(cut.channels, 4)
            for i in 0..<(photo.width * photo.height) {
                let a = input.channels == 4 ? (Int(alpha.pixels[i]) * Int(input.pixels[4 * i + 3]) + 127) / 255 : Int(alpha.pixels[i])
                XCTAssertEqual(Int(cut.pixels[4 * i + 3]), a)
                for c in 0..<3 {
                    let colour = input.channels == 1 ? input.pixels[i] : input.pixels[input.channels * i + c]
                    XCTAssertEqual(cut.pixels[4 * i + c], a == 0 ? 0 : colour)
                }
                if input.channels == 3 { if a == 0 { transparent += 1 } else if a < 255 { partly += 1 } }
            }
        }
        XCTAssertGreaterThan(transparent, 10_000)
        XCTAssertGreaterThan(partly, 100)
    }

    func testEffectsChangeOnlyWhatTheySay() throws {
        let (photo, obs) = try observe("astronaut.png")
        let mask = obs.softMask.pixels.map { Float($0) / 255 }
        let bg = mask.indices.first { mask[$0] == 0 }!, fg = mask.indices.first { mask[$0] == 1 }!
        for effect: Effect in [.darken(), .blur(), .highlight(outlineWidth: 0)] {
            let out = try Compositing.render(photo, mask: mask, background: .original, effect: effect)
            XCTAssertEqual(Array(out.pixels[(3 * fg)..<(3 * fg + 3)]), Array(photo.pixels[(3 * fg)..<(3 * fg + 3)]), "\(effect) keeps the subject")
        }
        let dark = try Compositing.render(photo, mask: mask, background: .original, effect: .darken(ev: 2))
        XCTAssertLessThan(dark.pixels[3 * bg..<3 * bg + 3].map(Int.init).reduce(0, +),
                          photo.pixels[3 * bg..<3 * bg + 3].map(Int.init).reduce(0, +))
        let preview = try Compositing.render(photo, mask: mask, background: .original, effect: .maskPreview(color: RGB(255, 0, 0)))
        XCTAssertEqual(Array(preview.pixels[(3 * fg)..<(3 * fg + 3)]), [255, 0, 0])
        XCTAssertEqual(Array(preview.pixels[(3 * bg)..<(3 * bg + 3)]), [0, 0, 0])
    }

    func testCoordinateConversionsRoundTrip() {
        let px = VisionGeometry.imageRect(for: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.25), width: 640, height: 480)
        XCTAssertEqual(px, PixelRect(x: 0, y: 360, width: 320, height: 120), "bottom-left origin → top-left pixels")
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let w = Int.random(in: 1...4000, using: &rng), h = Int.random(in: 1...4000, using: &rng)
            let x = Int.random(in: 0..<w, using: &rng), y = Int.random(in: 0..<h, using: &rng)
            let r = PixelRect(x: x, y: y, width: Int.random(in: 1...(w - x), using: &rng), height: Int.random(in: 1...(h - y), using: &rng))
            XCTAssertEqual(VisionGeometry.imageRect(for: VisionGeometry.normalizedRect(for: r, width: w, height: h), width: w, height: h), r)
        }
        XCTAssertTrue(NormalizedPoint(x: 1, y: 0).isInUnitSquare)
        XCTAssertEqual(VisionGeometry.pixel(for: NormalizedPoint(x: 1, y: 1), width: 10, height: 5).x, 9)
    }

    /// More than 255 instances switch the label map to 16 bits instead of wrapping.
    func testManyInstancesUseSixteenBitLabels() throws {
        let w = 100, h = 80
        var px = [UInt8](repeating: 0, count: w * h)
        for y in stride(from: 0, to: h, by: 3) { for x in stride(from: 0, to: w, by: 3) { px[y * w + x] = 255 } }
        let mask = ForegroundMask(image: Image(width: w, height: h, channels: 1, pixels: px),
                                  saliency: [Float](repeating: 0, count: 4), saliencySize: 2)
        let obs = ForegroundInstanceMaskRequest(minimumArea: 0).observation(for: mask)
        XCTAssertEqual(obs.instances.count, 34 * 27)
        XCTAssertEqual(obs.instanceMask.bitDepth, 16)
        XCTAssertEqual(obs.instanceMask[x: 99, y: 78], 34 * 27)
        let png = try obs.instanceMask.pngData()
        XCTAssertEqual(png[24], 16, "PNG bit depth")
    }

    func testPostProcessGivesBinaryMaskAndSaliencyBoxes() throws {
        let (_, obs) = try observe("rocket.jpg", request: ForegroundInstanceMaskRequest(postProcess: true))
        XCTAssertTrue(obs.softMask.pixels.allSatisfy { $0 == 0 || $0 == 255 })
        XCTAssertEqual(obs.instances.count, 1)
        XCTAssertFalse(obs.saliency.salientObjects.isEmpty)
        let box = obs.saliency.salientObjects[0]
        XCTAssertTrue((0.4...0.6).contains(box.x + box.width / 2), "the rocket is in the middle: \(box)")
        XCTAssertEqual(obs.saliency.heatMap(width: 64, height: 48).width, 64)
    }
}
