/// What a runner holds besides its writer, the same on both connections: its steps,
/// its verifier, and how it treats out-of-order steps and reports progress.
/// `SQLCipherMigrationRunner` and `GRDBMigrationRunner` conform, so code that configures
/// a runner (the command tree) is written once.
package protocol MigrationRunnerConfiguration: Sendable {
    associatedtype Database
    var registry: MigrationRegistry<Database> { get }
    var verifier: MigrationVerifier { get set }
    var allowOutOfOrder: Bool { get set }
    var observer: (@Sendable (MigrationEvent) -> Void)? { get set }
}
