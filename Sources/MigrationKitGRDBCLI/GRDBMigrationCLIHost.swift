import GRDB
import MigrationKit
import MigrationKitGRDB
import MigrationKitSecrets

/// What a GRDB app supplies to get the `migrationkit` tool's commands (`migrate`,
/// `status`, `rollback`, `verify`, `check`, `restore`, … : the shared command tree) in
/// its own binary, over its own GRDB writer.
///
/// The counterpart of `MigrationCLIHost`, whose commands open SQLCipher files: these
/// open whatever writer the app's `openWriter` returns (a `DatabaseQueue`, a
/// `DatabasePool` in WAL mode, a configured one that registers the app's functions).
public struct GRDBMigrationCLIHost: Sendable {
    /// The app's Swift steps, or nil to read SQL files from `--migrations`.
    public var runner: GRDBMigrationRunner?
    /// Opens the app's writer for the file the command works on.
    public var openWriter: @Sendable (GRDBConnectionSettings) throws -> any DatabaseWriter
    /// The schema as text for `schema-dump`, replacing the default canonical dump.
    public var schemaSnapshot: (@Sendable (Database) throws -> String)?
    /// The command name shown in help and messages.
    public var commandName: String
    /// Whether the commands make the process non-dumpable, with no core file, just
    /// before they read a key (`ProcessHardening`, as the `migrationkit` tool does), when
    /// GRDB is built on SQLCipher and they take key options. Both
    /// last for the rest of the process: an app that needs core dumps or a debugger
    /// attached turns this off.
    public var hardensProcess: Bool
    /// Whether `--memory-security` (or its setting) may turn on SQLCipher 4's
    /// `cipher_memory_security`, when GRDB is built on SQLCipher; the memory security
    /// itself stays off unless the option asks for it, as in SQLCipher. Process-wide and
    /// one-way once on, so an app whose own connections must never pay its cost sets this
    /// to false, and the option then changes nothing.
    public var cipherMemorySecurity: Bool
    /// Let Ctrl-C, SIGTERM and SIGHUP stop the work in progress rather than the process
    /// while a command runs, as the `migrationkit` tool does: the step running is rolled
    /// back and the command says what it left; `run` then returns 130, 143 or 129 and
    /// the process handles signals as before, `main` ends by the signal. An app with its
    /// own signal handling turns this off.
    public var stopsGracefully: Bool

    public init(
        runner: GRDBMigrationRunner? = nil,
        openWriter: @escaping @Sendable (GRDBConnectionSettings) throws -> any DatabaseWriter = GRDBMigrationCLIHost.defaultOpenWriter,
        schemaSnapshot: (@Sendable (Database) throws -> String)? = nil,
        commandName: String,
        hardensProcess: Bool = true,
        cipherMemorySecurity: Bool = true,
        stopsGracefully: Bool = true
    ) {
        self.runner = runner
        self.openWriter = openWriter
        self.schemaSnapshot = schemaSnapshot
        self.commandName = commandName
        self.hardensProcess = hardensProcess
        self.cipherMemorySecurity = cipherMemorySecurity
        self.stopsGracefully = stopsGracefully
    }

    /// A `DatabaseQueue` on the file, read-only when the settings say so, waiting
    /// `lockTimeout` for another process's lock.
    public static let defaultOpenWriter: @Sendable (GRDBConnectionSettings) throws -> any DatabaseWriter = { settings in
        try DatabaseQueue(path: settings.path, configuration: settings.configuration)
    }
}

/// How a command means to open the database: what `openWriter` receives.
public struct GRDBConnectionSettings: Sendable {
    /// The database file (it exists: the commands create a missing one for `migrate`,
    /// mode 0600, before they open it).
    public let path: String
    /// The command only reads, and the file is not writable: open it read-only.
    public let readOnly: Bool
    /// How long to wait for another process's lock.
    public let lockTimeout: Duration
    /// The database key, when GRDB is built on SQLCipher and the command was given one
    /// (its key options); nil for a plaintext database.
    public let key: DatabaseKey?
    /// The file's SQLCipher format, found with the key (an older app's SQLCipher 3
    /// file opens in its own format and stays in it); SQLCipher 4's for a new file.
    public let cipherFormat: CipherFormat?

    /// GRDB's configuration for these settings; start from it to add the app's own.
    /// With a key, every connection is keyed first (`Configuration.useKey`); every
    /// connection's statements stop at once when a signal stops the command
    /// (`GRDBStatementStop`).
    public var configuration: Configuration {
        var configuration = Configuration()
        #if canImport(SQLCipher)
        if let key { configuration.useKey(key, format: cipherFormat ?? .sqlcipher4) }
        #endif
        configuration.prepareDatabase { db in GRDBStatementStop.watch(db) }
        configuration.readonly = readOnly
        let (seconds, attoseconds) = lockTimeout.components
        configuration.busyMode = .timeout(Double(seconds) + Double(attoseconds) / 1e18)
        return configuration
    }
}
