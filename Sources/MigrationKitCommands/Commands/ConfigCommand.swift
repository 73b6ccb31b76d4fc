import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// `migrationkit config`: the settings a command run here would use, and where each
/// came from (flag, environment, file:line, default), as `git config --show-origin`
/// does. Keys are never shown: only where the key would come from.
struct ConfigCommand: UsesProjectConnectionAndBackup, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the effective settings (flags, MIGRATIONKIT_* variables, migrationkit.toml, defaults) and where each came from.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        guard let settings = world.settings else {
            throw CLIError(.unexpectedState, "The settings were not resolved before `config` ran.")
        }
        // A list (the extensions) a row per item, each saying where it came from.
        let rows = ProjectSetting.allCases.flatMap { setting -> [ConfigDocument.Setting] in
            guard let value = settings.values[setting] else { return [] }
            let items = setting.kind == .pathList ? LoadableExtension.list(value.text) : [value.text]
            return items.map {
                ConfigDocument.Setting(name: setting.rawValue, value: $0, source: value.origin.kind, origin: value.origin.description)
            }
        }
        let key = keySource(settings, environment: world.surroundings.environment)
        reporter.line("config file: \(settings.configFile ?? "none (no migrationkit.toml here or above)")")
        if let database = settings.database { reporter.line("database:    \(database)") }
        let width = max(rows.map(\.name.count).max() ?? 0, "key".count)
        for row in rows {
            reporter.line("\(row.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(row.value)  (\(row.origin))")
        }
        reporter.line("\("key".padding(toLength: width, withPad: " ", startingAt: 0))  \(key)")
        try reporter.document(ConfigDocument(configFile: settings.configFile, database: settings.database, settings: rows, key: key))
    }

    /// Where the key would come from, without reading it, in the command's `environment`.
    private func keySource(_ settings: ProjectSettings, environment: ProcessEnvironment) -> String {
        let options = connection.key
        let origin = { (setting: ProjectSetting) in
            settings.values[setting].map { " (\($0.origin))" } ?? ""
        }
        if options.plaintext { return "none: the database is plaintext\(origin(.plaintext))" }
        if let (text, setting) = options.given.shown(in: environment) {
            return text + (setting.flatMap { ProjectSetting(rawValue: $0) }.map(origin) ?? "")
        }
        if KeySource.passwordEnvironmentVariableGivesKey(in: environment) { return "\(KeySource.passwordEnvironmentVariable) (not shown)" }
        return "a prompt on a terminal (none given)"
    }
}

/// `config --json`.
struct ConfigDocument: Encodable {
    struct Setting: Encodable {
        let name: String
        let value: String
        /// `flag`, `environment`, `file`, `default`.
        let source: String
        /// The variable, `file:line`, `flag` or `default`.
        let origin: String
    }

    @AlwaysPresent var configFile: String?
    @AlwaysPresent package var database: String?
    let settings: [Setting]
    package let key: String
}
