import ArgumentParser
import MigrationKit
import MigrationKitKeys
import MigrationKitSQLCipher

/// Turns any error a command can raise into one sentence and a documented exit code.
///
/// Every message comes from MigrationKit's own error types, whose descriptions name
/// the file or option concerned and say what to do; none carries a key. Errors that
/// ArgumentParser raised itself (usage, --help) are left to ArgumentParser.
struct ErrorPresentation {
    let exitCode: CLIExitCode
    /// A stable machine-readable name, for `--json`.
    let kind: String
    let message: String

    init?(_ error: any Error) {
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
            self.init(Self.exitCode(for: error), error.name, error.description)
        case let error as SQLCipherError where error.kind == .busy:
            self.init(.locked, "locked", error.description + " Another process is using the database; try again when it is done, or wait longer with --lock-timeout SECONDS.")
        case let error as SQLCipherError:
            if let explanation = error.explanation {
                self.init(.fileError, explanation.name, error.description)
            } else if error.kind == .sqlite, error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
                // A damaged page met after the open (the schema read fine): SQLite's
                // "database disk image is malformed in `SELECT …`" blames a query.
                self.init(.wrongKeyOrNotADatabase, "corrupt",
                          (error.path.map { "\($0): " } ?? "") + "The database is damaged (a page cannot be read); run `verify` for details, and restore it from a backup.")
            } else {
                self.init(Self.exitCode(for: error), error.kind.rawValue, error.description)
            }
        case let error as SQLMigrationFileError:
            self.init(.fileError, "migrationFile.\(error.code.rawValue)", error.description)
        case let error as KeyError:
            self.init(.keyUnavailable, "key.\(error.code)", error.description)
        default:
            let code = RootCommand.exitCode(for: error)
            if code == .success || code == .validationFailure { return nil }  // ArgumentParser's own
            self.init(.failure, "unexpected", "Unexpected failure: \(error)")
        }
    }

    /// A presentation built by the CLI itself (a usage error ArgumentParser found).
    init(kind: String, message: String, exitCode: CLIExitCode) {
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
    static func oneLine(_ message: String) -> String {
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

    func print(commandName: String, json: Bool) {
        Console.error("\(commandName): error: \(message)")
        if json {
            if let text = try? JSONOutput.encode(ErrorDocument(error: jsonBody)) { Console.out(text) }
        }
    }

    /// The error as `--json` shows it: `{kind, message, exitCode}`, alone (a failed
    /// command) or per database (a fleet).
    struct JSONBody: Encodable {
        let kind: String
        let message: String
        let exitCode: Int32
    }

    var jsonBody: JSONBody { JSONBody(kind: kind, message: message, exitCode: exitCode.rawValue) }

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

    private static func exitCode(for error: SQLCipherError) -> CLIExitCode {
        switch error.kind {
        case .wrongKey, .notEncrypted, .keyRequired, .notADatabase:
            return .wrongKeyOrNotADatabase
        case .wrongOperation:
            // encrypt given an encrypted database, rekey a plaintext one: the file is
            // not the kind the command needs, as with a key given for a plaintext one.
            return .wrongKeyOrNotADatabase
        case .fileSystem:
            return .fileError
        case .invalidKey:
            return .keyUnavailable
        case .busy:
            return .locked
        case .cannotOpen:
            return .fileError
        case .unsupportedCipherSetting:
            return .usage
        default:
            switch error.resultCode.primaryResultCode {
            case .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
                return .fileError
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return .wrongKeyOrNotADatabase
            default:
                return .failure
            }
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
        case .usage: return "usage"
        }
    }
}
