/// Errors from the runtime. `description` is one line naming the file and the problem, ready for stderr.
public enum RuntimeError: Error, CustomStringConvertible, Equatable {
    /// A file could not be opened, read or mapped.
    case io(String)
    /// A weights file is malformed, truncated or not what the model needs.
    case invalidWeights(String)
    /// A tensor file (.npy) is malformed or of an unsupported kind.
    case invalidTensor(String)

    public var description: String {
        switch self {
        case .io(let s), .invalidWeights(let s), .invalidTensor(let s): return s
        }
    }
}
