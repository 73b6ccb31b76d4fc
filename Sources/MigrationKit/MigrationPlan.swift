/// Everything `migrate` would do to a database, decided from the registry and a
/// snapshot of the ledger alone, with no database at hand (as GRDB computes its pending
/// migrations in one function). The one place that answers "may this database be
/// migrated, and would that change anything?": the runners execute a plan, and the
/// CLI asks it whether a backup is needed.
package struct MigrationPlan<Database>: Sendable {
    /// The steps to apply, in order.
    package let steps: [MigrationStep<Database>]
    /// Ledger rewrites for merged steps whose replaced steps are all applied.
    package let merges: [LedgerMerge]
    /// Checksums to record for applied steps that have none yet (applied by GRDB, or
    /// before checksums were kept), by identifier.
    package let checksumsToAdopt: [String: String]
    /// Edited steps whose new checksum is recorded, as `acceptModified` asked.
    package let acceptedEdits: [String]
    /// For each merged step in GRDB's form among `steps`, the steps it replaces that the
    /// database has applied: what its closure is given.
    let appliedMerged: [String: Set<String>]

    /// Whether the ledger or history change before any step runs.
    var hasBookkeeping: Bool { !merges.isEmpty || !checksumsToAdopt.isEmpty || !acceptedEdits.isEmpty }

    /// Whether migrating would change the database at all.
    package var changesAnything: Bool { !steps.isEmpty || hasBookkeeping }
}

extension MigrationAnalysis {
    /// The plan for migrating through the step at `lastIndex`, or the reason it is
    /// refused.
    ///
    /// - Throws: what `refuseUnsafeHistory(acceptModified:acceptUnknown:checks:)` throws
    ///   (a newer version's database, a half-applied merge, an edited step or an unknown
    ///   identifier not accepted), then what
    ///   `pendingSteps(through:allowOutOfOrder:)` throws (migrated beyond the target,
    ///   a pending step before an applied one).
    ///
    /// With `.grdb` checks (`HistoryChecks`), the plan is what GRDB's migrator would
    /// run: pending steps in registration order wherever they sort, whatever else the
    /// ledger holds; and no checksum is adopted or compared.
    func migratePlan(through lastIndex: Int, allowOutOfOrder: Bool, acceptModified: Set<String> = [],
                            acceptUnknown: Set<String> = [], checks: HistoryChecks = .strict) throws -> MigrationPlan<Database> {
        try refuseUnsafeHistory(acceptModified: acceptModified, acceptUnknown: acceptUnknown, checks: checks)
        let steps = try pendingSteps(through: lastIndex, allowOutOfOrder: allowOutOfOrder || checks == .grdb)
        let ledger = Set(snapshot.identifiers)
        var appliedMerged: [String: Set<String>] = [:]
        for step in steps where step.applyMerged != nil {
            appliedMerged[step.identifier] = Set(step.merging.filter { ledger.contains($0) })
        }
        let strict = checks == .strict
        return MigrationPlan(
            steps: steps,
            merges: merges,
            checksumsToAdopt: strict ? checksumsToAdopt : [:],
            acceptedEdits: strict ? modified.filter(acceptModified.contains) : [],
            appliedMerged: appliedMerged)
    }

    /// The steps `baseline` records as applied without running them: every step up to
    /// and including the one at `lastIndex` that is not applied yet, for a database
    /// whose schema predates its migrations.
    ///
    /// - Throws: what `refuseUnsafeHistory()` throws, and
    ///   `.databaseAlreadyMigratedBeyond` when a later step is applied. Pending steps
    ///   among applied ones are what a baseline is for, so order is not enforced.
    package func baselinePlan(through lastIndex: Int) throws -> [MigrationStep<Database>] {
        try refuseUnsafeHistory()
        return try pendingSteps(through: lastIndex, allowOutOfOrder: true)
    }
}
