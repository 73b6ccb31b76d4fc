/// Which applied steps a rollback undoes.
package enum RollbackSelection: Hashable, Sendable {
    /// The latest `count` applied steps.
    case latest(Int)
    /// Every applied step registered after this one.
    case after(String)
    /// This step, which must be the latest applied.
    case only(String)
    /// Every step a newer build applied that does not allow this build, undone from the
    /// down SQL the newer build stored (`DatabaseCompatibility.canStepBack`).
    case newer
}

extension MigrationAnalysis {
    /// The applied steps in registration order, refusing a database whose history
    /// cannot be walked back: migrated by a newer version, or half through a merge.
    func walkableAppliedSteps() throws -> [MigrationStep<Database>] {
        if let unwritableFormat = snapshot.unwritableFormat { throw unwritableFormat }
        if !unknown.isEmpty { throw MigrationKitError.databaseSuperseded(unknown: unknown) }
        if let partialMerge { throw partialMerge }
        return appliedSteps
    }

    /// The steps a rollback undoes, latest first, each with a down step; or the reason
    /// it is refused, before anything is touched. Decided here, from the registry and
    /// the ledger alone, for every runner. What each step's rollback then does is
    /// decided here too: its down step, then `MigrationBookkeeping.forget` of
    /// `recordedIdentifiers` (its ledger and history rows, and for a squash those of
    /// the steps it replaces), then a foreign-key check that fails on any violation
    /// the down step added (violations the database already had are kept and reported).
    ///
    /// A step edited since it was applied is refused unless `acceptModified` names it:
    /// its down step was written for the edited version, not for what the database ran.
    package func rollbackPlan(_ selection: RollbackSelection, acceptModified: Set<String> = []) throws -> [MigrationStep<Database>] {
        if case .newer = selection { return try stepBackPlan().map { MigrationStep(steppingBack: $0.identifier, storedDown: $0.sql) } }
        let applied = try walkableAppliedSteps()
        let plan: [MigrationStep<Database>]
        switch selection {
        case .latest(let count):
            guard count >= 0 else { throw MigrationKitError.rollbackStepCountMustBeNonNegative }
            guard count <= applied.count else {
                throw MigrationKitError.rollbackBeyondApplied(requested: count, applied: applied.count)
            }
            plan = Array(applied.suffix(count).reversed())
        case .after(let target):
            let targetIndex = try registry.index(ofTarget: target)
            plan = applied.filter { (registry.index(of: $0.identifier) ?? 0) > targetIndex }.reversed()
        case .newer:
            preconditionFailure("planned above")
        case .only(let identifier):
            _ = try registry.index(ofTarget: identifier)
            guard applied.last?.identifier == identifier else {
                throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: applied.last?.identifier, requested: identifier)
            }
            plan = [applied[applied.count - 1]]
        }
        if let irreversible = plan.first(where: { $0.rollback == nil }) {
            throw MigrationKitError.rollbackNotDefined(irreversible.identifier)
        }
        let edited = plan.filter { modified.contains($0.identifier) && !acceptModified.contains($0.identifier) }
        if !edited.isEmpty {
            throw MigrationKitError.modifiedMigrations(identifiers: edited.map(\.identifier), files: edited.map { $0.sourceFile ?? $0.identifier })
        }
        return plan
    }
}

extension MigrationAnalysis {
    /// The newer steps a step back undoes, newest first, each with its stored down SQL;
    /// empty when nothing newer stands in the way (`.current`, `.compatible`). Throws
    /// `.databaseSuperseded` naming the steps that do not allow this build when a step
    /// back is not possible (`.mustRefuse`: each step's `verdict` says why).
    package func stepBackPlan() throws -> [(identifier: String, sql: String)] {
        if let unwritableFormat = snapshot.unwritableFormat { throw unwritableFormat }
        switch newer {
        case .current, .compatible:
            return []
        case .mustRefuse:
            throw MigrationKitError.databaseSuperseded(unknown: newer.blocking)
        case .canStepBack:
            return try newer.undone.map { identifier in
                guard let row = snapshot.downgrade[identifier], let sql = row.downSQL, row.storedDownIsIntact else {
                    throw MigrationKitError.databaseSuperseded(unknown: newer.blocking)
                }
                return (identifier, sql)
            }
        }
    }
}

extension MigrationStep {
    /// A newer build's step as an older build sees it: its identifier and stored down,
    /// named in failures as the database's copy rather than a file here. The engine,
    /// which can run SQL, makes the down its rollback (`MigrationEngine.stepBack`).
    init(steppingBack identifier: String, storedDown sql: String) {
        self.init(identifier: identifier, sourceFile: "\(identifier) (down SQL stored in the database)", sourceLine: nil,
                  apply: { _ in preconditionFailure("a newer build's step is only ever undone here") }, rollback: nil)
        storedDown = sql
        isMigrationFile = true
        changesOnlyTheDatabase = true
    }
}
