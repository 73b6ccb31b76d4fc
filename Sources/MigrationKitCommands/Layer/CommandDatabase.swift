import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitSecrets

/// A layer's runner as the commands use it: the migrations, their verification, and
/// opening a database to run them on.
package protocol CommandMigrations: Sendable {
    /// The registered migrations, in order.
    var identifiers: [String] { get }
    /// Apply pending migrations that sort before the latest applied one.
    var allowOutOfOrder: Bool { get set }
    /// Told of each step as it runs.
    var observer: (@Sendable (MigrationEvent) -> Void)? { get set }
    /// The indexes verification requires (the app's and `--require-index`'s).
    var requiredIndexes: [RequiredIndexSpec] { get set }

    /// Whether the migration `identifier` has a way back (a down section, a rollback
    /// closure).
    func isReversible(_ identifier: String) -> Bool
    /// What the migration `identifier`'s way back is called: "down section" for a
    /// migration file, "rollback closure" for an app's Swift step.
    func rollbackName(_ identifier: String) -> String

    /// The position of `target`, or the registry's error naming it.
    func index(ofTarget target: String) throws -> Int
    /// The migrations whose file's version is `version` (`3` is `0003_x`'s, `1.2` Flyway's
    /// `V1_2__x`'s): what another tool's ledger records, for `baseline --to`.
    func identifiers(carryingVersion version: String) -> [String]
    /// The status of a database that does not exist yet: everything pending.
    var statusOfNewDatabase: MigrationStatus { get }
    /// The migrations compared with the ledger `ledger` found; reads nothing.
    func status(from ledger: LedgerReading) -> MigrationStatus
    /// Whether migrating up to `target` would write anything (steps, bookkeeping), from
    /// the ledger `ledger` found; throws what migrate would refuse for. Reads nothing.
    func changesAnything(upTo target: String?, options: MigrateOptions, from ledger: LedgerReading) throws -> Bool

    /// The database `connection` (which this layer opened), with these migrations to
    /// run on it.
    ///
    /// - Parameter locks: the change locks the command holds, which the runner then
    ///   takes no second time.
    func database(on connection: any CommandConnection, locks: CommandLocks) -> any CommandDatabase
}

/// A database a layer opened, before the migrations to run on it are bound
/// (`CommandMigrations.database(on:)`): `migrate` opens it, deriving the key, while its
/// migrations are still being read.
package protocol CommandConnection: AnyObject {
    /// The database file, as the command named it.
    var path: String { get }
    /// Removes the file when this command created it and nothing was kept in it.
    @discardableResult func discardCreatedDatabase() -> Bool
}

/// A layer's migrations that are its runner: everything but opening a database is
/// the runner's configuration, read and set the same way for either connection.
package protocol RunnerMigrations: CommandMigrations {
    associatedtype Runner: MigrationRunnerConfiguration
    var runner: Runner { get set }
}

extension RunnerMigrations {
    package var identifiers: [String] { runner.registry.identifiers }

    package var allowOutOfOrder: Bool {
        get { runner.allowOutOfOrder }
        set { runner.allowOutOfOrder = newValue }
    }

    package var observer: (@Sendable (MigrationEvent) -> Void)? {
        get { runner.observer }
        set { runner.observer = newValue }
    }

    package var requiredIndexes: [RequiredIndexSpec] {
        get { runner.verifier.requiredIndexes }
        set { runner.verifier.requiredIndexes = newValue }
    }

    package func isReversible(_ identifier: String) -> Bool {
        runner.registry.step(identifier)?.isReversible ?? false
    }

    package func rollbackName(_ identifier: String) -> String {
        runner.registry.step(identifier)?.rollbackName ?? "rollback"
    }

    package func index(ofTarget target: String) throws -> Int {
        try runner.registry.index(ofTarget: target)
    }

    package func identifiers(carryingVersion version: String) -> [String] {
        let parts = MigrationVersion(text: version, separators: ["."]).parts
        guard !parts.isEmpty else { return [] }
        return runner.registry.steps.filter { $0.fileVersion?.parts == parts }.map(\.identifier)
    }

