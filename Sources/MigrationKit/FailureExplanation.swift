/// What a failure means for the user, in words: what happened, and what to do.
///
/// The library's errors carry it themselves (an error about the file system rather
/// than the SQL: a full disk, an I/O error, a read-only folder), so an app that embeds
/// the library prints the same sentences as the `migrationkit` tool, which only adds
/// an exit code and formatting.
package struct FailureExplanation: Hashable, Sendable {
    /// A stable name of the problem ("diskFull"), for machine-readable output.
    package let name: String
    /// What happened, to follow "because": "the disk is full".
    package let cause: String
    /// What to do: "free some space …, then run the command again."
    package let fix: String

    /// An explanation from its stable name, its cause and its fix.
    init(name: String, cause: String, fix: String) {
        self.name = name
        self.cause = cause
        self.fix = fix
    }
}

/// An error that may know its `FailureExplanation`.
package protocol ExplainableError: Error {
    /// The explanation, or nil when the error's own message is the best there is.
    var explanation: FailureExplanation? { get }
}

extension FailureExplanation {
    /// The explanation of a statement that failed because of the file system rather
    /// than its SQL (a full disk, an I/O error, a journal that cannot be created, a
    /// read-only file), from SQLite's extended result code; nil for any other. SQLite's
    /// own words ("database or disk is full in `COMMIT`") blame a statement. Both
    /// connections' errors explain themselves with this one table, and the command
    /// lines' table of failures (`DatabaseFailure`) reads it.
    /// - Parameter resultCode: the failed statement's result code, extended or primary;
    ///   an I/O error's cause names it as SQLite does ("522 (disk I/O error)").
    package static func forSQLite(resultCode: SQLiteResultCode) -> FailureExplanation? {
        switch resultCode {
        // SQLite 3.22+ says when the journal could not be made because the folder is
        // read-only (an extended READONLY code); older ones say CANTOPEN.
        case .SQLITE_READONLY_DIRECTORY:
            return cannotOpenJournal(because: ": the folder is read-only")
        case .SQLITE_FULL:
            return FailureExplanation(
                name: "diskFull", cause: "the disk is full",
                fix: "free some space (SQLite also needs room for a journal beside the file it writes), then run the command again.")
        case .SQLITE_IOERR:
            return FailureExplanation(
                name: "ioError", cause: "the disk reported an I/O error (\(resultCode))",
                fix: "check the disk and the file system holding the database, then run the command again.")
        case .SQLITE_CANTOPEN:
            return cannotOpenJournal(because: "")
        case .SQLITE_READONLY:
            return FailureExplanation(
                name: "readOnly", cause: "the database (or its folder) is read-only",
                fix: "make it writable by this user, then run the command again.")
        default:
            return nil
        }
    }

    private static func cannotOpenJournal(because reason: String) -> FailureExplanation {
        FailureExplanation(
            name: "cannotOpenJournal",
            cause: "SQLite could not create a file it needs beside the database (its journal)" + reason,
            fix: "make the folder writable by this user, then run the command again.")
    }
}
