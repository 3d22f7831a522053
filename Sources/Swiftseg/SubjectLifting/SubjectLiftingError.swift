/// A request the observation cannot answer (an unknown instance, a point outside the image, …).
/// `description` is one line for the user.
public struct SubjectLiftingError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
