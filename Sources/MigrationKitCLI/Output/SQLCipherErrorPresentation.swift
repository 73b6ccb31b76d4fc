import MigrationKit
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// How the `migrationkit` commands present what only SQLCipher and the key sources
/// raise: a locked or damaged file, a wrong key, a key source that cannot answer. The
/// core's errors are presented by `ErrorPresentation` itself.
enum SQLCipherErrorPresentation {
    static func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation? {
        switch error {
        case let error as SQLCipherError where error.kind == .busy:
            return .locked(error.sentence(wording), path: error.path)
        case let error as SQLCipherError where error.kind == .inUse:
            return ErrorPresentation(kind: "inUse", message: error.sentence(wording), exitCode: .locked)
        case let error as SQLCipherError:
            if let explanation = error.explanation {
                return ErrorPresentation(kind: explanation.name, message: error.sentence(wording), exitCode: .fileError)
            } else if error.kind == .sqlite, error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
                // A damaged page met after the open (the schema read fine): SQLite's
                // "database disk image is malformed in `SELECT …`" blames a query.
                return ErrorPresentation(
                    kind: "corrupt",
                    message: (error.path.map { "\($0): " } ?? "") + "The database is damaged (a page cannot be read); run `verify` for details, and restore it from a backup.",
                    exitCode: .damaged)
            } else {
                return ErrorPresentation(kind: error.kind.rawValue, message: error.sentence(wording), exitCode: exitCode(for: error))
            }
        case let error as KeyError:
            return .forKeyError(error, wording: wording)
        default:
            return nil
        }
    }

    private static func exitCode(for error: SQLCipherError) -> CLIExitCode {
        .forDatabaseError(kind: error.kind, resultCode: error.resultCode.rawValue)
    }
}
