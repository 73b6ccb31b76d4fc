import MigrationKit
import MigrationKitFiles

/// What a database error means on a command line, whichever connection raised it: the
/// one table from what went wrong (a `DatabaseErrorKind`; `.sqlite` for a failed
/// statement, as GRDB's errors all are) and SQLite's result code, primary or extended,
/// to the documented exit code, the `--json` kind and the sentences every command line
/// gives it. A database layer describes its errors as one of these (GRDB's by mapping
/// its result codes to the kinds SQLCipher's opener gives the same problems), and only
/// words itself what only it knows (SQLCipher's own sentences, GRDB's open failures).
/// The file-system explanations are the core's (`FailureExplanation.forSQLite`), which
/// the library's errors word themselves with too.
package struct DatabaseFailure: Error, Hashable, Sendable {
    package let kind: DatabaseErrorKind
    package let resultCode: SQLiteResultCode
    /// What happened to the files and what to do, for a statement the file system
    /// stopped (the error's own `explanation`); nil for any other.
    package let explanation: FailureExplanation?

    package init(kind: DatabaseErrorKind, resultCode: SQLiteResultCode, explanation: FailureExplanation? = nil) {
        self.kind = kind
        self.resultCode = resultCode
        self.explanation = explanation
    }

    /// The documented exit code: by the kind, and for a failed statement (and the kinds
    /// that say no more) by SQLite's result code.
    package var exitCode: CLIExitCode {
        switch kind {
        case .wrongKey, .notEncrypted, .keyRequired, .notADatabase:
            return .wrongKeyOrNotADatabase
        case .wrongOperation:
            // encrypt given an encrypted database, rekey a plaintext one: the file is
            // not the kind the command needs, as with a key given for a plaintext one,
            // so the same code, under its own kind (`--json` says "wrongOperation").
            return .wrongKeyOrNotADatabase
        case .damaged:
            return .damaged
        case .failsItsChecks:
            return .verificationFailed
        case .fileSystem, .cannotOpen:
            return .fileError
        case .invalidKey:
            return .keyUnavailable
        case .busy, .inUse:
            return .locked
        case .unsupportedCipherSetting, .extensionNotLoaded:
            return .usage
        case .unregisteredCollation:
            // As a change that would lose data: refused until the user says how to go on.
            return .refused
        default:
            // Every code `FailureExplanation.forSQLite` explains (a full disk, an I/O
            // error, a journal that cannot be made, a read-only file) is a file problem.
            switch resultCode {
            case .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
                return .fileError
            case .SQLITE_CORRUPT:
                return .damaged
            case .SQLITE_NOTADB:
                return .wrongKeyOrNotADatabase
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .locked
            default:
                return .failure
            }
        }
    }

    /// The stable name `--json` gives the failure: a lock held too long is "locked"; a
    /// kind other than a failed statement is its own name; a failed statement is its
    /// explanation's name, or the name of what its code says of the file.
    package var jsonKind: String {
        if kind == .busy { return "locked" }
        guard kind == .sqlite else { return kind.rawValue }
        if let explanation { return explanation.name }
        switch resultCode {
        case .SQLITE_CORRUPT: return "corrupt"
        // The open itself failed (a statement that did has an explanation).
        case .SQLITE_READONLY: return "readOnly"
        case .SQLITE_FULL: return "diskFull"
        default: return "sqlite"
        }
    }

    /// Whether this is a damaged page met after the open (the schema read fine): SQLite's
    /// "database disk image is malformed in `SELECT …`" blames a query, `sentence` does not.
    package var isDamagedPage: Bool {
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
