/// What a database records about its migrations: GRDB's ledger plus the checksums
/// MigrationKit keeps beside it.
package struct LedgerSnapshot: Hashable, Sendable {
    /// `grdb_migrations`, in the order rows were recorded.
    package var identifiers: [String]
    /// Checksums recorded when steps were applied (`MigrationHistoryTable`). A step
    /// applied by GRDB, or before MigrationKit kept checksums, has none.
    var checksums: [String: String]
    /// What applied steps left for older builds (`MigrationDowngradeTable`): their stored
    /// downs and compatibility, by identifier. Empty where nothing was recorded.
    var downgrade: [String: MigrationDowngradeTable.Entry]
    /// The refusal of a database whose MigrationKit tables a newer MigrationKit wrote in
    /// a format this version may not write (`MigrationHistoryFormat`); nil otherwise.
    var unwritableFormat: MigrationKitError?

    /// A snapshot of the ledger's identifiers and the recorded checksums (none by default,
    /// as in a database only GRDB has migrated).
    package init(identifiers: [String], checksums: [String: String] = [:], downgrade: [String: MigrationDowngradeTable.Entry] = [:]) {
        self.identifiers = identifiers
        self.checksums = checksums
        self.downgrade = downgrade
    }
}

/// A merged step whose replaced steps are all in the ledger: the ledger is to be
/// rewritten to the merged identifier (GRDB's `registerMigration(_:merging:)`).
package struct LedgerMerge: Hashable, Sendable {
    /// The merged step's identifier, which the ledger is to hold instead.
    package let identifier: String
    /// The identifiers of the steps it replaces, to be deleted from the ledger.
    package let replaces: [String]

    /// A rewrite of the ledger rows of `replaces` into one row for `identifier`.
    package init(identifier: String, replaces: [String]) {
        self.identifier = identifier
        self.replaces = replaces
    }
}

