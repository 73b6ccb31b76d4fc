/// Everything `migrate` would do to a database, decided from the registry and a
/// snapshot of the ledger alone, with no database at hand (as GRDB computes its pending
/// migrations in one function). The one place that answers "may this database be
/// migrated, and would that change anything?": the runners execute a plan, and the
/// CLI asks it whether a backup is needed.
public struct MigrationPlan<Database>: Sendable {
    /// The steps to apply, in order.
    public let steps: [MigrationStep<Database>]
    /// Ledger rewrites for merged steps whose replaced steps are all applied.
    public let merges: [LedgerMerge]
    /// Checksums to record for applied steps that have none yet (applied by GRDB, or
    /// before checksums were kept), by identifier.
    public let checksumsToAdopt: [String: String]
    /// Edited steps whose new checksum is recorded, as `acceptModified` asked.
    public let acceptedEdits: [String]

    /// Whether the ledger or history change before any step runs.
    public var hasBookkeeping: Bool { !merges.isEmpty || !checksumsToAdopt.isEmpty || !acceptedEdits.isEmpty }

    /// Whether migrating would change the database at all.
    public var changesAnything: Bool { !steps.isEmpty || hasBookkeeping }
}

extension MigrationAnalysis {
    /// The plan for migrating through the step at `lastIndex`, or the reason it is
    /// refused.
    ///
    /// - Throws: what `refuseUnsafeHistory(acceptModified:)` throws (a newer version's
    ///   database, a half-applied merge, an edited step not accepted), then what
    ///   `pendingSteps(through:allowOutOfOrder:)` throws (migrated beyond the target,
    ///   a pending step before an applied one).
    public func migratePlan(through lastIndex: Int, allowOutOfOrder: Bool, acceptModified: Set<String> = []) throws -> MigrationPlan<Database> {
        try refuseUnsafeHistory(acceptModified: acceptModified)
        return MigrationPlan(
            steps: try pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder),
            merges: merges,
            checksumsToAdopt: checksumsToAdopt,
            acceptedEdits: modified.filter(acceptModified.contains))
    }

    /// The steps `baseline` records as applied without running them: every step up to
    /// and including the one at `lastIndex` that is not applied yet, for a database
    /// whose schema predates its migrations.
    ///
    /// - Throws: what `refuseUnsafeHistory()` throws, and
    ///   `.databaseAlreadyMigratedBeyond` when a later step is applied. Pending steps
    ///   among applied ones are what a baseline is for, so order is not enforced.
    public func baselinePlan(through lastIndex: Int) throws -> [MigrationStep<Database>] {
        try refuseUnsafeHistory()
        return try pendingSteps(through: lastIndex, allowOutOfOrder: true)
    }
}
