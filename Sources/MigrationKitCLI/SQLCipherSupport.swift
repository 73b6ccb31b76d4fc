import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher
import MigrationKitSecrets

/// What the commands only SQLCipher has (encrypt, decrypt, rekey, cipher-upgrade, and
/// `diff --to`'s proof) need beyond the tree's `CommandSupport`: its requests as
/// SQLCipher's settings, and its runner itself.
enum SQLCipherSupport {
    /// The settings to open the database `options` name, the key resolved once
    /// (`CommandSupport.openRequest`).
    static func connectionSettings(_ options: ConnectionOptions, access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true,
                                   reporter: Reporter, in world: CommandWorld) throws -> ConnectionSettings {
        ConnectionSettings(try CommandSupport.openRequest(options, access: access, keyIsNew: keyIsNew, announcing: announcing, reporter: reporter, in: world))
    }

    /// As `connectionSettings(_:…)`, from parsed option groups.
    static func connectionSettings(path: String, key: KeyOptions, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                                   keyIsNew: Bool = false, announcing: Bool = true, reporter: Reporter,
                                   in world: CommandWorld) throws -> ConnectionSettings {
        ConnectionSettings(try CommandSupport.openRequest(path: path, key: key, cipher: cipher, lockTimeout: lockTimeout, access: access,
                                                              keyIsNew: keyIsNew, announcing: announcing, reporter: reporter, in: world))
    }

    /// How to open the database at `path` for `access`, with no key yet.
    static func configuration(path: String, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                              in world: CommandWorld) -> SQLCipherConfiguration {
        ConnectionSettings(CommandSupport.request(path: path, key: nil, cipher: cipher, lockTimeout: lockTimeout, access: access, in: world)).configuration
    }

    /// Takes the database's change lock for the rest of the command.
    static func holdChangeLock(on path: String, settings: ConnectionSettings, in world: CommandWorld) throws {
        try MigrationSession.holdChangeLock(on: path, timeout: settings.configuration.busyTimeout, in: world)
    }

    /// Whether `key` opens the database at `path` (with the cipher options of
    /// `settings`), tried read-only so that trying changes nothing: how a rerun of
    /// `rekey` or `encrypt --in-place` knows the work is already done.
    static func keyOpens(_ path: String, key: DatabaseKey, settings: ConnectionSettings) -> Bool {
        var configuration = settings.configuration
        configuration.readOnly = true
        configuration.createIfMissing = false
        return (try? SQLCipherWriter(path: path, key: key, configuration: configuration)) != nil
    }

    /// The runner of the host's Swift steps or of the SQL files of `--migrations`, and
    /// the files (for lint); in a fleet, read once (`CommandSupport.loadMigrations`).
    static func loadRunner(_ options: MigrationsOptions, reporter: Reporter, in world: CommandWorld) throws -> (runner: SQLCipherMigrationRunner, files: [SQLMigrationFile]?) {
        let loaded = try CommandSupport.loadMigrations(options, reporter: reporter, in: world)
        guard let migrations = loaded.migrations as? SQLCipherCommandMigrations else {
            preconditionFailure("a command of MigrationCLI ran over another layer")
        }
        return (migrations.runner, loaded.files)
    }

    /// The runner over SQL migration files.
    static func runner(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec] = []) throws -> SQLCipherMigrationRunner {
        try SQLCipherMigrationRunner(steps: files.map { SQLCipherMigrationStep(file: $0) },
                                     verifier: SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes))
    }
}

extension ConnectionSettings {
    /// SQLCipher's settings for what a command asked.
    init(_ request: OpenRequest) {
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = request.lockTimeout
        configuration.cipher = request.cipher
        configuration.memorySecurity = request.memorySecurity
        switch request.access {
        case .create:
            configuration.createIfMissing = true
        case .change:
            configuration.createIfMissing = false
        case .inspect:
            configuration.createIfMissing = false
            configuration.givesWayToChanges = !request.readerWaits
            // Always: the opener itself decides how a look leaves the file as it was (a
            // writable file gets a read-write connection with query_only, so SQLite
            // removes the -wal and -shm it made; a journal left beside it is read on a
            // private copy).
            configuration.readOnly = true
        }
        self.init(path: request.path, key: request.key, configuration: configuration)
    }
}
