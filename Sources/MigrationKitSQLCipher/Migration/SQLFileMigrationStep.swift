import CLibCrypto
import Foundation
import MigrationKit

/// A statement in a migration file failed. Carries the file and the line of the
/// failing statement, re-based from the section to the whole file.
package struct SQLFileStatementError: SourceLocatedError, ExplainableError, LocalizedError, CustomStringConvertible {
    /// The migration file the failing statement is in.
    package let sourcePath: String
    package let sourceLine: Int?
    /// SQLite's error for the statement.
    package let underlying: SQLCipherError

    package var underlyingError: (any Error)? { underlying }

    /// The statement's explanation, when it failed because of the files.
    package var explanation: FailureExplanation? { underlying.explanation }

    /// `file:line: ` and `description`, for `localizedDescription`.
    package var errorDescription: String? { "\(sourcePath):\(sourceLine.map(String.init) ?? "?"): \(description)" }

    /// The message and the statement; the location is reported by whoever prints
    /// `sourcePath:sourceLine` in front (the runner's `MigrationStepError` does).
    package var description: String {
        underlying.message + (underlying.statementExcerpt.map { " in " + $0 } ?? "")
    }
}

extension SQLCipherDatabase: SQLFileExecuting {
    /// Runs a migration file's section; a failing statement is reported at its line
    /// in the file (`SQLFileStatementError`).
    public func execute(section: SQLSection) throws {
        do {
            try execute(sql: section.sql)
        } catch let error as SQLCipherError {
            throw SQLFileStatementError(
                sourcePath: section.path,
                sourceLine: error.location.map { section.fileLine(forSectionLine: $0.line) },
                underlying: error)
        }
    }

    public static func sha256Hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { migrationkit_sha256($0.baseAddress, $0.count, &digest) }
        return MigrationChecksum.hex(digest)
    }

    /// The lowercase hex SHA-384 of `bytes`: sqlx's checksum of a migration file, which
    /// adopting a database sqlx migrated compares (`OtherToolLedger`).
    package static func sha384Hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 48)
        bytes.withUnsafeBytes { migrationkit_sha384($0.baseAddress, $0.count, &digest) }
        return MigrationChecksum.hex(digest)
    }
}
