import ArgumentParser
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// The one place that decides which documented exit code (`CLIExitCode`) an error a
/// command raised ends the run with, whichever command line raised it; and a verdict a
/// command reached (`CommandVerdict`: pending migrations, drift, a failed check).
///
/// Everything else only says what went wrong: the core's errors are what they are; a
/// database layer describes its own errors by what they are (`DatabaseFailure`: a
/// `DatabaseErrorKind` and SQLite's result code, whose table gives the code), never by
/// a code it picks; a command's own refusal names its reason (`CLIError.Reason`). The
/// presentations (`ErrorPresentation`, each layer's) add the sentences and the `--json` kind.
package enum ExitCodeDecision {
    /// The exit code of `error`; `.failure` for an error nothing here knows (an
    /// unexpected one). ArgumentParser's own errors (usage, `--help`) are not asked
    /// here: ArgumentParser decides them.
    package static func exitCode(for error: any Error) -> CLIExitCode {
        switch error {
        case let error as CLIError:
            return exitCode(for: error.reason)
        case let error as DatabaseFailure:
            return error.exitCode
        case let error as FileOperationError:
            return DatabaseFailure(error).exitCode
        case let error as UnreadableDatabaseError:
            return DatabaseFailure(error).exitCode
        case let error as MigrationStepError:
            // A step that failed because of the file system (a full disk, an I/O error),
            // rolled back, is a file problem; any other failed step is a failed migration.
            return error.explanation != nil ? .fileError : .migrationFailed
        case is HostVerificationError, is FullTextIndexDifference:
            return .verificationFailed
        case let error as MigrationKitError:
            return exitCode(for: error)
        case let error as SQLMigrationFileError:
            // A folder that would apply its files out of their numbered order is refused
            // as out-of-order migrations are; any other is a file that cannot be used,
            // which decides when the folder has both.
            return error.problems.allSatisfy { $0.code == .misnumbered } ? .refused : .fileError
        case let error as KeyError:
            // A prompt a signal interrupted is a stopped run (129, 130 or 143).
            return error.signal.map(CLIExitCode.stopped(by:)) ?? .keyUnavailable
        default:
            return .failure
        }
    }

    /// The exit code of a verdict a command reached and reported.
    package static func exitCode(for verdict: CommandVerdict) -> CLIExitCode {
        switch verdict {
        case .migrateWouldRefuse:
            return .refused
        case .migrationsPending:
            return .pendingMigrations
        case .lintErrors, .checksFailed:
            return .migrationFailed
        case .verificationFailed, .drift:
            return .verificationFailed
        }
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
    package static func ending(with verdict: CommandVerdict) -> ExitCode {
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
             .partiallyAppliedMerge, .modifiedMigrations:
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
