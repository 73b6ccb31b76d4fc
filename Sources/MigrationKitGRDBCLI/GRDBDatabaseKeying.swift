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
        logSilenced
        for warning in options.given.warnings(DatabaseKeyRole.text) { reporter.warning(warning) }
        guard let source = try options.source(standardInputIsTerminal: StandardInput.isTerminal,
                                              promptMessage: "Key for \(path): ", keyIsNew: creating)
        else { return nil }
        // Before the key is read: no core file or same-user debugger reaches it. Only
        // then: `--plaintext` leaves an app's process (or a test run's) as it was.
        if GRDBCLIContext.host.hardensProcess { ProcessHardening.apply() }
        return try source.resolve(warn: { reporter.warning($0.description) })
    }

    /// SQLCipher 4.5.1+ logs to standard error (timestamped `ERROR CORE` lines on
    /// every wrong key, and the format detection tries keys that fail by design): its
    /// log goes to /dev/null, once per process, as the tool's does. Keying resets the
    /// log's level but never its destination. The commands' own sentences say what
    /// failed.
    private static let logSilenced: Void = {
        _ = try? DatabaseQueue().inDatabase { try $0.execute(sql: "PRAGMA cipher_log = '/dev/null'") }
    }()

    /// The format of the existing file at `path` that `key` opens: SQLCipher 4's, or an
    /// older app's (opened in it and kept in it). A plaintext file, or one the key opens
    /// in no format, is refused with the tool's exit code and a sentence that says what
    /// to do.
    static func format(ofExisting path: String, key: DatabaseKey) throws -> CipherFormat {
        switch try GRDBCipherFormat.detect(path: path, key: key) {
        case .plaintext?:
            throw CLIError(.wrongKeyOrNotADatabase, "\(path): The database is not encrypted, but a key was given; open it without a key (--plaintext).")
        case let format?:
            return format
        case nil:
            throw CLIError(.wrongKeyOrNotADatabase, "\(path): Wrong key, or not a SQLCipher database: the key does not decrypt this file in SQLCipher 4's, 3's, 2's or 1's defaults; check the key and its source, and --db-path.")
        }
    }
}
#endif
#endif
