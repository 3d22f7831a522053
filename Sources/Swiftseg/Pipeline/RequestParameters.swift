/// One named parameter of a request, declared once: its name (without dashes), what its value looks like, its
/// kind with the default and range, and its help. The command line's option specs and `--help`, the service's
/// list of known query parameters, and the parse with its range errors all come from it.
///
/// ```swift
/// static let blurRadius = Parameter.number("blur-radius", "PX", default: 12, in: 0...1000) {
///     "blur: background blur σ in pixels (\($0))."           // $0: the default as written, "12"
/// }
/// let radius = try parameters.number(blurRadius)                // 12 when absent; a range error names it
/// ```
public struct Parameter: Sendable {
    public enum Kind: Sendable {
        /// On or off; off when absent.
        case flag
        /// A number within the range; the default when absent (nil: absent means not given).
        case number(default: Double?, range: ClosedRange<Double>)
        /// An integer within the range; the default when absent.
        case integer(default: Int, range: ClosedRange<Int>)
        /// Text the request reads itself (a list, a colour, a choice); the default when absent.
        case text(default: String?)
    }

    /// The name without dashes: `--blur-radius` on the command line, `blur-radius` in a query.
    public let name: String
    /// What the value looks like in help ("PX", "#RRGGBB"); nil for a flag.
    public let valueName: String?
    public let kind: Kind
    /// The command line's help, defaults and ranges written from the declaration.
    public let help: String

    public static func flag(_ name: String, help: String) -> Parameter {
        Parameter(name: name, valueName: nil, kind: .flag, help: help)
    }

    /// `help` is given the default and the range as written in help ("12", "0…1000"); with no default, "".
    public static func number(_ name: String, _ valueName: String, default value: Double?, in range: ClosedRange<Double>,
                              help: (_ default: String, _ range: String) -> String) -> Parameter {
        Parameter(name: name, valueName: valueName, kind: .number(default: value, range: range),
                  help: help(value.map(written) ?? "", "\(written(range.lowerBound))…\(written(range.upperBound))"))
    }

    public static func number(_ name: String, _ valueName: String, default value: Double?, in range: ClosedRange<Double>,
                              help: (_ default: String) -> String) -> Parameter {
        number(name, valueName, default: value, in: range) { d, _ in help(d) }
    }

    public static func integer(_ name: String, _ valueName: String, default value: Int, in range: ClosedRange<Int>,
                               help: (_ default: String) -> String) -> Parameter {
        Parameter(name: name, valueName: valueName, kind: .integer(default: value, range: range), help: help(String(value)))
    }

    public static func text(_ name: String, _ valueName: String, default value: String? = nil,
                            help: (_ default: String) -> String) -> Parameter {
        Parameter(name: name, valueName: valueName, kind: .text(default: value), help: help(value ?? ""))
    }

