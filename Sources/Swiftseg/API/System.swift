import Foundation

enum System {
    /// Processors this process may use (Foundation honours affinity masks and cgroup quotas on Linux).
    static var activeProcessorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
