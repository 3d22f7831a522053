import Foundation
import SwiftsegServiceTestSupport
import XCTest

/// docs/deploy.md's manifests and scripts: they parse, and what they say matches the binary (flags that exist,
/// probe paths that answer, a drain inside the grace period, shard counts that agree).
final class DeployDocsTests: CLITestCase {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/deploy.md").path

    func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOfFile: Self.docs, encoding: .utf8)
        return text.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
    }

    /// The long flags a subcommand's pinned --help lists.
    func flags(_ subcommand: String) throws -> Set<String> {
        let help = try String(contentsOfFile: "\(Self.fixtures)/cli/\(subcommand)-help.txt", encoding: .utf8)
        let regex = try NSRegularExpression(pattern: "--[a-z][a-z-]*")
        return Set(regex.matches(in: help, range: NSRange(help.startIndex..., in: help)).map { (help as NSString).substring(with: $0.range) })
    }

    func assertKnownFlags(_ args: [String], of subcommand: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let known = try flags(subcommand)
        for arg in args where arg.hasPrefix("--") {
            XCTAssertTrue(known.contains(arg), "\(arg) is not a flag of swiftseg \(subcommand)", file: file, line: line)
        }
    }

    func testManifestsParseAndAgreeWithTheBinary() throws {
        let documents = try blocks("yaml").flatMap { try MiniYAML.documents($0) }
        let kinds = documents.map { $0["kind"]?.string ?? "?" }
        XCTAssertEqual(kinds, ["Deployment", "Service", "Job"])

        let deployment = documents[0]
        let pod = try XCTUnwrap(deployment["spec"]?["template"]?["spec"])
        let container = try XCTUnwrap(pod["containers"]?[0])
        let args = try XCTUnwrap(container["args"]?.strings)
        XCTAssertEqual(args.first, "serve")
        try assertKnownFlags(args, of: "serve")
        func value(_ flag: String) -> String? { args.firstIndex(of: flag).map { args[$0 + 1] } }
        XCTAssertFalse(["127.0.0.1", "::1", "localhost", nil].contains(value("--host")),
                       "a container listens beyond its loopback (the default host is 127.0.0.1)")
        let grace = try XCTUnwrap(Double(pod["terminationGracePeriodSeconds"]?.string ?? ""))
        let preStop = try XCTUnwrap(Double(container["lifecycle"]?["preStop"]?["sleep"]?["seconds"]?.string ?? ""))
        let drain = try XCTUnwrap(Double(value("--drain-seconds") ?? ""))
        XCTAssertLessThan(preStop + drain, grace, "the preStop hook and the drain fit in the grace period")
        XCTAssertEqual(container["ports"]?[0]?["containerPort"]?.string, value("--port"))
        XCTAssertEqual(deployment["spec"]?["template"]?["metadata"]?["annotations"]?["prometheus.io/port"]?.string, value("--port"))
        XCTAssertEqual(deployment["spec"]?["selector"]?["matchLabels"]?["app"]?.string, documents[1]["spec"]?["selector"]?["app"]?.string)

        // the paths the probes and the scraper use answer on a real server
        let paths = [container["readinessProbe"]?["httpGet"]?["path"]?.string, container["livenessProbe"]?["httpGet"]?["path"]?.string,
                     deployment["spec"]?["template"]?["metadata"]?["annotations"]?["prometheus.io/path"]?.string].compactMap { $0 }
        XCTAssertEqual(paths, ["/readyz", "/livez", "/metrics"])
        let server = try ServeCLITests.Server(binary: Self.binary, arguments: ["--quiet", "--concurrent", "1"])
        defer { kill(server.process.processIdentifier, SIGTERM); _ = server.finish() }
        for path in paths { XCTAssertEqual(try TestConnection.request(port: server.port, "GET", path).status, 200, path) }

        let job = documents[2]
        XCTAssertEqual(job["spec"]?["completionMode"]?.string, "Indexed")
        let jobArgs = try XCTUnwrap(job["spec"]?["template"]?["spec"]?["containers"]?[0]?["args"]?.strings)
        XCTAssertEqual(jobArgs.first, "infer")
        try assertKnownFlags(jobArgs, of: "infer")
        XCTAssertEqual(jobArgs[jobArgs.firstIndex(of: "--shard")! + 1], "auto")
        XCTAssertEqual(jobArgs[jobArgs.firstIndex(of: "--shard-count")! + 1], job["spec"]?["completions"]?.string,
                       "--shard-count equals the Job's completions")
    }

    func testTheSlurmScriptIsAStepOneArrayWithShardAuto() throws {
        let script = try XCTUnwrap(try blocks("sh").first { $0.contains("#SBATCH") })
        let array = try XCTUnwrap(script.split(separator: "\n").first { $0.hasPrefix("#SBATCH --array=") })
        XCTAssertNotNil(array.range(of: #"^#SBATCH --array=\d+-\d+$"#, options: .regularExpression), "step 1: \(array)")
        let command = script.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").first { $0.hasPrefix("swiftseg ") }!
        let words = command.split(separator: " ").map(String.init)
        XCTAssertEqual(words[1], "infer")
        try assertKnownFlags(words, of: "infer")
        XCTAssertTrue(command.contains("--shard auto"))
    }
}

/// Enough YAML for Kubernetes manifests: block mappings and sequences, `- key: value` items, plain and quoted
/// scalars, flow sequences (over several lines too), comments, `---`. Anything else is an error, so a typo in the
/// docs fails the test rather than parsing as something else.
indirect enum MiniYAML: Equatable {
    case scalar(String)
    case list([MiniYAML])
    case map([String: MiniYAML])

    struct Failure: Error, CustomStringConvertible { let description: String }

    subscript(key: String) -> MiniYAML? { if case .map(let m) = self { return m[key] } else { return nil } }
    subscript(index: Int) -> MiniYAML? { if case .list(let l) = self, l.indices.contains(index) { return l[index] } else { return nil } }
    var string: String? { if case .scalar(let s) = self { return s } else { return nil } }
    var strings: [String]? { if case .list(let l) = self { return l.compactMap(\.string) } else { return nil } }

    static func documents(_ text: String) throws -> [MiniYAML] {
        try text.components(separatedBy: "\n---\n").map { document in
            var lines: [(indent: Int, text: String)] = []
            for raw in document.split(separator: "\n", omittingEmptySubsequences: false) {
                if raw.contains("\t") { throw Failure(description: "a tab in: \(raw)") }
                let text = raw.trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                lines.append((raw.prefix { $0 == " " }.count, text))
            }
            var parser = Parser(lines: lines)
            let value = try parser.block(lines.first?.indent ?? 0)
            guard parser.i == lines.count else { throw Failure(description: "unexpected: \(lines[parser.i].text)") }
            return value
        }
    }

    struct Parser {
        var lines: [(indent: Int, text: String)]
        var i = 0

        mutating func block(_ indent: Int) throws -> MiniYAML {
            guard i < lines.count, lines[i].indent == indent else { throw Failure(description: "bad indentation near line \(i)") }
            return lines[i].text.hasPrefix("- ") ? try list(indent) : try map(indent)
        }

        mutating func list(_ indent: Int) throws -> MiniYAML {
            var items: [MiniYAML] = []
            while i < lines.count, lines[i].indent == indent, lines[i].text.hasPrefix("- ") {
                let rest = String(lines[i].text.dropFirst(2)).trimmingCharacters(in: .whitespaces)
                if Self.splitKey(rest) != nil {
                    lines[i] = (indent + 2, rest)  // `- key: value` starts a mapping two columns in
                    items.append(try map(indent + 2))
                } else {
                    items.append(try value(rest))
                }
            }
            return .list(items)
        }

        mutating func map(_ indent: Int) throws -> MiniYAML {
            var entries: [String: MiniYAML] = [:]
            while i < lines.count, lines[i].indent == indent, !lines[i].text.hasPrefix("- ") {
                guard let (key, rest) = Self.splitKey(lines[i].text) else { throw Failure(description: "not key: value: \(lines[i].text)") }
                guard entries[key] == nil else { throw Failure(description: "duplicate key \(key)") }
                if rest.isEmpty {
                    i += 1
                    if i < lines.count, lines[i].indent > indent { entries[key] = try block(lines[i].indent) }
                    else if i < lines.count, lines[i].indent == indent, lines[i].text.hasPrefix("- ") { entries[key] = try list(indent) }
                    else { entries[key] = .scalar("") }
                } else {
                    entries[key] = try value(rest)
                }
            }
            if i < lines.count, lines[i].indent > indent { throw Failure(description: "bad indentation: \(lines[i].text)") }
            return .map(entries)
        }

        /// A scalar or a flow sequence starting on the current line; moves past it.
        mutating func value(_ text: String) throws -> MiniYAML {
            i += 1
            guard text.hasPrefix("[") else { return .scalar(try Self.scalar(text)) }
            var flow = text
            while !flow.hasSuffix("]") {
                guard i < lines.count else { throw Failure(description: "unclosed [ in: \(text)") }
                flow += " " + lines[i].text
                i += 1
            }
            var items: [MiniYAML] = [], current = "", quoted = false
            for c in flow.dropFirst().dropLast() {
                if c == "\"" { quoted.toggle() }
                if c == "," && !quoted { items.append(.scalar(try Self.scalar(current.trimmingCharacters(in: .whitespaces)))); current = "" }
                else { current.append(c) }
            }
            if quoted { throw Failure(description: "unclosed quote in: \(flow)") }
            if !current.trimmingCharacters(in: .whitespaces).isEmpty {
                items.append(.scalar(try Self.scalar(current.trimmingCharacters(in: .whitespaces))))
            }
            return .list(items)
        }

        static func scalar(_ text: String) throws -> String {
            if text.hasPrefix("\"") {
                guard text.count >= 2, text.hasSuffix("\"") else { throw Failure(description: "unclosed quote: \(text)") }
                return String(text.dropFirst().dropLast())
            }
            if text.hasPrefix("{") || text.hasPrefix("&") || text.hasPrefix("*") || text.hasPrefix("|") || text.hasPrefix(">") {
                throw Failure(description: "YAML this test does not read: \(text)")
            }
            return text
        }

        /// `key: value` or `key:` (a key is unquoted and has no spaces).
        static func splitKey(_ text: String) -> (String, String)? {
            guard !text.hasPrefix("\""), !text.hasPrefix("[") else { return nil }
            if text.hasSuffix(":"), !text.dropLast().contains(" ") { return (String(text.dropLast()), "") }
            guard let range = text.range(of: ": ") else { return nil }
            let key = String(text[..<range.lowerBound])
            guard !key.contains(" ") else { return nil }
            return (key, String(text[range.upperBound...]).trimmingCharacters(in: .whitespaces))
        }
    }
}
