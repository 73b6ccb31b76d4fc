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
        let lock: DatabaseFileLock
        do {
            lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: Self.lockWait(writer.configuration), heldBy: heldChangeLock)
        } catch let error as FileOperationError where error.kind == .busy {
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: "\(writer.path): \(error.message)")
        }
        defer { lock.release() }
        return try body()
    }

    /// How long a call waits for the change lock: the writer's busy timeout, or nothing.
    private static func lockWait(_ configuration: Configuration) -> Duration {
        guard case .timeout(let seconds) = configuration.busyMode, seconds > 0 else { return .zero }
        return .milliseconds(Int64(seconds * 1000))
    }
}
