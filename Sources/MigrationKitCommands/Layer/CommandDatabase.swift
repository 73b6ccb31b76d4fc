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
    /// The status of a database that does not exist yet: everything pending.
    var statusOfNewDatabase: MigrationStatus { get }

    /// Opens the database `request` names, with these migrations to run on it.
    func open(_ request: DatabaseRequest) throws -> any CommandDatabase
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

    package var statusOfNewDatabase: MigrationStatus {
        MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
    }
}

/// An open database and the migrations to run on it: the runner's methods, bound to
/// one writer.
package protocol CommandDatabase: AnyObject {
    /// The database file, as the command named it.
    var path: String { get }
    /// The same open database, with `migrations` to run on it instead: for a command
    /// that opens the database while it still reads its migrations. `migrations` come
    /// from the same layer (`CommandLayer`), as every command's do.
    func running(_ migrations: any CommandMigrations) -> any CommandDatabase

    func migrationStatus() throws -> MigrationStatus
    /// Whether migrating would write anything (steps, bookkeeping); throws what migrate
    /// would refuse for.
    func migrateChangesAnything(upTo target: String?, options: MigrateOptions) throws -> Bool
    func migrate(upTo target: String?, options: MigrateOptions) throws -> MigrationReport
    /// Whether rolling back would undo nothing; throws what rollback would refuse for.
    func rollbackIsEmpty(_ scope: RollbackScope, acceptModified: Set<String>) throws -> Bool
    func rollback(_ scope: RollbackScope, acceptModified: Set<String>) throws -> MigrationReport
    func baseline(upTo target: String) throws -> [String]
    func schemaChange() throws -> SchemaChange?
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
    /// Removes the file when this command created it and nothing was kept in it.
    @discardableResult func discardCreatedDatabase() -> Bool
    /// The database's encryption, for `status`.
    func cipherDescription() throws -> DatabaseCipherDescription
}

/// What a rollback undoes: to a migration, or the latest few.
package enum RollbackScope: Sendable {
    case to(String)
    case latest(Int)
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
