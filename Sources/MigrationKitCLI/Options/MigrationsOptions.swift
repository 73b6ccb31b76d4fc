import ArgumentParser

/// Where SQL migration files live.
public struct MigrationsOptions: ParsableArguments {
    public static let defaultDirectory = "./Migrations"

    /// As given on the command line (or filled in from the environment or
    /// `migrationkit.toml`); nil means the default.
    @Option(name: .customLong("migrations"), help: ArgumentHelp("The folder of migration files (default: \(MigrationsOptions.defaultDirectory)).", valueName: "dir"))
    public var givenDirectory: String?

    /// The folder of migration files.
    public var directory: String {
        get { givenDirectory ?? Self.defaultDirectory }
        set { givenDirectory = newValue }
    }

    public init() {}
}
