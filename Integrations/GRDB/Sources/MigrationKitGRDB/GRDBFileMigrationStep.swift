import Crypto
import GRDB
import MigrationKit

/// A statement of a migration file failed under GRDB: the file and the first line of
/// its section (GRDB's error names the statement), so the runner's report points at it.
public struct GRDBFileStatementError: SourceLocatedError, CustomStringConvertible {
    public let sourcePath: String
    public let sourceLine: Int?
    /// GRDB's error, with SQLite's code and the failing statement.
    public let underlying: DatabaseError

    public var description: String { "\(sourcePath):\(sourceLine ?? 1): \(underlying.message ?? "\(underlying.resultCode)")" }
}

extension MigrationStep where Database == GRDB.Database {
    /// A step that runs a migration file's up SQL, and its down SQL (when it has one) to
    /// roll back: the same folders, parser and checksums (`MigrationChecksum`) as the
    /// `migrationkit` command, so a database keeps its history whichever ran it.
    public init(file: SQLMigrationFile) {
        let up = file.up
        var rollback: (@Sendable (GRDB.Database) throws -> Void)?
        if let down = file.down {
            rollback = { db in try Self.run(down, in: db) }
        }
        self.init(
            identifier: file.identifier,
            sourceFile: file.path,
            checksum: MigrationChecksum.hex(SHA256.hash(data: MigrationChecksum.normalizedBytes(of: up.sql))),
            merging: file.merging,
            apply: { db in try Self.run(up, in: db) },
            rollback: rollback)
        if let legacy = MigrationChecksum.legacyBytes(of: up.sql) {
            equivalentChecksums = [MigrationChecksum.hex(SHA256.hash(data: legacy))]
        }
    }

    private static func run(_ section: SQLSection, in db: GRDB.Database) throws {
        do {
            try db.execute(sql: section.sql)
        } catch let error as DatabaseError {
            throw GRDBFileStatementError(sourcePath: section.path, sourceLine: section.startLine, underlying: error)
        }
    }
}

extension GRDBMigrationRunner {
    /// A runner for the SQL migration files of `directory` (`NNNN_name.sql` with up and
    /// down sections, or `.up.sql`/`.down.sql` pairs), read as `migrationkit` reads them.
    public init(directory: String, verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
                host: MigrationHostIntegration<GRDB.Database> = MigrationHostIntegration()) throws {
        let files = try SQLMigrationDirectory(path: directory).load()
        try self.init(steps: files.map { MigrationStep<GRDB.Database>(file: $0) }, verifier: verifier, host: host)
    }
}
