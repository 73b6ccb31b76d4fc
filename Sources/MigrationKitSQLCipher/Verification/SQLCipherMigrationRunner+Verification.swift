import MigrationKit

/// The verification after every migrate and rollback, on its own: the host's checks
/// where it has them, the verifier's otherwise (the engine's `VerificationSuite`).
extension SQLCipherMigrationRunner {
    /// Verifies the database as after a migration: the host's closures where given,
    /// the default verifier otherwise. Throws the first problem.
    public func runPostMigrationChecks(in writer: SQLCipherWriter) throws {
        try writer.writeWithoutTransaction { _ = try engine.runVerification(in: $0, foreignKeys: .strict) }
    }

    /// Every check, passed or failed, for reports.
    public func verificationReport(in writer: SQLCipherWriter) throws -> VerificationReport {
        try writer.writeWithoutTransaction { engine.verificationReport(in: $0) }
    }
}
