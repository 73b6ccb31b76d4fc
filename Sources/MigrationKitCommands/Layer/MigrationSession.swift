import Foundation
import MigrationKit
import MigrationKitFiles

/// One command's hold on one database: opened once from one `OpenRequest`, its change
/// lock taken once (held in the world's `CommandLocks` for the rest of the command), and
/// its ledger read once. Everything a command does to a database it asks of its session:
/// the status, which files lint looks at, whether a backup is worth taking, the engine's
/// first plan — answered from that one reading (`CommandMigrations.plans`), which the run
/// then starts from — and every change, run by the store's runner (`DatabaseStore`).
///
/// A session that changed the database (an erase, a migration, a rollback, a baseline,
/// an adoption) reads the ledger afresh when asked again; every change goes through it.
package final class MigrationSession {
    /// What the command asked for, and what was at the path then.
    let request: OpenRequest
    /// The open database, with its runner.
    private let store: any DatabaseStore
    /// The migrations, for what they plan from a ledger reading.
    private let migrations: CommandMigrations
    /// The ledger as the session read it, until the session writes.
    private var carriedLedger: LedgerReading?

    /// A session over `store`, whose runner runs `migrations` (`CommandMigrations.open`).
    init(request: OpenRequest, store: any DatabaseStore, migrations: CommandMigrations) {
        self.request = request
        self.store = store
        self.migrations = migrations
    }

    /// Resolves the key (printing the key options' warnings) and opens the database
    /// `options` name, with `migrations` to run on it. The key is derived exactly once,
    /// here.
    ///
    /// - Parameter announcing: the first line names the database (`CommandWorld.announce`);
    ///   false only where standard output is the data itself (`schema-dump` without --output).
    static func open(_ options: ConnectionOptions, migrations: CommandMigrations, access: DatabaseAccess,
                             announcing: Bool = true, reporter: Reporter, in world: CommandWorld) throws -> MigrationSession {
        let request = try OpenRequest.resolving(options, access: access, announcing: announcing, reporter: reporter, in: world)
        return try open(request, migrations: migrations, in: world)
    }

    /// Opens the database `request` names with `migrations` to run on it, holding its
    /// change lock unless it is only read: taken once, before opening, so the key is
    /// proven on the file as no other changing command will leave it; or, for a file this
    /// open creates, as soon as it exists.
    static func open(_ request: OpenRequest, migrations: CommandMigrations, in world: CommandWorld) throws -> MigrationSession {
        if request.access != .inspect { try holdChangeLock(on: request.path, timeout: request.lockTimeout, in: world) }
        let session = try migrations.open(request, locks: world.locks)
        if request.access != .inspect {
            do {
                try holdChangeLock(on: session.path, timeout: request.lockTimeout, in: world)
            } catch {
                session.discardIfCreated()
                throw error
            }
        }
        return session
    }

    /// Opens a scratch database only this command knows of (a check's, a dry run's on a
    /// database that does not exist yet): no change lock is taken, since no other
    /// process can reach it.
    static func openScratch(_ request: OpenRequest, migrations: CommandMigrations, in world: CommandWorld) throws -> MigrationSession {
        try migrations.open(request, locks: world.locks)
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
    package var path: String { store.path }

    // MARK: - Reading

    /// The ledger: read on the first question, then carried until the session writes.
    func ledger() throws -> LedgerReading {
        if let carriedLedger { return carriedLedger }
        let reading = try store.reading { try LedgerReading.read(in: $0) }
        carriedLedger = reading
        return reading
    }

    /// Every migration's state, from the session's ledger.
    package func status() throws -> MigrationStatus {
        migrations.status(from: try ledger())
    }

    /// Those of `files` still to run on this database.
    func pending(among files: [SQLMigrationFile]) throws -> [SQLMigrationFile] {
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

    /// Runs `body` in a read of the database: its rows, for checks written once.
    func read<T>(_ body: (any SQLQuerying) throws -> T) throws -> T {
        try store.reading(body)
    }

    /// What lint knows of this database for `files`.
    func lintContext(for files: [SQLMigrationFile], linked: LintContext) throws -> LintContext {
        try store.reading { try linked.consulting($0, for: files) }
    }

    /// The schema as `schema-dump` prints it (the host's own snapshot, if it has one).
    func schemaDump() throws -> String {
        try store.schemaDump()
    }

    /// The database's encryption, for `status`.
    func cipherDescription() throws -> DatabaseCipherDescription {
        try store.cipherDescription()
    }

    /// How the schema differs from what the applied migrations make, or nil.
    package func schemaChange() throws -> SchemaChange? {
        try store.schemaChange()
    }

    /// The schema the migrations up to `target` (none when nil) make on an empty
    /// database, for `diff`'s drift and `baseline`'s proof; the database is only read.
    /// Throws the `MigrationStepError` of a migration that fails there.
    func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object] {
        try store.replayedSchema(upTo: target)
    }

    /// The migrations rolling back would undo, latest first, changing nothing; throws
    /// what rollback would refuse for.
    package func rollbackPlan(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> [String] {
        try migrations.plans(from: try ledger()).rollback(selection, acceptModified)
    }

    /// Every check the verifier makes, on the database as it is.
    package func verificationReport() throws -> VerificationReport {
        try store.verificationReport()
    }

    /// Copies the database's committed state to a new file at `destination`, keyed as the
    /// database is, without writing to the database.
    package func copy(to destination: String) throws {
        try store.copy(to: destination)
    }

    // MARK: - Changing

    /// Writes a backup where `options` say (the run's journal records it). `sparing`
    /// names files pruning must keep (the backup being restored).
    func backup(_ options: BackupOptions, sparing: Set<String> = [], in world: CommandWorld) throws -> String {
        let store = self.store
        return try options.writing({ directory, keep, sparing in
            try BackupFiles.write(databaseAt: store.path, into: directory, keep: keep, sparing: sparing) { try store.copy(to: $0) }
        }, sparing: sparing, in: world)
    }

    /// Runs `body` in one write transaction: a change of plain SQL that is no migration.
    package func write<T>(_ body: (any BookkeepingExecuting) throws -> T) throws -> T {
        carriedLedger = nil
        return try store.changing(body)
    }

    /// Erases every object and the ledger (`--erase-on-schema-change`).
    package func erase() throws {
        carriedLedger = nil
        try store.erase()
    }

    /// Migrates, planning from the session's ledger when it read one and wrote nothing
    /// since. A database this session created and kept nothing in is not left behind
    /// when the run fails.
    package func migrate(upTo target: String?, options: MigrateOptions) throws -> MigrationReport {
        let ledger = carriedLedger
        carriedLedger = nil
        do {
            return try store.migrate(upTo: target, options: options, from: ledger)
        } catch {
            discardIfCreated()
            throw error
        }
    }

    /// Rolls back, from the ledger as it is now.
    package func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport {
        carriedLedger = nil
        return try store.rollback(selection, acceptModified: acceptModified)
    }

    /// Records the migrations up to `target` as applied without running them; with
    /// `dryRun`, says which it would record and writes nothing.
    package func baseline(upTo target: String, dryRun: Bool = false) throws -> [String] {
        if dryRun { return try migrations.plans(from: try ledger()).baseline(target) }
        carriedLedger = nil
        return try store.baseline(upTo: target)
    }

    /// Records what another tool applied, proven against the schema; a dry run writes
    /// nothing. Throws `OtherToolAdoptionError` with nothing written.
    package func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool = false) throws -> OtherToolAdoption {
        if !dryRun { carriedLedger = nil }
        return try store.adopt(from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations)
    }

    /// Removes the file when this session created it and nothing was kept in it.
    @discardableResult
    func discardIfCreated() -> Bool {
        store.discardIfCreated()
    }

    /// Closes the database (a WAL database is checkpointed into its file).
    func close() throws {
        try store.close()
    }
}
