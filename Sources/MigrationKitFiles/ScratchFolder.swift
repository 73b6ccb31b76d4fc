import Dispatch
import Foundation
import MigrationKit
import MigrationKitSecrets
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage

/// A private temporary folder (mode 0700) for scratch databases, removed when released,
/// and also when a signal ends the process while it exists (`Interruption`): a `check`
/// killed with SIGTERM must not leave a copy of the user's data in /tmp. (Under the
/// command line's graceful stop, the command unwinds and releases it as usual.)
package final class ScratchFolder: @unchecked Sendable {
    package let path: String

    /// - Parameter purpose: part of the folder's name ("check", "replay", "dry-run").
    /// - Throws: `FileOperationError` (`.fileSystem`) naming the temporary folder when
    ///   the scratch folder cannot be made there (a `TMPDIR` that is missing, not
    ///   writable by this user, or full).
    package init(purpose: String) throws {
        let parent = FileManager.default.temporaryDirectory.path
        path = parent + "/migrationkit-\(purpose)-\(UUID().uuidString)"
        // Watched before it exists, so no signal can come between the two.
        Interruption.removeOnSignal(path)
        // mkdir(2) itself, for its errno: the sentence names what the folder lacks.
        guard mkdir(path, 0o700) == 0 else {
            let failure = Errno(rawValue: errno)
            Interruption.forget(path)
            throw FileOperationError(
                kind: .fileSystem, resultCode: failure == .noSpace ? .SQLITE_FULL : .SQLITE_CANTOPEN,
                message: "Could not make a private scratch folder in the temporary folder (\(failure)); "
                    + "set TMPDIR to a folder this user can write to, with room for a copy of the database.",
                path: parent)
        }
        // Whatever the umask took from the mode.
        chmod(path, 0o700)
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
