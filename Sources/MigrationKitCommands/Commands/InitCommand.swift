import ArgumentParser
import Foundation
import MigrationKitFiles
import MigrationKitKeys
import TOMLKit

/// `migrationkit init`: a commented `migrationkit.toml` and an empty migrations folder
/// in the current folder, so that `migrationkit migrate` needs no flags from then on.
/// Refuses to replace either: an existing file or folder is the project's own.
struct InitCommand: WorldCommand, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented migrationkit.toml and an empty migrations folder here.")

    @Option(name: .customLong(ProjectSetting.dbPath.rawValue), help: ArgumentHelp("The database, relative to this folder.", valueName: "path"))
    package var dbPath = "app.db"

    @Option(name: .customLong(ProjectSetting.migrations.rawValue), help: ArgumentHelp("The migrations folder to create, relative to this folder.", valueName: "dir"))
    package var migrations = "Migrations"

    /// The key source to write into the file (those it can hold: never --password).
    @OptionGroup(title: "Key options", visibility: ConnectionOptions.encryptionVisibility) package var key: KeySourceOptions<ProjectFileKeyRole>

    @OptionGroup var output: OutputOptions

    package func validate() throws {
        try key.given.validate(ProjectFileKeyRole.text)
        if dbPath.isEmpty || migrations.isEmpty {
            throw ValidationError("--db-path and --migrations cannot be empty.")
        }
    }

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        let name = world.layer.commandName
        let file = ProjectFile.fileName
        for (path, what) in [(file, "a project file"), (migrations, "a migrations folder")]
        where FileManager.default.fileExists(atPath: path) || (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
            throw CLIError(.fileExists, "\(path) already exists (\(what)); init writes only into a folder that has neither. Edit the existing one, or run init elsewhere.")
        }
        // The file first (mode 0600, whole or not at all, never over one made in the
        // meantime), then the folder: a folder that cannot be made takes back the one
        // file, where a file that cannot be written would leave folders and parents.
        try DurableFile.writePrivate(Array(template(commandName: name).utf8), to: file, replacing: false)
        do {
            try Folders.create(migrations, purpose: "migrations folder", mode: 0o755)
        } catch {
            FileRemoval.remove(file)
            throw error
        }
        reporter.line("Wrote \(file) and the empty folder \(migrations)/. Next: `\(name) new create_tables`, then `\(name) migrate`.")
        try reporter.document(InitDocument(configFile: file, migrations: migrations))
    }

    /// One `key = value` line, quoted by TOMLKit.
    private func line(_ key: String, _ value: String) -> String {
        TOMLTable([key: value]).convert().trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The file, whose comments name the command line `name` runs.
    private func template(commandName name: String) -> String {
        // The source given, or each source the file can name as a commented example.
        let keyLines: [String]
        if let (descriptor, values) = key.given.given.first {
            keyLines = zip(descriptor.parameters, values).map { line($0.name, $1 ?? "") }
        } else {
            keyLines = KeySources.all.filter { !$0.settings.isEmpty }.flatMap { descriptor in
                ["# \(descriptor.description)\(descriptor.note.map { " (\($0))" } ?? ""):"] + descriptor.settings.map { "# " + line($0.name, $0.example) }
            }
        }
        return """
            # migrationkit.toml: settings for `\(name)` run in this folder or below it.
            # Names are the long options (`\(name) help migrate`). A flag wins over a
            # MIGRATIONKIT_* environment variable (MIGRATIONKIT_DB_PATH, ...), which wins
            # over this file. Relative paths are taken from this file's folder.
            # `\(name) config` shows what applies and where each value came from.
            #
            # Never put a key here: this file is meant to be committed.

            \(line(ProjectSetting.dbPath.rawValue, dbPath))
            \(line(ProjectSetting.migrations.rawValue, migrations))

            # Where the key comes from, one of these. \(KeySource.passwordEnvironmentVariable), or a flag, overrides it.
            \(keyLines.joined(separator: "\n"))

            # \(ProjectSetting.lockTimeout.rawValue) = 10          # seconds to wait for another process's lock
            # \(ProjectSetting.backupDirectory.rawValue) = "backups"     # default: beside the database
            # \(ProjectSetting.cipherCompatibility.rawValue) = 3   # for a database in SQLCipher 3's format

            # Several databases: one table each, chosen with --database NAME. Settings
            # above apply to all of them unless a table sets its own.
            # [databases.cache]
            # \(ProjectSetting.dbPath.rawValue) = "cache.db"
            # \(ProjectSetting.migrations.rawValue) = "CacheMigrations"

            """
    }
}

/// `init --json`.
struct InitDocument: Encodable {
    let configFile: String
    package let migrations: String
}
