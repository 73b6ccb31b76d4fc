/// What a migration file's step needs of a database layer: run one section of the
/// file, reporting a failing statement at its file and line. The SQLCipher connection
/// and GRDB's `Database` conform, so file steps exist for both.
public protocol SQLFileExecuting: SendableMetatype {
    /// Runs every statement of `section`, in order. What a failing statement throws
    /// names `section.path` and the statement's line in the file, when known.
    func execute(section: SQLSection) throws

    /// The lowercase hex SHA-256 of `bytes`: the one every layer's file checksums are
    /// made of (`MigrationChecksum`), unless a layer says otherwise.
    static func sha256Hex(of bytes: [UInt8]) -> String
}

extension SQLFileExecuting {
    /// The lowercase hex SHA-256 of `bytes`, by OpenSSL's libcrypto.
    public static func sha256Hex(of bytes: [UInt8]) -> String {
        MigrationChecksum.sha256Hex(of: bytes)
    }
}

extension MigrationStep where Database: SQLFileExecuting {
    /// A step that runs a migration file's up SQL, and its down SQL (when it has one)
    /// to roll back. Its checksum (`checksum(of:)`) is of what the up SQL runs (as
    /// written, before Flyway's placeholders are replaced), to detect a shipped migration
    /// that was edited afterwards.
    public init(file: SQLMigrationFile) {
        let up = file.up
        var rollback: (@Sendable (Database) throws -> Void)?
        if let down = file.down {
            rollback = { db in try db.execute(section: down) }
        }
        self.init(
            identifier: file.identifier,
            sourceFile: file.path,
            sourceLine: nil,
            checksum: Self.checksum(of: (file.writtenUp ?? up).sql),
            merging: file.merging,
            apply: { db in try db.execute(section: up) },
            rollback: rollback)
        let sql = (file.writtenUp ?? up).sql
        equivalentChecksumsSource = { Self.earlierChecksums(of: sql) }
        changesOnlyTheDatabase = true
        isMigrationFile = true
        compatibility = file.compatibility
        storedDown = file.down?.sql
        fileVersion = file.version
        fileLayout = file.layout
    }

    /// The file checksum of `sql`: the SHA-256 of its tokens (`MigrationChecksum`), so
    /// whitespace, comments and line endings edit nothing.
    public static func checksum(of sql: String) -> String {
        Database.sha256Hex(of: MigrationChecksum.canonicalBytes(of: sql))
    }

    /// What earlier versions recorded for the same SQL: the bytes with line endings
    /// made `\n`, and for a CRLF file the bytes as they were. A database that recorded
    /// one of them reads the step as unchanged after an upgrade of MigrationKit.
    static func earlierChecksums(of sql: String) -> [String] {
        [Database.sha256Hex(of: MigrationChecksum.normalizedBytes(of: sql))]
            + (MigrationChecksum.legacyBytes(of: sql).map { [Database.sha256Hex(of: $0)] } ?? [])
    }
}
