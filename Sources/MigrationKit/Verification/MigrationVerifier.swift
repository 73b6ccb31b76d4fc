/// The checks run after every migrate and rollback, and by `migrationkit verify`, on
/// any connection (`SQLCipherMigrationVerifier` and `GRDBMigrationVerifier` are this
/// type).
///
/// Two parts, each replaceable through `MigrationHostIntegration`:
/// - integrity: on an encrypted connection of SQLCipher 4.2+, `PRAGMA
///   cipher_integrity_check` (every page's HMAC, naming the damaged pages), then
///   `PRAGMA quick_check(1)` (every page readable and well-formed), then each full-text
///   and R*Tree index's own check (`DatabaseChecks.virtualTableChecks`);
/// - post-migration: `PRAGMA foreign_key_check` and the required indexes.
///
/// The SQL is `DatabaseChecks`', so a check's name, detail and error are the same
/// whichever layer ran it.
public struct MigrationVerifier: Sendable {
    /// Indexes that must exist after every migration, checked in the post-migration part.
    public var requiredIndexes: [RequiredIndexSpec]

    /// A verifier that also insists on `requiredIndexes` (none by default).
    public init(requiredIndexes: [RequiredIndexSpec] = []) {
        self.requiredIndexes = requiredIndexes
    }

    /// Throws the first integrity problem found.
    package func verifyIntegrity(_ db: some MigrationConnection) throws {
        if let failure = VerificationReport(checks: integrityChecks(db)).firstFailure { throw failure }
    }

    /// Throws the first post-migration problem found, judging foreign-key violations
    /// as `foreignKeys` says.
    package func verifyPostMigration(_ db: some MigrationConnection, foreignKeys: ForeignKeyVerification = .strict) throws {
        if let failure = VerificationReport(checks: postMigrationChecks(db, foreignKeys: foreignKeys)).firstFailure { throw failure }
    }

    /// Runs both parts and throws the first problem found.
    func verify(_ db: some MigrationConnection) throws {
        try verifyIntegrity(db)
        try verifyPostMigration(db)
    }

    /// Every integrity check, passed or failed. The page HMACs first, where they can be
    /// checked, whatever quick_check then says: `cipher_integrity_check` names the
    /// damaged pages, which quick_check (it reads the b-trees) cannot. Not while this
    /// connection's transaction may have written: the pragma reads the pages in the
    /// file, not the transaction's, and would name every page a large transaction has
    /// spilled or grown the file by. An atomic migrate checks the file before its
    /// transaction instead (`verifyFileIntegrity`).
    func integrityChecks(_ db: some MigrationConnection) -> [VerificationCheck] {
        let pages: [VerificationCheck]
        switch db.mayHaveWrittenInTransaction ? .unavailable : DatabaseChecks.cipherPageChecking(db) {
        case .applies: pages = [DatabaseChecks.cipherIntegrityCheck(db)]
        case .noPageHMAC: pages = [DatabaseChecks.noPageHMACCheck]
        case .unavailable: pages = []
        }
        return pages + [DatabaseChecks.quickCheck(db)] + DatabaseChecks.virtualTableChecks(db)
    }

    /// Every post-migration check, passed or failed.
    func postMigrationChecks(_ db: some MigrationConnection, foreignKeys: ForeignKeyVerification = .strict) -> [VerificationCheck] {
        let foreignKeyChecks: [VerificationCheck]
        switch foreignKeys {
        case .checkedByTransaction, .skipped: foreignKeyChecks = []
        case .strict: foreignKeyChecks = [DatabaseChecks.foreignKeyCheck(db)]
        case .tolerating(let tolerated): foreignKeyChecks = [DatabaseChecks.foreignKeyCheck(db, tolerating: tolerated)]
        }
        return foreignKeyChecks + requiredIndexes.map { DatabaseChecks.indexCheck($0, db) }
    }

    /// Throws if a page of the file fails its HMAC, where pages can be checked: for a
    /// check that must run before a transaction (within one, `integrityChecks` leaves it
    /// out).
    func verifyFileIntegrity(_ db: some MigrationConnection) throws {
        guard DatabaseChecks.cipherPageChecking(db) == .applies else { return }
        if let failure = DatabaseChecks.cipherIntegrityCheck(db).failure { throw failure }
    }

    /// The integrity checks of a verification limited to what a migration changed:
    /// `quick_check` of each of `tables` (with its indexes) where SQLite can check one
    /// table, of the whole file otherwise. No `cipher_integrity_check`: it can only
    /// read the whole file. Where one check of a small file answers for every changed
    /// table at once (`DatabaseChecks.quickCheckAtOnce`), that is the check.
    func changedTableIntegrityChecks(_ db: some MigrationConnection, tables: [String]) -> [VerificationCheck] {
        guard db.sqlite >= .tableQuickCheck else { return [DatabaseChecks.quickCheck(db)] }
        return DatabaseChecks.quickCheckAtOnce(tables, db) ?? tables.map { DatabaseChecks.quickCheck(db, table: $0) }
    }
}
