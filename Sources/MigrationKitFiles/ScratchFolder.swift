import Dispatch
import Foundation
import MigrationKitSecrets

/// A private temporary folder (mode 0700) for scratch databases, removed when released,
/// and also when a signal ends the process while it exists (`Interruption`): a `check`
/// killed with SIGTERM must not leave a copy of the user's data in /tmp. (Under the
/// command line's graceful stop, the command unwinds and releases it as usual.)
package final class ScratchFolder: @unchecked Sendable {
    package let path: String

    /// - Parameter purpose: part of the folder's name ("check", "replay", "dry-run").
    package init(purpose: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-\(purpose)-\(UUID().uuidString)").path
        // Watched before it exists, so no signal can come between the two.
        Interruption.removeOnSignal(path)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            Interruption.forget(path)
            throw error
        }
    }

    /// A random raw key for the folder's databases: scratch copies of a schema (and of
    /// the user's rows) are encrypted too, with a key nobody holds.
    package static func randomKey() -> DatabaseKey {
        var generator = SystemRandomNumberGenerator()
        return DatabaseKey.rawKey((0..<DatabaseKey.rawKeyLength).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        Interruption.forget(path)
    }
}
