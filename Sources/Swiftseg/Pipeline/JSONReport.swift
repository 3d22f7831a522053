import Foundation

/// A request's `--json` report: one encoding for all of them, so every subcommand (and a server) writes the same
/// shape — sorted keys, slashes unescaped, a final newline.
public protocol JSONReport: Encodable {}

extension JSONReport {
    /// The report as JSON: pretty-printed, or on one line (`pretty: false`, for JSON Lines: a batch prints one
    /// report per photo).
    public func jsonData(pretty: Bool = true) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                                          : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [0x0A]
    }
}
