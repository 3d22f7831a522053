import Foundation
import Swiftseg
import XCTest

/// `DetectRectanglesRequest` against exact ground truth (Tests/Fixtures/rectangles, from
/// Tools/make_rectangle_cases.py): each parameter keeps and drops what it should, corners come in display order,
/// conversions round-trip, and the committed test set stays at its hit rate.
final class RectanglesTests: XCTestCase {
    struct Named: Decodable { let width: Int; let height: Int; let corners: [[[Double]]] }

    func named(_ name: String) throws -> (image: Image, truths: [[PixelPoint]]) {
        let all = try JSONDecoder().decode([String: Named].self,
                                           from: Data(contentsOf: URL(fileURLWithPath: Fixtures.path("rectangles/named.json"))))
        let entry = try XCTUnwrap(all[name])
        return (try Image(contentsOfFile: Fixtures.path("rectangles/\(name)")),
                entry.corners.map { $0.map { PixelPoint(x: $0[0], y: $0[1]) } })
    }

    func found(_ truth: [PixelPoint], in observations: [RectangleObservation], image: Image) -> RectangleObservation? {
        observations.first { Polygon.jaccard($0.pixelCorners(width: image.width, height: image.height).points, truth) >= 0.95 }
    }

    /// The A4 sheet (aspect 0.707, longer side 0.70 of the short dimension), corners within 0.5 px.
    func testFindsTheSheetWithSubPixelCorners() throws {
        let (image, truths) = try named("a4-upright.jpg")
        let result = try DetectRectanglesRequest().perform(on: image)
        XCTAssertEqual(result.count, 1)   // maximumObservations defaults to 1
        let corners = try XCTUnwrap(result.first).pixelCorners(width: image.width, height: image.height).points
        for (c, t) in zip(corners, truths[0]) { XCTAssertLessThan(c.distance(to: t), 0.5, "\(c) vs \(t)") }
        XCTAssertGreaterThan(result[0].confidence, 0.75)
    }

    func testAspectRatioLimitsDropAndKeepTheSheet() throws {
        let (image, truths) = try named("a4-upright.jpg")
        func finds(_ request: DetectRectanglesRequest) throws -> Bool {
            var r = request; r.maximumObservations = 0
            return found(truths[0], in: try r.perform(on: image), image: image) != nil
        }
        XCTAssertTrue(try finds(DetectRectanglesRequest(minimumAspectRatio: 0.68, maximumAspectRatio: 0.73)))
        XCTAssertFalse(try finds(DetectRectanglesRequest(minimumAspectRatio: 0.75)))
        XCTAssertFalse(try finds(DetectRectanglesRequest(maximumAspectRatio: 0.65)))
    }

    func testMinimumSizeComparesTheLongerSide() throws {
        let (image, truths) = try named("a4-upright.jpg")
        XCTAssertNotNil(found(truths[0], in: try DetectRectanglesRequest(minimumSize: 0.65, maximumObservations: 0).perform(on: image), image: image))
        XCTAssertNil(found(truths[0], in: try DetectRectanglesRequest(minimumSize: 0.75, maximumObservations: 0).perform(on: image), image: image))
    }

    func testMaximumObservationsZeroReturnsEveryCard() throws {
        let (image, truths) = try named("three-cards.jpg")
        let all = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
        for (i, t) in truths.enumerated() { XCTAssertNotNil(found(t, in: Array(all.prefix(3)), image: image), "card \(i)") }
        XCTAssertEqual(all.map(\.confidence), all.map(\.confidence).sorted(by: >))   // best first
        XCTAssertEqual(try DetectRectanglesRequest().perform(on: image).count, 1)
        XCTAssertEqual(try DetectRectanglesRequest(maximumObservations: 2).perform(on: image).count, 2)
        // minimumConfidence drops what is under it, and only that.
        let cut = (all[0].confidence + all[all.count - 1].confidence) / 2
        let confident = try DetectRectanglesRequest(minimumConfidence: cut, maximumObservations: 0).perform(on: image)
        XCTAssertEqual(confident.count, all.filter { $0.confidence >= cut }.count)
        XCTAssertTrue(confident.allSatisfy { $0.confidence >= cut })
    }

