import Foundation

/// A safetensors file (8-byte little-endian header length, JSON header, raw tensor bytes), memory-mapped.
///
/// Only what the runtime needs is accepted: F32 tensors, offsets inside the file, sizes that match shapes,
/// 4-byte aligned data. Anything else is a ``RuntimeError/invalidWeights(_:)`` naming the file.
///
/// ```swift
/// let st = try SafeTensorsFile(path: "Weights/u2netp.safetensors")
/// print(st.metadata["variant"] ?? "?", st.tensors.count)
/// ```
public final class SafeTensorsFile: @unchecked Sendable {
    public struct TensorInfo: Sendable, Equatable {
        public let name: String
        public let dtype: String
        public let shape: [Int]
        /// Byte range in the data section.
        public let byteRange: Range<Int>
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// Where the bytes came from, for messages.
    public let name: String
    public let metadata: [String: String]
    public let tensors: [String: TensorInfo]
    private let file: MappedFile
    private let dataStart: Int

    /// Largest header accepted (100 MB, as the reference implementation does).
    static let maxHeaderBytes = 100_000_000

    public convenience init(path: String) throws {
        try self.init(file: MappedFile(path: path), name: path)
    }

    public init(file: MappedFile, name: String) throws {
        self.file = file
        self.name = name
        let bytes = file.bytes
        func bad(_ why: String) -> RuntimeError { .invalidWeights("\(name): not a valid safetensors file: \(why)") }
        guard bytes.count >= 8 else { throw bad("only \(bytes.count) bytes") }
        let rawLength = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        guard rawLength >= 2, rawLength <= UInt64(SafeTensorsFile.maxHeaderBytes) else {
            throw bad("header length \(rawLength) is implausible")
        }
        let headerLength = Int(rawLength)
        guard headerLength <= bytes.count - 8 else {
            throw bad("header needs \(headerLength) bytes, file has \(bytes.count - 8) (truncated?)")
        }
        let headerData = Data(bytes: bytes.baseAddress! + 8, count: headerLength)
        guard let json = try? JSONSerialization.jsonObject(with: headerData), let header = json as? [String: Any] else {
            throw bad("header is not a JSON object")
        }
        dataStart = 8 + headerLength
        let dataSize = bytes.count - dataStart
        var metadata: [String: String] = [:]
        var tensors: [String: TensorInfo] = [:]
        var covered = 0
        for (key, value) in header {
            if key == "__metadata__" {
                guard let m = value as? [String: Any] else { throw bad("__metadata__ is not an object") }
                for (k, v) in m {
                    guard let s = v as? String else { throw bad("metadata value for \(k) is not a string") }
                    metadata[k] = s
                }
                continue
            }
            guard let entry = value as? [String: Any], let dtype = entry["dtype"] as? String,
                  let shapeAny = entry["shape"] as? [Any], let offsetsAny = entry["data_offsets"] as? [Any],
                  offsetsAny.count == 2 else { throw bad("entry \(key) lacks dtype/shape/data_offsets") }
            let shape = try shapeAny.map { v -> Int in
                guard let n = v as? Int, n >= 0, n <= 1 << 31 else { throw bad("entry \(key) has a bad shape") }
                return n
            }
            let offsets = try offsetsAny.map { v -> Int in
                guard let n = v as? Int, n >= 0 else { throw bad("entry \(key) has bad data_offsets") }
                return n
            }
            guard dtype == "F32" else { throw bad("tensor \(key) is \(dtype); only F32 is supported") }
            guard offsets[0] <= offsets[1], offsets[1] <= dataSize else {
                throw bad("tensor \(key) spans bytes \(offsets[0])..<\(offsets[1]) of \(dataSize) (truncated?)")
            }
            let count = shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).overflow ? Int.max : $0 * $1 }
            guard count != Int.max, count * 4 == offsets[1] - offsets[0] else {
                throw bad("tensor \(key) has \(offsets[1] - offsets[0]) bytes for shape \(shape)")
            }
            guard (dataStart + offsets[0]) % 4 == 0 else { throw bad("tensor \(key) is not 4-byte aligned") }
            covered += offsets[1] - offsets[0]
            tensors[key] = TensorInfo(name: key, dtype: dtype, shape: shape, byteRange: offsets[0]..<offsets[1])
        }
        guard covered <= dataSize else { throw bad("tensors overlap") }
        self.metadata = metadata
        self.tensors = tensors
    }

    /// See ``MappedFile/releaseResidentPages()``.
    public func releaseResidentPages() { file.releaseResidentPages() }

    /// Pointer to the floats of tensor `name` (inside the mapping; valid while this object lives).
    public func floats(_ name: String) -> UnsafePointer<Float>? {
        guard let info = tensors[name] else { return nil }
        return (file.bytes.baseAddress! + dataStart + info.byteRange.lowerBound)
            .assumingMemoryBound(to: Float.self)
    }

    /// Serialises F32 tensors and metadata into safetensors bytes (data 64-byte aligned), e.g. for tests and tools.
    public static func serialize(tensors: [(name: String, shape: [Int], values: [Float])],
                                 metadata: [String: String] = [:]) -> [UInt8] {
        var header: [String: Any] = [:]
        if !metadata.isEmpty { header["__metadata__"] = metadata }
        var offset = 0
        for t in tensors {
            header[t.name] = ["dtype": "F32", "shape": t.shape, "data_offsets": [offset, offset + 4 * t.values.count]]
            offset += 4 * t.values.count
        }
        var json = Array((try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data())
        json += [UInt8](repeating: 0x20, count: (64 - (8 + json.count) % 64) % 64)
        var out = withUnsafeBytes(of: UInt64(json.count).littleEndian) { Array($0) } + json
        for t in tensors { t.values.withUnsafeBytes { out += $0 } }
        return out
    }
}
