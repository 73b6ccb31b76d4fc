import MigrationKit
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// How the `migrationkit` commands present what only SQLCipher and the key sources
/// raise: a locked or damaged file, a wrong key, a key source that cannot answer. The
/// core's errors are presented by `ErrorPresentation` itself. Sentences only: each error
/// is described by its kind and result code, and `ExitCodeDecision` gives its exit code.
enum SQLCipherErrorPresentation {
    static func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation? {
        switch error {
        case let error as SQLCipherError:
            // What the error is, for the exit code; the sentences are this layer's.
            let described = DescribedDatabaseError(kind: error.kind, resultCode: error.resultCode.rawValue)
            if error.kind == .busy {
                return .locked(error.sentence(wording), path: error.path, of: described)
            } else if let explanation = error.explanation {
                return ErrorPresentation(of: described, kind: explanation.name, message: error.sentence(wording))
            } else if error.kind == .sqlite, error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
                // A damaged page met after the open (the schema read fine): SQLite's
                // "database disk image is malformed in `SELECT …`" blames a query.
                return ErrorPresentation(
                    of: described, kind: "corrupt",
                    message: (error.path.map { "\($0): " } ?? "") + "The database is damaged (a page cannot be read); run `verify` for details, and restore it from a backup.")
            } else {
                return ErrorPresentation(of: described, kind: error.kind.rawValue, message: error.sentence(wording))
            }
        case let error as KeyError:
            return .forKeyError(error, wording: wording)
        default:
            return nil
        }
    }
}
