import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB

/// What every GRDB command starts from: the runner of the host's Swift steps, or of
/// the SQL files of `--migrations`.
enum GRDBCommandSupport {
    static func runner(_ migrations: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter) throws -> GRDBMigrationRunner {
        try loadMigrations(migrations, requiredIndexes: requiredIndexes, reporter: reporter).runner
    }

    /// The runner and, for SQL migrations, the files it was built from (for lint).
    static func loadMigrations(_ migrations: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter) throws -> (runner: GRDBMigrationRunner, files: [SQLMigrationFile]?) {
        if var runner = GRDBCLIContext.host.runner {
            runner.verifier.requiredIndexes += requiredIndexes
            return (runner, nil)
        }
        let files = try migrations.loadFiles(reporter: reporter)
        var runner = try GRDBMigrationRunner(steps: files.map { MigrationStep<Database>(file: $0) })
        runner.verifier.requiredIndexes += requiredIndexes
        return (runner, files)
    }

    /// What the linter knows of the SQLite GRDB links and of the database `db`.
    static func lintContext(_ db: Database, for files: [SQLMigrationFile]) throws -> LintContext {
        let version = try linkedSQLiteVersion()
        var context = LintContext(sqliteVersion: SQLiteVersion(version) ?? SQLiteVersion(3, 0, 0),
                                  libraryDescription: "SQLite \(version) (through GRDB)")
        context.compileOptions = Set(try String.fetchAll(db, sql: "PRAGMA compile_options"))
        return try context.consulting(db, for: files)
    }

    /// The version of the SQLCipher GRDB links (`PRAGMA cipher_version`), or nil for
    /// the system's plain SQLite.
    static func linkedSQLCipherVersion() throws -> String? {
        try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") }
    }

    /// The version of the SQLite GRDB links (the system's), as `sqlite_version()` says.
    static func linkedSQLiteVersion() throws -> String {
        try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "unknown"
    }
}
