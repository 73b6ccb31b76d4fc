import MigrationKit
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// How the `migrationkit` commands present what only SQLCipher and the key sources
/// raise: a locked or damaged file, a wrong key, a key source that cannot answer. The
/// core's errors are presented by `ErrorPresentation` itself. Sentences only: where a
/// SQLCipher error leaves its layer it is described by its kind and result code
/// (`DatabaseFailure`), whose row of `ExitCodeDecision`'s table gives its exit code and
/// `--json` kind.
enum SQLCipherErrorPresentation {
    static func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation? {
        switch error {
        case let error as SQLCipherError:
            // What the error is, for the exit code and `--json` kind (`DatabaseFailure`,
            // a row of the table both command lines read); its sentence is the library's
            // own but for the failures `DatabaseFailure` words.
            let failure = DatabaseFailure(kind: error.kind, resultCode: error.resultCode, explanation: error.explanation)
            let sentence = failure.sentence(file: error.path, subject: (error.path.map { "\($0): " } ?? "") + "The database")
                ?? error.sentence(wording)
            if failure.kind == .busy {
                return .locked(sentence, path: error.path, row: ExitCodeDecision.row(for: failure))
            }
            return ErrorPresentation(of: failure, message: sentence)
        case let error as KeyError:
            return .forKeyError(error, wording: wording)
        default:
            return nil
        }
    }
}
