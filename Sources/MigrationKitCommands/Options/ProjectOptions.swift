import ArgumentParser
import MigrationKitFiles

/// Which project file to read settings from, and which of its databases.
package struct ProjectOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Read settings from this file instead of the migrationkit.toml found in the current folder or above it.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("database"), help: ArgumentHelp("The database of migrationkit.toml to use, by its [databases.NAME] table.", valueName: "name"))
    package var database: String?

    package init() {}
}
