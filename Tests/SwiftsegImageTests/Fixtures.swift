import Foundation

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures").path
    static func path(_ relative: String) -> String { "\(root)/\(relative)" }
    static let photos = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "coins.png"]
}
