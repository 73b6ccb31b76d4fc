import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitSecrets

/// The database layer under the command tree: how the commands reach a database, the
/// only thing that differs between `migrationkit` (SQLCipher's connection) and the
/// commands a GRDB app embeds (the app's own GRDB writer).
///
/// Everything else — options, project file and `MIGRATIONKIT_*` settings, keys, locks,
/// backups' names and pruning, fleets, output, `--json`, exit codes and sentences — is
/// the tree's, written once. A layer makes the migrations (`CommandMigrations`), which
/// open its stores (`DatabaseStore`) and run its runner (`MigrationRunning`) over them;
/// the procedure itself is the core's engine under either runner.
package protocol CommandLayer: Sendable {
    /// The name shown in help and messages (`migrationkit`, an app's binary name).
    var commandName: String { get }

    /// The commands only this layer's connection can run (SQLCipher's encrypt, decrypt,
    /// rekey, cipher-upgrade and key), which `CommandTree.commands(for:)` puts among the
    /// tree's: the one list stays the tree's, and a layer adds to it here.
    var ownCommands: [any ParsableCommand.Type] { get }

    /// The database library the layer links, as the commands describe and judge it.
    var library: DatabaseLibrary { get }

    /// The migrations an app registered in Swift, with `requiredIndexes` added to its
    /// verifier; nil when the migrations are the SQL files of `--migrations`.
    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> CommandMigrations?

    /// The migrations the SQL files make, verified with `requiredIndexes` as well.
    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> CommandMigrations

    /// Turns `cipher_memory_security` on for the process when asked (`--memory-security`)
    /// and the host allows it; whether the layer's connections are then to use it.
    func enableMemorySecurity(asked: Bool) -> Bool
    /// Whether `cipher_memory_security` is on now; nil when the library has no such
    /// switch (SQLCipher 3, plain SQLite).
    var memorySecurity: Bool? { get }

    /// The commands' sentence and exit code for an error only this layer raises (its
    /// database's own error type), or nil for one the tree presents.
    ///
    /// - Parameter databasePath: the database the command said it works on, if it did
    ///   (`RunJournal.databasePath`), for a sentence that names it.
    func present(_ error: any Error, wording: RemedyWording, databasePath: String?) -> ErrorPresentation?

    /// `diff --to`: writes the migration from the current schema to the one
    /// `schemaFile` makes, proven on scratch copies first; a layer that cannot prove one
    /// says so in a sentence.
    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter, in world: CommandWorld) throws

    /// The layer's own words for a remedy where the tree's flags do not apply (a GRDB
    /// app gives its cipher settings in its own code), or nil for the tree's.
    func words(for remedy: Remedy) -> String?
}

/// What a layer's database library is, as the commands describe it (`status`), judge what
/// it can do (lint, `--min-sqlite`) and decide which options they take: facts of the
/// linked library, the same for every database the layer opens.
package struct DatabaseLibrary: Sendable {
    /// "SQLCipher 4.6.1 community (SQLite 3.46.1)".
    package var summary: String
    /// The linked SQLite's version, as `sqlite_version()` says it.
    package var sqliteVersion: String
    /// The linked SQLCipher's version, or nil on a plain SQLite.
    package var cipherVersion: String?
    /// What lint knows of the library before any database is consulted.
    package var lintContext: LintContext
    /// Whether it can open encrypted databases: a layer on plain SQLite refuses a key
    /// with a sentence instead of writing a plaintext file the user thinks is encrypted.
    package var encrypts: Bool
    /// Whether the commands take a database's own cipher settings as options
    /// (`--kdf-iter`, `--cipher-page-size`, …). A GRDB app gives them in its own code
    /// (`Configuration.useKey(_:format:)`): its commands neither show nor accept them,
    /// only `--cipher-compatibility` 3 or 4.
    package var takesCipherSettings: Bool

    package init(summary: String, sqliteVersion: String, cipherVersion: String?, lintContext: LintContext, encrypts: Bool,
                 takesCipherSettings: Bool) {
        self.summary = summary
        self.sqliteVersion = sqliteVersion
        self.cipherVersion = cipherVersion
        self.lintContext = lintContext
        self.encrypts = encrypts
        self.takesCipherSettings = takesCipherSettings
    }
}
