import MigrationKit

/// A migration runner as the command tree sets it up: `SQLCipherMigrationRunner` and
/// `GRDBMigrationRunner` conform as they are, so `CommandMigrations` is written once
/// over either. The tree only reads what the runner registered and sets what a command
/// asks for; everything that touches a database is its store's (`DatabaseStore`), which
/// holds the runner so set up.
package protocol MigrationRunning: Sendable {
    associatedtype Database: MigrationConnection

    /// Settable, so that `check` can make the release before a step (`CommandMigrations.prefix`).
    var registry: MigrationRegistry<Database> { get set }
    /// The core's procedure over this runner's steps and checks.
    var engine: MigrationEngine<Database> { get }
    var verifier: MigrationVerifier { get set }
    var allowOutOfOrder: Bool { get set }
    var observer: (@Sendable (MigrationEvent) -> Void)? { get set }
}