    /// A parallelogram whose corners are 38° off square: dropped at a tolerance of 25°, kept at 45°.
    func testQuadratureToleranceDropsAndKeepsTheShearedSheet() throws {
        let (image, truths) = try named("sheared-38.jpg")
        XCTAssertNil(found(truths[0], in: try DetectRectanglesRequest(quadratureTolerance: 25, maximumObservations: 0).perform(on: image), image: image))
        XCTAssertNotNil(found(truths[0], in: try DetectRectanglesRequest(quadratureTolerance: 45).perform(on: image), image: image))
    }

    func testCornersComeInDisplayOrderAndConvertBack() {
        for degrees in [-40.0, -10, 0, 25, 40] {
            let a = degrees * Double.pi / 180
            let c = PixelPoint(x: 320, y: 240)
            let rect = [(-100.0, -60.0), (100, -60), (100, 60), (-100, 60)].map { (x, y) in
                c + PixelPoint(x: x * cos(a) - y * sin(a), y: x * sin(a) + y * cos(a))
            }
            // Any input order: shuffled, and reversed (counter-clockwise).
            let observation = RectangleObservation(pixelCorners: [rect[2], rect[0], rect[3], rect[1]].reversed(),
                                                   width: 640, height: 480, confidence: 1)
            let back = observation.pixelCorners(width: 640, height: 480).points
            for (p, q) in zip(back, rect) { XCTAssertEqual(p.distance(to: q), 0, accuracy: 1e-9, "\(degrees)°") }
            XCTAssertGreaterThan(observation.topLeft.y, observation.bottomLeft.y, "bottom-left origin: top is larger y")
            let box = observation.boundingBox
            XCTAssertEqual(box.x, observation.corners.map(\.x).min()!, accuracy: 1e-12)
            XCTAssertEqual(box.y + box.height, observation.corners.map(\.y).max()!, accuracy: 1e-12)
        }
    }

    func testParametersOutOfRangeAreRefused() {
        for request in [DetectRectanglesRequest(minimumAspectRatio: 0.9, maximumAspectRatio: 0.5),
                        DetectRectanglesRequest(quadratureTolerance: 46), DetectRectanglesRequest(minimumSize: -0.1),
                        DetectRectanglesRequest(minimumConfidence: 1.5), DetectRectanglesRequest(maximumObservations: -1)] {
            XCTAssertThrowsError(try request.perform(on: Image(width: 8, height: 8, channels: 3,
                                                               pixels: [UInt8](repeating: 0, count: 192)))) { error in
                XCTAssertEqual(SwiftsegError(error).kind, .badRequest)
            }
        }
    }

    /// Degenerate and odd photos (1×1, one row or column, gray, RGBA, flat, noise) run without trouble, and
    /// whatever comes back lies in the photo.
    func testOddPhotos() throws {
        var state: UInt32 = 12345
        func noise(_ n: Int) -> [UInt8] { (0..<n).map { _ in state = state &* 1_664_525 &+ 1_013_904_223; return UInt8(state >> 24) } }
        let photos = [Image(width: 1, height: 1, channels: 3, pixels: [1, 2, 3]),
                      Image(width: 1, height: 500, channels: 4, pixels: noise(2000)),
                      Image(width: 3000, height: 2, channels: 1, pixels: noise(6000)),
                      Image(width: 64, height: 48, channels: 1, pixels: [UInt8](repeating: 200, count: 64 * 48)),
                      Image(width: 300, height: 200, channels: 3, pixels: noise(180_000))]
        for photo in photos {
            let found = try DetectRectanglesRequest(minimumSize: 0, maximumObservations: 0).perform(on: photo)
            for o in found {
                for c in o.corners { XCTAssertTrue((-0.01...1.01).contains(c.x) && (-0.01...1.01).contains(c.y), "\(c)") }
                XCTAssertTrue((0...1).contains(o.confidence))
            }
        }
    }

    /// The crop of the sheet is upright: max(top, bottom) × max(left, right), portrait like the sheet.
    func testPerspectiveCorrectedCrop() throws {
        let (image, _) = try named("a4-upright.jpg")
        let crop = try XCTUnwrap(try DetectRectanglesRequest().perform(on: image).first?.perspectiveCorrected(from: image))
        XCTAssertEqual(Double(crop.width) / Double(crop.height), 0.707, accuracy: 0.01)
        XCTAssertEqual(crop.height, 337, accuracy: 2)
    }

