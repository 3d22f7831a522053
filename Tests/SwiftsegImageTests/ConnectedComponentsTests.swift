import SwiftsegImage
import XCTest

final class ConnectedComponentsTests: XCTestCase {
    /// The plain multi-source BFS `grow` is specified as: every labelled pixel a source, in scan order.
    func referenceGrow(_ labels: [UInt32], into weight: [UInt8], width: Int, height: Int) -> [UInt32] {
        var out = labels
        var queue = (0..<labels.count).filter { labels[$0] != 0 }
        var head = 0
        while head < queue.count {
            let i = queue[head]; head += 1
            let x = i % width, y = i / width
            for dy in -1...1 {
                for dx in -1...1 {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < width, ny >= 0, ny < height else { continue }
                    let j = ny * width + nx
                    if out[j] == 0 && weight[j] != 0 { out[j] = out[i]; queue.append(j) }
                }
            }
        }
        return out
    }

    /// `grow` (boundary seeds only, no division per pixel) gives the reference's labels exactly: blobby and
    /// noisy masks, soft weight halos, unreachable pixels, 1-pixel-wide and 1-pixel-high images.
    func testGrowMatchesReference() {
        var state: UInt64 = 7
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for (width, height) in [(64, 48), (1, 30), (30, 1), (97, 61), (2, 2)] {
            for trial in 0..<6 {
                // Blobs: a few discs; weight: a halo around them plus noise, some of it cut off.
                var mask = [Bool](repeating: false, count: width * height)
                var weight = [UInt8](repeating: 0, count: width * height)
                for _ in 0..<(1 + trial) {
                    let cx = Int(next() % UInt64(width)), cy = Int(next() % UInt64(height)), r = 1 + Int(next() % 8)
                    for y in 0..<height {
                        for x in 0..<width {
                            let d = max(abs(x - cx), abs(y - cy))
                            if d <= r { mask[y * width + x] = true }
                            if d <= r + 4 { weight[y * width + x] = 200 }
                        }
                    }
                }
                for i in 0..<weight.count where next() % 5 == 0 { weight[i] = trial % 2 == 0 ? 0 : 50 }
                let labels = ConnectedComponents.label(mask, width: width, height: height).labels
                XCTAssertEqual(ConnectedComponents.grow(labels, into: weight, width: width, height: height),
                               referenceGrow(labels, into: weight, width: width, height: height),
                               "\(width)×\(height), trial \(trial)")
            }
        }
    }

    /// `label` against a flood fill from each component's first pixel in raster order (8-connected), with
    /// components under `minimumArea` dropped, on random masks dense enough to make U shapes that merge late.
    func testLabelMatchesFloodFill() {
        var state: UInt64 = 11
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for (width, height, density, minimumArea) in [(40, 30, 45, 1), (40, 30, 60, 5), (1, 50, 50, 1), (73, 9, 55, 3)] {
            let mask = (0..<width * height).map { _ in next() % 100 < UInt64(density) }
            var expected = [UInt32](repeating: 0, count: mask.count)
            var seen = [Bool](repeating: false, count: mask.count)
            var areas: [Int] = []
            for start in 0..<mask.count where mask[start] && !seen[start] {
                var component = [start], head = 0
                seen[start] = true
                while head < component.count {
                    let i = component[head]; head += 1
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let x = i % width + dx, y = i / width + dy
                            guard x >= 0, x < width, y >= 0, y < height, mask[y * width + x], !seen[y * width + x] else { continue }
                            seen[y * width + x] = true
                            component.append(y * width + x)
                        }
                    }
                }
                if component.count >= minimumArea {
                    areas.append(component.count)
                    for i in component { expected[i] = UInt32(areas.count) }
                }
            }
            let result = ConnectedComponents.label(mask, width: width, height: height, minimumArea: minimumArea)
            XCTAssertEqual(result.labels, expected, "\(width)×\(height)")
            XCTAssertEqual(result.count, areas.count)
            XCTAssertEqual(result.areas, areas)
        }
    }

    /// The soft-mask entry point labels exactly the thresholded mask, at every cut (none, all, in between),
    /// including runs that touch only diagonally and single-pixel rows and columns.
    func testLabelOfSoftValuesMatchesThresholdedMask() {
        var state: UInt64 = 5
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for (width, height) in [(64, 48), (1, 30), (30, 1), (9, 7)] {
            let values = (0..<width * height).map { _ in UInt8(next() % 256) }
            for cut: UInt8 in [0, 1, 100, 128, 200, 255] {
                let fast = ConnectedComponents.label(values, atLeast: cut, width: width, height: height, minimumArea: 2)
                let plain = ConnectedComponents.label(values.map { $0 >= cut }, width: width, height: height, minimumArea: 2)
                XCTAssertEqual(fast.labels, plain.labels, "\(width)×\(height) cut \(cut)")
                XCTAssertEqual(fast.areas, plain.areas)
            }
        }
        // Two runs that touch only at a corner are one component; a gap of one pixel keeps them apart.
        let diagonal: [UInt8] = [9, 9, 0, 0,
                                 0, 0, 9, 9,
                                 9, 0, 0, 0]
        XCTAssertEqual(ConnectedComponents.label(diagonal, atLeast: 5, width: 4, height: 3).labels,
                       [1, 1, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0])
    }
}

final class CompositingTests: XCTestCase {
    /// paste copies the picture at its offset, clipped to the canvas, on the background colour.
    func testPasteClipsToTheCanvas() {
        let picture = Image(width: 2, height: 2, channels: 1, pixels: [1, 2, 3, 4])
        XCTAssertEqual(Compositing.paste(picture, width: 3, height: 3, x: 1, y: 0).pixels, [0, 1, 2, 0, 3, 4, 0, 0, 0])
        XCTAssertEqual(Compositing.paste(picture, width: 2, height: 2, x: -1, y: 1, background: 9).pixels, [9, 9, 2, 9])
        XCTAssertEqual(Compositing.paste(picture, width: 2, height: 2, x: 5, y: 5).pixels, [0, 0, 0, 0])
    }
}
