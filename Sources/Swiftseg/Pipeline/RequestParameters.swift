/// A request's named parameters, as a command line's flags (`--threshold 0.4`) or a URL's query
/// (`?threshold=0.4`) give them. The requests read their options from it, so `swiftseg infer` and the service
/// take the same names, defaults and ranges, and refuse the same values in the same words.
///
/// ```swift
/// let query = RequestParameters(values: ["threshold": "0.4", "crop": "1"], prefix: "")
/// let cutout = try CutoutParameters(query)          // cutout.lifting.request.threshold == 0.4, crop == true
/// try query.number("threshold", default: 0.5, in: 0...1)   // 0.4; "threshold expects a number in …" if not
/// ```
///
/// Errors are ``SwiftsegError`` of kind `badRequest`, naming the parameter as the caller spells it
/// (`prefix` + name: "--threshold" for the CLI, "threshold" for a query).
public struct RequestParameters: Sendable {
    /// Parameters given with a value, by name without dashes.
    public var values: [String: String]
    /// Parameters given without a value (command-line flags).
    public var flags: Set<String>
    /// What goes before a name in messages: "--" on the command line, "" in a query.
    public var prefix: String

    public init(values: [String: String] = [:], flags: Set<String> = [], prefix: String) {
        self.values = values
        self.flags = flags
        self.prefix = prefix
    }

    /// The name as the caller writes it.
    public func label(_ name: String) -> String { prefix + name }

    public func value(_ name: String) -> String? { values[name] }

    /// Whether a yes/no parameter is on: given as a flag, or with a value 1/true/yes/on (0/false/no/off: off;
    /// an empty value, as in `?crop`, is on).
    public func flag(_ name: String) throws -> Bool {
        if flags.contains(name) { return true }
        guard let text = values[name] else { return false }
        switch text.lowercased() {
        case "", "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw SwiftsegError(.badRequest, "\(label(name)) is on or off (1 or 0), got '\(text)'")
        }
    }

    /// A number within `range` (NaN and infinities are outside it), or `defaultValue` when absent.
    public func number(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else { return defaultValue }
        guard let v = Double(text), range.contains(v) else {
            throw SwiftsegError(.badRequest, "\(label(name)) expects a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return v
    }

    /// An integer within `range`, or `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let n = Int(text), range.contains(n) else {
            throw SwiftsegError(.badRequest, "\(label(name)) expects an integer in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return n
    }

    /// A positive integer, or `defaultValue` when absent.
    public func positiveInt(_ name: String, default defaultValue: Int) throws -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let n = Int(text), n >= 1 else {
            throw SwiftsegError(.badRequest, "\(label(name)) expects a positive integer, got '\(text)'")
        }
        return n
    }

    /// One of `choices` (by raw value), or `defaultValue` when absent.
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: T) throws -> T
    where T.RawValue == String {
        guard let text = values[name] else { return defaultValue }
        guard let v = T(rawValue: text) else {
            throw SwiftsegError(.badRequest, "\(label(name)) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return v
    }

    /// Refuses any parameter not in `known` (a misspelt one would otherwise be ignored silently).
    public func refuseUnknown(_ known: [String]) throws {
        let given = Set(values.keys).union(flags)
        if let name = given.subtracting(known).sorted().first {
            throw SwiftsegError(.badRequest, "unknown parameter '\(label(name))' (known: \(known.joined(separator: ", ")))")
        }
    }
}

extension ClassifyImageRequest {
    /// The parameters a classification takes (`swiftseg classify`'s flags, `POST /v1/classify`'s query).
    public static let parameterNames = ["top", "crop-and-scale"]

    /// `top` (5) and `crop-and-scale` (centerCrop).
    public init(parameters p: RequestParameters) throws {
        self.init(cropAndScale: try p.choice("crop-and-scale", default: CropAndScale.centerCrop),
                  maximumResults: try p.positiveInt("top", default: 5))
    }
}

extension DetectRectanglesRequest {
    /// The parameters a rectangle detection takes (`swiftseg rectangles`' flags, `POST /v1/rectangles`' query).
    public static let parameterNames = ["min-aspect", "max-aspect", "quadrature-tolerance", "min-size",
                                        "min-confidence", "max-observations"]

    /// Vision's six parameters under the CLI's names, with Vision's defaults; validated.
    public init(parameters p: RequestParameters) throws {
        self.init()
        minimumAspectRatio = try p.number("min-aspect", default: minimumAspectRatio, in: 0...1)
        maximumAspectRatio = try p.number("max-aspect", default: maximumAspectRatio, in: 0...1)
        quadratureTolerance = try p.number("quadrature-tolerance", default: quadratureTolerance, in: 0...45)
        minimumSize = try p.number("min-size", default: minimumSize, in: 0...1)
        minimumConfidence = try p.number("min-confidence", default: minimumConfidence, in: 0...1)
        if let text = p.value("max-observations") {
            guard let n = Int(text), n >= 0 else {
                throw SwiftsegError(.badRequest, "\(p.label("max-observations")) expects 0 (all) or a positive integer, got '\(text)'")
            }
            maximumObservations = n
        }
        do { try validate() } catch { throw SwiftsegError(error) }
    }
}
