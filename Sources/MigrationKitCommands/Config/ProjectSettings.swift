import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// The settings a command runs with, and where each came from: flags, then the
/// `MIGRATIONKIT_*` environment, then `migrationkit.toml`, then the defaults.
///
/// The settings that choose the key source (every key source's settings, `KeySources`,
/// and plaintext) are taken together from the first of those places that gives any of
/// them, with `MIGRATIONKIT_PASSWORD` counting as the environment's: a key file
/// named in the project file and a `--keychain-service` flag are two sources, and mixing
/// them would be refused as two keys.
package struct ProjectSettings {
    struct Value: Equatable {
        let text: String
        let origin: SettingOrigin
    }

    /// The file read, if any.
    let configFile: String?
    /// The `[databases.NAME]` table used, if any.
    package let database: String?
    /// Every setting with a value, and where it came from; defaults included.
    let values: [ProjectSetting: Value]
    /// The project file's `[lint]` table: the rules lint leaves unsaid.
    var lintSuppressions: [LintSuppression] = []

    /// The rules the project file of the command running in `world` silences (none
    /// without one).
    static func lintSuppressions(in world: CommandWorld) -> [LintSuppression] {
        world.settings?.lintSuppressions ?? []
    }

    /// Fills the settings a command's options did not get as flags, from the
    /// environment and the project file, then checks the options so filled as their
    /// flags are checked.
    ///
    /// - Parameter commandName: the command line's name, for the sentences that name
    ///   its commands.
    /// - Parameter processEnvironment: the command's, where the `MIGRATIONKIT_*` settings are.
    package static func apply(to connection: inout ConnectionOptions, backup: inout BackupOptions?, commandName: String,
                      environment processEnvironment: ProcessEnvironment,
                      currentDirectory: String = FileManager.default.currentDirectoryPath) throws -> ProjectSettings {
        let environment = { environmentValue($0, in: processEnvironment) }
        let configPath = connection.project.config ?? environment(ProjectSetting.configVariable)
        let databaseName = connection.project.database ?? environment(ProjectSetting.databaseVariable)
        let file = try ProjectFile.locate(explicit: configPath, from: currentDirectory).map {
            try ProjectFile.load(path: $0, named: configPath != nil, commandName: commandName)
        }
        if file == nil, let databaseName {
            throw CLIError(.badSetting, "--database \(databaseName) needs a migrationkit.toml with a [databases.\(databaseName)] table, and none was found here or above; give its path with --config.")
        }
        let chosen = try file?.settings(database: databaseName)

        let flags = Dictionary(uniqueKeysWithValues: ProjectSetting.allCases.compactMap { setting in
            flagValue(setting, connection: connection, backup: backup).map { (setting, $0) }
        })
        // `--password` counts too, though it is no setting.
        let keyFromFlags = !connection.key.flags.given.isEmpty || flags.keys.contains { $0.choosesTheKeySource }
        let keyFromEnvironment = !keyFromFlags && (environment(KeySource.passwordEnvironmentVariable) != nil
            || ProjectSetting.allCases.contains { $0.choosesTheKeySource && environment($0.environmentVariable) != nil })

        var values: [ProjectSetting: Value] = [:]
        for setting in ProjectSetting.allCases {
            if setting == .backupDirectory && backup == nil { continue }
            let fromEnvironment = environment(setting.environmentVariable).map { Value(text: $0, origin: .environment(variable: setting.environmentVariable)) }
            let fromFile = chosen?.entries[setting].map { Value(text: $0.value, origin: .file(path: file?.path ?? "", line: $0.line)) }
            let value: Value?
            if let flag = flags[setting] {
                value = Value(text: flag, origin: .flag)
            } else if setting.choosesTheKeySource {
                value = keyFromFlags ? nil : keyFromEnvironment ? fromEnvironment : fromFile
            } else {
                value = fromEnvironment ?? fromFile
            }
            if let value {
                if value.origin != .flag { try fill(setting, with: value, connection: &connection, backup: &backup) }
                values[setting] = value
            } else if let fallback = defaultValue(setting) {
                values[setting] = Value(text: fallback, origin: .defaultValue)
            }
        }

        connection.migrations.projectPlaceholders = file?.placeholders ?? [:]
        let settings = ProjectSettings(configFile: file?.path, database: chosen?.name, values: values, lintSuppressions: file?.lint ?? [])
        // The parser checked the flags; only options filled from elsewhere need it again.
        let borrowed = values.filter { $0.value.origin != .flag && $0.value.origin != .defaultValue }
        guard !borrowed.isEmpty else { return settings }
        do {
            try connection.validate()
            try connection.key.validate()
            try connection.cipher.validate()
            try connection.extensions.validate()
            try backup?.validate()
        } catch let error as ValidationError {
            let from = borrowed.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) from \($0.value.origin)" }.joined(separator: ", ")
            throw CLIError(.badSetting, "\(error.message) (Settings taken from elsewhere than the command line: \(from); see `\(commandName) config`.)")
        }
        return settings
    }

    /// Whether the environment or the project file of the command running in `world`
    /// says `accept-existing-tables` (`migrate --accept-existing-tables` says it as a flag).
    static func acceptsExistingTables(in world: CommandWorld) -> Bool {
        world.settings?.values[.acceptExistingTables].flatMap { SettingKind.flagValue($0.text) } ?? false
    }

    /// A `MIGRATIONKIT_*` variable's value in `environment`; set but empty counts as not
    /// set, as an empty `KEY=` line in a unit file or a CI form usually means "not given".
    static func environmentValue(_ name: String, in environment: ProcessEnvironment) -> String? {
        // Present or not; its value is a key, never read here (ProcessEnvironment.string
        // would give nil for it whatever it holds, so its presence is asked instead).
        if name == KeySource.passwordEnvironmentVariable { return KeySource.passwordEnvironmentVariableGivesKey(in: environment) ? "" : nil }
        guard let text = environment.string(name) else { return nil }
        return text.isEmpty ? nil : text
    }

    /// A list setting's values as one text, as its variable takes them; nil for none.
    private static func listValue(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.joined(separator: "; ")
    }

    /// The extensions the command loads into every connection it opens, from wherever
    /// they were given (`load-extension`).
    package var extensions: [LoadableExtension] {
        values[.loadExtension].map { LoadableExtension.list($0.text).compactMap(LoadableExtension.init(argument:)) } ?? []
    }

    /// "10" rather than "10.0", as it would be typed.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func defaultValue(_ setting: ProjectSetting) -> String? {
        switch setting {
        case .migrations: return MigrationsOptions.defaultDirectory
        case .lockTimeout: return seconds(ConnectionOptions.defaultLockTimeout)
        case .keyCommandTimeout: return seconds(ConnectionOptions.defaultKeyCommandTimeout)
        default: return nil
        }
    }

    private static func flagValue(_ setting: ProjectSetting, connection: ConnectionOptions, backup: BackupOptions?) -> String? {
        if setting.isKeySource { return connection.key.flags.given.byName[setting.rawValue] }
        switch setting {
        case .dbPath: return connection.dbPath
        case .migrations: return connection.migrations.givenDirectory
        case .migrationsLayout: return connection.migrations.givenLayout?.name
        case .plaintext: return connection.key.plaintext ? "true" : nil
        case .cipherCompatibility: return connection.cipher.compatibility.map(String.init)
        case .kdfIterations: return connection.cipher.kdfIterations.map(String.init)
        case .cipherPageSize: return connection.cipher.pageSize.map(String.init)
        case .cipherKDFAlgorithm: return connection.cipher.kdfAlgorithm
        case .cipherHMACAlgorithm: return connection.cipher.hmacAlgorithm
        case .cipherPlaintextHeaderSize: return connection.cipher.plaintextHeaderSize.map(String.init)
        case .cipherSalt: return connection.cipher.salt
        case .cipherUseHMAC: return connection.cipher.usesHMAC.map { String($0) }
        case .lockTimeout: return connection.givenLockTimeout.map(seconds)
        case .keyCommandTimeout: return connection.givenKeyCommandTimeout.map(seconds)
        case .backupDirectory: return backup?.directory
        case .memorySecurity: return connection.cipher.memorySecurity.map { String($0) }
        case .loadExtension: return listValue(connection.extensions.given)
        default: return nil
        }
    }

    /// Puts a value from the environment or the file where the flag would have put it.
    private static func fill(_ setting: ProjectSetting, with value: Value, connection: inout ConnectionOptions, backup: inout BackupOptions?) throws {
        func wholeNumber() throws -> Int {
            guard let number = Int(value.text) else { throw notA("a whole number") }
            return number
        }
        func yesOrNo() throws -> Bool {
            guard let flag = SettingKind.flagValue(value.text) else { throw notA("true or false") }
            return flag
        }
        func notA(_ wanted: String) -> CLIError {
            CLIError(.badSetting, "\(value.origin): `\(setting.rawValue)` must be \(wanted), not \"\(value.text)\".")
        }
        if setting.isKeySource {
            connection.key.given.byName[setting.rawValue] = value.text
            return
        }
        switch setting {
        case .dbPath: connection.dbPath = value.text
        case .migrations: connection.migrations.givenDirectory = value.text
        case .migrationsLayout:
            guard let layout = MigrationFolderLayout(name: value.text) else {
                throw notA("one of " + MigrationFolderLayout.acceptedNames.joined(separator: ", "))
            }
            connection.migrations.givenLayout = layout
        case .plaintext:
            connection.key.plaintext = try yesOrNo()
        case .memorySecurity:
            connection.cipher.memorySecurity = try yesOrNo()
        case .cipherCompatibility: connection.cipher.compatibility = try wholeNumber()
        case .kdfIterations: connection.cipher.kdfIterations = try wholeNumber()
        case .cipherPageSize: connection.cipher.pageSize = try wholeNumber()
        case .cipherKDFAlgorithm: connection.cipher.kdfAlgorithm = value.text
        case .cipherHMACAlgorithm: connection.cipher.hmacAlgorithm = value.text
        case .cipherPlaintextHeaderSize: connection.cipher.plaintextHeaderSize = try wholeNumber()
        case .cipherSalt: connection.cipher.salt = value.text
        case .cipherUseHMAC: connection.cipher.usesHMAC = try yesOrNo()
        case .lockTimeout:
            guard let seconds = Double(value.text) else { throw notA("a number of seconds") }
            connection.givenLockTimeout = seconds
        case .keyCommandTimeout:
            guard let seconds = Double(value.text) else { throw notA("a number of seconds") }
            connection.givenKeyCommandTimeout = seconds
        case .backupDirectory: backup?.directory = value.text
        case .acceptExistingTables: _ = try yesOrNo()
        case .loadExtension: connection.extensions.given = LoadableExtension.list(value.text)
        default: break
        }
    }
}

