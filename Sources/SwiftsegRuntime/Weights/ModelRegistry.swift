/// A loaded network: immutable and `Sendable` (its weights are memory-mapped and shared); per-run state lives
/// in an ``ExecutionContext``. The runtime knows networks only through this protocol, so it names no model.
public protocol Network: AnyObject, Sendable {
    /// The weights file the network's tensors point into.
    var weights: SafeTensorsFile { get }
    /// What the network expects and produces, as its weights file declares.
    var preprocessing: ModelPreprocessing { get }
    /// The model's name as its file declares it (`variant`, else `architecture`): "u2netp", "u2net", ….
    var name: String { get }
    /// Output shape (channels, height, width) for a 3 × `height` × `width` input.
    func outputShape(height: Int, width: Int) -> (channels: Int, height: Int, width: Int)
    /// Runs the network on a normalised 3×H×W input. The context's arena is reset, so views from a previous
    /// pass become invalid.
    func forward(_ input: TensorView, into output: TensorView, context: ExecutionContext)
    /// Multiply-accumulates of all convolutions for an input of this size (for GFLOP/s: 2 FLOPs per MAC).
    func convMACs(height: Int, width: Int) -> Int
    /// Why the network cannot run on a 3 × `height` × `width` input, or nil when it can (most run on any size).
    func inputProblem(height: Int, width: Int) -> String?
}

extension Network {
    public func inputProblem(height: Int, width: Int) -> String? { nil }
}

/// How a network's input is made and its output read, from the weights file's metadata (`input_size`, `mean`,
/// `std`, `output`), so no request hard-codes a model's numbers.
///
/// ```swift
/// let p = try ModelPreprocessing(declaredBy: file)   // u2netp: 320, ImageNet mean/std, sigmoid
/// ```
public struct ModelPreprocessing: Sendable, Equatable {
    /// What the network's output holds.
    public enum Output: String, Sendable, Equatable {
        /// Per-pixel probabilities in 0…1 (the network ends in a sigmoid): saliency and segmentation maps.
        case sigmoid
        /// Unnormalised class scores (softmax them for probabilities): classifiers.
        case logits
    }

    /// Side of the square input the network was trained at.
    public var inputSize: Int
    /// Per-channel (RGB) mean and standard deviation: input = (value − mean) / std, values as the request
    /// scales them.
    public var mean: [Double]
    public var std: [Double]
    public var output: Output

    public init(inputSize: Int, mean: [Double], std: [Double], output: Output) {
        precondition(inputSize >= 1 && mean.count == 3 && std.count == 3, "a positive size and three channels")
        self.inputSize = inputSize
        self.mean = mean
        self.std = std
        self.output = output
    }

    /// Reads `input_size`, `mean` and `std` (three comma-separated numbers each) and `output` (sigmoid or
    /// logits; `defaultOutput` when absent, as in files converted before it existed). Throws one line naming
    /// the file and the key when one is missing or malformed.
    public init(declaredBy file: SafeTensorsFile, defaultOutput: Output) throws {
        func bad(_ key: String, _ why: String) -> RuntimeError {
            RuntimeError.invalidWeights("\(file.name): metadata \(key) \(why) (convert with the Tools/ scripts)")
        }
        func triple(_ key: String) throws -> [Double] {
            guard let text = file.metadata[key] else { throw bad(key, "is missing") }
            let values = text.split(separator: ",").compactMap { Double(String($0.filter { !$0.isWhitespace })) }
            guard values.count == 3, values.allSatisfy(\.isFinite) else { throw bad(key, "is '\(text)', expected three numbers") }
            return values
        }
        guard let sizeText = file.metadata["input_size"] else { throw bad("input_size", "is missing") }
        guard let size = Int(sizeText), (1...8192).contains(size) else {
            throw bad("input_size", "is '\(sizeText)', expected a whole number of pixels")
        }
        let std = try triple("std")
        guard std.allSatisfy({ $0 > 0 }) else { throw bad("std", "has a value ≤ 0") }
        var output = defaultOutput
        if let text = file.metadata["output"] {
            guard let declared = Output(rawValue: text) else { throw bad("output", "is '\(text)', expected sigmoid or logits") }
            output = declared
        }
        self.init(inputSize: size, mean: try triple("mean"), std: std, output: output)
    }
}

/// Maps the `architecture` a weights file declares to the code that builds that network: the one place a
/// new model is registered (SwiftsegModels' `ModelRegistry.builtIn`).
///
/// ```swift
/// let registry = ModelRegistry([.init(architecture: "u2net", summary: "U²-Net saliency") { file, options in
///     try U2Net(weights: file, prepareFastKernels: options.prepareFastKernels)
/// }])
/// let network = try registry.load(file)
/// ```
public struct ModelRegistry: Sendable {
    /// Load-time choices every builder honours.
    public struct LoadOptions: Sendable, Equatable {
        /// Prepare the weights the fast kernels read (Winograd-transformed, tap-major). `false` when only the
        /// exact GEMM path will run (`ConvKernelPolicy.gemm`): less memory, faster load.
        public var prepareFastKernels: Bool
        public init(prepareFastKernels: Bool = true) { self.prepareFastKernels = prepareFastKernels }
    }

    public struct Entry: Sendable {
        public let architecture: String
        /// One line for `swiftseg inspect` and error messages.
        public let summary: String
        public let build: @Sendable (SafeTensorsFile, LoadOptions) throws -> any Network
        public init(architecture: String, summary: String,
                    build: @escaping @Sendable (SafeTensorsFile, LoadOptions) throws -> any Network) {
            self.architecture = architecture
            self.summary = summary
            self.build = build
        }
    }

    public let entries: [Entry]

    public init(_ entries: [Entry]) {
        precondition(Set(entries.map(\.architecture)).count == entries.count, "one entry per architecture")
        self.entries = entries
    }

    /// The entry for `architecture`, or nil.
    public func entry(for architecture: String) -> Entry? { entries.first { $0.architecture == architecture } }

    /// Builds the network the file's `architecture` metadata names; throws one line when it names none known.
    public func load(_ file: SafeTensorsFile, options: LoadOptions = LoadOptions()) throws -> any Network {
        guard let architecture = file.metadata["architecture"], let entry = entry(for: architecture) else {
            throw RuntimeError.invalidWeights(
                "\(file.name): metadata architecture is \(file.metadata["architecture"].map { "'\($0)'" } ?? "missing"), expected \(known) (convert with the Tools/ scripts)")
        }
        return try entry.build(file, options)
    }

    /// "'u2net'", "'u2net' or 'efficientnet-lite'", ….
    private var known: String { entries.map { "'\($0.architecture)'" }.joined(separator: " or ") }
}
