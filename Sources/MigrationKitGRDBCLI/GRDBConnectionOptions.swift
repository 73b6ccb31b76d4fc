import ArgumentParser
import Foundation
import GRDB
import MigrationKitCommands
#if GRDBSQLCipher
import MigrationKitKeyOptions
#endif

/// The database and how to open it: `--db-path`, `--migrations`, `--lock-timeout`, and,
/// when GRDB is built on SQLCipher (the `GRDBSQLCipher` trait), the key options of the
/// `migrationkit` tool.
struct GRDBConnectionOptions: ParsableArguments {
    @Option(name: .customLong("db-path"), help: ArgumentHelp("The database file.", valueName: "path"))
    var dbPath: String?

    @OptionGroup var migrations: MigrationsOptions

    @Option(name: .customLong("lock-timeout"), help: ArgumentHelp("Seconds to wait while another process holds the database lock (default: 10).", valueName: "seconds"))
    var lockTimeout: Double = 10

    #if GRDBSQLCipher
    /// Where the key comes from: the tool's own list of key sources, so a GRDB app's
    /// binary takes `--password-file`, `--keychain-service`, `MIGRATIONKIT_PASSWORD`, a
    /// prompt, or `--plaintext`, with the same rules and sentences.
    @OptionGroup(title: "Key options") var key: KeyOptions
    #endif

    func validate() throws {
        if !(lockTimeout >= 0 && lockTimeout <= 86_400) {
            throw ValidationError("--lock-timeout must be between 0 and 86400 seconds.")
        }
    }

    /// The database path, or a usage error naming the option.
    func requiredPath() throws -> String {
        guard let dbPath, !dbPath.isEmpty else {
            throw CLIError(.usage, "--db-path is required: the database file to work on.")
        }
        // SQLite reads these as an in-memory database, which vanishes when the command
        // ends: "migrating" one would report success and keep nothing.
        if dbPath == ":memory:" || dbPath.hasPrefix("file:") {
            throw CLIError(.usage, "--db-path \(dbPath) is not a file but SQLite's name for an in-memory or URI database, which this command cannot keep; give the path of a database file (./\(dbPath) for a file of that name).")
        }
        return dbPath
    }
}
