import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitKeyOptions
import MigrationKitKeys
import MigrationKitSQLCipher

/// How a command means to use the database.
enum DatabaseAccess {
    /// Change it, creating it when missing (migrate).
    case create
    /// Change an existing database (rollback).
    case change
    /// Only read it (status, verify, schema-dump): opened read-only when the file is
    /// not writable, so inspecting a read-only copy works.
    case inspect
}

/// The steps shared by every database command: resolve the key once, open the
/// database once, load the migrations.
enum CommandSupport {
    /// Resolves the key (printing the key options' warnings) and opens the database
    /// through the host. The key is derived exactly once, here.
    ///
    /// - Parameter announcing: the first line names the database (`announce`); false
    ///   only where standard output is the data itself (`schema-dump` without --output).
    static func openWriter(_ options: ConnectionOptions, access: DatabaseAccess, announcing: Bool = true, reporter: Reporter) throws -> SQLCipherWriter {
        let settings = try connectionSettings(options, access: access, announcing: announcing, reporter: reporter)
        // Before opening, so the key is proven on the file as no other changing command
        // will leave it; again after, for a file this open just created.
        if access != .inspect { try holdChangeLock(on: settings.path, settings: settings) }
        let writer = try CLIContext.host.openWriter(settings)
        if access != .inspect { try holdChangeLock(on: writer.path, settings: settings) }
        return writer
    }

    /// Takes the database's change lock for the rest of the command (`DatabaseFileLock`).
    static func holdChangeLock(on path: String, settings: ConnectionSettings) throws {
        CLIContext.locks.hold(try DatabaseFileLock.exclusive(path: path, timeout: settings.configuration.busyTimeout), on: path)
    }

    /// - Parameter keyIsNew: the key will encrypt the file for the first time (encrypt);
    ///   migrate creating a missing database says so through `access`.
    static func connectionSettings(_ options: ConnectionOptions, access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true, reporter: Reporter) throws -> ConnectionSettings {
        try connectionSettings(path: try options.requiredPath(), key: options.key, cipher: options.cipher,
                               lockTimeout: options.lockTimeout, access: access, keyIsNew: keyIsNew, announcing: announcing, reporter: reporter)
    }

    /// The settings for one database from parsed option groups (commands such as
    /// `check` name their database with another option than --db-path).
    static func connectionSettings(path: String, key keyOptions: KeyOptions, cipher: CipherOptions, lockTimeout: Double,
                                   access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true, reporter: Reporter) throws -> ConnectionSettings {
        if announcing { announce(path, reporter: reporter) }
        warnIfOnCommandLine(keyOptions, reporter: reporter)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
        let creating = access == .create && (size ?? 0) == 0
        let key = try resolveKey(keyOptions, for: path, promptMessage: keyIsNew || creating ? "New key for \(path): " : "Key for \(path): ",
                                 keyIsNew: keyIsNew || creating, reporter: reporter)
        let configuration = self.configuration(path: path, cipher: cipher, lockTimeout: lockTimeout, access: access,
                                               readerWaits: CLIContext.resolvedSettings.settings?.values[.lockTimeout]?.origin != .defaultValue)
        MemoryProtectionNotes(keyResolved: key != nil, memorySecurityAsked: configuration.memorySecurity).print(to: reporter)
        return ConnectionSettings(path: path, key: key, configuration: configuration)
    }

    /// The `[databases.NAME]` of the project file that chose this command's database,
    /// if one did: named with the path in the first line and in `--json`.
    static var databaseName: String? { CLIContext.resolvedSettings.settings?.database }

    /// The first line of every command that works on a database: which file, and which
    /// project file's table chose it, so that a deploy's log never leaves it to guessing.
    static func announce(_ path: String, reporter: Reporter, note: String? = nil) {
        CLIContext.journal.started(on: path)
        var line = "Database: \(path)"
        if let name = databaseName, let file = CLIContext.resolvedSettings.settings?.configFile {
            line += " ([databases.\(name)] in \(file))"
        }
        reporter.line(line + (note.map { " (\($0))" } ?? ""))
    }

    /// The key the options select (nil for --plaintext), read from its source once.
    ///
    /// - Parameter path: the database the key is for: `{name}` in the key options stands
    ///   for its name, here and only here, for every command (nil: a key shared by a
    ///   fleet's databases, which has no `{name}`). In a fleet (`FleetShared`), a source
    ///   without `{name}` is read once for every database.
    static func resolveKey(_ keyOptions: KeyOptions, for path: String?, promptMessage: String, keyIsNew: Bool, reporter: Reporter) throws -> DatabaseKey? {
        // A key the fleet's databases share is read once, for all of them; one with
        // `{name}` is each database's own (asked before the name is put in).
        let isShared = !keyOptions.isTemplate
        let keyOptions = path.map { keyOptions.forDatabase(at: $0) } ?? keyOptions
        if let shared = CLIContext.fleet, isShared {
            return try shared.key(.current) {
                try resolveOnce(keyOptions, promptMessage: shared.promptMessage(.current), keyIsNew: keyIsNew, reporter: reporter)
            }
        }
        return try resolveOnce(keyOptions, promptMessage: promptMessage, keyIsNew: keyIsNew, reporter: reporter)
    }

