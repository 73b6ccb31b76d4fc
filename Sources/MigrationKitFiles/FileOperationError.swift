import MigrationKit

/// A file operation that failed, or waited too long, or was stopped: a change lock
/// another process held past the timeout (`.busy`), a database another process kept open
/// when it was to be replaced (`.inUse`), a write, rename or ownership change the file
/// system refused (`.fileSystem`), work a signal stopped (`.interrupted`).
///
/// The kinds are the connections' (`DatabaseErrorKind`), so `catch
/// DatabaseErrorKind.busy` matches a lock held too long whichever layer waited, and the
/// result code is the SQLite code closest to it (`SQLiteResultCode`), which the command
/// line's exit codes are decided from. Never carries a key or a row.
package struct FileOperationError: KindedDatabaseError, RemediableError, Sendable {
    /// `.busy`, `.inUse`, `.fileSystem` or `.interrupted`.
    package let kind: DatabaseErrorKind
    /// The SQLite result code closest to the failure (SQLITE_BUSY, SQLITE_FULL, …).
    package let resultCode: SQLiteResultCode
    /// A sentence a user can act on.
    package let message: String
    /// The file concerned, when known.
    package let path: String?

    /// The sentence in parts, when what to do includes a remedy a program words itself.
    private let advice: Advice?

    init(kind: DatabaseErrorKind, resultCode: SQLiteResultCode, message: String, path: String? = nil) {
        self.kind = kind
        self.resultCode = resultCode
        self.message = message
        self.path = path
        advice = nil
    }

    init(kind: DatabaseErrorKind, resultCode: SQLiteResultCode, advice: Advice, path: String? = nil) {
        self.kind = kind
        self.resultCode = resultCode
        message = advice.sentence()
        self.path = path
        self.advice = advice
    }

    package var remedy: Remedy? { advice?.remedy }

    package func sentence(_ wording: RemedyWording) -> String {
        (path.map { "\($0): " } ?? "") + (advice?.sentence(wording) ?? message)
    }
}