/// The registered steps compared with a database's ledger: the one place that decides
/// what is applied, pending, modified, unknown or merged. Pure, so every rule can be
/// tested without a database, and re-run cheaply under the write lock.
package struct MigrationAnalysis<Database>: Sendable {
    /// The registered steps the ledger is compared with.
    let registry: MigrationRegistry<Database>
    /// The database's ledger and recorded checksums, as read before the comparison.
    package let snapshot: LedgerSnapshot

    /// Registered identifiers that count as applied (a merged step counts when every
    /// step it replaces is in the ledger).
    package let applied: Set<String>
    /// Ledger identifiers that no registered step has, nor replaces, and that the
    /// registry does not declare known (`MigrationRegistry.knownIdentifiers`).
    let unknown: [String]
    /// What this build can do with the steps in `unknown` (`NewerDatabaseJudgement`).
    let newer: DatabaseCompatibility
    /// Applied steps whose recorded checksum differs from the step's checksum now.
    let modified: [String]
    /// Ledger rewrites: for a squash whose replaced steps are all applied, and for a
    /// merged step whose replaced steps' rows are still beside its own.
    package let merges: [LedgerMerge]
    /// Applied steps with a checksum but none recorded: to be adopted, not flagged.
    let checksumsToAdopt: [String: String]
    /// A merged step with only some of its replaced steps applied, if any.
    let partialMerge: MigrationKitError?
    /// Every merged step with only some of its replaced steps applied: its identifier,
    /// and which replaced steps are applied and which are not.
    let partialMerges: [String: (applied: [String], missing: [String])]
    /// Pending merged steps in GRDB's form whose replaced steps are all applied: they run
    /// knowing it, as GRDB runs them, to bring the ledger to their identifier. Nothing of
    /// the history they replace is pending, so steps applied after it do not make them
    /// out of order.
    private let replacingAppliedHistory: Set<String>

    /// Compares `registry` with `snapshot`, once: every property is computed here.
    package init(registry: MigrationRegistry<Database>, snapshot: LedgerSnapshot) {
        self.registry = registry
        self.snapshot = snapshot
        let ledger = Set(snapshot.identifiers)
        var applied = Set<String>()
        var merges: [LedgerMerge] = []
        var partialMerge: MigrationKitError?
        var partialMerges: [String: (applied: [String], missing: [String])] = [:]
        var replacingAppliedHistory = Set<String>()
        for step in registry.steps {
            if ledger.contains(step.identifier) {
                applied.insert(step.identifier)
                // As GRDB's migrator does: the replaced steps' rows a merged step left
                // beside its own (another tool recorded them) are removed.
                let lingering = step.merging.filter { ledger.contains($0) }
                if !lingering.isEmpty { merges.append(LedgerMerge(identifier: step.identifier, replaces: lingering)) }
            } else if !step.merging.isEmpty, step.applyMerged == nil {
                let present = step.merging.filter { ledger.contains($0) }
                if present.count == step.merging.count {
                    applied.insert(step.identifier)
                    merges.append(LedgerMerge(identifier: step.identifier, replaces: step.merging))
                } else if !present.isEmpty {
                    let missing = step.merging.filter { !ledger.contains($0) }
                    partialMerges[step.identifier] = (present, missing)
                    if partialMerge == nil {
                        partialMerge = .partiallyAppliedMerge(step: step.identifier, applied: present, missing: missing)
                    }
                }
            } else if !step.merging.isEmpty, step.merging.allSatisfy(ledger.contains) {
                replacingAppliedHistory.insert(step.identifier)
            }
        }
        self.replacingAppliedHistory = replacingAppliedHistory
        let known = Set(registry.identifiers).union(registry.mergedIdentifiers.keys).union(registry.knownIdentifiers)
        self.applied = applied
        self.unknown = snapshot.identifiers.filter { !known.contains($0) }
        self.newer = unknown.isEmpty ? .current
            : NewerDatabaseJudgement.judge(ledger: snapshot.identifiers, knows: known.contains, recorded: snapshot.downgrade)
        self.merges = merges
        self.partialMerge = partialMerge
        self.partialMerges = partialMerges
        var modified: [String] = []
        var adopt: [String: String] = [:]
        for step in registry.steps where applied.contains(step.identifier) {
            guard let checksum = step.checksum else { continue }
            if let recorded = snapshot.checksums[step.identifier] {
                // An earlier version's checksum of the same SQL is a match, left as it
                // is: rewriting it would write (and back up) every database once after
                // an upgrade, and make a downgraded MigrationKit read them as edited.
                if recorded == checksum || step.equivalentChecksums.contains(recorded) { continue }
                modified.append(step.identifier)
            } else {
                adopt[step.identifier] = checksum
            }
        }
        self.modified = modified
        self.checksumsToAdopt = adopt
    }

    /// Throws when the database's history forbids migrating: MigrationKit's tables in a
    /// format a newer MigrationKit wrote and this version may not write; migrated by a newer
    /// version with steps that do not allow this build (unless each of them is in
    /// `acceptUnknown`; steps recorded compatible with it never refuse), a half-applied
    /// merge, or steps edited after they were applied (unless each edited step is in
    /// `acceptModified`). With `.grdb` checks, only what no rule can run past: a squash
    /// that cannot tell which of its steps are applied, with some of them applied.
    func refuseUnsafeHistory(acceptModified: Set<String> = [], acceptUnknown: Set<String> = [],
                                    checks: HistoryChecks = .strict) throws {
        // Whatever the checks: this version's rows would not be what that format expects.
        if let unwritableFormat = snapshot.unwritableFormat { throw unwritableFormat }
        let unaccepted = newer.blocking.filter { !acceptUnknown.contains($0) }
        if checks == .strict, !unaccepted.isEmpty { throw MigrationKitError.databaseSuperseded(unknown: unaccepted) }
        if let partialMerge { throw partialMerge }
        guard checks == .strict else { return }
        let refused = modified.filter { !acceptModified.contains($0) }
        if !refused.isEmpty {
            throw MigrationKitError.modifiedMigrations(identifiers: refused, files: refused.map { registry.step($0)?.sourceFile ?? $0 })
        }
    }

    /// The steps to apply, in order, up to the step at `lastIndex`.
    ///
    /// - Throws: `.databaseAlreadyMigratedBeyond` when a later step is applied;
    ///   `.pendingMigrationsOutOfOrder` when a pending step sorts before an applied one
    ///   (unless `allowOutOfOrder`).
    package func pendingSteps(through lastIndex: Int, allowOutOfOrder: Bool) throws -> [MigrationStep<Database>] {
        let steps = registry.steps
        if lastIndex + 1 < steps.count, steps[(lastIndex + 1)...].contains(where: { applied.contains($0.identifier) }) {
            throw MigrationKitError.databaseAlreadyMigratedBeyond(steps[lastIndex].identifier)
        }
        guard lastIndex >= 0 else { return [] }
        let pendingIndexes = steps.indices.filter { $0 <= lastIndex && !applied.contains(steps[$0].identifier) }
        if !allowOutOfOrder, let latestApplied = steps.lastIndex(where: { applied.contains($0.identifier) }) {
            let early = pendingIndexes.filter { $0 < latestApplied && !replacingAppliedHistory.contains(steps[$0].identifier) }
            if !early.isEmpty {
                throw MigrationKitError.pendingMigrationsOutOfOrder(
                    pending: early.map { steps[$0].identifier }, latestApplied: steps[latestApplied].identifier)
            }
        }
        return pendingIndexes.map { steps[$0] }
    }

    /// The applied steps in registration order: what rollback walks backwards.
    var appliedSteps: [MigrationStep<Database>] {
        registry.steps.filter { applied.contains($0.identifier) }
    }

    /// Every registered step's state, plus unknown ledger identifiers: what `migrate`
    /// would apply, and everything it would refuse.
    package var status: MigrationStatus {
        let modifiedSet = Set(modified)
        let steps = registry.steps
        let latestApplied = steps.lastIndex { applied.contains($0.identifier) }
        return MigrationStatus(
            entries: steps.indices.map { index in
                let step = steps[index]
                if let partial = partialMerges[step.identifier] {
                    return MigrationStatusEntry(identifier: step.identifier, state: .partlyMerged,
                                                mergedApplied: partial.applied, mergedMissing: partial.missing)
                }
                let state: MigrationState
                if modifiedSet.contains(step.identifier) {
                    state = .modified
                } else if applied.contains(step.identifier) {
                    state = .applied
                } else if let latestApplied, index < latestApplied, !replacingAppliedHistory.contains(step.identifier) {
                    state = .outOfOrder
                } else {
                    state = .pending
                }
                return MigrationStatusEntry(identifier: step.identifier, state: state)
            },
            unknownApplied: unknown,
            newer: newer)
    }
}