    /// A crop of a photo with alpha keeps it in PNG and drops it in JPEG (which has none), rather than failing.
    func testCropsOfPhotosWithAlphaEncodeForEitherFormat() throws {
        let rgba = Image(width: 4, height: 3, channels: 4, pixels: [UInt8](repeating: 200, count: 48))
        XCTAssertEqual(try Image(encoded: try RectanglesPipeline.encoded(rgba, forPath: "a.png"), name: "a").channels, 4)
        XCTAssertEqual(try Image(encoded: try RectanglesPipeline.encoded(rgba, forPath: "a.JPG"), name: "a").channels, 3)
        XCTAssertThrowsError(try RectanglesPipeline.encoded(rgba, forPath: "a.gif"))
        XCTAssertEqual(RectanglesPipeline.extractPaths("out/card.png", count: 1), ["out/card.png"])
        XCTAssertEqual(RectanglesPipeline.extractPaths("out/card.png", count: 2), ["out/card-1.png", "out/card-2.png"])
    }

    /// A photo with a frame grabber's black border rows and columns: the photo's own frame is not a rectangle in
    /// it (it had been the top result, at confidence 1).
    func testThePhotosOwnBorderIsNotARectangle() throws {
        let image = try Image(contentsOfFile: Fixtures.path("rectangles-real/cases/left01.jpg"))
        let found = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
        XCTAssertFalse(found.isEmpty)
        let frame = [PixelPoint(x: 0, y: 0), PixelPoint(x: 640, y: 0), PixelPoint(x: 640, y: 480), PixelPoint(x: 0, y: 480)]
        for r in found {
            XCTAssertLessThan(Polygon.jaccard(r.pixelCorners(width: image.width, height: image.height).points, frame), 0.8)
        }
    }

