import _CPNG
import XCTest

/// zlib, the reference the project's own deflate and inflate are held to.
enum ZlibReference {
    /// `data` as one zlib stream at `level` with `strategy` (Z_DEFAULT_STRATEGY, Z_RLE, …).
    static func compress(_ data: [UInt8], level: Int32, strategy: Int32) -> [UInt8] {
        var stream = z_stream()
        XCTAssertEqual(swiftseg_deflateInit2(&stream, level, strategy), Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 16)
        var input = data
        let status = input.withUnsafeMutableBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        XCTAssertEqual(status, Z_STREAM_END)
        return Array(out.prefix(Int(stream.total_out)))
    }
}
