import ArgumentParser
import MigrationKit

/// Where SQL migration files live.
package struct MigrationsOptions: ParsableArguments {
    package static let defaultDirectory = "./Migrations"

    /// As given on the command line (or filled in from the environment or
    /// `migrationkit.toml`); nil means the default.
    @Option(name: .customLong(ProjectSetting.migrations.rawValue), help: ArgumentHelp("The folder of migration files (default: \(MigrationsOptions.defaultDirectory)).", valueName: "dir"))
    package var givenDirectory: String?

    /// The folder of migration files.
    package var directory: String {
        get { givenDirectory ?? Self.defaultDirectory }
        set { givenDirectory = newValue }
    }

    package init() {}
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
        default:
            return nil
        }
    }
}
