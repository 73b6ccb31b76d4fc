import Foundation
import MigrationKit
import MigrationKitFiles

/// One command's hold on one database: opened once from one `OpenRequest`, its change
/// lock taken once (held in the world's `CommandLocks` for the rest of the command),
/// and its ledger read once. Everything a command decides before it changes the
/// database — the status, which files lint looks at, whether a backup is worth taking,
/// the engine's first plan — is asked of the session and answered from that one
/// reading, which the run then starts from; the runners take no second lock.
///
/// A session that changed the database (an erase, a migration, a rollback, a baseline,
/// an adoption) reads the ledger afresh when asked again; every change goes through it.
package final class MigrationSession {
    /// What the command asked for, and what was at the path then.
    package let request: OpenRequest
    /// The database, with the migrations to run on it.
    package let database: any CommandDatabase
    /// The migrations the session runs.
    package let migrations: any CommandMigrations
    private let connection: any CommandConnection
    /// The ledger as the session read it, until the session writes.
    private var carriedLedger: LedgerReading?

    /// Binds the migrations to a database the layer opened (`connect(_:in:)`): `migrate`
    /// opens the database, deriving its key, while its migrations are still being read.
    package init(request: OpenRequest, connection: any CommandConnection, migrations: any CommandMigrations, locks: CommandLocks) {
        self.request = request
        self.connection = connection
        self.migrations = migrations
        self.database = migrations.database(on: connection, locks: locks)
    }

    /// Resolves the key (printing the key options' warnings) and opens the database
    /// `options` name, with `migrations` to run on it. The key is derived exactly once,
    /// here.
    ///
    /// - Parameter announcing: the first line names the database (`CommandWorld.announce`);
    ///   false only where standard output is the data itself (`schema-dump` without --output).
    package static func open(_ options: ConnectionOptions, migrations: any CommandMigrations, access: DatabaseAccess,
                             announcing: Bool = true, reporter: Reporter, in world: CommandWorld) throws -> MigrationSession {
        let request = try OpenRequest.resolving(options, access: access, announcing: announcing, reporter: reporter, in: world)
        return try open(request, migrations: migrations, in: world)
    }

    /// Opens the database `request` names, with `migrations` to run on it.
    package static func open(_ request: OpenRequest, migrations: any CommandMigrations, in world: CommandWorld) throws -> MigrationSession {
        MigrationSession(request: request, connection: try connect(request, in: world), migrations: migrations, locks: world.locks)
    }

    /// Opens a scratch database only this command knows of (a check's, a dry run's on a
    /// database that does not exist yet): no change lock is taken, since no other
    /// process can reach it.
    package static func openScratch(_ request: OpenRequest, migrations: any CommandMigrations, in world: CommandWorld) throws -> MigrationSession {
        MigrationSession(request: request, connection: try world.layer.open(request), migrations: migrations, locks: world.locks)
    }

    /// Opens the database `request` names through the layer, holding its change lock
    /// unless it is only read: taken once, before opening, so the key is proven on the
    /// file as no other changing command will leave it; or, for a file this open
    /// creates, as soon as it exists.
    package static func connect(_ request: OpenRequest, in world: CommandWorld) throws -> any CommandConnection {
        if request.access != .inspect { try holdChangeLock(on: request.path, timeout: request.lockTimeout, in: world) }
        let connection = try world.layer.open(request)
        if request.access != .inspect { try holdChangeLock(on: connection.path, timeout: request.lockTimeout, in: world) }
        return connection
    }

    /// Takes the database's change lock for the rest of the command (`DatabaseFileLock`),
    /// unless the command holds it already. A file that does not exist yet has no lock
    /// to take: nothing is held, and the command takes it once the file is there.
    package static func holdChangeLock(on path: String, timeout: Duration, in world: CommandWorld) throws {
        guard !world.locks.holds(path) else { return }
        let lock = try DatabaseFileLock.exclusive(path: path, timeout: timeout)
        guard lock.locksAFile else { return }
        world.locks.hold(lock, on: path)
    }

    /// The database file, as the command named it.
    package var path: String { connection.path }

    /// The ledger: read on the first question, then carried until the session writes.
    package func ledger() throws -> LedgerReading {
        if let carriedLedger { return carriedLedger }
        let reading = try database.readLedger()
        carriedLedger = reading
        return reading
    }

    /// Every migration's state, from the session's ledger.
    package func status() throws -> MigrationStatus {
        migrations.status(from: try ledger())
    }

    /// Those of `files` still to run on this database.
    package func pending(among files: [SQLMigrationFile]) throws -> [SQLMigrationFile] {
        let pending = Set(try status().pending)
        return files.filter { pending.contains($0.identifier) }
    }

    /// Whether migrating up to `target` would write anything (steps pending, or
    /// bookkeeping), so a backup is worth taking; throws what migrate would refuse for
    /// (a newer version's database, a half-applied merge, edited or out-of-order
    /// migrations, a target already passed), before anything is written.
    package func changesAnything(upTo target: String?, options: MigrateOptions) throws -> Bool {
        try migrations.changesAnything(upTo: target, options: options, from: try ledger())
    }

    /// Writes a backup where `options` say (the run's journal records it). `sparing`
    /// names files pruning must keep (the backup being restored).
    package func backup(_ options: BackupOptions, sparing: Set<String> = [], in world: CommandWorld) throws -> String {
        try options.writing({ try database.backup(into: $0, keep: $1, sparing: $2) }, sparing: sparing, in: world)
    }

    /// Erases every object and the ledger (`--erase-on-schema-change`).
    package func erase() throws {
        carriedLedger = nil
        try database.erase()
    }

    /// Migrates, planning from the session's ledger when it read one and wrote nothing
    /// since. A database this session created and kept nothing in is not left behind
    /// when the run fails.
    package func migrate(upTo target: String?, options: MigrateOptions) throws -> MigrationReport {
        let ledger = carriedLedger
        carriedLedger = nil
        do {
            return try database.migrate(upTo: target, options: options, from: ledger)
        } catch {
            discardIfCreated()
            throw error
        }
    }

    /// Rolls back, from the ledger as it is now.
    package func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport {
        carriedLedger = nil
        return try database.rollback(selection, acceptModified: acceptModified)
    }

    /// Records the migrations up to `target` as applied without running them; a dry run
    /// says which it would record, and writes nothing.
    package func baseline(upTo target: String, dryRun: Bool = false) throws -> [String] {
        guard !dryRun else { return try database.baselinePlan(upTo: target) }
        carriedLedger = nil
        return try database.baseline(upTo: target)
    }

    /// Records what another tool applied (`CommandDatabase.adopt`); a dry run writes
    /// nothing.
    package func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool = false) throws -> OtherToolAdoption {
        if !dryRun { carriedLedger = nil }
        return try database.adopt(from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations)
    }

    /// Removes the file when this session created it and nothing was kept in it.
    @discardableResult
    package func discardIfCreated() -> Bool {
        connection.discardCreatedDatabase()
    }

    /// Closes the database (a WAL database is checkpointed into its file).
    package func close() throws {
        try database.close()
    }
}
