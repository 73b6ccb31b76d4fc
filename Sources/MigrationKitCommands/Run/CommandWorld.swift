import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// A command's world: what one running command works with — its layer, its hardening
/// policy, its locks, settings and journal — made by the entry point of its command line
/// (`CommandTree.run`) once the arguments are parsed, and handed to the command
/// (`WorldCommand.run(in:)`), which passes it down to everything it calls and to the
/// threads its work moves to. A value: a fleet's database gets a copy with its own locks
/// and journal (`with(_:)`), and nothing reads the world but from what it was handed.
///
/// What it sees of its process (environment variables, standard input, the console) is
/// part of it too (`surroundings`): below `run(in:)`, what prints, reads a setting or a
/// key, or reads standard input takes them from there, never from anything ambient.
package struct CommandWorld: @unchecked Sendable {
    /// The database layer under the commands (`CommandLayer`).
    package let layer: any CommandLayer
    /// The root command of the running command line (for ArgumentParser's messages).
    let root: any ParsableCommand.Type
    /// When the running command line hardens its process.
    let hardening: CommandTree.Hardening
    /// The database locks the running command holds until it ends (see `CommandLocks`).
    package var locks: CommandLocks
    /// The settings resolved for the running command (`ProjectSettings`), for
    /// `migrationkit config` to show.
    let resolvedSettings = ResolvedSettings()
    /// What the running command has done so far (`RunJournal`).
    package var journal: RunJournal
    /// Whether the run said that `MIGRATIONKIT_PASSWORD` is set but empty: once a run,
    /// not once a fleet database, and again in the next run of an app that embeds the
    /// commands.
    let emptyVariableWarning = OnceFlag()
    /// What a fleet's databases share, made once: keys and migrations (nil outside a fleet).
    package var fleet: FleetShared?
    /// The command the run parsed, once it has.
    let running = RunningCommand()
    /// How the running command reads and stores keys (its key command timeout, its
    /// graceful stop, its Secret Service batch), made by `CommandLineRunner.run` once the
    /// arguments are parsed; an app's process defaults until then.
    package var keyReading = KeyReading.processDefaults
    /// What the running command sees of its process: its environment variables, its
    /// standard input, its console (the process's own, or those of a command line run
    /// in-process, `CommandSurroundings`).
    package let surroundings: ProcessSurroundings

    init(layer: any CommandLayer, root: any ParsableCommand.Type, hardening: CommandTree.Hardening = .atStart,
                 surroundings: ProcessSurroundings = .process) {
        self.layer = layer
        self.root = root
        self.hardening = hardening
        self.surroundings = surroundings
        locks = CommandLocks()
        journal = RunJournal(locks: locks)
    }

    /// This world with `change` made to it: a fleet's, or one of its databases'.
    func with(_ change: (inout CommandWorld) -> Void) -> CommandWorld {
        var world = self
        change(&world)
        return world
    }

    /// The settings resolved for the running command, once `CommandTree.run` has.
    var settings: ProjectSettings? { resolvedSettings.settings }

    /// The app's extensions the running command loads into every connection it opens
    /// (`--load-extension`, from wherever it was given).
    package var extensions: [LoadableExtension] { settings?.extensions ?? [] }

    /// What the running command says about what it could not do without what only the
    /// app registers (`AppExtensionAdvice`).
    package var appExtensionAdvice: AppExtensionAdvice { AppExtensionAdvice(loaded: extensions.map(\.description)) }

    /// The `[databases.NAME]` of the project file that chose this command's database,
    /// if one did: named with the path in the first line and in `--json`.
    package var databaseName: String? { settings?.database }

    /// The first line of every command that works on a database: which file, and which
    /// project file's table chose it, so that a deploy's log never leaves it to guessing.
    func announce(_ path: String, reporter: Reporter, note: String? = nil) {
        journal.started(on: path)
        var line = "Database: \(path)"
        if let name = databaseName, let file = settings?.configFile {
            line += " ([databases.\(name)] in \(file))"
        }
        reporter.line(line + (note.map { " (\($0))" } ?? ""))
    }
}

/// The layer of the command line being parsed, for what ArgumentParser reads before a
/// command runs, from the command's type alone: a root command's configuration (its
/// name, its list of commands), which options help shows, and the options' `validate()`.
/// The one exception to a command's world being handed to it, as ArgumentParser builds
/// commands from arguments alone and cannot be handed a value. Bound by `CommandTree.run`
/// for the parse, the settings filled in after it and the messages about them, and
/// unbound while the command runs: nothing below `run(in:)` reads it.
package enum ParsingLayer {
    @TaskLocal package static var current: (any CommandLayer)?
}

/// Holds the command `CommandTree.run` parsed, for what depends on the command rather
/// than on the command line: the overrides a refusal offers (`AcceptsHistoryOverrides`).
package final class RunningCommand: @unchecked Sendable {
    private let lock = NSLock()
    private var parsed: (any ParsableCommand.Type)?

    init() {}

    package var type: (any ParsableCommand.Type)? {
        get { lock.withLock { parsed } }
        set { lock.withLock { parsed = newValue } }
    }
}

/// Holds the settings `CommandTree.run` resolved before the command ran.
package final class ResolvedSettings: @unchecked Sendable {
    var settings: ProjectSettings?

    init() {}
}

/// Locks a command holds from the moment it opens the database it changes until it
/// ends, so a backup, the migration after it and the report all happen with no other
/// changing command (a rekey, another migrate) in between.
///
/// While it holds one, the command says what it is doing in the database's change note
/// (`ChangeNote`), so a reader that meets the change can name it.
package final class CommandLocks: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [(lock: DatabaseFileLock, database: String)] = []
    /// Each held database's note, by an absolute path taken where the lock was: a note
    /// written later from another thread (`describe`'s scheduled write) is beside the
    /// database even where threads have working folders of their own (a command line
    /// run inside a process, `CommandSurroundings.run`).
    private var notes: [String: String] = [:]
    /// The command's name, the start of every note ("migrate").
    var command = ""

    /// No lock held: a command's start, or a scratch database no other process knows of.
    package init() {}

    /// Whether this command holds the change lock of `database` already.
    func holds(_ database: String) -> Bool {
        lock.withLock { held.contains { $0.database == database } }
    }

    /// The change lock this command holds on the file at `path`, for the library calls
    /// it makes on that file, which then take it no second time.
    package func lock(on path: String) -> DatabaseFileLock? {
        lock.withLock { held.first { $0.lock.locks(path) }?.lock }
    }

    func hold(_ fileLock: DatabaseFileLock, on database: String) {
        let first = lock.withLock { () -> Bool in
            defer { held.append((fileLock, database)) }
            return !held.contains { $0.database == database }
        }
        guard first else { return }
        let note = ChangeNote.path(for: database.hasPrefix("/") ? database : FileManager.default.currentDirectoryPath + "/" + database)
        lock.withLock { notes[database] = note }
        ChangeNote.write(command, at: note)
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
            for note in Set(notes.values) { ChangeNote.write("\(command): \(activity)", at: note) }
        }
    }

    func releaseAll() {
        let released = lock.withLock { () -> [(lock: DatabaseFileLock, database: String)] in
            defer { (held, notes) = ([], [:]) }
            for note in Set(notes.values) { FileRemoval.remove(note) }
            return held
        }
        for entry in released { entry.lock.release() }
    }
}