    /// The committed set (120 cases): a regression floor under the benchmark's figure (PERF.md), and the
    /// scoring itself (the truth scores 1, a shifted quad less).
    func testHitRateOnTheCommittedSet() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles/cases.json"))
        XCTAssertEqual(set.cases.count, 120)
        XCTAssertEqual(set.cases[0].jaccard(of: set.cases[0].truth), 1, accuracy: 1e-9)
        XCTAssertLessThan(set.cases[0].jaccard(of: set.cases[0].truth.map { $0 + PixelPoint(x: 8, y: 0) }), 0.95)
        XCTAssertEqual(set.cases[0].jaccard(of: nil), 0)
        var hits = 0
        for c in set.cases {
            let image = try Image(contentsOfFile: set.folder + "/" + c.file)
            let top = try DetectRectanglesRequest().perform(on: image).first
            if c.jaccard(of: top?.pixelCorners(width: image.width, height: image.height).points) >= RectangleTestSet.hitThreshold { hits += 1 }
        }
        XCTAssertGreaterThanOrEqual(hits, 110, "hits on the committed set (PERF.md quotes the current figure)")
    }

    /// Committed case 030: the sheet's candidate and a near-duplicate of it mixing in a line beside it overlap by
    /// more than `sameCandidate`; the better-covered one fails the corner tests, so the other is refined in its
    /// place (before, a quad off the sheet's corners came back: Jaccard 0.947).
    func testANearDuplicateIsRefinedWhenTheFirstFails() throws {
        XCTAssertGreaterThan(try topJaccard(committedCase: "030.jpg"), 0.99)
    }

    /// Committed case 062: a print lying on a cat's face. Past its bottom corner the line of one side crosses fur
    /// with edges of the side's polarity but other colours on 74 % of the stretch the corner test reads; counted
    /// in full as the side running on, they let a quad with a corner on the saucer in the print's picture win
    /// (Jaccard 0.914).
    func testAnEdgeOfOtherColoursPastACornerWeighsLess() throws {
        XCTAssertGreaterThan(try topJaccard(committedCase: "062.jpg"), 0.99)
    }

    /// Committed case 047: a print seen so steeply that its left and right sides converge by 41°. Candidates
    /// pair opposite sides converging by up to twice the quadrature tolerance (at most 60°); a fixed 40° left
    /// the print out of the candidates, and a quad on its picture came back (Jaccard 0.689).
    func testOppositeSidesMayConvergeAsTheToleranceAllows() throws {
        XCTAssertGreaterThan(try topJaccard(committedCase: "047.jpg"), 0.99)
    }

    /// Committed case 089: a print with a white border. Its candidate lies on the print's outer edge; refinement
    /// moved each side to the strongest edge within its search radius, the picture's a few pixels inside, and a
    /// quad between the two came back (Jaccard 0.869). A side on a clean edge now stays on it.
    func testASideOnACleanEdgeStaysOnIt() throws {
        XCTAssertGreaterThan(try topJaccard(committedCase: "089.jpg"), 0.99)
    }

    /// Committed case 053: a print on gravel. The stones' edges make many lines longer than the print's left
    /// side's (none of the 64 longest lies within 14 px of it), so no candidate had it and a quad with a side on
    /// the gravel came back (Jaccard 0.853). Nothing from those lines is confident, so a second look takes more
    /// lines (`RectangleDetector.secondLookBelow`).
    func testAPhotoWithNothingConfidentGetsASecondLookWithMoreLines() throws {
        XCTAssertGreaterThan(try topJaccard(committedCase: "053.jpg"), 0.99)
    }

    func topJaccard(committedCase file: String) throws -> Double {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles/cases.json"))
        let c = try XCTUnwrap(set.cases.first { $0.file == file })
        let image = try Image(contentsOfFile: set.folder + "/" + c.file)
        let top = try XCTUnwrap(DetectRectanglesRequest().perform(on: image).first)
        return c.jaccard(of: top.pixelCorners(width: image.width, height: image.height).points)
    }

    /// Real phone photos of printed Sudoku grids (Tests/Fixtures/rectangles-grids, downscaled by
    /// Tools/make_real_grid_fixtures.py from the development set): the grid is the top result, not a quad mixing its
    /// sides with the sheet's, the booklet's or the stack's edges next to it.
    func testFindsThePrintedGridOnRealPhotos() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles-grids/corners.csv"))
        XCTAssertEqual(set.cases.count, 6)
        for c in set.cases {
            let image = try Image(contentsOfFile: set.folder + "/" + c.file)
            XCTAssertEqual([image.width, image.height], [c.width, c.height])
            let top = try DetectRectanglesRequest().perform(on: image).first
            let j = c.jaccard(of: top?.pixelCorners(width: image.width, height: image.height).points)
            XCTAssertGreaterThanOrEqual(j, RectangleTestSet.hitThreshold, c.file)
        }
    }

    /// Real phone photos of sheets and a receipt on desks and tables (Tests/Fixtures/rectangles-sheets, downscaled
    /// by Tools/make_real_sheet_cases.py from jscanify's test photos): the sheet is the top result whether it lies
    /// flat, is curled at a corner or bows along a side (its corners then fitted locally); and with
    /// `maximumObservations` 0 the table printed on one sheet comes back too, after the sheet, with no result
    /// mixing the sheet's sides with the table's.
    func testFindsTheSheetOnRealPhotos() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles-sheets/corners.csv"))
        XCTAssertEqual(set.cases.count, 5)
        for c in set.cases where c.kind != "table" {
            let image = try Image(contentsOfFile: set.folder + "/" + c.file)
            XCTAssertEqual([image.width, image.height], [c.width, c.height])
            let top = try DetectRectanglesRequest().perform(on: image).first
            XCTAssertGreaterThanOrEqual(c.jaccard(of: top?.pixelCorners(width: image.width, height: image.height).points),
                                        RectangleTestSet.hitThreshold, c.file)
        }
        let sheet = try XCTUnwrap(set.cases.first { $0.kind == "sheet" && $0.file == "test4.jpg" })
        let table = try XCTUnwrap(set.cases.first { $0.kind == "table" })
        let image = try Image(contentsOfFile: set.folder + "/" + table.file)
        let all = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
            .map { $0.pixelCorners(width: image.width, height: image.height).points }
        XCTAssertGreaterThanOrEqual(all.count, 2)
        XCTAssertGreaterThanOrEqual(sheet.jaccard(of: all.first), RectangleTestSet.hitThreshold, "the sheet first")
        XCTAssertTrue(all.contains { table.jaccard(of: $0) >= RectangleTestSet.hitThreshold }, "the printed table")
        for q in all { XCTAssertFalse(sheet.isHybrid(q) || table.isHybrid(q), "a quad mixing the sheet and the table: \(q)") }
    }

    /// On the same photos with `maximumObservations` 0, results that mix the grid's sides with another
    /// rectangle's (one to three sides on the grid's without being the grid: its border and one of its inner
    /// lines) are dropped when the border's edge runs on past their corner: 8 such results before that test, 3
    /// after it (where a curled border bends away from the straight side within a few pixels), 1 once every
    /// result after the first must pass again with its corners fitted locally (PERF.md "Rectangles"). The two
    /// photos at 1400 px gave one more each (the grid cut by its first or last cell line) until such a cut of a
    /// better result was dropped: 3 → 1; none since a result lying along a better one's side is dropped
    /// (`RectangleDetector.liesAlong`). The top result is never one. And the measure itself on made-up quads.
    func testResultsMixingTheGridsSidesWithAnothersAreDropped() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles-grids/corners.csv"))
        let c = set.cases[0], t = c.truth
        XCTAssertEqual(c.sidesOnTruth(of: t), 4)
        XCTAssertFalse(c.isHybrid(t))
        // The grid's left, top and right sides with a bottom side a third of the way down: three on the truth.
        let third = [t[0], t[1], t[1] + (t[2] - t[1]) * (1.0 / 3), t[0] + (t[3] - t[0]) * (1.0 / 3)]
        XCTAssertEqual(c.sidesOnTruth(of: third), 3)
        XCTAssertTrue(c.isHybrid(third))
        // A quad well inside shares no side: another rectangle, not a hybrid.
        let centre = t.reduce(PixelPoint(x: 0, y: 0), +) * 0.25
        XCTAssertFalse(c.isHybrid(t.map { centre + ($0 - centre) * 0.5 }))
        var hybrids = 0
        for c in set.cases {
            let image = try Image(contentsOfFile: set.folder + "/" + c.file)
            let all = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
                .map { $0.pixelCorners(width: image.width, height: image.height).points }
            XCTAssertFalse(all.first.map(c.isHybrid) ?? true, c.file)
            hybrids += all.filter(c.isHybrid).count
        }
        XCTAssertEqual(hybrids, 0, "results mixing the grid's sides with another's")
    }

    /// The committed set with `maximumObservations` 0: no result after the first mixes the true rectangle's
    /// sides with another's (`RectangleDetector.liesAlong`; 23 of the 120 photos had one before, among them
    /// case 020, a print on gravel stretched past its right corners to a stone's edge, and 046, a shelf behind a
    /// card closed by the card's edge). A top result that is one is a miss, counted by the hit rate.
    func testNoLaterResultMixesTheTruthWithAnother() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles/cases.json"))
        var mixed: [String] = []
        for c in set.cases {
            let image = try Image(contentsOfFile: set.folder + "/" + c.file)
            let all = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
                .map { $0.pixelCorners(width: image.width, height: image.height).points }
            if all.dropFirst().contains(where: c.isHybrid) { mixed.append(c.file) }
        }
        XCTAssertEqual(mixed, [], "photos with a later result mixing the truth's sides with another's")
    }

    /// A large phone JPEG is decoded reduced in the DCT for detection (`RectanglesPipeline.decode`): the grid
    /// is found as on the full decode, and reported in the full photo's pixels.
    func testLargeJPEGsAreDetectedReducedInTheFullPhotosPixels() throws {
        let set = try RectangleTestSet(manifest: Fixtures.path("rectangles-grids/corners.csv"))
        let c = set.cases[0]
        let small = try Image(contentsOfFile: set.folder + "/" + c.file)
        let scale = 2.5   // 800 px → 2000: decoded at 1/2, 1000 px
        let large = LanczosResampler.resize(small, width: Int(Double(small.width) * scale), height: Int(Double(small.height) * scale))
        let bytes = try large.jpegData(quality: 92)
        let photo = try RectanglesPipeline.decode(bytes, name: "large.jpg", options: DecodingOptions(), wantsFull: true)
        let reduced = photo.reduced
        XCTAssertEqual(reduced.denominator, 2)
        XCTAssertEqual([reduced.fullWidth, reduced.fullHeight], [large.width, large.height])
        let result = try RectanglesPipeline.detect(reduced, request: DetectRectanglesRequest())
        XCTAssertEqual([result.width, result.height], [large.width, large.height])
        let full = try XCTUnwrap(photo.full)
        XCTAssertEqual([full.width, full.height], [large.width, large.height])
        let fromFull = try DetectRectanglesRequest().perform(on: full).first
        let truth = RectangleTestSet.Case(file: c.file, kind: c.kind, subsets: c.subsets, width: large.width, height: large.height,
                                          corners: c.corners.map { $0.map { $0 * scale } }, documentSize: c.documentSize.map { $0 * scale })
        let reducedQuad = result.observations.first?.pixelCorners(width: result.width, height: result.height).points
        XCTAssertGreaterThanOrEqual(truth.jaccard(of: reducedQuad), RectangleTestSet.hitThreshold)
        XCTAssertGreaterThanOrEqual(truth.jaccard(of: fromFull?.pixelCorners(width: full.width, height: full.height).points),
                                    RectangleTestSet.hitThreshold)
        let q = try XCTUnwrap(reducedQuad), f = try XCTUnwrap(fromFull?.pixelCorners(width: full.width, height: full.height).points)
        XCTAssertGreaterThan(Polygon.jaccard(q, f), 0.97, "the same quad either way")
    }

    /// A sheet on a table with a frame printed on it: with `maximumObservations` 0 both come back, the sheet
    /// (enclosing) first, and no result mixes the sheet's sides with the frame's.
    func testNestedRectanglesComeBackApart() throws {
        let width = 640, height = 480
        let sheet = [PixelPoint(x: 150, y: 60), PixelPoint(x: 500, y: 80), PixelPoint(x: 520, y: 420), PixelPoint(x: 120, y: 400)]
        let frame = Homography(from: [PixelPoint(x: 0, y: 0), PixelPoint(x: 1, y: 0), PixelPoint(x: 1, y: 1), PixelPoint(x: 0, y: 1)],
                               to: sheet)!
        let inner = [PixelPoint(x: 0.15, y: 0.18), PixelPoint(x: 0.85, y: 0.18), PixelPoint(x: 0.85, y: 0.72),
                     PixelPoint(x: 0.15, y: 0.72)].map { frame.apply($0) }
        func inside(_ q: [PixelPoint], _ p: PixelPoint) -> Bool {
            (0..<4).allSatisfy { (q[($0 + 1) % 4] - q[$0]).cross(p - q[$0]) >= 0 }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                // 4×4 samples a pixel: the sheet's edges antialiased as a camera sees them.
                var covered = 0
                for sy in 0..<4 { for sx in 0..<4 {
                    if inside(sheet, PixelPoint(x: Double(x) + (Double(sx) + 0.5) / 4, y: Double(y) + (Double(sy) + 0.5) / 4)) { covered += 1 }
                } }
                let table: (Double, Double, Double) = (96 + Double((x * 7 + y * 13) % 9), 78, 60)
                let t = Double(covered) / 16
                let rgb = [table.0 * (1 - t) + 236 * t, table.1 * (1 - t) + 232 * t, table.2 * (1 - t) + 225 * t]
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = UInt8(rgb[c].rounded()) }
            }
        }
        var image = Image(width: width, height: height, channels: 3, pixels: pixels)
        Drawing.strokePolygon(inner, on: &image, lineWidth: 3, color: (30, 30, 30))
        let found = try DetectRectanglesRequest(maximumObservations: 0).perform(on: image)
        let quads = found.map { $0.pixelCorners(width: width, height: height).points }
        XCTAssertGreaterThanOrEqual(quads.count, 2)
        XCTAssertGreaterThanOrEqual(Polygon.jaccard(quads[0], sheet), 0.95, "the sheet first")
        XCTAssertTrue(quads.contains { Polygon.jaccard($0, inner) >= 0.9 }, "the frame")
        // A mix of the two overlaps one of them by much but matches neither.
        for q in quads where Polygon.jaccard(q, sheet) > 0.5 || Polygon.jaccard(q, inner) > 0.5 {
            XCTAssertTrue(Polygon.jaccard(q, sheet) >= 0.9 || Polygon.jaccard(q, inner) >= 0.85, "a mixed quad: \(q)")
        }
    }
}
