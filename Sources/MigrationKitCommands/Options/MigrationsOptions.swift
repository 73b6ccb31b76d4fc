import ArgumentParser
import MigrationKit

/// Where SQL migration files live.
package struct MigrationsOptions: ParsableArguments {
    static let defaultDirectory = "./Migrations"

    /// As given on the command line (or filled in from the environment or
    /// `migrationkit.toml`); nil means the default.
    @Option(name: .customLong(ProjectSetting.migrations.rawValue), help: ArgumentHelp("The folder of migration files (default: \(MigrationsOptions.defaultDirectory)).", valueName: "dir"))
    var givenDirectory: String?

    /// The layout `--layout` (or the environment, or `migrationkit.toml`) named; nil
    /// reads the folder in the layout its files are written in.
    @Option(name: .customLong("layout"),
            help: ArgumentHelp("The layout the migrations folder is written in: migrationkit (dbmate), sqlx, golang-migrate, goose, flyway, diesel, prisma, drizzle, refinery, sql-migrate, sqldelight, liquibase, atlas or yoyo (default: the one its files are written in).",
                               valueName: "name"))
    package var givenLayout: MigrationFolderLayout?

    /// Flyway's placeholders' values, `NAME=VALUE` (repeatable), replaced in a Flyway
    /// folder's files as Flyway replaces them (`FlywayPlaceholders`).
    @Option(name: .customLong("placeholder"),
            help: ArgumentHelp("A value for a Flyway placeholder, ${NAME} in a Flyway folder's files (repeatable; also the [placeholders] table of migrationkit.toml).",
                               valueName: "name=value"))
    var givenPlaceholders: [String] = []

    /// The project file's `[placeholders]` table, which a flag of the same name overrides.
    var projectPlaceholders: [String: String] = [:]

    /// The folder of migration files.
    package var directory: String {
        get { givenDirectory ?? Self.defaultDirectory }
        set { givenDirectory = newValue }
    }

    package init() {}

    /// Flyway's placeholders' values: the project file's, then the flags'.
    var placeholders: FlywayPlaceholders {
        var values = projectPlaceholders
        for given in givenPlaceholders {
            guard let equals = given.firstIndex(of: "=") else { continue }
            values[String(given[..<equals])] = String(given[given.index(after: equals)...])
        }
        return FlywayPlaceholders(values)
    }

    /// The folder as every command reads it: in the layout named, or its own, with
    /// Flyway's placeholders.
    var folder: SQLMigrationDirectory {
        SQLMigrationDirectory(path: directory, layout: givenLayout, placeholders: placeholders)
    }

    package func validate() throws {
        for given in givenPlaceholders where (given.firstIndex(of: "=").map { $0 == given.startIndex } ?? true) {
            throw ValidationError("--placeholder takes NAME=VALUE (the value Flyway would put in place of ${NAME}), not \"\(given)\".")
        }
    }
}

extension MigrationsOptions {
    /// What `--migrations` answers, for the remedies about the migrations folder; nil
    /// for any other remedy. Every command line with these options words them so.
    ///
    /// - Parameter newCommand: the command that creates the folder (`migrationkit new
    ///   NAME`), when the command line has one.
    package static func words(for remedy: Remedy, newCommand: String?) -> String? {
        switch remedy {
        case .createMigrationsFolder:
            return newCommand.map { "create it (`\($0)` does), or pass --migrations DIR" } ?? "create it, or pass --migrations DIR"
        case .chooseMigrationsFolder:
            return "point --migrations at the folder that holds the migration files"
        case .nameMigrationsLayout:
            return "name the layout it is written in with --layout NAME (`\(ProjectSetting.migrationsLayout.rawValue)` in migrationkit.toml)"
        default:
            return nil
        }
    }
}