    private static func resolveOnce(_ keyOptions: KeyOptions, promptMessage: String, keyIsNew: Bool, reporter: Reporter) throws -> DatabaseKey? {
        let source = try keyOptions.source(
            standardInputIsTerminal: StandardInput.isTerminal,
            promptMessage: promptMessage,
            keyIsNew: keyIsNew)
        // Said where the variable would have been read (no key flag, which beats it), once.
        if KeySource.passwordEnvironmentVariableIsEmpty, !keySourceIsAFlag(keyOptions), source != nil, CLIContext.emptyVariableWarning.claim() {
            reporter.warning("\(KeySource.passwordEnvironmentVariable) is set but empty, so it counts as not set; unset it, or set it to the key.")
        }
        return try source?.resolve(warn: { reporter.warning($0.description) })
    }

    /// Whether a flag chose the key source (which the environment never overrides).
    private static func keySourceIsAFlag(_ keyOptions: KeyOptions) -> Bool {
        !keyOptions.flags.given.isEmpty
            || ProjectSetting.allCases.contains { $0.choosesTheKeySource && CLIContext.resolvedSettings.settings?.values[$0]?.origin == .flag }
    }

    /// How to open the database at `path` for `access`, with the cipher options and
    /// lock timeout given.
    ///
    /// - Parameter readerWaits: a reader waits out the lock timeout only when one was
    ///   asked for; otherwise it gives way to another process's change at once and
    ///   says who is changing the database (README: readers never wait).
    static func configuration(path: String, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                              readerWaits: Bool = false) -> SQLCipherConfiguration {
        var configuration = SQLCipherConfiguration()
        configuration.busyTimeout = .milliseconds(Int64(lockTimeout * 1000))
        configuration.cipher = cipher.settings
        configuration.memorySecurity = CLIContext.host.cipherMemorySecurity && cipher.memorySecurity == true
        // Process-wide: also covers the connections a command opens beyond this one
        // (copies, backups, format upgrades).
        if configuration.memorySecurity { SQLCipherLibrary.enableMemorySecurity() }
        switch access {
        case .create:
            configuration.createIfMissing = true
        case .change:
            configuration.createIfMissing = false
        case .inspect:
            configuration.createIfMissing = false
            configuration.givesWayToChanges = !readerWaits
            configuration.readOnly = FileManager.default.fileExists(atPath: path) && !FileManager.default.isWritableFile(atPath: path)
        }
        return configuration
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

    /// `--password` put the key in the process list, whether or not this command then
    /// uses it (`new`, or `lint` without --db-path, ignore it): say so either way.
    static func warnIfOnCommandLine(_ keyOptions: KeyOptions, reporter: Reporter) {
        // A fleet said it once, before its first database.
        guard CLIContext.fleet == nil else { return }
        for warning in keyOptions.given.warnings(DatabaseKeyRole.text) { reporter.warning(warning) }
    }

    /// The migration runner: the host's Swift steps, or the SQL files of `--migrations`.
    static func runner(_ migrations: MigrationsOptions, verifier: SQLCipherMigrationVerifier = SQLCipherMigrationVerifier(), reporter: Reporter) throws -> SQLCipherMigrationRunner {
        try loadMigrations(migrations, verifier: verifier, reporter: reporter).runner
    }

    /// A migrations runner and, for SQL migrations, the files it was built from (for lint).
    typealias LoadedMigrations = (runner: SQLCipherMigrationRunner, files: [SQLMigrationFile]?)

    /// The runner and, for SQL migrations, the files it was built from (for lint); in a
    /// fleet, read once for every database (`FleetShared`).
    /// (`migrate` does the same work beside the key derivation: `MigrationsLoading`.)
    static func loadMigrations(_ migrations: MigrationsOptions, verifier: SQLCipherMigrationVerifier = SQLCipherMigrationVerifier(), reporter: Reporter) throws -> LoadedMigrations {
        guard let shared = CLIContext.fleet else { return try readMigrations(migrations, verifier: verifier, reporter: reporter) }
        return try shared.migrations { try readMigrations(migrations, verifier: verifier, reporter: reporter) }
    }

    private static func readMigrations(_ migrations: MigrationsOptions, verifier: SQLCipherMigrationVerifier, reporter: Reporter) throws -> LoadedMigrations {
        if let runner = hostRunner(verifier: verifier) { return (runner, nil) }
        let files = try migrations.loadFiles(reporter: reporter)
        return (try runner(over: files, verifier: verifier), files)
    }

    /// The host's Swift steps, with `verifier`'s required indexes added; nil when the
    /// migrations are the SQL files of `--migrations`.
    static func hostRunner(verifier: SQLCipherMigrationVerifier) -> SQLCipherMigrationRunner? {
        guard var runner = CLIContext.host.runner else { return nil }
        runner.verifier.requiredIndexes += verifier.requiredIndexes
        return runner
    }

    /// The runner over SQL migration files.
    static func runner(over files: [SQLMigrationFile], verifier: SQLCipherMigrationVerifier) throws -> SQLCipherMigrationRunner {
        try SQLCipherMigrationRunner(steps: files.map { SQLCipherMigrationStep(file: $0) }, verifier: verifier)
    }
}

/// True the first time `claim()` is called, false after: something said once.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}
