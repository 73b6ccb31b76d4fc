import MigrationKit

/// Rolling back through the steps' down closures, latest first.
extension SQLCipherMigrationRunner {
    /// Rolls back the latest applied step (refused if edited since it was applied,
    /// unless `acceptModified` names it).
    @discardableResult
    public func rollbackLastMigration(in writer: SQLCipherWriter, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollbackMigrations(in: writer, steps: 1, acceptModified: acceptModified)
    }

    /// Rolls back the `steps` latest applied steps, latest first. Every one of them
    /// must have a rollback, and none may have been edited since it was applied unless
    /// `acceptModified` names it; that is checked before the first is touched.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, steps: Int, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.latest(steps), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, to target: String, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.after(target), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back one named step, which must be the latest applied.
    @discardableResult
    func rollbackMigration(_ identifier: String, in writer: SQLCipherWriter, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.only(identifier), in: writer, acceptModified: acceptModified)
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    package func rollbackPlan(in writer: SQLCipherWriter, steps: Int, acceptModified: Set<String> = []) throws -> [String] {
        try rollbackPlan(.latest(steps), in: writer, acceptModified: acceptModified)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    package func rollbackPlan(in writer: SQLCipherWriter, to target: String, acceptModified: Set<String> = []) throws -> [String] {
        try rollbackPlan(.after(target), in: writer, acceptModified: acceptModified)
    }

    /// The identifiers a rollback of `selection` would undo, or its error (the command
    /// layer's rollback, which names a selection as the core plans it).
    package func rollbackPlan(_ selection: RollbackSelection, in writer: SQLCipherWriter, acceptModified: Set<String>) throws -> [String] {
        try writer.read { try engine.analysis(of: $0).rollbackPlan(selection, acceptModified: acceptModified) }.map(\.identifier)
    }

    /// Rolls back `selection`, behind the change lock.
    package func rollback(_ selection: RollbackSelection, in writer: SQLCipherWriter, acceptModified: Set<String>) throws -> MigrationReport {
        try changing(writer) { try engine.rollback(selection, in: $0, acceptModified: acceptModified) }
    }
}
