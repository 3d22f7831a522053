import Foundation

/// NumPy `.npy` files of float32 (little-endian, C order), the interchange format of `swiftseg run-tensor`.
///
/// ```swift
/// let x = try NPY.read(path: "input.npy")          // e.g. shape [1, 3, 320, 320]
/// try NPY.write(x, path: "copy.npy")
/// ```
public enum NPY {
    /// Reads a float32 (`<f4`) C-order array. Other dtypes, Fortran order or a short file throw
    /// ``RuntimeError/invalidTensor(_:)`` naming the file.
    public static func read(path: String) throws -> Tensor {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RuntimeError.io("\(path): cannot read file")
        }
        return try decode([UInt8](data), name: path)
    }

    public static func decode(_ bytes: [UInt8], name: String) throws -> Tensor {
        func bad(_ why: String) -> RuntimeError { .invalidTensor("\(name): not a float32 .npy file: \(why)") }
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1...5]) == Array("NUMPY".utf8) else {
            throw bad("missing NUMPY magic")
        }
        let major = bytes[6]
        let headerLength: Int, headerStart: Int
        if major == 1 {
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        } else if major == 2 || major == 3, bytes.count >= 12 {
            headerLength = (0..<4).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
            headerStart = 12
        } else {
            throw bad("unsupported version \(major)")
        }
        guard headerStart + headerLength <= bytes.count else { throw bad("header is truncated") }
        let header = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        guard header.contains("'descr': '<f4'") else { throw bad("dtype is not '<f4' (header \(header.trimmed))") }
        guard header.contains("'fortran_order': False") else { throw bad("Fortran order is not supported") }
        guard let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")") else {
            throw bad("no shape in header")
        }
        let dims = header[open.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let shape = try dims.map { d -> Int in
            guard let n = Int(d), n > 0, n < 1 << 31 else { throw bad("bad dimension '\(d)'") }
            return n
        }
        guard !shape.isEmpty else { throw bad("scalar arrays are not tensors") }
        let count = shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).overflow ? Int.max : $0 * $1 }
        let dataStart = headerStart + headerLength
        guard count < Int.max / 4, bytes.count - dataStart >= count * 4 else {
            throw bad("data is truncated: shape \(shape) needs \(count * 4) bytes")
        }
        let tensor = Tensor(shape: shape)
        bytes.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(tensor.data).copyMemory(from: raw.baseAddress! + dataStart, byteCount: count * 4)
        }
        return tensor
    }

    /// The bytes of a version-1 `.npy` file holding `tensor` as `<f4`.
    public static func encode(_ tensor: Tensor) -> [UInt8] {
        let shape = tensor.shape.count == 1 ? "(\(tensor.shape[0]),)" : "(\(tensor.shape.map(String.init).joined(separator: ", ")))"
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shape), }"
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var out: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0]
        out += [UInt8(header.utf8.count & 0xff), UInt8(header.utf8.count >> 8)]
        out += Array(header.utf8)
        out += UnsafeRawBufferPointer(start: tensor.data, count: tensor.count * 4)
        return out
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
