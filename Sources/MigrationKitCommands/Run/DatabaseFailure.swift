import MigrationKit
import MigrationKitFiles

/// A database error as a command line sees it, whichever connection raised it: what
/// went wrong (a `DatabaseErrorKind`; `.sqlite` for a failed statement, as GRDB's errors
/// all are) and SQLite's result code, primary or extended. A database layer describes its
/// errors as one of these where they leave it (GRDB's by mapping its result codes to the
/// kinds SQLCipher's opener gives the same problems); `ExitCodeDecision`'s table gives
/// its exit code and `--json` kind, and this, the sentences every command line gives it.
/// A layer only words itself what only it knows (SQLCipher's own sentences, GRDB's open
/// failures). The file-system explanations are the core's
/// (`FailureExplanation.forSQLite`), which the library's errors word themselves with too.
/// A description, not an error: nothing throws it.
package struct DatabaseFailure: Hashable, Sendable {
    package let kind: DatabaseErrorKind
    package let resultCode: SQLiteResultCode
    /// What happened to the files and what to do, for a statement the file system
    /// stopped (the error's own `explanation`); nil for any other.
    let explanation: FailureExplanation?

    package init(kind: DatabaseErrorKind, resultCode: SQLiteResultCode, explanation: FailureExplanation? = nil) {
        self.kind = kind
        self.resultCode = resultCode
        self.explanation = explanation
    }

    /// The documented exit code (`ExitCodeDecision.row(for:)`).
    package var exitCode: CLIExitCode { ExitCodeDecision.row(for: self).exitCode }

    /// The stable name `--json` gives the failure (`ExitCodeDecision.row(for:)`).
    var jsonKind: String { ExitCodeDecision.row(for: self).kind }

    /// Whether this is a damaged page met after the open (the schema read fine): SQLite's
    /// "database disk image is malformed in `SELECT …`" blames a query, `sentence` does not.
    var isDamagedPage: Bool {
        kind == .sqlite && explanation == nil && SQLiteResultCode.SQLITE_CORRUPT ~= resultCode
    }

    /// The sentence every command line gives a failure this table words: a statement
    /// the file system stopped ("x.db: Stopped because the disk is full; …"), a damaged
    /// page ("x.db is damaged …"); nil for any other, which its layer words.
    /// - Parameters:
    ///   - file: the database's name before a colon, or nil for none.
    ///   - subject: the database as a damaged page's sentence begins ("x.db", "The database").
    package func sentence(file: String?, subject: String) -> String? {
        if let explanation {
            return (file.map { "\($0): " } ?? "") + "Stopped because \(explanation.cause); \(explanation.fix)"
        }
        if isDamagedPage {
            return "\(subject) is damaged (a page cannot be read); run `verify` for details, and restore it from a backup."
        }
        return nil
    }
}

extension DatabaseFailure {
    /// A file operation's failure (a change lock held too long, a full disk), by its
    /// kind and the SQLite code closest to it.
    package init(_ error: FileOperationError) {
        self.init(kind: error.kind, resultCode: error.resultCode)
    }

    /// A file that did not open (a wrong key, no database at all): what SQLite said of
    /// it is "not a database".
    package init(_ error: UnreadableDatabaseError) {
        self.init(kind: error.kind, resultCode: .SQLITE_NOTADB)
    }
}