/// A command whose options take settings from the environment and `migrationkit.toml`
/// too. `CommandTree.run` fills them in after parsing, before the command runs.
package protocol ProjectConfigurable: WorldCommand {
    mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings
}

/// A command with the connection options.
package protocol UsesProjectConnection: ProjectConfigurable {
    var connection: ConnectionOptions { get set }
}

extension UsesProjectConnection {
    package mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings {
        try applyProjectSettings(databaseOnlyWhenAsked: false, in: world)
    }

    /// - Parameter databaseOnlyWhenAsked: the project's migrations folder and key, but
    ///   its database only when --db-path names one: a command that can work on the
    ///   folder alone (`lint`, `diff --to`) then needs no key in a project folder.
    package mutating func applyProjectSettings(databaseOnlyWhenAsked: Bool, in world: CommandWorld) throws -> ProjectSettings {
        let askedForDatabase = connection.dbPath != nil
        var noBackup: BackupOptions? = nil
        let settings = try ProjectSettings.apply(to: &connection, backup: &noBackup, commandName: world.layer.commandName,
                                                  environment: world.surroundings.environment)
        if databaseOnlyWhenAsked, !askedForDatabase { connection.dbPath = nil }
        return settings
    }
}

/// A command with the connection and backup options.
package protocol UsesProjectConnectionAndBackup: ProjectConfigurable {
    var connection: ConnectionOptions { get set }
    var backup: BackupOptions { get set }
}

extension UsesProjectConnectionAndBackup {
    package mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings {
        var backup: BackupOptions? = self.backup
        let settings = try ProjectSettings.apply(to: &connection, backup: &backup, commandName: world.layer.commandName,
                                                  environment: world.surroundings.environment)
        if let backup { self.backup = backup }
        return settings
    }
}
