import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB
import MigrationKitKeys

/// How the GRDB commands present GRDB's errors: one sentence that names the database
/// and says what to do. The exit code and `--json` kind are the row of
/// `ExitCodeDecision`'s table for what the error is where it leaves GRDB
/// (`DatabaseError.failure`), so they are the ones the `migrationkit` tool gives the
/// same problem. The core's errors are presented by `ErrorPresentation` itself.
enum GRDBErrorPresentation {
    /// - Parameter databasePath: the database the command said it works on, if it did.
    static func present(_ error: any Error, wording: RemedyWording, databasePath path: String?) -> ErrorPresentation? {
        let database = path ?? "the database"
        switch error {
        case let error as MigrationStepError where error.explanation == nil:
            // As `migrationkit` says it, and what the steps before it became: each step
            // runs in a transaction of its own.
            let before = error.phase == .apply ? "the migrations applied before it stay applied"
                : "the migrations rolled back before it stay rolled back"
            return ErrorPresentation(of: error, message: "\(error.description); \(before).")
        case let error as DatabaseError:
            // The exit code, the `--json` kind and the sentences of a statement the file
            // system stopped or of a damaged page are the table both command lines read;
            // GRDB's open failures, which SQLCipher's opener words its own way, are said here.
            let failure = error.failure
            if let sentence = failure.sentence(file: database, subject: database) {
                return ErrorPresentation(of: failure, message: sentence)
            }
            let message: String
            switch failure.kind {
            case .busy:
                return .locked("\(database): Another process kept the database locked for longer than the lock timeout.", path: path, row: ExitCodeDecision.row(for: failure))
            case .notADatabase:
                message = "\(database) is not an SQLite database, or is encrypted (\(notADatabaseReason)); check --db-path."
            case .cannotOpen:
                message = "\(database) cannot be opened; check --db-path and the permissions of the file and its folder."
            default:
                switch failure.resultCode {
                case .SQLITE_READONLY:
                    message = "\(database) cannot be written by this user; check the permissions of the file and its folder."
                case .SQLITE_FULL:
                    message = "The disk holding \(database) is full; free some space and run again."
                default:
                    message = "\(database): SQLite error: \(error.message ?? "\(error.resultCode)")."
                }
            }
            return ErrorPresentation(of: failure, message: message)
        case let error as KeyError:
            // The key could not be read: the code and sentence `migrationkit` says.
            return .forKeyError(error, wording: wording)
        default:
            return nil
        }
    }

    private static var notADatabaseReason: String {
        GRDBLinkedLibrary.linkedSQLCipherVersion != nil ? "then give its key rather than --plaintext" : "GRDB here opens plaintext files only"
    }
}

extension DatabaseError {
    /// GRDB's error as the command lines' table describes a database error: a failed
    /// statement to GRDB, but the kind SQLCipher's opener gives a file another process
    /// keeps locked, a file that is not a database, or one that cannot be opened.
    var failure: DatabaseFailure {
        let code = migrationKitResultCode
        let kind: DatabaseErrorKind
        switch code {
        case .SQLITE_BUSY, .SQLITE_LOCKED: kind = .busy
        case .SQLITE_NOTADB: kind = .notADatabase
        case .SQLITE_PERM: kind = .cannotOpen
        // No statement: the open failed (a statement's is its journal, `explanation`).
        case .SQLITE_CANTOPEN where sql == nil: kind = .cannotOpen
        default: kind = .sqlite
        }
        return DatabaseFailure(kind: kind, resultCode: code, explanation: explanation)
    }
}
