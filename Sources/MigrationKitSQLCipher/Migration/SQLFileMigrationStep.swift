import Crypto
import MigrationKit

/// A statement in a migration file failed. Carries the file and the line of the
/// failing statement, re-based from the section to the whole file.
public struct SQLFileStatementError: SourceLocatedError, ExplainableError, CustomStringConvertible {
    public let sourcePath: String
    public let sourceLine: Int?
    /// SQLite's error for the statement.
    public let underlying: SQLCipherError

    /// The statement's explanation, when it failed because of the files.
    public var explanation: FailureExplanation? { underlying.explanation }

    /// The message and the statement; the location is reported by whoever prints
    /// `sourcePath:sourceLine` in front (the runner's `MigrationStepError` does).
    public var description: String {
        underlying.message + (underlying.statementExcerpt.map { " in " + $0 } ?? "")
    }
}

extension MigrationStep where Database == SQLCipherDatabase {
    /// A step that runs a migration file's up SQL, and its down SQL (when it has one)
    /// to roll back. Its checksum is the SHA-256 of the up SQL with its line endings
    /// made `\n`, to detect a shipped migration that was edited afterwards: a checkout
    /// that turned the files to CRLF (git's autocrlf) edits nothing.
    public init(file: SQLMigrationFile) {
        let up = file.up
        var rollback: (@Sendable (SQLCipherDatabase) throws -> Void)?
        if let down = file.down {
            rollback = { db in try Self.run(down, in: db) }
        }
        self.init(
            identifier: file.identifier,
            sourceFile: file.path,
            checksum: Self.checksum(of: file.up.sql),
            merging: file.merging,
            apply: { db in try Self.run(up, in: db) },
            rollback: rollback)
        // What versions that hashed the bytes as they were recorded for a CRLF file.
        if let legacy = MigrationChecksum.legacyBytes(of: file.up.sql) {
            equivalentChecksums = [Self.hexDigest(of: legacy)]
        }
    }

    /// The file checksum (`MigrationChecksum`) of `sql`: lowercase hex SHA-256 of its
    /// UTF-8 bytes with line endings made `\n`.
    public static func checksum(of sql: String) -> String {
        hexDigest(of: MigrationChecksum.normalizedBytes(of: sql))
    }

    static func hexDigest(of bytes: [UInt8]) -> String {
        MigrationChecksum.hex(SHA256.hash(data: bytes))
    }

    private static func run(_ section: SQLSection, in db: SQLCipherDatabase) throws {
        do {
            try db.execute(sql: section.sql)
        } catch let error as SQLCipherError {
            throw SQLFileStatementError(
                sourcePath: section.path,
                sourceLine: error.location.map { section.fileLine(forSectionLine: $0.line) },
                underlying: error)
        }
    }
}
