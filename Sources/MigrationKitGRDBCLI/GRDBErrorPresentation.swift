import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB
import MigrationKitKeys

/// How the GRDB commands present GRDB's errors: one sentence that names the database
/// and says what to do. The exit code is `ExitCodeDecision`'s, from what the error is
/// (SQLite's result code), so it is the one the `migrationkit` tool gives the same
/// problem. The core's errors are presented by `ErrorPresentation` itself.
enum GRDBErrorPresentation {
    static func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation? {
        let path = CLIContext.journal.databasePath
        let database = path ?? "the database"
        switch error {
        case let error as MigrationStepError where error.explanation == nil:
            // As `migrationkit` says it, and what the steps before it became: each step
            // runs in a transaction of its own.
            let before = error.phase == .apply ? "the migrations applied before it stay applied"
                : "the migrations rolled back before it stay rolled back"
            return ErrorPresentation(of: error, kind: "migrationFailed", message: "\(error.description); \(before).")
        case let error as DatabaseError:
            // The exit code and the file-system explanations are the core's one table,
            // as for SQLCipher's errors; the sentences name the file GRDB opened.
            let described = DescribedDatabaseError(kind: .sqlite, resultCode: error.extendedResultCode.rawValue)
            if let explanation = error.explanation {
                return ErrorPresentation(of: described, kind: explanation.name, message: "\(database): Stopped because \(explanation.cause); \(explanation.fix)")
            }
            switch error.resultCode.primaryResultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .locked("\(database): Another process kept the database locked for longer than the lock timeout.", path: path, of: described)
            case .SQLITE_NOTADB:
                return ErrorPresentation(of: described, kind: "notADatabase", message: "\(database) is not an SQLite database, or is encrypted (\(notADatabaseReason)); check --db-path.")
            case .SQLITE_CORRUPT:
                return ErrorPresentation(of: described, kind: "corrupt", message: "\(database) is damaged (a page cannot be read); run `verify` for details, and restore it from a backup.")
            case .SQLITE_READONLY:
                return ErrorPresentation(of: described, kind: "readOnly", message: "\(database) cannot be written by this user; check the permissions of the file and its folder.")
            case .SQLITE_CANTOPEN, .SQLITE_PERM:
                return ErrorPresentation(of: described, kind: "cannotOpen", message: "\(database) cannot be opened; check --db-path and the permissions of the file and its folder.")
            case .SQLITE_FULL:
                return ErrorPresentation(of: described, kind: "diskFull", message: "The disk holding \(database) is full; free some space and run again.")
            default:
                return ErrorPresentation(of: described, kind: "sqlite", message: "\(database): SQLite error: \(error.message ?? "\(error.resultCode)").")
            }
        case let error as KeyError:
            // The key could not be read: the code and sentence `migrationkit` says.
            return .forKeyError(error, wording: wording)
        default:
            return nil
        }
    }

    private static var notADatabaseReason: String {
        CLIContext.layer.encrypts ? "then give its key rather than --plaintext" : "GRDB here opens plaintext files only"
    }
}
