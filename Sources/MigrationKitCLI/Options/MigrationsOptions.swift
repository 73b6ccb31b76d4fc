import ArgumentParser

/// Where SQL migration files live.
public struct MigrationsOptions: ParsableArguments {
    @Option(name: .customLong("migrations"), help: ArgumentHelp("The folder of migration files.", valueName: "dir"))
    public var directory: String = "./Migrations"

    public init() {}
}
