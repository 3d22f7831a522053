import SwiftsegRuntime
import SwiftsegTestSupport
import XCTest

final class ArenaTests: XCTestCase {
    func testMarkAndRelease() {
        let arena = Arena()
        arena.reset()
        let a = arena.allocate(floats: 10)
        let mark = arena.mark()
        _ = arena.allocate(floats: 100)
        arena.release(to: mark)
        arena.reset()   // grows to the peak seen
        XCTAssertGreaterThanOrEqual(arena.capacityBytes, 4 * 110)
        let b = arena.allocate(floats: 10)
        _ = a
        XCTAssertFalse(arena.usedOverflow)
        b[9] = 1
    }
}

extension ArenaTests {
    /// Big buffers come 2 MiB-aligned (huge-page candidates), small ones 64-byte aligned; all are writable to
    /// the end and freed with `deallocate()`.
    func testLargeBufferAlignment() {
        for bytes in [64, 4096, (2 << 20) - 4, 2 << 20, (5 << 20) + 12] {
            let p = LargeBuffer.allocate(byteCount: bytes)
            let alignment = bytes >= 2 << 20 ? 2 << 20 : 64
            XCTAssertEqual(Int(bitPattern: p) % alignment, 0, "\(bytes) bytes")
            p.storeBytes(of: 7, toByteOffset: bytes - 1, as: UInt8.self)
            XCTAssertEqual(p.load(fromByteOffset: bytes - 1, as: UInt8.self), 7)
            p.deallocate()
        }
    }
}

final class NPYTests: XCTestCase {
    func testNPYRoundTrip() throws {
        let t = randomTensor(channels: 2, height: 3, width: 5, seed: 9)
        let back = try NPY.decode(NPY.encode(t), name: "mem")
        XCTAssertEqual(back.shape, [1, 2, 3, 5])
        XCTAssertEqual(back.values, t.values)
        XCTAssertThrowsError(try NPY.decode(Array(NPY.encode(t).dropLast(4)), name: "short.npy")) {
            XCTAssertTrue("\($0)".contains("truncated"))
        }
    }
}
