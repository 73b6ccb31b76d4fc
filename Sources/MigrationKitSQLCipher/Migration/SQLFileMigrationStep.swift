import Foundation
import MigrationKit

extension SQLCipherDatabase: SQLFileExecuting {
    /// Runs a migration file's section; a failing statement is reported at its line
    /// in the file (`SQLFileStatementError`, around the `SQLCipherError`).
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
}