    /// A number as help writes it: 12, 0.35, 1e-06.
    static func written(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

extension Array where Element == Parameter {
    /// The parameters' names, for ``RequestParameters/refuseUnknown(_:)``.
    public var names: [String] { map(\.name) }
}

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

    /// A declared flag: on or off.
    public func flag(_ p: Parameter) throws -> Bool { try flag(p.name) }

    /// A declared number: its value, or its default when absent (nil when it has none).
    public func number(_ p: Parameter) throws -> Double? {
        guard case .number(let value, let range) = p.kind else { preconditionFailure("\(p.name) is not a number") }
        return values[p.name] == nil ? value : try number(p.name, default: 0, in: range)
    }

    /// A declared number that has a default.
    public func number(_ p: Parameter) throws -> Double {
        guard let v: Double = try number(p) else { preconditionFailure("\(p.name) has no default") }
        return v
    }

    /// A declared integer, or its default when absent (an integer from 1 up is a "positive integer" in errors).
    public func integer(_ p: Parameter) throws -> Int {
        guard case .integer(let value, let range) = p.kind else { preconditionFailure("\(p.name) is not an integer") }
        return range == 1...Int.max ? try positiveInt(p.name, default: value) : try integer(p.name, default: value, in: range)
    }

    /// A declared text's value, or its default when absent.
    public func text(_ p: Parameter) -> String? {
        guard case .text(let value) = p.kind else { preconditionFailure("\(p.name) is not text") }
        return values[p.name] ?? value
    }

    /// A declared choice (a text parameter whose default is one of `T`'s raw values).
    public func choice<T: RawRepresentable & CaseIterable>(_ p: Parameter) throws -> T where T.RawValue == String {
        guard case .text(let value?) = p.kind, let fallback = T(rawValue: value) else {
            preconditionFailure("\(p.name) is not a choice with a default")
        }
        return try choice(p.name, default: fallback)
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
    public enum Parameters {
        public static let top = Parameter.integer("top", "K", default: ClassifyImageRequest().maximumResults, in: 1...Int.max) {
            "How many classes to print, most likely first (\($0))."
        }
        public static let cropAndScale = Parameter.text("crop-and-scale", "MODE", default: CropAndScale.centerCrop.rawValue) {
            "How the photo becomes the network's square input: \($0) (default: the\ncentral square), scaleFit (the whole photo on black bars) or scaleFill (stretched)."
        }
        public static let all = [top, cropAndScale]
    }

    public init(parameters p: RequestParameters) throws {
        self.init(cropAndScale: try p.choice(Parameters.cropAndScale), maximumResults: try p.integer(Parameters.top))
    }
}

extension DetectRectanglesRequest {
    /// Vision's six parameters under the CLI's names (`swiftseg rectangles`' flags, `POST /v1/rectangles`' query),
    /// with Vision's defaults.
    public enum Parameters {
        private static let vision = DetectRectanglesRequest()
        public static let minimumAspectRatio = Parameter.number("min-aspect", "A", default: vision.minimumAspectRatio, in: 0...1) {
            "Smallest aspect ratio, shorter side / longer side, \($1) (\($0))."
        }
        public static let maximumAspectRatio = Parameter.number("max-aspect", "B", default: vision.maximumAspectRatio, in: 0...1) {
            "Largest aspect ratio, \($1) (\($0))."
        }
        public static let quadratureTolerance = Parameter.number("quadrature-tolerance", "DEG", default: vision.quadratureTolerance, in: 0...45) {
            "Degrees a corner may differ from 90°, \($1) (\($0))."
        }
        public static let minimumSize = Parameter.number("min-size", "S", default: vision.minimumSize, in: 0...1) {
            "Smallest longer side, as a fraction of the photo's shorter side, \($1) (\($0))."
        }
        public static let minimumConfidence = Parameter.number("min-confidence", "C", default: vision.minimumConfidence, in: 0...1) {
            "Drop rectangles whose confidence is below C, \($1) (\($0))."
        }
        public static let maximumObservations = Parameter.integer("max-observations", "N", default: vision.maximumObservations, in: 0...Int.max) {
            "How many rectangles at most, best first; 0 = all (\($0))."
        }
        public static let all = [minimumAspectRatio, maximumAspectRatio, quadratureTolerance, minimumSize, minimumConfidence,
                                 maximumObservations]
    }

    /// A request from its parameters; validated.
    public init(parameters p: RequestParameters) throws {
        self.init()
        minimumAspectRatio = try p.number(Parameters.minimumAspectRatio)
        maximumAspectRatio = try p.number(Parameters.maximumAspectRatio)
        quadratureTolerance = try p.number(Parameters.quadratureTolerance)
        minimumSize = try p.number(Parameters.minimumSize)
        minimumConfidence = try p.number(Parameters.minimumConfidence)
        let name = Parameters.maximumObservations.name
        if let text = p.value(name) {
            guard let n = Int(text), n >= 0 else {
                throw SwiftsegError(.badRequest, "\(p.label(name)) expects 0 (all) or a positive integer, got '\(text)'")
            }
            maximumObservations = n
        }
        do { try validate() } catch { throw SwiftsegError(error) }
    }
}
