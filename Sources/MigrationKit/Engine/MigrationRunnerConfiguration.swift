/// What a runner holds besides its writer, the same on both connections: its steps,
/// its verifier, and how it treats out-of-order steps and reports progress.
/// `SQLCipherMigrationRunner` and `GRDBMigrationRunner` conform, so code that configures
/// a runner (the command tree) is written once.
package protocol MigrationRunnerConfiguration: Sendable {
    associatedtype Database: MigrationConnection
    var registry: MigrationRegistry<Database> { get }
    /// The core's procedure over this configuration.
    var engine: MigrationEngine<Database> { get }
    var verifier: MigrationVerifier { get set }
    var allowOutOfOrder: Bool { get set }
    var observer: (@Sendable (MigrationEvent) -> Void)? { get set }
}

extension MigrationRunnerConfiguration {
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
