import Foundation
import MigrationKit
import MigrationKitSQLCipher

/// What an app supplies to get the `migrationkit` commands in its own binary.
///
/// The default host (`.sqlFiles`) reads SQL migration files from `--migrations`. An app
/// whose migrations are Swift closures passes its runner instead; every command then
/// uses those steps (and `--migrations` is not used).
public struct MigrationCLIHost: Sendable {
    /// The app's Swift steps, or nil to read SQL files from `--migrations`.
    public var runner: SQLCipherMigrationRunner?
    /// Opens the database. Replace it to add app-specific configuration (for example a
    /// different busy timeout, or a connection that registers SQL functions).
    public var openWriter: @Sendable (ConnectionSettings) throws -> SQLCipherWriter
    /// The schema as text for `schema-dump`, replacing the default canonical dump.
    public var schemaSnapshot: (@Sendable (SQLCipherDatabase) throws -> String)?
    /// Runs on every connection the commands open — the database, and the copies,
    /// backups and scratch databases a command makes of it — once it is keyed: where an
    /// app registers what only it has and its schema needs (its SQL functions, collations,
    /// full-text tokenizers, through `SQLCipherDatabase.sqliteConnection`), so that every
    /// check, trigger and copy has them (`SQLCipherConfiguration.prepareDatabase`). Nil
    /// by default; `--load-extension` adds extensions before it.
    public var prepareDatabase: (@Sendable (SQLCipherDatabase) throws -> Void)?
    /// The command name shown in help and messages.
    public var commandName: String
    /// Make the process non-dumpable and set its core file limit to 0 before a command
    /// runs (`ProcessHardening`), as the `migrationkit` tool does. Both last for the
    /// rest of the process: an app that needs core dumps or a debugger attached turns
    /// this off.
    public var hardensProcess: Bool
    /// Whether `--memory-security` (or its setting) may turn on SQLCipher 4's
    /// `cipher_memory_security` for the commands' connections. It is off unless asked
    /// for, as in SQLCipher; process-wide and one-way once on (see
    /// `SQLCipherLibrary.enableMemorySecurity()`), so an app whose own connections must
    /// never pay its cost sets this to false, and the option then changes nothing.
    public var cipherMemorySecurity: Bool
    /// Let Ctrl-C, SIGTERM and SIGHUP stop the work in progress rather than the process
    /// (`Interruption.stopGracefully()`) while a command runs: the open transaction is
    /// rolled back and the command says what it left; `run` then returns 130, 143 or 129
    /// and the process handles signals as before, `main` ends by the signal. An app with
    /// its own signal handling turns this off.
    public var stopsGracefully: Bool

    public init(
        runner: SQLCipherMigrationRunner? = nil,
        openWriter: @escaping @Sendable (ConnectionSettings) throws -> SQLCipherWriter = MigrationCLIHost.defaultOpenWriter,
        schemaSnapshot: (@Sendable (SQLCipherDatabase) throws -> String)? = nil,
        commandName: String = "migrationkit",
        hardensProcess: Bool = true,
        cipherMemorySecurity: Bool = true,
        stopsGracefully: Bool = true,
        prepareDatabase: (@Sendable (SQLCipherDatabase) throws -> Void)? = nil
    ) {
        self.runner = runner
        self.openWriter = openWriter
        self.schemaSnapshot = schemaSnapshot
        self.prepareDatabase = prepareDatabase
        self.commandName = commandName
        self.hardensProcess = hardensProcess
        self.cipherMemorySecurity = cipherMemorySecurity
        self.stopsGracefully = stopsGracefully
    }

    /// The host of the `migrationkit` tool itself: SQL files, default connections.
    public static let sqlFiles = MigrationCLIHost()

    /// Opens an `SQLCipherWriter` with the settings exactly as parsed.
    public static let defaultOpenWriter: @Sendable (ConnectionSettings) throws -> SQLCipherWriter = { settings in
        try SQLCipherWriter(path: settings.path, key: settings.key, configuration: settings.configuration)
    }
}

/// Everything needed to open a database: what a host's `openWriter` receives.
public struct ConnectionSettings: Sendable {
    public let path: String
    /// Nil for a plaintext database.
    public let key: DatabaseKey?
    /// How to open it: the host's `prepareDatabase` and the command's extensions
    /// (`--load-extension`) are in it; a copying command adds its collation stand-ins
    /// (`SQLCipherConfiguration.collationStandIns`).
    public var configuration: SQLCipherConfiguration
}
