import Foundation
import Swiftseg

/// `swiftseg SUBCOMMAND …`: the subcommands, one file each.
let commands: [(spec: CommandSpec, run: (ParsedArguments) throws -> Void)] = [
    (InferCommand.spec, InferCommand.run),
    (ClassifyCommand.spec, ClassifyCommand.run),
    (RectanglesCommand.spec, RectanglesCommand.run),
    (ServeCommand.spec, ServeCommand.run),
    (RunTensorCommand.spec, RunTensorCommand.run),
    (InspectCommand.spec, InspectCommand.run),
]

let version = "swiftseg 0.1.0"

let overview = """
    OVERVIEW: Lift the subject out of photos, name what is in them (U²-Net and EfficientNet-Lite on the CPU,
    no ML runtime) and find the rectangles in them (documents, cards).

    USAGE: swiftseg <subcommand> [options]

    SUBCOMMANDS:
    \(commands.map { "  " + $0.spec.name.padding(toLength: 14, withPad: " ", startingAt: 0) + $0.spec.summary }.joined(separator: "\n"))

    OPTIONS:
      -h, --help          Show this help (or 'swiftseg <subcommand> --help').
      --version           Print the version.

    EXAMPLES:
      swiftseg infer photo.jpg                  # writes photo.cutout.png beside it
      swiftseg infer photo.jpg --mask -o m.png  # 8-bit soft mask
      swiftseg infer - -o - < in.jpg > out.png  # through a pipe
      swiftseg classify photo.jpg --top 2       # (0.93) espresso …
      swiftseg rectangles card.jpg --extract card.png   # the card, upright

    """

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("swiftseg: error: \(message)\n".utf8))
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
guard let first = args.first else { print(overview, terminator: ""); exit(2) }
switch first {
case "-h", "--help", "help":
    if args.count > 1, let c = commands.first(where: { $0.spec.name == args[1] }) {
        print(c.spec.helpText, terminator: "")
    } else {
        print(overview, terminator: "")
    }
    exit(0)
case "--version":
    print(version)
    exit(0)
default:
    guard let command = commands.first(where: { $0.spec.name == first }) else {
        fail("unknown subcommand '\(first)' (subcommands: \(commands.map(\.spec.name).joined(separator: ", ")))", code: 2)
    }
    do {
        let parsed = try command.spec.parse(Array(args.dropFirst()))
        if parsed.wantsHelp {
            print(command.spec.helpText, terminator: "")
            exit(0)
        }
        try command.run(parsed)
    } catch CLIError.usage(let message) {
        fail(message, code: 2)
    } catch CLIError.failure(let message) {
        fail(message, code: 1)
    } catch {
        fail("\(error)", code: 1)
    }
}
