import MigrationKit
import MigrationKitFiles

/// A migration runner as the command tree drives it: `SQLCipherMigrationRunner` and
/// `GRDBMigrationRunner` conform as they are (their command lines declare it), each on its
/// own store (`DatabaseStore`), so `MigrationSession` is written once over either. The
/// procedure itself is the core's engine under both; what differs is how each library's
/// writer runs it (GRDB's migrator decides and runs a GRDB app's steps).
package protocol MigrationRunning: Sendable {
    associatedtype Database: MigrationConnection
    /// The open database a runner works on, which the commands reach as a store.
    associatedtype Store: DatabaseStore

    /// Settable, so that `check` can make the release before a step (`CommandMigrations.prefix`).
    var registry: MigrationRegistry<Database> { get set }
    /// The core's procedure over this runner's steps and checks.
    var engine: MigrationEngine<Database> { get }
    var verifier: MigrationVerifier { get set }
    var allowOutOfOrder: Bool { get set }
    var observer: (@Sendable (MigrationEvent) -> Void)? { get set }
    /// The database's change lock when the command holds it already: the runner then
    /// takes it no second time.
    var heldChangeLock: DatabaseFileLock? { get set }

    /// The ledger and the store's `data_version`, in one read: what a command decides
    /// from before it changes anything.
    func readLedger(in store: Store) throws -> LedgerReading
    /// Migrates up to `target` (every step when nil), planning first from `reading` when
    /// the command read the ledger and wrote nothing since.
    func migrate(in store: Store, upTo target: String?, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport
    /// The migrations a rollback would undo, latest first, changing nothing; throws what
    /// the rollback would refuse for.
    func rollbackPlan(_ selection: RollbackSelection, in store: Store, acceptModified: Set<String>) throws -> [String]
    func rollback(_ selection: RollbackSelection, in store: Store, acceptModified: Set<String>) throws -> MigrationReport
    /// The migrations a baseline up to `target` would record, changing nothing.
    func baselinePlan(in store: Store, upTo target: String) throws -> [String]
    func baseline(in store: Store, upTo target: String) throws -> [String]
    /// Records what another tool applied, proven against the schema; throws
    /// `OtherToolAdoptionError` with nothing written.
    func adopt(in store: Store, from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption
    /// How the database's schema differs from what its applied steps make (`eraseDatabaseOnSchemaChange`).
    func schemaChange(in store: Store) throws -> SchemaChange?
    /// The schema the steps up to `target` (none when nil) make on an empty database
    /// opened as `store` is; `store` is only read. Throws the `MigrationStepError` of a
    /// step that fails there.
    func replayedSchema(upTo target: String?, configuredLike store: Store) throws -> [SchemaDump.Object]
    /// Erases every object and the ledger.
    func erase(_ store: Store) throws
    func verificationReport(in store: Store) throws -> VerificationReport
}

extension MigrationRunning {
    /// What `migrate` up to `target` (every step when nil) would do from the ledger
    /// `reading` found, or the error it would throw; reads nothing.
    package func migratePlan(from reading: LedgerReading, upTo target: String?, options: MigrateOptions) throws -> MigrationPlan<Database> {
        try engine.plan(from: reading, through: try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1), options: options)
    }

    /// The registry compared with the ledger `reading` found; reads nothing.
    package func analysis(of reading: LedgerReading) -> MigrationAnalysis<Database> {
        engine.analysis(of: reading)
    }
}
