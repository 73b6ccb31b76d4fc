import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys
import MigrationKitSecrets

/// The steps shared by every database command before its session opens
/// (`MigrationSession`): name the database, resolve the key once, load the migrations.
package enum CommandSupport {
    /// - Parameters:
    ///   - keyIsNew: the key will encrypt the file for the first time (encrypt); migrate
    ///     creating a missing database says so through `access`.
    ///   - found: what the command found at the path when it first looked
    ///     (`OpenRequest.find(at:)`); nil looks now, before the key is asked for.
    package static func openRequest(_ options: ConnectionOptions, access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true,
                                    found: OpenRequest.Finding? = nil, reporter: Reporter, in world: CommandWorld) throws -> OpenRequest {
        try openRequest(path: try options.requiredPath(), key: options.key, cipher: options.cipher, lockTimeout: options.lockTimeout,
                        access: access, keyIsNew: keyIsNew, announcing: announcing, found: found, reporter: reporter, in: world)
    }

    /// The request for one database from parsed option groups (commands such as
    /// `check` name their database with another option than --db-path).
    package static func openRequest(path: String, key keyOptions: KeyOptions, cipher: CipherOptions, lockTimeout: Double,
                                    access: DatabaseAccess, keyIsNew: Bool = false, announcing: Bool = true, found: OpenRequest.Finding? = nil,
                                    reporter: Reporter, in world: CommandWorld) throws -> OpenRequest {
        if announcing { announce(path, reporter: reporter, in: world) }
        warnIfOnCommandLine(keyOptions, reporter: reporter, in: world)
        let found = found ?? OpenRequest.find(at: path)
        let creating = access == .create && OpenRequest.isNew(found)
        let key = try resolveKey(keyOptions, for: path, promptMessage: keyIsNew || creating ? "New key for \(path): " : "Key for \(path): ",
                                 keyIsNew: keyIsNew || creating, reporter: reporter, in: world)
        let request = self.request(path: path, key: key, cipher: cipher, lockTimeout: lockTimeout, access: access,
                                   readerWaits: world.settings?.values[.lockTimeout]?.origin != .defaultValue, found: found, in: world)
        MemoryProtectionNotes(keyResolved: key != nil, memorySecurityAsked: request.memorySecurity).print(to: reporter, layer: world.layer)
        return request
    }

    /// How to open the database at `path` for `access`, with the key, cipher options
    /// and lock timeout given; turns on the layer's memory security when asked.
    ///
    /// - Parameter readerWaits: a reader waits out the lock timeout only when one was
    ///   asked for; otherwise it gives way to another process's change at once and
    ///   says who is changing the database (README: readers never wait).
    package static func request(path: String, key: DatabaseKey?, cipher: CipherOptions, lockTimeout: Double, access: DatabaseAccess,
                                readerWaits: Bool = false, found: OpenRequest.Finding? = nil, in world: CommandWorld) -> OpenRequest {
        let memorySecurity = world.layer.enableMemorySecurity(asked: cipher.memorySecurity == true)
        return OpenRequest(path: path, key: key, access: access, lockTimeout: .milliseconds(Int64(lockTimeout * 1000)),
                           readerWaits: readerWaits, cipher: cipher.settings, memorySecurity: memorySecurity, found: found)
    }

    /// The `[databases.NAME]` of the project file that chose this command's database,
    /// if one did: named with the path in the first line and in `--json`.
    package static func databaseName(in world: CommandWorld) -> String? { world.settings?.database }

    /// The first line of every command that works on a database: which file, and which
    /// project file's table chose it, so that a deploy's log never leaves it to guessing.
    package static func announce(_ path: String, reporter: Reporter, note: String? = nil, in world: CommandWorld) {
        world.journal.started(on: path)
        var line = "Database: \(path)"
        if let name = databaseName(in: world), let file = world.settings?.configFile {
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
    package static func resolveKey(_ keyOptions: KeyOptions, for path: String?, promptMessage: String, keyIsNew: Bool, reporter: Reporter,
                                   in world: CommandWorld) throws -> DatabaseKey? {
        // A layer on plain SQLite opens plaintext files only: no key is read (nor asked
        // for), and one given is refused rather than ignored.
        let layer = world.layer
        guard layer.encrypts else {
            if !keyOptions.given.isEmpty {
                throw CLIError(.notAvailableHere, "\(layer.commandName) opens its databases with a SQLite that cannot encrypt (\(layer.librarySummary)), so it takes no key; drop the key options.")
            }
            return nil
        }
        // A key the fleet's databases share is read once, for all of them; one with
        // `{name}` is each database's own (asked before the name is put in).
        let isShared = !keyOptions.isTemplate
        let keyOptions = try path.map { try keyOptions.forDatabase(at: $0, in: world) } ?? keyOptions
        if let shared = world.fleet, isShared {
            return try shared.key(.current) {
                try resolveOnce(keyOptions, promptMessage: shared.promptMessage(.current), keyIsNew: keyIsNew, reporter: reporter, in: world)
            }
        }
        return try resolveOnce(keyOptions, promptMessage: promptMessage, keyIsNew: keyIsNew, reporter: reporter, in: world)
    }

    private static func resolveOnce(_ keyOptions: KeyOptions, promptMessage: String, keyIsNew: Bool, reporter: Reporter,
                                    in world: CommandWorld) throws -> DatabaseKey? {
        let source = try keyOptions.source(
            standardInputIsTerminal: world.surroundings.standardInput.isTerminal,
            environment: world.surroundings.environment,
            promptMessage: promptMessage,
            keyIsNew: keyIsNew)
        // Said where the variable would have been read (no key flag, which beats it), once.
        if KeySource.passwordEnvironmentVariableIsEmpty(in: world.surroundings.environment), !keySourceIsAFlag(keyOptions, in: world), source != nil, world.emptyVariableWarning.claim() {
            reporter.warning("\(KeySource.passwordEnvironmentVariable) is set but empty, so it counts as not set; unset it, or set it to the key.")
        }
        guard let source else { return nil }
        if world.hardening == .beforeKeyIsRead { ProcessHardening.apply() }
        // Read for the layer's SQLCipher: a raw key it would take for a passphrase is
        // refused here, naming where it came from.
        let warn = { (warning: KeyWarning) in reporter.warning(warning.description) }
        guard let library = world.layer.cipherVersion.flatMap(SQLCipherVersion.init(parsing:)) else { return try source.resolve(world.keyReading, warn: warn) }
        return try source.resolve(for: library, world.keyReading, warn: warn)
    }

    /// Whether a flag chose the key source (which the environment never overrides).
    private static func keySourceIsAFlag(_ keyOptions: KeyOptions, in world: CommandWorld) -> Bool {
        !keyOptions.flags.given.isEmpty
            || ProjectSetting.allCases.contains { $0.choosesTheKeySource && world.settings?.values[$0]?.origin == .flag }
    }

    /// `--password` put the key in the process list, whether or not this command then
    /// uses it (`new`, or `lint` without --db-path, ignore it): say so either way.
    package static func warnIfOnCommandLine(_ keyOptions: KeyOptions, reporter: Reporter, in world: CommandWorld) {
        // A fleet said it once, before its first database.
        guard world.fleet == nil else { return }
        for warning in keyOptions.given.warnings(DatabaseKeyRole.text) { reporter.warning(warning) }
    }

    /// The migrations: the host's Swift steps, or the SQL files of `--migrations`.
    package static func migrations(_ options: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter,
                                   in world: CommandWorld) throws -> any CommandMigrations {
        try loadMigrations(options, requiredIndexes: requiredIndexes, reporter: reporter, in: world).migrations
    }

    /// The migrations and, for SQL migrations, the files they were made from (for lint).
    package struct LoadedMigrations: Sendable {
        package var migrations: any CommandMigrations
        /// The SQL files; nil for a host's Swift steps.
        package let files: [SQLMigrationFile]?
    }

    /// The migrations and, for SQL migrations, the files they were made from (for
    /// lint); in a fleet, read once for every database (`FleetShared`).
    /// (`migrate` does the same work beside the key derivation: `MigrationsLoading`.)
    package static func loadMigrations(_ options: MigrationsOptions, requiredIndexes: [RequiredIndexSpec] = [], reporter: Reporter,
                                       in world: CommandWorld) throws -> LoadedMigrations {
        let layer = world.layer
        guard let shared = world.fleet else { return try readMigrations(options, requiredIndexes: requiredIndexes, reporter: reporter, layer: layer) }
        return try shared.migrations { try readMigrations(options, requiredIndexes: requiredIndexes, reporter: reporter, layer: layer) }
    }

    private static func readMigrations(_ options: MigrationsOptions, requiredIndexes: [RequiredIndexSpec], reporter: Reporter,
                                       layer: any CommandLayer) throws -> LoadedMigrations {
        if let host = layer.hostMigrations(requiredIndexes: requiredIndexes) { return LoadedMigrations(migrations: host, files: nil) }
        let files = try options.loadFiles(reporter: reporter)
        return LoadedMigrations(migrations: try layer.migrations(over: files, requiredIndexes: requiredIndexes), files: files)
    }

    /// The host's steps, or none: for a command that needs no migration files (verify,
    /// schema-dump), whose host's own checks still apply.
    package static func hostMigrationsOrNone(requiredIndexes: [RequiredIndexSpec] = [], in world: CommandWorld) throws -> any CommandMigrations {
        try world.layer.hostMigrations(requiredIndexes: requiredIndexes) ?? world.layer.migrations(over: [], requiredIndexes: requiredIndexes)
    }
}

/// True the first time `claim()` is called, false after: something said once.
package final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    package init() {}

    package func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}
