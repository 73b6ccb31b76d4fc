import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB

/// What every GRDB command starts from: the runner of the host's Swift steps, or of
/// the SQL files of `--migrations`.
enum GRDBCommandSupport {
    static func runner(_ migrations: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter) throws -> GRDBMigrationRunner {
        var runner = try GRDBCLIContext.host.runner
            ?? GRDBMigrationRunner(steps: migrations.loadFiles(reporter: reporter).map { MigrationStep<Database>(file: $0) })
        runner.verifier.requiredIndexes += requiredIndexes
        return runner
    }

    /// Runs migration steps: an SQLite error meanwhile is a failed step.
    static func runningSteps<T>(_ body: () throws -> T) rethrows -> T {
        GRDBCLIContext.current.runningSteps = true
        defer { GRDBCLIContext.current.runningSteps = false }
        return try body()
    }
}
