/// Hooks an embedding app uses to replace MigrationKit's default verification.
///
/// The verifier runs in two parts after every migrate and rollback: integrity (the
/// file itself: `quick_check`, and SQLCipher's `cipher_integrity_check` where it
/// exists) and post-migration (the schema: foreign keys, required indexes). An app
/// that knows better, for example one whose database is too large for a
/// `quick_check` at every launch, replaces either part. A closure that throws fails
/// the verification with its error.
public struct MigrationHostIntegration<Database>: Sendable {
    /// Replaces the integrity part (the file itself) when set; nil keeps MigrationKit's own
    /// checks.
    public var verifyIntegrity: (@Sendable (Database) throws -> Void)?
    /// Replaces the post-migration part (the schema) when set; nil keeps MigrationKit's own
    /// checks.
    public var verifyPostMigration: (@Sendable (Database) throws -> Void)?

    /// Hooks that replace the parts given; with none, MigrationKit verifies everything
    /// itself.
    public init(
        verifyIntegrity: (@Sendable (Database) throws -> Void)? = nil,
        verifyPostMigration: (@Sendable (Database) throws -> Void)? = nil
    ) {
        self.verifyIntegrity = verifyIntegrity
        self.verifyPostMigration = verifyPostMigration
    }
}
