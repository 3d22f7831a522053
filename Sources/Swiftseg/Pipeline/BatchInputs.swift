import Foundation

/// One photo of a batch: where it is, and its path relative to the folder it was found in (which the output
/// tree mirrors).
public struct BatchInput: Sendable, Equatable {
    public let path: String
    public let relativePath: String
    public init(path: String, relativePath: String) { self.path = path; self.relativePath = relativePath }
}

/// Finding, sharding and naming the photos of a batch.
public enum BatchInputs {
    /// File name extensions picked up in folders (case-insensitive): every ``ImageFormat``'s.
    public static let extensions: Set<String> = ImageFormat.allExtensions

    /// The photos named by `arguments`: files as given, folders searched recursively for .jpg/.jpeg/.png
    /// (hidden files and folders skipped, symlinked folders not followed), each folder's finds sorted so the
    /// order is the same on every machine. A missing argument is an error.
    public static func collect(_ arguments: [String]) throws -> [BatchInput] {
        var result: [BatchInput] = []
        let fm = FileManager.default
        for argument in arguments {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: argument, isDirectory: &isDir) else { throw ImageError(.fileSystem, "\(argument): no such file or folder") }
            if !isDir.boolValue {
                result.append(BatchInput(path: argument, relativePath: URL(fileURLWithPath: argument).lastPathComponent))
                continue
            }
            let root = URL(fileURLWithPath: argument).standardizedFileURL
            guard let walker = fm.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                             options: [.skipsHiddenFiles]) else { throw ImageError(.fileSystem, "\(argument): cannot list folder") }
            var found: [BatchInput] = []
            for case let url as URL in walker {
                guard extensions.contains(url.pathExtension.lowercased()),
                      (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
                let full = url.standardizedFileURL.path
                let relative = String(full.dropFirst(root.path.count).drop { $0 == "/" })
                let shown = argument.hasSuffix("/") ? argument + relative : argument + "/" + relative
                found.append(BatchInput(path: shown, relativePath: relative))
            }
            result += found.sorted { $0.relativePath < $1.relativePath }
        }
        return result
    }

    /// The inputs of shard `index` of `count`: those whose relative path hashes (``pathHash(_:)``) to `index` mod
    /// `count`. Deterministic across machines and runs, and stable when other files are added, so N workers
    /// given `--shard 0/N` … `--shard N-1/N` split a library with no coordination.
    public static func shard(_ inputs: [BatchInput], index: Int, count: Int) -> [BatchInput] {
        inputs.filter { isInShard($0, index: index, count: count) }
    }

    /// Whether `input` belongs to shard `index` of `count`.
    public static func isInShard(_ input: BatchInput, index: Int, count: Int) -> Bool {
        precondition(count >= 1 && (0..<count).contains(index), "shard index must be in 0..<count")
        return Int(pathHash(input.relativePath) % UInt64(count)) == index
    }

    /// FNV-1a 64 of the path's UTF-8, then a SplitMix64 finaliser: FNV's low bits alone split poorly modulo
    /// powers of two (its parity is just the parity of the count of odd bytes).
    static func pathHash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }

    /// Output paths under `directory` mirroring each input's relative folder: `<stem>.<suffix>.<ext>`, or
    /// `<name with extension>.<suffix>.<ext>` for inputs whose stems collide in one folder (a.jpg and a.png).
    public static func outputPaths(for inputs: [BatchInput], in directory: String, suffix: String, fileExtension: String) -> [String] {
        func stemKey(_ input: BatchInput) -> String {
            (input.relativePath as NSString).deletingPathExtension
        }
        var counts: [String: Int] = [:]
        for input in inputs { counts[stemKey(input), default: 0] += 1 }
        return inputs.map { input in
            let base = counts[stemKey(input)]! > 1 ? input.relativePath : stemKey(input)
            return "\(directory)/\(base).\(suffix).\(fileExtension)"
        }
    }
}
