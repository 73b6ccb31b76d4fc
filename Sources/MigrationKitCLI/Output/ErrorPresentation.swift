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
            self.init(.migrationFailed, "migrationFailed", error.description)
        case let error as HostVerificationError:
            self.init(.verificationFailed, "verificationFailed", error.description)
        case let error as MigrationKitError:
            self.init(Self.exitCode(for: error), error.name, error.description)
        case let error as SQLCipherError where error.kind == .busy:
            self.init(.locked, "locked", error.description + " Another process is using the database; try again when it is done, or wait longer with --lock-timeout SECONDS.")
        case let error as SQLCipherError:
            self.init(Self.exitCode(for: error), error.kind.rawValue, error.description)
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

    private init(_ exitCode: CLIExitCode, _ kind: String, _ message: String) {
        self.exitCode = exitCode
        self.kind = kind
        self.message = message
    }

    func print(commandName: String, json: Bool) {
        Console.error("\(commandName): error: \(message)")
        if json {
            let document = ErrorDocument(error: .init(kind: kind, message: message, exitCode: exitCode.rawValue))
            if let text = try? JSONOutput.encode(document) { Console.out(text) }
        }
    }

    private struct ErrorDocument: Encodable {
        struct Body: Encodable {
            let kind: String
            let message: String
            let exitCode: Int32
        }
        let error: Body
    }

    private static func exitCode(for error: MigrationKitError) -> CLIExitCode {
        switch error {
        case .quickCheckFailed, .foreignKeyViolations, .missingIndex:
            return .verificationFailed
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
            return .refused
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
