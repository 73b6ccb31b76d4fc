import CLibCrypto
import Foundation
import GRDB
import MigrationKit

/// A statement of a migration file failed under GRDB: the file and the first line of
/// its section (GRDB's error names the statement), so the runner's report points at it.
public struct GRDBFileStatementError: SourceLocatedError, LocalizedError, CustomStringConvertible {
    /// The migration file, as its step names it.
    public let sourcePath: String
    public let sourceLine: Int?
    /// GRDB's error, with SQLite's code and the failing statement.
    public let underlying: DatabaseError

    public var underlyingError: (any Error)? { underlying }

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    public var description: String { "\(sourcePath):\(sourceLine ?? 1): \(underlying.message ?? "\(underlying.resultCode)")" }
}

extension GRDB.Database: SQLFileExecuting {
    /// Runs a migration file's section; a failing statement is reported at the first
    /// line of its section (GRDB's error names the statement).
    public func execute(section: SQLSection) throws {
        do {
            try execute(sql: section.sql)
        } catch let error as DatabaseError {
            throw GRDBFileStatementError(sourcePath: section.path, sourceLine: section.startLine, underlying: error)
        }
    }

    public static func sha256Hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { migrationkit_sha256($0.baseAddress, $0.count, &digest) }
        return MigrationChecksum.hex(digest)
    }
}

extension GRDBMigrationRunner {
    /// A runner for the SQL migration files of `directory` (`NNNN_name.sql` with up and
    /// down sections, or `.up.sql`/`.down.sql` pairs), read and ordered as `migrationkit`
    /// reads them. Swift steps registered afterwards (`registerMigration`) run after them.
    public init(directory: String, verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
                host: MigrationHostIntegration<GRDB.Database> = MigrationHostIntegration()) throws {
        let files = try SQLMigrationDirectory(path: directory).load()
        try self.init(steps: files.map { MigrationStep<GRDB.Database>(file: $0) }, verifier: verifier, host: host)
    }
}
