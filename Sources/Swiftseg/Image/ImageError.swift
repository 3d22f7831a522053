/// Why an image could not be read or written. `description` is one line naming the file and the problem.
public struct ImageError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// libpng's simplified-API format codes (macros Swift does not import).
enum PNGFormat {
    static let gray: UInt32 = 0       // PNG_FORMAT_GRAY
    static let alphaFlag: UInt32 = 1  // PNG_FORMAT_FLAG_ALPHA
    static let colorFlag: UInt32 = 2  // PNG_FORMAT_FLAG_COLOR
    static let rgb: UInt32 = 2        // PNG_FORMAT_RGB = PNG_FORMAT_FLAG_COLOR
    static let rgba: UInt32 = 3       // PNG_FORMAT_RGBA
    static let linearFlag: UInt32 = 4 // PNG_FORMAT_FLAG_LINEAR: 16-bit samples
}
