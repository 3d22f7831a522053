import Swiftseg

/// A small command-line parser: each subcommand declares its options (which also make its `--help`), and
/// parsing rejects anything undeclared with a one-line message.
struct OptionSpec {
    let names: [String]       // e.g. ["-o", "--output"]
    let valueName: String?    // nil for a flag
    let help: String
    /// For batches only: its help starts "Batch:", and one photo refuses it (``BatchOptions/refuseBatchFlags(_:options:)``).
    var batchOnly = false

    init(names: [String], valueName: String?, help: String, batchOnly: Bool = false) {
        self.names = names
        self.valueName = valueName
        self.help = batchOnly ? "Batch: " + help : help
        self.batchOnly = batchOnly
    }

    /// A request parameter's option: its name with dashes, its value's look and its help, as the library declares them.
    init(_ parameter: Parameter) {
        self.init(names: ["--" + parameter.name], valueName: parameter.valueName, help: parameter.help)
    }
}

struct CommandSpec {
    let name: String
    let summary: String
    let usage: String
    let positionals: [(name: String, help: String)]
    let options: [OptionSpec]
    let discussion: String

    static let helpOption = OptionSpec(names: ["-h", "--help"], valueName: nil, help: "Show this help and exit.")

    var helpText: String {
        var lines = ["OVERVIEW: \(summary)", "", "USAGE: \(usage)", ""]
        if !positionals.isEmpty {
            lines.append("ARGUMENTS:")
            for p in positionals { lines.append(row(p.name, p.help)) }
            lines.append("")
        }
        lines.append("OPTIONS:")
        for o in options + [CommandSpec.helpOption] {
            let label = o.names.joined(separator: ", ") + (o.valueName.map { " \($0)" } ?? "")
            lines.append(row(label, o.help))
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ label: String, _ help: String) -> String {
        let pad = 24
        let first = "  " + label
        let helpLines = help.split(separator: "\n", omittingEmptySubsequences: false)
        var out = first.count < pad ? first.padding(toLength: pad, withPad: " ", startingAt: 0) + helpLines[0]
                                    : first + "\n" + String(repeating: " ", count: pad) + helpLines[0]
        for more in helpLines.dropFirst() { out += "\n" + String(repeating: " ", count: pad) + more }
        return out
    }
}

/// Parsed arguments of one subcommand.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: String] = [:]   // keyed by the option's last (long) name
    var flags: Set<String> = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The options as the library reads them (names without dashes), so a subcommand's flags and the
    /// service's query parameters go through one parser.
    var parameters: RequestParameters {
        RequestParameters(values: Dictionary(uniqueKeysWithValues: values.map { (Self.bare($0.key), $0.value) }),
                          flags: Set(flags.map(Self.bare)), prefix: "--")
    }

    private static func bare(_ name: String) -> String { name.hasPrefix("--") ? String(name.dropFirst(2)) : name }

    /// Runs a library parser over ``parameters``; its refusals are usage mistakes (exit 2).
    func parse<T>(_ body: (RequestParameters) throws -> T) throws -> T {
        do { return try body(parameters) } catch let e as SwiftsegError { throw CLIError.usage(e.message) }
    }

    /// A number option within `range` (NaN and infinities are outside it), or `defaultValue` when absent.
    func number(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws -> Double {
        try parse { try $0.number(Self.bare(name), default: defaultValue, in: range) }
    }

    /// An integer option within `range`, or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        try parse { try $0.integer(Self.bare(name), default: defaultValue, in: range) }
    }

    /// A positive integer option, or `defaultValue` when absent.
    func positiveInt(_ name: String, default defaultValue: Int) throws -> Int {
        try parse { try $0.positiveInt(Self.bare(name), default: defaultValue) }
    }
}

extension CommandSpec {
    func parse(_ args: [String]) throws -> ParsedArguments {
        var result = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                result.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            if arg == "-h" || arg == "--help" { result.wantsHelp = true; continue }
            var name = arg, inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = options.first(where: { $0.names.contains(name) }) else {
                throw CLIError.usage("unknown option '\(name)' for '\(self.name)' (see 'swiftseg \(self.name) --help')")
            }
            let key = spec.names.last!
            if spec.valueName != nil {
                if let inline { result.values[key] = inline; continue }
                guard i < args.count else { throw CLIError.usage("\(name) needs a value (\(spec.valueName!))") }
                result.values[key] = args[i]
                i += 1
            } else {
                if inline != nil { throw CLIError.usage("\(name) takes no value") }
                result.flags.insert(key)
            }
        }
        return result
    }
}

/// What ends a command: a usage mistake (exit 2) or a failure while running (exit 1).
enum CLIError: Error {
    case usage(String)
    case failure(String)
}
