/// Why an image could not be read or written. `description` is one line naming the file and the problem;
/// `kind` says whose problem it is, so a caller can map it (a server: 400, 413, 415 or 500).
public struct ImageError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// In none of the formats swiftseg reads (``ImageFormat``), corrupt, truncated or empty.
        case unreadableImage
        /// Over a decoding limit (bytes, pixels, side): refused before decoding.
        case tooLarge
        /// A file or folder is missing, not readable or not writable.
        case fileSystem
        /// The output asked for cannot hold the image (JPEG has no alpha).
        case unsupportedOutput
        /// An encoder or decoder failed to start or compress: not the input's fault.
        case codecFailure
    }

    public let kind: Kind
    public let description: String

    /// Line breaks (libheif's messages have them) become "; ": the description stays one line.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description.split(whereSeparator: \.isNewline)
            .map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
