import Foundation
import GRDB

/// A scratch database configured as an app's, for replaying its steps: a file in the
/// temporary folder (SQLite's own temporary databases may refuse what an app's
/// `prepareDatabase` does to its connections, GRDB #931), without the app's target
/// queues (a queue the app's writer is running on would deadlock, GRDB #741), writable,
/// and removed afterwards, its journals too. As GRDB's `hasSchemaChanges` makes its own.
enum GRDBScratchDatabase {
    static func withQueue<T>(configuredAs configuration: Configuration, _ body: (DatabaseQueue) throws -> T) throws -> T {
        var scratch = configuration
        scratch.readonly = false
        scratch.targetQueue = nil
        scratch.writeTargetQueue = nil
        scratch.label = "MigrationKit.replay"
        let path = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("migrationkit-replay-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let queue = try DatabaseQueue(path: path, configuration: scratch)
        defer { try? queue.close() }
        return try body(queue)
    }
}
