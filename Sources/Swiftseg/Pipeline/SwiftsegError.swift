import SwiftsegRuntime

/// Any error from the requests library, sorted by whose problem it is, with one line for the user. The CLI
/// prints `message`; a server maps `kind` to a status (400, 415, 413, 500) and a JSON body.
///
/// ```swift
/// do { try pipeline.lift(photo, with: segmenter) }
/// catch { let e = SwiftsegError(error); print(e.kind, e.message) }   // badRequest "instance 4 does not exist: …"
/// ```
public struct SwiftsegError: Error, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// The request asks for something impossible or malformed: an unknown instance, a point outside the
        /// image, a bad colour, a missing or unwritable file, a model of the wrong kind.
        case badRequest = "bad_request"
        /// The input is not an image this library reads: corrupt, truncated, empty, another format.
        case unsupportedInput = "unsupported_input"
        /// The input is over a limit (bytes, pixels, side), refused before decoding.
        case tooLarge = "too_large"
        /// Not the caller's fault: an encoder failed, a weights file is damaged.
        case `internal` = "internal"
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Sorts any error the library throws; errors it does not know are internal.
    public init(_ error: any Error) {
        switch error {
        case let e as SwiftsegError: self = e
        case let e as ImageError:
            switch e.kind {
            case .unreadableImage: self.init(.unsupportedInput, e.description)
            case .tooLarge: self.init(.tooLarge, e.description)
            case .fileSystem, .unsupportedOutput: self.init(.badRequest, e.description)
            case .codecFailure: self.init(.internal, e.description)
            }
        case let e as SubjectLiftingError: self.init(.badRequest, e.description)
        case let e as RectangleDetectionError: self.init(.badRequest, e.description)
        case let e as RuntimeError: self.init(.internal, e.description)
        case let e as ClosedFormMatting.Failure: self.init(.internal, e.description)
        default: self.init(.internal, "\(error)")
        }
    }

    public var description: String { message }
}
