import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitSecrets

/// The database layer under the command tree: how the commands reach a database, the
/// only thing that differs between `migrationkit` (SQLCipher's connection) and the
/// commands a GRDB app embeds (the app's own GRDB writer).
///
/// Everything else — options, project file and `MIGRATIONKIT_*` settings, keys, locks,
/// backups' names and pruning, fleets, output, `--json`, exit codes and sentences — is
/// the tree's, written once. A layer opens files and runs its runner over them
/// (`CommandMigrations`, `CommandDatabase`); the procedure itself is the core's engine
/// under either runner.
package protocol CommandLayer: Sendable {
    /// The name shown in help and messages (`migrationkit`, an app's binary name).
    var commandName: String { get }

    /// The library the databases are opened with, for `status`:
    /// "SQLCipher 4.6.1 community (SQLite 3.46.1)".
    var librarySummary: String { get }
    /// The linked SQLite's version, as `sqlite_version()` says it.
    var sqliteVersion: String { get }
    /// The linked SQLCipher's version, or nil on a plain SQLite.
    var cipherVersion: String? { get }
    /// What lint knows of the linked library before any database is consulted.
    var linkedLintContext: LintContext { get }

    /// Whether this layer can open encrypted databases: a layer on plain SQLite refuses
    /// a key with a sentence instead of writing a plaintext file the user thinks is
    /// encrypted.
    var encrypts: Bool { get }

    /// The migrations an app registered in Swift, with `requiredIndexes` added to its
    /// verifier; nil when the migrations are the SQL files of `--migrations`.
    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> (any CommandMigrations)?

    /// The migrations the SQL files make, verified with `requiredIndexes` as well.
    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> any CommandMigrations

    /// Turns `cipher_memory_security` on for the process when asked (`--memory-security`)
    /// and the host allows it; whether the layer's connections are then to use it.
    func enableMemorySecurity(asked: Bool) -> Bool
    /// Whether `cipher_memory_security` is on now; nil when the library has no such
    /// switch (SQLCipher 3, plain SQLite).
    var memorySecurity: Bool? { get }

    /// The commands' sentence and exit code for an error only this layer raises (its
    /// database's own error type), or nil for one the tree presents.
    func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation?

    /// Puts the backup at `backup` in place of the database `request` names, after
    /// proving it opens with the request's key and passes `quick_check`; runs
    /// `beforeReplacing` just before (`BackupFiles.putInPlace`).
    func restore(from backup: String, over request: DatabaseRequest, beforeReplacing: () throws -> Void) throws

    /// `diff --to`: writes the migration from the current schema to the one
    /// `schemaFile` makes, proven on scratch copies first; a layer that cannot prove one
    /// says so in a sentence.
    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter) throws

    /// The layer's own words for a remedy where the tree's flags do not apply (a GRDB
    /// app gives its cipher settings in its own code), or nil for the tree's.
    func words(for remedy: Remedy) -> String?
}

/// How a command means to use the database.
package enum DatabaseAccess: Sendable {
    /// Change it, creating it when missing (migrate).
    case create
    /// Change an existing database (rollback).
    case change
    /// Only read it (status, verify, schema-dump): opened read-only when the file is
    /// not writable, so inspecting a read-only copy works.
    case inspect
}

/// What a command asks of the database it opens: which file, with which key, how.
package struct DatabaseRequest: Sendable {
    package var path: String
    /// Nil for a plaintext database.
    package var key: DatabaseKey?
    package var access: DatabaseAccess
    /// Open read-only whatever the file allows (a database a check copies and never writes).
    package var readOnly: Bool = false
    /// How long to wait for another process's lock.
    package var lockTimeout: Duration
    /// For a reader: wait out `lockTimeout` for a change in progress instead of giving
    /// way at once and saying who is changing the database (asked for with
    /// `--lock-timeout`).
    package var readerWaits: Bool
    /// The database's own cipher settings, when not a known format's defaults.
    package var cipher: CipherSettings
    /// `--memory-security`, as resolved.
    package var memorySecurity: Bool

    package init(path: String, key: DatabaseKey?, access: DatabaseAccess, lockTimeout: Duration, readerWaits: Bool = false,
                 cipher: CipherSettings = CipherSettings(), memorySecurity: Bool = false) {
        self.path = path
        self.key = key
        self.access = access
        self.lockTimeout = lockTimeout
        self.readerWaits = readerWaits
        self.cipher = cipher
        self.memorySecurity = memorySecurity
    }

    /// Whether the file is opened read-only: asked to, or only read and not writable.
    package var opensReadOnly: Bool {
        readOnly || (access == .inspect && FileManager.default.fileExists(atPath: path) && !FileManager.default.isWritableFile(atPath: path))
    }
}

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

    /// The position of `target`, or the registry's error naming it.
    func index(ofTarget target: String) throws -> Int
    /// The status of a database that does not exist yet: everything pending.
    var statusOfNewDatabase: MigrationStatus { get }

    /// Opens the database `request` names, with these migrations to run on it.
    func open(_ request: DatabaseRequest) throws -> any CommandDatabase
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
