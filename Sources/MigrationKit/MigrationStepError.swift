import Foundation

/// A step's `apply` or `rollback` failed (or left foreign-key violations behind); the
/// step's transaction was rolled back and no later step ran.
///
/// The same shape from both runners and both kinds of step: where the step came from
/// and the failing line are `sourceFile` and `line` (a migration file's statement, a
/// Swift step's declaration), and `underlying` is what failed, never a wrapper around
/// it: the database's own error for a statement (`SQLCipherError`, GRDB's
/// `DatabaseError`, both `DatabaseStatementError`), `MigrationKitError` for the
/// foreign keys a step broke, `StepEndedTransaction`, or whatever a Swift closure threw.
public struct MigrationStepError: ExplainableError, LocalizedError, CustomStringConvertible {
    /// When the step failed: while it was applied, or while it was rolled back.
    public enum Phase: String, Sendable {
        /// While the step was applied (by its `apply`, or its foreign-key check after it).
        case apply
        /// While the step was rolled back (by its `rollback`, or its foreign-key check after it).
        case rollback
    }

    /// The failing step's identifier, as recorded in grdb_migrations.
    public let identifier: String
    /// Whether the step failed while applying or while rolling back.
    public let phase: Phase
    /// The step's source file, when it came from one.
    public let sourceFile: String?
    /// 1-based line in `sourceFile` of the failing statement, when known.
    public let line: Int?
    /// What the step threw.
    public let underlying: any Error

    /// Wraps what a step threw with the step's identifier, the phase and, when known, the
    /// file and line of the failing statement.
    init(identifier: String, phase: Phase, sourceFile: String?, line: Int?, underlying: any Error) {
        self.identifier = identifier
        self.phase = phase
        self.sourceFile = sourceFile
        self.line = line
        self.underlying = underlying
    }

    /// What the step's failure means, when what it threw knows (a full disk, an I/O
    /// error): the step is not to blame, the files are.
    package var explanation: FailureExplanation? { (underlying as? any ExplainableError)?.explanation }

    /// What only the database's app registers that the failing statement needed (a
    /// trigger calling the app's function, an index using its tokenizer), when SQLite
    /// said so: the step is not wrong, the connection lacks it.
    package var appExtensionNeed: AppExtensionNeed? { AppExtensionNeed(error: self) }

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// `file:line: message` when the location is known, as compilers report errors.
    public var description: String {
        let verb = phase == .apply ? "Migration" : "Rollback of"
        let place: String
        if let sourceFile {
            place = line.map { "\(sourceFile):\($0): " } ?? "\(sourceFile): "
        } else {
            place = ""
        }
        if let explanation {
            return "\(place)\(verb) \"\(identifier)\" failed because \(explanation.cause), and was rolled back; \(explanation.fix)"
        }
        let failure = (underlying as? any DatabaseStatementError).map { $0.statementFailure } ?? "\(underlying)"
        return "\(place)\(verb) \"\(identifier)\" failed and was rolled back: \(failure)"
    }
}

/// An error a database layer raises for a statement it ran: SQLite's words for it, and
/// the statement. `SQLCipherError` and GRDB's `DatabaseError` conform, so a step's
/// failure reads the same whichever layer ran it.
public protocol DatabaseStatementError: Error {
    /// SQLite's message alone ("no such table: missing"), without the file, the code or
    /// the statement around it.
    var sqliteMessage: String { get }
    /// The statement that failed, when known.
    var failedStatement: String? { get }
}

extension DatabaseStatementError {
    /// SQLite's message, then the statement on one line (at most 200 characters, in
    /// backquotes): "no such table: missing in `INSERT INTO missing VALUES (1)`".
    var statementFailure: String {
        guard let sql = failedStatement else { return sqliteMessage }
        let oneLine = sql.split(whereSeparator: \.isNewline).joined(separator: " ")
        return sqliteMessage + " in `" + (oneLine.count > 200 ? oneLine.prefix(200) + "…" : Substring(oneLine)) + "`"
    }
}

/// A host integration's own verification closure threw.
public struct HostVerificationError: LocalizedError, CustomStringConvertible {
    /// Which of the app's verification closures (`MigrationHostIntegration`) threw; its raw
    /// value names it in messages and check names.
    public enum Part: String, Sendable {
        /// `verifyIntegrity`, the app's check of the file itself.
        case integrity
        /// `verifyPostMigration`, the app's check of the schema after the steps.
        case postMigration = "post-migration"
    }

    /// Which closure threw.
    public let part: Part
    /// What the closure threw.
    public let underlying: any Error

    /// Wraps what the app's closure for `part` threw.
    init(part: Part, underlying: any Error) {
        self.part = part
        self.underlying = underlying
    }

    public var description: String {
        "The app's \(part.rawValue) verification failed: \(underlying)"
    }

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
