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

    /// The host of the `migrationkit` tool itself: SQL files, default connections.
    public static let sqlFiles = MigrationCLIHost()

    /// Opens an `SQLCipherWriter` with the settings exactly as parsed.
    public static let defaultOpenWriter: @Sendable (ConnectionSettings) throws -> SQLCipherWriter = { settings in
        try SQLCipherWriter(path: settings.path, key: settings.key, configuration: settings.configuration)
    }
}

/// The host of the command being run. A task-local, because ArgumentParser builds
/// commands from arguments alone and cannot be handed a value.
enum CLIContext {
    @TaskLocal static var host = MigrationCLIHost.sqlFiles
    /// The database locks the running command holds until it ends (see `CommandLocks`).
    @TaskLocal static var locks = CommandLocks()
    /// The settings resolved for the running command (`ProjectSettings`), for
    /// `migrationkit config` to show.
    @TaskLocal static var resolvedSettings = ResolvedSettings()
    /// What the running command has done so far (`RunJournal`).
    @TaskLocal static var journal = RunJournal()
    /// Whether the run said that `MIGRATIONKIT_PASSWORD` is set but empty: once a run,
    /// not once a fleet database, and again in the next run of an app that embeds the
    /// commands.
    @TaskLocal static var emptyVariableWarning = OnceFlag()
    /// What a fleet's databases share, made once: keys and migrations (nil outside a fleet).
    @TaskLocal static var fleet: FleetShared?
}

/// Holds what `MigrationCLI` resolved before the command ran.
final class ResolvedSettings: @unchecked Sendable {
    var settings: ProjectSettings?
}

/// Locks a command holds from the moment it opens the database it changes until it
/// ends, so a backup, the migration after it and the report all happen with no other
/// changing command (a rekey, another migrate) in between.
///
/// While it holds one, the command says what it is doing in the database's change note
/// (`ChangeNote`), so a reader that meets the change can name it.
final class CommandLocks: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [(lock: DatabaseFileLock, database: String)] = []
    /// The command's name, the start of every note ("migrate").
    var command = ""

    func hold(_ fileLock: DatabaseFileLock, on database: String) {
        let first = lock.withLock { () -> Bool in
            defer { held.append((fileLock, database)) }
            return !held.contains { $0.database == database }
        }
        if first { ChangeNote.write(command, for: database) }
    }

    /// What the command is doing now, in each held database's note: at most every
    /// 100 ms (300 quick steps are not 300 file writes), the latest activity always
    /// written within that time, which is all a reader that has to wait can notice.
    func describe(_ activity: String) {
        enum Next { case write, schedule, wait }
        let next = lock.withLock { () -> Next in
            latestActivity = activity
            // A write already scheduled will take this activity along.
            if noteScheduled { return .wait }
            if ContinuousClock.now - lastNoteWrite >= Self.noteInterval { return .write }
            noteScheduled = true
            return .schedule
        }
        switch next {
        case .write:
            writeNote()
        case .schedule:
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
                lock.withLock { noteScheduled = false }
                writeNote()
            }
        case .wait:
            break
        }
    }

    private static let noteInterval: Duration = .milliseconds(100)
    private var latestActivity: String?
    private var lastNoteWrite = ContinuousClock.now - .seconds(1)
    private var noteScheduled = false

    /// Under the lock, so a note is never written after `releaseAll` removed it.
    private func writeNote() {
        lock.withLock {
            lastNoteWrite = ContinuousClock.now
            guard let activity = latestActivity else { return }
            for database in Set(held.map(\.database)) { ChangeNote.write("\(command): \(activity)", for: database) }
        }
    }

    func releaseAll() {
        let released = lock.withLock { () -> [(lock: DatabaseFileLock, database: String)] in
            defer { held = [] }
            for database in Set(held.map(\.database)) { ChangeNote.remove(for: database) }
            return held
        }
        for entry in released { entry.lock.release() }
    }
}
