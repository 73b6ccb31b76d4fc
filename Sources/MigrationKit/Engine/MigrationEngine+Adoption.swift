extension MigrationEngine {
    /// Adopts a database another tool migrated: reads that tool's ledger
    /// (`OtherToolLedger`), maps its records to the registered steps
    /// (`OtherToolMapping`), proves that the database's schema is what those steps make
    /// on an empty database (`replay`, the schema `diff` compares with; other tools'
    /// ledgers left out), then records them as applied in the ledger and the history, and
    /// with `retiringLedger` drops the other tool's ledger (or sets `user_version` to 0),
    /// all in one transaction. A dry run writes nothing. Outside any transaction.
    ///
    /// - Parameter acceptingCodeMigrations: versions the tool ran as code (Flyway's Java
    ///   and Kotlin migrations) that no file carries are passed over instead of refused.
    /// - Throws: `OtherToolAdoptionError` naming every problem, before anything is
    ///   written; the `MigrationStepError` of a step that fails on the empty database.
    package func adopt(_ db: Database, from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool = false,
                       replay: ([MigrationStep<Database>]) throws -> [SchemaDump.Object]) throws -> OtherToolAdoption {
        func adoption() throws -> OtherToolAdoption {
            let ledger = try adoptableLedger(db, from: tool)
            // Every problem at once: a managed database and each record's.
            let applied = try MigrationBookkeeping.snapshot(in: db).identifiers.count
            var problems: [OtherToolAdoptionError.Problem] = applied > 0 ? [.alreadyManaged(applied: applied)] : []
            let candidates = registry.steps.map { OtherToolMapping.Candidate(identifier: $0.identifier, version: $0.fileVersion, path: $0.sourceFile, layout: $0.fileLayout) }
            var positions: [Int] = []
            switch OtherToolMapping.appliedPositions(of: ledger, in: candidates, acceptingCodeMigrations: acceptingCodeMigrations) {
            case .success(let found): positions = found
            case .failure(let error): problems += error.problems
            }
            guard problems.isEmpty else { throw OtherToolAdoptionError(problems: problems) }
            let steps = positions.map { registry.steps[$0] }
            let differences = SchemaDifference.between(expected: try replay(steps), actual: try SchemaDump.objects(in: db))
            if let first = differences.first {
                throw OtherToolAdoptionError(problems: [.schemaDiffers(first: first, more: differences.count - 1, through: steps.last?.identifier)])
            }
            // The tool's tables that are there (Liquibase's lock table, yoyo's log, are not always).
            let present = try ledger.tool.ledgerTables.filter { !(try OtherToolLedger.columnNames(of: $0, in: db)).isEmpty }
            let retired = retiringLedger ? (ledger.tool == .userVersion ? ["user_version"] : present) : []
            if !dryRun {
                try MigrationBookkeeping.moveLegacyHistory(in: db)
                for step in steps { try MigrationBookkeeping.recordApplied(step, duration: .zero, in: db) }
                if retiringLedger {
                    if ledger.tool == .userVersion {
                        try db.execute(BookkeepingStatement("PRAGMA user_version = 0"))
                    } else {
                        for table in present { try db.execute(BookkeepingStatement("DROP TABLE \(quoteIdentifier(table))")) }
                    }
                }
            }
            return OtherToolAdoption(tool: ledger.tool, lastVersion: ledger.lastVersion, identifiers: steps.map(\.identifier),
                                     retired: retired, isDryRun: dryRun, repeatables: ledger.repeatables)
        }
        return dryRun ? try adoption() : try db.inImmediateTransaction(adoption)
    }

    /// The one ledger to adopt from: `tool`'s, or the only one there.
    private func adoptableLedger(_ db: Database, from tool: OtherTool?) throws -> OtherToolLedger {
        if let tool {
            guard let ledger = try OtherToolLedger.read(tool, in: db) else { throw OtherToolAdoptionError(problems: [.ledgerNotFound(tool)]) }
            return ledger
        }
        let ledgers = try OtherToolLedger.all(in: db)
        guard let ledger = ledgers.first else {
            throw OtherToolAdoptionError(problems: [.noLedger(ledgerLike: try UnreadLedgerTable.all(in: db))])
        }
        guard ledgers.count == 1 else { throw OtherToolAdoptionError(problems: [.severalLedgers(ledgers.map(\.tool))]) }
        return ledger
    }
}
