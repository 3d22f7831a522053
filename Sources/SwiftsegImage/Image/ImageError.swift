/// Why an image could not be read or written. `description` is one line naming the file and the problem.
public struct ImageError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
