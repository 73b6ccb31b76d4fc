import Foundation
import MigrationKit

/// The migrations a command runs and, for SQL migrations, the files they were made
/// from (for lint).
package struct LoadedMigrations: Sendable {
    package var migrations: CommandMigrations
    /// The SQL files; nil for a host's Swift steps.
    package let files: [SQLMigrationFile]?

    /// The host's Swift steps, or the SQL files of `--migrations`; in a fleet, read once
    /// for every database (`FleetShared`).
    static func load(_ options: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter,
                             in world: CommandWorld) throws -> LoadedMigrations {
        let layer = world.layer
        guard let shared = world.fleet else { return try read(options, requiredIndexes: requiredIndexes, reporter: reporter, layer: layer) }
        return try shared.migrations { try read(options, requiredIndexes: requiredIndexes, reporter: reporter, layer: layer) }
    }

    /// The migrations, read now.
    private static func read(_ options: MigrationsOptions, requiredIndexes: [RequiredIndexSpec], reporter: Reporter,
                             layer: any CommandLayer) throws -> LoadedMigrations {
        if let host = layer.hostMigrations(requiredIndexes: requiredIndexes) { return LoadedMigrations(migrations: host, files: nil) }
        let files = try options.loadFiles(reporter: reporter)
        return LoadedMigrations(migrations: try layer.migrations(over: files, requiredIndexes: requiredIndexes), files: files)
    }
}

extension CommandLayer {
    /// The host's steps, or none: for a command that needs no migration files (verify,
    /// schema-dump), whose host's own checks still apply.
    func hostMigrationsOrNone(requiredIndexes: [RequiredIndexSpec] = []) throws -> CommandMigrations {
        try hostMigrations(requiredIndexes: requiredIndexes) ?? migrations(over: [], requiredIndexes: requiredIndexes)
    }
}
