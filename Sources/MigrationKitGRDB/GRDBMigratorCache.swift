import Foundation
import GRDB

/// GRDB's migrator for a runner's steps, built once for them rather than for every call
/// (GRDB's registration compares each identifier with every one before it), and the
/// calls running through it. A runner whose steps or settings change gets a new one
/// (`GRDBMigrationRunner.migrators`), so copies of a runner never share a migrator
/// built for other steps.
///
/// The migrator's closures are the same for every call: each finds its call by the
/// connection GRDB runs it on (`GRDBMigrationCalls`).
final class GRDBMigratorCache: @unchecked Sendable {
    private let lock = NSLock()
    private var built: DatabaseMigrator?
    /// The calls in progress, by the connection their steps run on.
    let calls = GRDBMigrationCalls()

    /// Drops the migrator built, for steps or settings that changed.
    func forget() {
        lock.withLock { built = nil }
    }

    /// The migrator, built by `build` the first time.
    func migrator(_ build: () -> DatabaseMigrator) -> DatabaseMigrator {
        lock.withLock {
            if let built { return built }
            let migrator = build()
            built = migrator
            return migrator
        }
    }
}

/// Which call (`GRDBMigrationRun`) a step's closure belongs to, by the connection GRDB
/// runs it on: the writer's connection while the call holds its barrier. A closure on
/// any other connection (GRDB's replay of the applied steps into a scratch database for
/// `hasSchemaChanges`, or an app running the runner's `migrator` itself) belongs to none,
/// and only runs its step and writes its history.
final class GRDBMigrationCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [ObjectIdentifier: GRDBMigrationRun] = [:]

    /// `body` runs with the closures on `db` reporting to `run`.
    func running<T>(_ run: GRDBMigrationRun, on db: Database, _ body: () throws -> T) rethrows -> T {
        let connection = ObjectIdentifier(db)
        lock.withLock { runs[connection] = run }
        defer { _ = lock.withLock { runs.removeValue(forKey: connection) } }
        return try body()
    }

    /// The call whose steps run on `db`, if any.
    func run(on db: Database) -> GRDBMigrationRun? {
        lock.withLock { runs[ObjectIdentifier(db)] }
    }
}
