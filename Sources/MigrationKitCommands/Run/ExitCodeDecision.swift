import ArgumentParser
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// How a failure ends a run: its documented exit code (`CLIExitCode`, README: "Exit
/// codes") and the stable name `--json` gives it. One row of `ExitCodeDecision`'s table.
package struct FailureRow: Hashable, Sendable {
    package let exitCode: CLIExitCode
    /// A stable machine-readable name, for `--json`.
    package let kind: String

    init(_ exitCode: CLIExitCode, _ kind: String) {
        self.exitCode = exitCode
        self.kind = kind
    }
}

/// The one table from a failure to its exit code and `--json` kind (restic's one
/// `switch`), whichever command line raised it: an error a command raised, a database
/// error as its layer describes it (`DatabaseFailure`), a verdict a command reached
/// (`CommandVerdict`: pending migrations, drift, a failed check), and what the command
/// line itself says (a usage error, a stop by a signal, an unexpected failure).
///
/// Everything else only says what went wrong: the core's errors are what they are; a
/// database layer describes its own errors by what they are (`DatabaseFailure`: a
/// `DatabaseErrorKind` and SQLite's result code) where they leave it, never by a code it
/// picks; a command's own refusal names its reason (`CLIError.Reason`). The sentences are
/// each error's own, in the command line's words (`RemedyWording`), put together by
/// `ErrorPresentation` and each layer's presentation; the code and the kind are only here.
package enum ExitCodeDecision {
    /// The row of `error`; `unexpected` for an error nothing here knows. ArgumentParser's
    /// own errors (usage, `--help`) are not asked here: ArgumentParser decides them.
    package static func row(for error: any Error) -> FailureRow {
        switch error {
        case let error as CLIError:
            // A command's own refusal: its code's name is its kind ("fileError").
            let code = exitCode(for: error.reason)
            return FailureRow(code, "\(code)")
        case let error as FileOperationError:
            return row(for: DatabaseFailure(error))
        case let error as UnreadableDatabaseError:
            return row(for: DatabaseFailure(error))
        case let error as MigrationStepError:
            // A step that failed because of the file system (a full disk, an I/O error),
            // rolled back, is a file problem, named by its explanation; any other failed
            // step is a failed migration.
            guard let explanation = error.explanation else { return FailureRow(.migrationFailed, "migrationFailed") }
            return FailureRow(.fileError, "migrationFailed.\(explanation.name)")
        case is HostVerificationError, is FullTextIndexDifference:
            return FailureRow(.verificationFailed, "verificationFailed")
        case let error as MigrationKitError:
            return FailureRow(exitCode(for: error), error.name)
        case let error as SQLMigrationFileError:
            // A folder that would apply its files out of their numbered order is refused
            // as out-of-order migrations are; any other is a file that cannot be used,
            // which decides when the folder has both.
            let code: CLIExitCode = error.problems.allSatisfy { $0.code == .misnumbered } ? .refused : .fileError
            return FailureRow(code, "migrationFile.\(error.code.rawValue)")
        case let error as KeyError:
            // A prompt a signal interrupted is a stopped run (129, 130 or 143).
            guard let signal = error.signal else { return FailureRow(.keyUnavailable, "key.\(error.code)") }
            return FailureRow(.stopped(by: signal), "stopped")
        default:
            return unexpected
        }
    }

    /// The exit code of `error` (`row(for:)`).
    package static func exitCode(for error: any Error) -> CLIExitCode {
        row(for: error).exitCode
    }

    /// A database error as its layer describes it: by the kind, and for a failed
    /// statement (and the kinds that say no more) by SQLite's result code. A lock held
    /// too long is "locked"; a kind other than a failed statement is its own name; a
    /// failed statement is its explanation's name, or the name of what its code says of
    /// the file.
    package static func row(for failure: DatabaseFailure) -> FailureRow {
        let code: CLIExitCode
        switch failure.kind {
        case .wrongKey, .notEncrypted, .keyRequired, .notADatabase:
            code = .wrongKeyOrNotADatabase
        case .wrongOperation:
            // encrypt given an encrypted database, rekey a plaintext one: the file is
            // not the kind the command needs, as with a key given for a plaintext one,
            // so the same code, under its own kind (`--json` says "wrongOperation").
            code = .wrongKeyOrNotADatabase
        case .damaged:
            code = .damaged
        case .failsItsChecks:
            code = .verificationFailed
        case .fileSystem, .cannotOpen:
            code = .fileError
        case .invalidKey:
            code = .keyUnavailable
        case .busy, .inUse:
            code = .locked
        case .unsupportedCipherSetting, .extensionNotLoaded:
            code = .usage
        case .unregisteredCollation:
            // As a change that would lose data: refused until the user says how to go on.
            code = .refused
        default:
            // Every code `FailureExplanation.forSQLite` explains (a full disk, an I/O
            // error, a journal that cannot be made, a read-only file) is a file problem.
            switch failure.resultCode {
            case .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
                code = .fileError
            case .SQLITE_CORRUPT:
                code = .damaged
            case .SQLITE_NOTADB:
                code = .wrongKeyOrNotADatabase
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                code = .locked
            default:
                code = .failure
            }
        }
        if failure.kind == .busy { return FailureRow(code, "locked") }
        guard failure.kind == .sqlite else { return FailureRow(code, failure.kind.rawValue) }
        if let explanation = failure.explanation { return FailureRow(code, explanation.name) }
        switch failure.resultCode {
        case .SQLITE_CORRUPT: return FailureRow(code, "corrupt")
        // The open itself failed (a statement that did has an explanation).
        case .SQLITE_READONLY: return FailureRow(code, "readOnly")
        case .SQLITE_FULL: return FailureRow(code, "diskFull")
        default: return FailureRow(code, "sqlite")
        }
    }

    /// A verdict a command reached and reported: its code, and its kind in a fleet's
    /// `--json` (`status`'s and `diff`'s per database, `verify`'s).
    package static func row(for verdict: CommandVerdict) -> FailureRow {
        switch verdict {
        case .migrateWouldRefuse: return FailureRow(.refused, "refused")
        case .migrationsPending: return FailureRow(.pendingMigrations, "pendingMigrations")
        case .lintErrors: return FailureRow(.migrationFailed, "lintErrors")
        case .checksFailed: return FailureRow(.migrationFailed, "checksFailed")
        case .verificationFailed: return FailureRow(.verificationFailed, "verificationFailed")
        case .drift: return FailureRow(.verificationFailed, "drift")
        }
    }

    /// A usage error ArgumentParser found, or the command line itself (an unknown or
    /// missing subcommand).
    static let usage = FailureRow(.usage, "usage")
    /// An error nothing in the table knows.
    static let unexpected = FailureRow(.failure, "unexpected")
    /// A database a fleet lists that is not there (`status`).
    static let missingDatabase = FailureRow(.fileError, "missing")

    /// A run a signal stopped (SIGHUP, SIGINT, SIGTERM), the work in progress rolled back.
    static func stopped(by signal: Int32) -> FailureRow {
        FailureRow(.stopped(by: signal), "interrupted")
    }

    /// Every code the table ends a run with, from each row it can give but the core's
    /// errors and each database error's result codes and explanations (which `row(for:)`
    /// covers case by case), and the success of checks that passed: what the README's
    /// "Exit codes" documents, row by row.
    static var everyExitCode: Set<CLIExitCode> {
        let rows = CLIError.Reason.allCases.map { row(for: CLIError($0, "")) }
            + CommandVerdict.allCases.map(row(for:))
            + DatabaseErrorKind.everyKind.map { row(for: DatabaseFailure(kind: $0, resultCode: .SQLITE_ERROR)) }
            + [usage, unexpected, missingDatabase] + [1, 2, 15].map(stopped(by:))
        return Set(rows.map(\.exitCode) + [exitCode(forChecks: .passedWhatCouldRun), exitCode(forChecks: .failed)])
    }

    /// The exit code of a verdict a command reached and reported.
    package static func exitCode(for verdict: CommandVerdict) -> CLIExitCode {
        row(for: verdict).exitCode
    }

    /// How a run of checks ended (`verify`, the verification after `migrate` and
    /// `rollback`, the proof of a copy: `encrypt`, `decrypt`, `rekey`, `cipher-upgrade`,
    /// `backup`, `restore`).
    package enum CheckOutcome: Sendable {
        /// Every check that could run passed. Some may not have run, or not wholly,
        /// because what they need only the database's app registers (its full-text
        /// tokenizer, a function its triggers call, a collation): the command names each
        /// and how to check it (`--load-extension`).
        case passedWhatCouldRun
        /// A check found something wrong.
        case failed
    }

    /// The exit code of checks that ran to their end: success when every check that
    /// could run passed, however many could not run for want of what only the app
    /// registers — a check that cannot run is not a failed check, and no sign of damage,
    /// while any other code would tell a script to restore a backup of a healthy database
    /// and lose what is newer than it; verification failed (3) when one failed. The
    /// command's output, and its `--json`, name what was not checked. The same for every
    /// command.
    package static func exitCode(forChecks outcome: CheckOutcome) -> CLIExitCode {
        switch outcome {
        case .passedWhatCouldRun: return .success
        case .failed: return exitCode(for: CommandVerdict.verificationFailed)
        }
    }

    /// Ends a command that reported `verdict` with its code, printing nothing more
    /// (ArgumentParser's `ExitCode`: the report said what was found).
    static func ending(with verdict: CommandVerdict) -> ExitCode {
        ExitCode(exitCode(for: verdict).rawValue)
    }

    /// A command's own refusal, by its reason.
    private static func exitCode(for reason: CLIError.Reason) -> CLIExitCode {
        switch reason {
        case .missingOption, .conflictingOptions, .badOptionValue, .badSetting, .notAvailableHere:
            return .usage
        case .notConfirmed, .wouldReplaceStoredKey, .migrationsDoNotMakeSchema, .wouldLoseData, .unprovenMigration, .notAdopted, .adoptionRefused:
            return .refused
        case .fileExists, .unusableFile, .fileOperationFailed, .backupNotWritten:
            return .fileError
        case .noKeyGiven, .newKeyNotStored:
            return .keyUnavailable
        case .lintErrors:
            return exitCode(for: CommandVerdict.lintErrors)
        case .damaged:
            return .damaged
        case .unexpectedState:
            return .failure
        }
    }

    /// The core's migration errors: what the migration state, the verifier or the
    /// registry found.
    private static func exitCode(for error: MigrationKitError) -> CLIExitCode {
        switch error {
        case .quickCheckFailed, .foreignKeyViolations, .missingIndex, .virtualTableIndexDamaged:
            return .verificationFailed
        case .foreignKeyViolationsAdded:
            return .migrationFailed
        case .duplicateIdentifiers, .identifiersOutOfOrder:
            return .fileError
        case .unknownMigration, .rollbackStepCountMustBeNonNegative:
            return .usage
        case .rollbackNotDefined, .rollbackMustTargetLatestApplied, .rollbackBeyondApplied,
             .databaseAlreadyMigratedBeyond, .databaseSuperseded, .pendingMigrationsOutOfOrder,
             .partiallyAppliedMerge, .modifiedMigrations, .historyFormatNewer:
            return .refused
        }
    }
}

/// What a command found, ran to its end and reported, that still ends it with a code
/// other than success, for a script to act on: not an error (nothing failed to run),
/// so its report is the command's output, and `ExitCodeDecision` gives the code.
package enum CommandVerdict: CaseIterable, Sendable {
    /// `status --exit-code`: `migrate` would refuse the database (a migration edited,
    /// out of order, partly merged, or the database newer than the migrations).
    case migrateWouldRefuse
    /// `status --exit-code`: migrations are pending.
    case migrationsPending
    /// `lint`: a migration file has errors.
    case lintErrors
    /// `check`: one of its checks failed.
    case checksFailed
    /// `verify`: a check of the database failed.
    case verificationFailed
    /// `diff`: the schema is not the one the applied migrations make.
    case drift
}
