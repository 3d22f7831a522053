// PNG details libpng's simplified API does not expose: its format codes (C macros Swift does not import)
// and the file's chunk list.

/// libpng's simplified-API format codes (macros Swift does not import).
enum PNGFormat {
    static let gray: UInt32 = 0       // PNG_FORMAT_GRAY
    static let alphaFlag: UInt32 = 1  // PNG_FORMAT_FLAG_ALPHA
    static let colorFlag: UInt32 = 2  // PNG_FORMAT_FLAG_COLOR
    static let rgb: UInt32 = 2        // PNG_FORMAT_RGB = PNG_FORMAT_FLAG_COLOR
    static let rgba: UInt32 = 3       // PNG_FORMAT_RGBA
    static let linearFlag: UInt32 = 4 // PNG_FORMAT_FLAG_LINEAR: 16-bit samples
}

/// Walking a PNG's chunks (libpng's simplified API does not expose them).
enum PNGChunks {
    /// Calls `body(type, dataRange)` for each complete chunk until it returns false or IEND.
    static func forEach(_ b: [UInt8], _ body: (String, Range<Int>) -> Bool) {
        var i = 8
        while i + 12 <= b.count {
            let length = b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            guard length >= 0, length <= b.count, i + 12 + length <= b.count else { return }
            if !body(type, (i + 8)..<(i + 8 + length)) || type == "IEND" { return }
            i += 12 + length
        }
    }

    /// Whether the file says how its samples are encoded (gAMA, sRGB, iCCP or cHRM).
    static func hasColorSpaceInformation(_ b: [UInt8]) -> Bool {
        var found = false
        forEach(b) { type, _ in
            if ["gAMA", "sRGB", "iCCP", "cHRM"].contains(type) { found = true }
            return !found && type != "IDAT"
        }
        return found
    }
}
