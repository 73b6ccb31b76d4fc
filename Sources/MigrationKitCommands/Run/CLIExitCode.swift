import MigrationKit

/// The documented exit codes of `migrationkit` (README: "Exit codes"). Distinct
/// numbers so scripts can tell a failed migration from a wrong key or a locked file.
/// Which code an error ends a run with is decided in one place, `ExitCodeDecision`,
/// the same for every command line.
public enum CLIExitCode: Int32, CaseIterable, Sendable {
    /// Everything worked. Checks that could not run because what they need only the
    /// database's app registers (a tokenizer, a function, a collation) are named, and do
    /// not change the code (`ExitCodeDecision.exitCode(forChecks:)`).
    case success = 0
    /// An unexpected failure (an I/O error the tool could not classify).
    case failure = 1
    /// A migration (or rollback) step failed and was rolled back, or lint errors blocked it.
    /// (A step that failed because of the file system is `fileError`.)
    case migrationFailed = 2
    /// The verifier found a problem (integrity, foreign keys, a required index).
    case verificationFailed = 3
    /// Wrong key, a key given for a plaintext database, or the file is not a database.
    case wrongKeyOrNotADatabase = 4
    /// The key could not be obtained: no key given, key file refused, keyring
    /// unavailable or locked, item not found.
    case keyUnavailable = 5
    /// `status --exit-code`: migrations are pending.
    case pendingMigrations = 6
    /// The database's state forbids the operation: migrated by a newer version,
    /// out-of-order or edited migrations, nothing to roll back, no down section; or a
    /// migrations folder whose files would apply out of their numbered order.
    case refused = 7
    /// Another process held the database lock for longer than `--lock-timeout`, or kept
    /// open a database the command would replace.
    case locked = 8
    /// A file problem: database missing, read-only, a directory, disk full; or an
    /// unusable migrations folder or file. Also a migration step that failed (and was
    /// rolled back) because of one: a full disk, an I/O error, no room for the journal.
    case fileError = 9
    /// The key opens the database, but a page or its schema does not read: the file is
    /// damaged, and trying again fails the same way (`verify` names the pages).
    case damaged = 10
    /// Bad command-line usage (ArgumentParser's EX_USAGE).
    case usage = 64
    /// Stopped by SIGHUP (128 + 1, the shells' convention): the work in progress was
    /// rolled back, and what was done before it is said.
    case hungUp = 129
    /// Stopped by Ctrl-C, SIGINT (128 + 2).
    case interrupted = 130
    /// Stopped by SIGTERM (128 + 15).
    case terminated = 143

    /// The signal a stopped run's code stands for (SIGHUP, SIGINT, SIGTERM), or nil.
    var stopSignal: Int32? {
        switch self {
        case .hungUp: return 1
        case .interrupted: return 2
        case .terminated: return 15
        default: return nil
        }
    }

    /// The code a fleet ends with: its databases' worst. Worst is what most needs a
    /// person: damage found (3, 10), then a change that failed (2) or failed unexpectedly
    /// (1), then a database that would not open (4, 5, 9), one another process held (8),
    /// a state that refused the command (7), and migrations pending (6). Each database's
    /// own code is in the fleet's `--json`.
    static func worst(_ codes: some Sequence<CLIExitCode>) -> CLIExitCode {
        codes.max { severity.firstIndex(of: $0) ?? 0 < severity.firstIndex(of: $1) ?? 0 } ?? .success
    }

    /// From least to most severe, for `worst`.
    private static let severity: [CLIExitCode] = [
        .success, .usage, .pendingMigrations, .refused, .locked, .fileError, .keyUnavailable,
        .wrongKeyOrNotADatabase, .failure, .migrationFailed, .damaged, .verificationFailed,
        .hungUp, .terminated, .interrupted,
    ]

    /// The code of a run stopped by `signal`: 128 + its number.
    static func stopped(by signal: Int32) -> CLIExitCode {
        switch signal {
        case 1: return .hungUp
        case 15: return .terminated
        default: return .interrupted
        }
    }

    /// One line for the README table and `--help`.
    package var summary: String {
        switch self {
        case .success: return "success"
        case .failure: return "unexpected failure"
        case .migrationFailed: return "a migration step failed and was rolled back (or lint errors blocked it)"
        case .verificationFailed: return "verification failed"
        case .wrongKeyOrNotADatabase: return "wrong key, not encrypted, or not a database"
        case .keyUnavailable: return "key source unavailable"
        case .pendingMigrations: return "migrations pending (status --exit-code)"
        case .refused: return "refused by the database's migration state"
        case .locked: return "database locked by another process"
        case .fileError: return "file problem (database or migrations)"
        case .damaged: return "the database is damaged (run verify; restore it from a backup)"
        case .usage: return "usage error"
        case .hungUp: return "stopped by SIGHUP (the change in progress rolled back)"
        case .interrupted: return "stopped by Ctrl-C, SIGINT (the change in progress rolled back)"
        case .terminated: return "stopped by SIGTERM (the change in progress rolled back)"
        }
    }
}
