import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// The database and how to open it: path, key, cipher settings, lock timeout.
package struct ConnectionOptions: ParsableArguments {
    /// Every `--db-path` given: a fleet for the commands with `FleetOptions`, one
    /// database for the others.
    @Option(name: .customLong(ProjectSetting.dbPath.rawValue), help: ArgumentHelp("The database file (a command with --db-glob takes several: repeat it).", valueName: "path"))
    var dbPaths: [String] = []

    /// The database file, for the commands that work on one.
    package var dbPath: String? {
        get { dbPaths.last }
        set { dbPaths = newValue.map { [$0] } ?? [] }
    }

    /// Global, like --db-path: scripts can pass the same options to every command.
    @OptionGroup
    package var migrations: MigrationsOptions

    @OptionGroup(title: "Key options", visibility: ConnectionOptions.encryptionVisibility)
    package var key: KeyOptions

    @OptionGroup(title: "Cipher options", visibility: ConnectionOptions.encryptionVisibility)
    package var cipher: CipherOptions

    @Option(name: .customLong(ProjectSetting.lockTimeout.rawValue), help: ArgumentHelp("Seconds to wait while another process holds the database lock, or for the Secret Service to answer (default: 10).", valueName: "seconds"))
    var givenLockTimeout: Double?

    @Option(name: .customLong(ProjectSetting.keyCommandTimeout.rawValue), help: ArgumentHelp("Seconds a key command (--password-command, --new-password-command, --new-key-store-command) may run before it and its process group are killed (default: 60).", valueName: "seconds"))
    var givenKeyCommandTimeout: Double?

    /// The app's extensions, loaded into every connection the command opens.
    @OptionGroup
    package var extensions: ExtensionOptions

    /// `--config` and `--database`: where settings not given as flags come from.
    @OptionGroup(title: "Project options")
    var project: ProjectOptions

    static let defaultLockTimeout: Double = 10
    static let defaultKeyCommandTimeout: Double = 60

    /// The key and cipher options are not shown by a layer that cannot encrypt (a GRDB
    /// on plain SQLite), which refuses them with a sentence if given anyway.
    static var encryptionVisibility: ArgumentVisibility {
        ParsingLayer.current?.library.encrypts == false ? .private : .default
    }

    /// Seconds to wait while another process holds the database lock.
    package var lockTimeout: Double {
        get { givenLockTimeout ?? Self.defaultLockTimeout }
        set { givenLockTimeout = newValue }
    }

    package init() {}

    /// How long a command waits for the Secret Service in each lookup, store or delete of
    /// a key (its `SecretServiceKeyStore.Batch`'s timeout, after whose first unanswered
    /// call the command waits no more): its lock timeout, the other wait for
    /// another process a person sets, but at least a second, as a keyring needs some time
    /// to answer at all (`--lock-timeout 0` means "never wait for a lock"). A command
    /// without the connection options (`key`) waits the lock timeout's default.
    static func secretServiceTimeout(of command: any ParsableCommand) -> Duration {
        let seconds = (command as? any UsesProjectConnection)?.connection.lockTimeout
            ?? (command as? any UsesProjectConnectionAndBackup)?.connection.lockTimeout
            ?? defaultLockTimeout
        return .milliseconds(Int64(max(seconds, 1) * 1000))
    }

    /// How long each key command of `command` may run: its `--key-command-timeout`, or
    /// the default for a command without the connection options (`key`).
    static func keyCommandTimeout(of command: any ParsableCommand) -> Duration {
        let seconds = (command as? any UsesProjectConnection)?.connection.givenKeyCommandTimeout
            ?? (command as? any UsesProjectConnectionAndBackup)?.connection.givenKeyCommandTimeout
            ?? defaultKeyCommandTimeout
        return .milliseconds(Int64(seconds * 1000))
    }

    package func validate() throws {
        if !(lockTimeout >= 0 && lockTimeout <= 86_400) {
            throw ValidationError("--lock-timeout must be between 0 and 86400 seconds.")
        }
        if let seconds = givenKeyCommandTimeout, !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("--key-command-timeout must be more than 0 and at most 86400 seconds.")
        }
        if key.plaintext && cipher.settings != CipherSettings() {
            throw ValidationError("Cipher options apply to encrypted databases; drop them with --plaintext.")
        }
    }

    /// The database path, or a usage error naming the option.
    package func requiredPath() throws -> String {
        if dbPaths.count > 1 {
            throw CLIError(.conflictingOptions, "--db-path is given \(dbPaths.count) times, but this command works on one database (the commands that take several have --db-glob in their help). Give one --db-path.")
        }
        guard let dbPath, !dbPath.isEmpty else {
            throw CLIError(.missingOption, "--db-path is required: the database file to work on.")
        }
        // SQLite reads these as an in-memory database, which vanishes when the command
        // ends: "migrating" one would report success and keep nothing.
        if dbPath == ":memory:" || dbPath.hasPrefix("file:") {
            throw CLIError(.badOptionValue, "--db-path \(dbPath) is not a file but SQLite's name for an in-memory or URI database, which this command cannot keep; give the path of a database file (./\(dbPath) for a file of that name).")
        }
        return dbPath
    }
}
