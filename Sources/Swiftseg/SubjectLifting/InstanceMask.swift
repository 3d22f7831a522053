/// A label map: 0 = background, 1…N = foreground instances, one label per pixel, stored as UInt8 when N ≤ 255
/// and UInt16 otherwise (never wrapping).
///
/// ```swift
/// let label = mask[x: 10, y: 20]     // 0 or an instance index
/// ```
public struct InstanceMask: Sendable, Equatable {
    public enum Storage: Sendable, Equatable {
        case uint8([UInt8])
        case uint16([UInt16])
    }

    public let width: Int
    public let height: Int
    /// Number of instances N (labels are 1…N).
    public let count: Int
    public let storage: Storage

    /// Builds the map from labels (each in 0…`count`), choosing the narrowest storage.
    init(width: Int, height: Int, count: Int, labels: [UInt32]) {
        self.width = width
        self.height = height
        self.count = count
        storage = count <= Int(UInt8.max) ? .uint8(labels.map { UInt8($0) }) : .uint16(labels.map { UInt16($0) })
    }

    public subscript(x x: Int, y y: Int) -> Int { self[y * width + x] }

    /// Label of pixel `index` (row-major).
    public subscript(index: Int) -> Int {
        switch storage {
        case .uint8(let a): Int(a[index])
        case .uint16(let a): Int(a[index])
        }
    }

    /// Bits per label: 8 or 16.
    public var bitDepth: Int { if case .uint8 = storage { 8 } else { 16 } }
}

extension InstanceMask {
    /// The label map as a gray PNG: 8-bit when N ≤ 255, else 16-bit; each pixel's value is its label.
    public func pngData(compression: PNGCompression = .fast) throws -> [UInt8] {
        switch storage {
        case .uint8(let labels):
            return try PNGEncoder.encode(width: width, height: height, channels: 1, bitDepth: 8, rows: labels,
                                         compression: compression)
        case .uint16(let labels):
            let bigEndian = labels.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            return try PNGEncoder.encode(width: width, height: height, channels: 1, bitDepth: 16, rows: bigEndian,
                                         compression: compression)
        }
    }
}
