import GRDB
import MigrationKit

/// What the database holds compared with the steps: GRDB's own queries, answered by
/// GRDB's migrator for these steps, on a `Database` as GRDB takes them and on a reader;
/// and MigrationKit's status, which also names edited, inserted and partly merged steps.
extension GRDBMigrationRunner {
    // MARK: - GRDB's queries

    /// Every identifier in the ledger, registered or not: GRDB's `appliedIdentifiers`.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        try migrator.appliedIdentifiers(db)
    }

    /// The registered steps whose identifier is in the ledger, in registration order:
    /// GRDB's `appliedMigrations`.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        try migrator.appliedMigrations(db)
    }

    /// The applied steps registered before any step that is not: GRDB's
    /// `completedMigrations`.
    public func completedMigrations(_ db: Database) throws -> [String] {
        try migrator.completedMigrations(db)
    }

    /// Whether the last registered step is applied, and every step before it: GRDB's
    /// `hasCompletedMigrations`.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try migrator.hasCompletedMigrations(db)
    }

    /// Whether the ledger holds identifiers no registered step has (a newer version of
    /// the app migrated the database): GRDB's `hasBeenSuperseded`.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        try migrator.hasBeenSuperseded(db)
    }

    /// Whether the database's schema is not what its applied steps make, as GRDB's
    /// `hasSchemaChanges` decides (the applied steps replayed into a scratch file
    /// database configured as this one, the schemas compared): what
    /// `eraseDatabaseOnSchemaChange` acts on. MigrationKit's history table is GRDB's to
    /// ignore; an earlier version's (which GRDB would count as the app's) is made in the
    /// scratch database too, until the next migrate moves it.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        try grdbMigrator(reproducingLegacyHistoryOf: db).hasSchemaChanges(db)
    }

    /// GRDB's migrator, for a schema comparison with `db`: the one built for the steps,
    /// unless `db` has an earlier version's history table to make in the scratch database.
    func grdbMigrator(reproducingLegacyHistoryOf db: Database) throws -> DatabaseMigrator {
        guard let sql = try legacyHistorySQL(in: db) else { return grdbMigrator() }
        return grdbMigrator(reproducingLegacyHistory: { sql })
    }

    /// The `CREATE TABLE` of an earlier version's history table, when `db` has one.
    func legacyHistorySQL(in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                            arguments: [MigrationHistoryTable.legacyName])
    }

    // MARK: - The same, on a reader

    /// Every identifier the ledger holds, registered or not, in the order they were
    /// recorded (GRDB's `appliedIdentifiers`, ordered).
    public func appliedIdentifiers(in reader: any DatabaseReader) throws -> [String] {
        try reader.read { db in
            try db.tableExists(MigrationLedgerTable.name) ? try String.fetchAll(db, sql: MigrationLedgerTable.selectIdentifiersSQL) : []
        }
    }

    /// GRDB's `appliedMigrations`, read from `reader`.
    public func appliedMigrations(in reader: any DatabaseReader) throws -> [String] {
        try reader.read { try appliedMigrations($0) }
    }

    /// GRDB's `completedMigrations`, read from `reader`.
    public func completedMigrations(in reader: any DatabaseReader) throws -> [String] {
        try reader.read { try completedMigrations($0) }
    }

    /// GRDB's `hasCompletedMigrations`, read from `reader`.
    public func hasCompletedMigrations(in reader: any DatabaseReader) throws -> Bool {
        try reader.read { try hasCompletedMigrations($0) }
    }

    /// GRDB's `hasBeenSuperseded`, read from `reader`.
    public func hasBeenSuperseded(in reader: any DatabaseReader) throws -> Bool {
        try reader.read { try hasBeenSuperseded($0) }
    }

    // MARK: - MigrationKit's status

    /// The registry compared with the database's ledger and history.
    package func analysis(_ db: Database) throws -> MigrationAnalysis<Database> {
        try engine.analysis(of: db)
    }

    /// The registry compared with the database's ledger and history, read from `reader`.
    package func analysis(in reader: any DatabaseReader) throws -> MigrationAnalysis<Database> {
        try reader.read { try analysis($0) }
    }

    /// The ledger as one read of `reader` finds it, for a command that decides several
    /// things from it (`migratePlan(from:upTo:options:)`, `analysis(of:)`). A pool reads
    /// through connections other than its writer's, whose `data_version` says nothing of
    /// the writer's, so the migration itself reads the ledger again.
    package func readLedger(in reader: any DatabaseReader) throws -> LedgerReading {
        let engine = self.engine
        return try reader.read { try engine.readLedger($0) }
    }

    /// Every step's state: applied, pending, edited, inserted before an applied step,
    /// partly merged; and ledger identifiers no step has.
    public func migrationStatus(_ db: Database) throws -> MigrationStatus {
        try analysis(db).status
    }

    /// Every step's state, read from `reader`.
    public func migrationStatus(in reader: any DatabaseReader) throws -> MigrationStatus {
        try analysis(in: reader).status
    }

    /// What this build can do with a database a newer build migrated: use it as it is
    /// (every newer step declared compatible with this build), step back from the down
    /// SQL the newer build stored (`rollbackNewerMigrations(in:backupTo:)`), or only read
    /// it; `.current` when nothing newer is applied. GRDB's `hasBeenSuperseded` stays
    /// GRDB's answer: true whenever the ledger holds an identifier no step has.
    public func databaseCompatibility(in reader: any DatabaseReader) throws -> DatabaseCompatibility {
        try migrationStatus(in: reader).newer
    }

    /// What `migrate(in:options:)` (or `migrate(in:upTo:options:)` with `target`) would
    /// apply under the runner's history checks, or the error it would throw before
    /// anything runs, without changing anything.
    func migratePlan(in reader: any DatabaseReader, upTo target: String? = nil,
                            options: MigrateOptions = MigrateOptions()) throws -> MigrationPlan<Database> {
        let lastIndex = try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1)
        return try reader.read { try engine.plan($0, through: lastIndex, options: options) }
    }
}
