import ArgumentParser

/// Where SQL migration files live.
package struct MigrationsOptions: ParsableArguments {
    package static let defaultDirectory = "./Migrations"

    /// As given on the command line (or filled in from the environment or
    /// `migrationkit.toml`); nil means the default.
    @Option(name: .customLong("migrations"), help: ArgumentHelp("The folder of migration files (default: \(MigrationsOptions.defaultDirectory)).", valueName: "dir"))
    package var givenDirectory: String?

    /// The folder of migration files.
    package var directory: String {
        get { givenDirectory ?? Self.defaultDirectory }
        set { givenDirectory = newValue }
    }

    package init() {}
}
