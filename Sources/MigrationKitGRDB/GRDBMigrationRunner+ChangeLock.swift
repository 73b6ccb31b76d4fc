import Foundation
import GRDB
import MigrationKit
import MigrationKitFiles

/// The database's change lock (`DatabaseFileLock`), which every call of the runner that
/// changes the database holds, as every `migrationkit` command that changes one across
/// transactions holds it: so a `migrationkit rekey`, `restore` or `cipher-upgrade`, or
/// another process's run, never comes between two of this run's steps.
extension GRDBMigrationRunner {
    /// Runs `body` holding the change lock of `writer`'s file: taken once per call (a
    /// command that holds it already hands it down, `heldChangeLock`), and waited for as
    /// the writer's busy mode says — its `.timeout`, otherwise not at all — so a lock held
    /// past that throws GRDB's `DatabaseError` with `SQLITE_BUSY`, as SQLite's own lock
    /// would. An in-memory or temporary database has no file, and nothing to lock.
    func holdingChangeLock<T>(of writer: any DatabaseWriter, _ body: () throws -> T) throws -> T {
        try holdingChangeLock(of: writer) { _ in try body() }
    }

    /// `holdingChangeLock(of:_:)`, with the lock given to `body`, to hand down to the
    /// runner's own calls in it (`heldChangeLock`), which would otherwise wait for it.
    func holdingChangeLock<T>(of writer: any DatabaseWriter, _ body: (DatabaseFileLock) throws -> T) throws -> T {
        let lock: DatabaseFileLock
        let wait = Self.lockWait(writer.configuration)
        do {
            lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: wait, heldBy: heldChangeLock)
        } catch let error as FileOperationError where error.kind == .busy {
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: Self.busySentence(writer.path, waited: wait))
        }
        defer { lock.release() }
        return try body(lock)
    }

    /// What a call says when another process holds the change lock: in the words of the
    /// app's own setting, the busy mode, since no command-line option is involved.
    private static func busySentence(_ path: String, waited: Duration) -> String {
        let holder = "Another process (another run of the app, or a MigrationKit command such as a rekey) "
        guard waited > .zero else {
            return "\(path): \(holder)is changing this database and holds its change lock; try again when it is done, "
                + "or let the writer wait for it with a busy timeout (Configuration.busyMode = .timeout(seconds))."
        }
        let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
        return "\(path): \(holder)kept changing this database for longer than the writer's busy timeout (\(String(format: "%g", seconds)) s)."
    }

    /// How long a call waits for the change lock: the writer's busy timeout, or nothing.
    private static func lockWait(_ configuration: Configuration) -> Duration {
        guard case .timeout(let seconds) = configuration.busyMode, seconds > 0 else { return .zero }
        return .milliseconds(Int64(seconds * 1000))
    }
}
