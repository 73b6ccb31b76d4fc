import Foundation

/// A statement of a migration file failed, on either connection: the file and the line
/// of the failing statement in it (re-based from the section to the whole file), around
/// the database's own error (`SQLCipherError`, GRDB's `DatabaseError`), so the runner's
/// report points at it as compilers do. The runner reports the database's error itself,
/// at this place (`MigrationStepError`); GRDB's migrator, which runs an app's file steps
/// as they are, throws this (`GRDBFileStatementError`).
public struct SQLFileStatementError<Underlying: DatabaseStatementError>: SourceLocatedError, LocalizedError, CustomStringConvertible {
    /// The migration file the failing statement is in, as its step names it.
    public let sourcePath: String
    /// 1-based line of the failing statement in the file, when known.
    public let sourceLine: Int?
    /// The database's error, with SQLite's code and the failing statement.
    public let underlying: Underlying

    package init(sourcePath: String, sourceLine: Int?, underlying: Underlying) {
        self.sourcePath = sourcePath
        self.sourceLine = sourceLine
        self.underlying = underlying
    }

    /// `underlying`, which the runner reports at `sourcePath:sourceLine`.
    public var underlyingError: (any Error)? { underlying }

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// `file:line: ` and SQLite's message, as compilers report errors.
    public var description: String { "\(sourcePath):\(sourceLine ?? 1): \(underlying.sqliteMessage)" }
}

extension SQLFileStatementError: ExplainableError where Underlying: ExplainableError {
    /// The statement's explanation, when it failed because of the files.
    package var explanation: FailureExplanation? { underlying.explanation }
}
