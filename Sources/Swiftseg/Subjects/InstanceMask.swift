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
