/// A failure the CLI itself detects (a missing option, a refused overwrite): why it
/// fails, which decides its exit code (`ExitCodeDecision`), and one sentence that says
/// what to do.
package struct CLIError: Error, CustomStringConvertible {
    package let reason: Reason
    package let message: String

    package init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The code its reason ends a run with (`ExitCodeDecision`).
    package var exitCode: CLIExitCode { ExitCodeDecision.exitCode(for: self) }

    package var description: String { message }

    /// Why a command refuses or fails, as a call site says it; `ExitCodeDecision` gives
    /// each its documented exit code (README: "Exit codes").
    package enum Reason: CaseIterable, Sendable {
        // The command line itself (64).
        /// An option (or a key the command needs to work at all) is missing.
        case missingOption
        /// Options that do not go together, or not over several databases.
        case conflictingOptions
        /// An option's value cannot be used (a pattern that matches nothing, a name
        /// several databases would share, an output that is an input).
        case badOptionValue
        /// A setting from migrationkit.toml or the environment cannot be used (the file is
        /// not valid TOML, not trusted or unreadable; an unknown or mistyped setting).
        case badSetting
        /// This command line cannot do that (no migrations folder for Swift steps, a
        /// SQLite that cannot encrypt, cipher settings GRDB takes in the app's code).
        case notAvailableHere

        // The database's state or the change itself (7).
        /// An erase was not confirmed.
        case notConfirmed
        /// A key is stored already where the new one would go, and would be lost.
        case wouldReplaceStoredKey
        /// The migrations do not make the database's schema (drift cannot be measured,
        /// a baseline would record migrations its schema does not match).
        case migrationsDoNotMakeSchema
        /// The migration `diff --to` would write loses data.
        case wouldLoseData
        /// The migration `diff --to` would write cannot be proved on a scratch copy.
        case unprovenMigration
        /// Another tool migrated the database, and MigrationKit has not adopted it yet.
        case notAdopted
        /// `adopt` found what it cannot record (a dirty or failed record, a version no
        /// file carries, an edited file, a schema that differs).
        case adoptionRefused

        // Files (9).
        /// A file the command would write exists already.
        case fileExists
        /// A file or folder the command was given cannot be used (missing, a folder
        /// where a file should be, unreadable, not UTF-8, not what it should hold).
        case unusableFile
        /// A file could not be created or removed.
        case fileOperationFailed
        /// The backup taken before a change could not be written, so nothing changed.
        case backupNotWritten

        // Keys (5).
        /// No key was given where one is needed (the current key, or the new key).
        case noKeyGiven
        /// The new key was not proven where it is stored: the database is on it and its
        /// place does not hold it, or the database was put back on its old key.
        case newKeyNotStored

        /// Lint found errors in migrations to apply or write (2).
        case lintErrors
        /// The database or backup is damaged: a page does not read (10).
        case damaged
        /// The command ran without what the run should have prepared (1).
        case unexpectedState
    }
}
