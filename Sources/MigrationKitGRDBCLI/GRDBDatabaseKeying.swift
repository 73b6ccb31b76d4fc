#if GRDBSQLCipher
#if !canImport(SQLCipher)
#error("The GRDBSQLCipher trait needs GRDB built on SQLCipher: run scripts/grdb-sqlcipher.sh in the package's folder first (README: Encrypted: GRDB on the system's SQLCipher).")
#else
import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB
import MigrationKitKeyOptions
import MigrationKitKeys
import MigrationKitSecrets

/// The key a command opens the database with, and the file's SQLCipher format: what the
/// `migrationkit` tool's connection layer settles before it opens a file, here for a
/// GRDB built on SQLCipher.
enum GRDBDatabaseKeying {
    /// The key the options select, read once (nil for `--plaintext`). The implicit
    /// sources are the tool's: `MIGRATIONKIT_PASSWORD`, else a no-echo prompt on a
    /// terminal, asked twice for a database about to be created.
    static func key(_ options: KeyOptions, path: String, creating: Bool, reporter: Reporter) throws -> DatabaseKey? {
        for warning in options.given.warnings(DatabaseKeyRole.text) { reporter.warning(warning) }
        guard let source = try options.source(standardInputIsTerminal: StandardInput.isTerminal,
                                              promptMessage: "Key for \(path): ", keyIsNew: creating)
        else { return nil }
        // Before the key is read: no core file or same-user debugger reaches it. Only
        // then: `--plaintext` leaves an app's process (or a test run's) as it was.
        if GRDBCLIContext.host.hardensProcess { ProcessHardening.apply() }
        return try source.resolve(warn: { reporter.warning($0.description) })
    }
}
#endif
#endif
