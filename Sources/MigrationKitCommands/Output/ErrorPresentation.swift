import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// Turns any error a command can raise into one sentence and a documented exit code.
///
/// Every message comes from MigrationKit's own error types, whose sentences name the
/// file concerned and say what to do, with the remedies the libraries offer put in the
/// command line's own words (`RemedyWording`); none carries a key. The core's
/// errors are presented here; a database layer's own (SQLCipher's, GRDB's, the key
/// sources') by the function its command line passes. Errors that ArgumentParser raised
/// itself (usage, --help) are left to ArgumentParser.
package struct ErrorPresentation {
    package let exitCode: CLIExitCode
    /// A stable machine-readable name, for `--json`.
    package let kind: String
    package let message: String

    /// - Parameters:
    ///   - root: the command line's root command, which knows ArgumentParser's errors.
    ///   - layer: presents the database layer's errors, with remedies in the command
    ///     line's words; nil for any other.
    ///   - wording: how this command line names the remedies library errors offer (its
    ///     flags and commands; nil for one it does not have).
    package init?(_ error: any Error, root: any ParsableCommand.Type, layer: (any Error, RemedyWording) -> ErrorPresentation?,
                  wording: RemedyWording) {
        if let presented = layer(error, wording) {
            self = presented
            return
        }
        switch error {
        case let error as CLIError:
            self.init(error.exitCode, "\(error.exitCode)", error.message)
        case let error as MigrationStepError:
            if let explanation = error.explanation {
                self.init(.fileError, "migrationFailed.\(explanation.name)", error.description)
            } else {
                self.init(.migrationFailed, "migrationFailed", error.description)
            }
        case let error as HostVerificationError:
            self.init(.verificationFailed, "verificationFailed", error.description)
        case let error as MigrationKitError:
            self.init(Self.exitCode(for: error), error.name, error.sentence(wording))
        case let error as SQLMigrationFileError:
            self.init(.fileError, "migrationFile.\(error.code.rawValue)", error.sentence(wording))
        case let error as FileOperationError where error.kind == .busy:
            self = .locked(error.sentence(wording), path: error.path)
        case let error as FileOperationError:
            self.init(.forDatabaseError(kind: error.kind, resultCode: error.resultCode), error.kind.rawValue, error.sentence(wording))
        case let error as UnreadableDatabaseError:
            self.init(.forDatabaseError(kind: error.kind, resultCode: SQLiteResultCode.notADatabase), error.kind.rawValue, error.sentence(wording))
        default:
            let code = root.exitCode(for: error)
            if code == .success || code == .validationFailure { return nil }  // ArgumentParser's own
            self.init(.failure, "unexpected", "Unexpected failure: \(error)")
        }
    }

    /// A database another process kept locked past the timeout, whichever connection
    /// waited: the library's sentence, the process holding the change lock named when it
    /// can be (`LockHolder`), and the one piece of advice, which is the command line's.
    package static func locked(_ sentence: String, path: String?) -> ErrorPresentation {
        let who = path.flatMap(LockHolder.describeChange(of:)).map { " It is \($0)." } ?? ""
        return ErrorPresentation(.locked, "locked", sentence + who + " Try again when it is done, or \(waitLongerWords).")
    }

    /// `Remedy.waitLonger` in every command line's words: each has `--lock-timeout`.
    package static let waitLongerWords = "wait for it with --lock-timeout SECONDS"

    /// A presentation built by a command line itself (a usage error ArgumentParser
    /// found, a database layer's error).
    package init(kind: String, message: String, exitCode: CLIExitCode) {
        self.init(exitCode, kind, message)
    }

    private init(_ exitCode: CLIExitCode, _ kind: String, _ message: String) {
        self.exitCode = exitCode
        self.kind = kind
        self.message = Self.oneLine(message)
    }

    /// The message on one line: a newline or other control character (in a file name,
    /// or inside a token SQLite quotes, such as an unterminated string) is shown
    /// escaped, so an error can never break into a second line that looks like
    /// another message or a status line.
    package static func oneLine(_ message: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(message.unicodeScalars.count)
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    package func print(commandName: String, json: Bool) {
        Console.error("\(commandName): error: \(message)")
        if json {
            if let text = try? JSONOutput.encode(ErrorDocument(error: jsonBody)) { Console.out(text) }
        }
    }

    /// The error as `--json` shows it: `{kind, message, exitCode}`, alone (a failed
    /// command) or per database (a fleet).
    package struct JSONBody: Encodable {
        package let kind: String
        package let message: String
        package let exitCode: Int32
    }

    package var jsonBody: JSONBody { JSONBody(kind: kind, message: message, exitCode: exitCode.rawValue) }

    private struct ErrorDocument: Encodable {
        let error: JSONBody
    }

    private static func exitCode(for error: MigrationKitError) -> CLIExitCode {
        switch error {
        case .quickCheckFailed, .foreignKeyViolations, .missingIndex:
            return .verificationFailed
        case .foreignKeyViolationsAdded:
            return .migrationFailed
        case .duplicateIdentifiers, .identifiersOutOfOrder:
            return .fileError
        case .unknownMigration, .rollbackStepCountMustBeNonNegative:
            return .usage
        case .rollbackNotDefined, .rollbackMustTargetLatestApplied, .rollbackBeyondApplied,
             .databaseAlreadyMigratedBeyond, .databaseSuperseded, .pendingMigrationsOutOfOrder,
             .partiallyAppliedMerge, .modifiedMigrations:
            return .refused
        }
    }
}

extension CLIExitCode: CustomStringConvertible {
    public var description: String {
        switch self {
        case .success: return "success"
        case .failure: return "failure"
        case .migrationFailed: return "migrationFailed"
        case .verificationFailed: return "verificationFailed"
        case .wrongKeyOrNotADatabase: return "wrongKeyOrNotADatabase"
        case .keyUnavailable: return "keyUnavailable"
        case .pendingMigrations: return "pendingMigrations"
        case .refused: return "refused"
        case .locked: return "locked"
        case .fileError: return "fileError"
        case .damaged: return "damaged"
        case .usage: return "usage"
        case .hungUp: return "hungUp"
        case .interrupted: return "interrupted"
        case .terminated: return "terminated"
        }
    }
}