    package var statusOfNewDatabase: MigrationStatus {
        MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
    }

    package func status(from ledger: LedgerReading) -> MigrationStatus {
        runner.analysis(of: ledger).status
    }

    package func changesAnything(upTo target: String?, options: MigrateOptions, from ledger: LedgerReading) throws -> Bool {
        try runner.migratePlan(from: ledger, upTo: target, options: options).changesAnything
    }
}

/// An open database and the migrations to run on it: the runner's methods, bound to
/// one writer. A command asks it through its `MigrationSession`, which carries what it
/// read.
package protocol CommandDatabase: AnyObject {
    /// The database file, as the command named it.
    var path: String { get }

    /// The ledger, read once by the session (`MigrationSession.ledger()`) for what a
    /// command decides before it changes anything.
    func readLedger() throws -> LedgerReading
    /// Migrates, planning first from `ledger` (read by `readLedger()`, with nothing this
    /// command changed since) or, when nil, from the ledger read here.
    func migrate(upTo target: String?, options: MigrateOptions, from ledger: LedgerReading?) throws -> MigrationReport
    /// The migrations rolling back would undo, latest first, changing nothing; throws
    /// what rollback would refuse for.
    func rollbackPlan(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> [String]
    func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport
    func baseline(upTo target: String) throws -> [String]
    /// What `baseline(upTo:)` would record, refused as it would be, reading only.
    func baselinePlan(upTo target: String) throws -> [String]
    /// Records what another tool applied, proven against the schema (the runner's
    /// `adopt`); throws `OtherToolAdoptionError` with nothing written.
    func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption
    func schemaChange() throws -> SchemaChange?
    /// The schema the migrations up to `target` (none when nil) make on an empty
    /// database, for `diff`'s drift and `baseline`'s proof; the database is only read.
    /// Throws the `MigrationStepError` of a migration that fails there.
    func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object]
    func erase() throws
    func verificationReport() throws -> VerificationReport
    /// Runs `body` in a read of the database: its rows, for checks written once.
    func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T
    /// Copies the database's committed state to a new file at `path`, keyed as the
    /// database is, without writing to the database.
    func copyCommittedState(to path: String) throws
    /// The schema as `schema-dump` prints it (the host's own snapshot, if it has one).
    func schemaDump() throws -> String
    /// What lint knows of this database for `files`.
    func lintContext(for files: [SQLMigrationFile]) throws -> LintContext
    /// Writes a backup into `directory` (beside the database when nil), keeping the
    /// newest `keep`; returns its path (mode 0600).
    func backup(into directory: String?, keep: Int, sparing: Set<String>) throws -> String
    /// Closes the database (a WAL database is checkpointed into its file).
    func close() throws
    /// The database's encryption, for `status`.
    func cipherDescription() throws -> DatabaseCipherDescription
}

/// A database's encryption as `status` reports it.
package struct DatabaseCipherDescription: Sendable {
    /// The format: `sqlcipher4`, …, `plaintext`.
    package var format: CipherFormat
    /// Its settings in one line, or nil for a plaintext database.
    package var summary: String?
    /// Its settings for `--json` (the SQLCipher layer's `EffectiveCipherSettings`), or nil.
    package var document: (any Encodable & Sendable)?

    package init(format: CipherFormat, summary: String?, document: (any Encodable & Sendable)?) {
        self.format = format
        self.summary = summary
        self.document = document
    }

    /// The lines `status` prints for it, which a command that wrote a database prints
    /// for the file it wrote (`encrypt`): "  cipher:  SQLCipher 4 defaults: …" and
    /// "  format:  sqlcipher4".
    package var lines: [String] {
        ["  cipher:  \(summary ?? "none (plaintext database)")", "  format:  \(format.rawValue)"]
    }
}

/// A layer's own value in a `--json` document, encoded as the layer encodes it.
package struct AnyEncodable: Encodable, Sendable {
    private let value: any Encodable & Sendable

    package init(_ value: any Encodable & Sendable) {
        self.value = value
    }

    package func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
