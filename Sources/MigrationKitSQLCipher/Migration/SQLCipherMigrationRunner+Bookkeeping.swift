import MigrationKit

/// What the engines read and write besides the steps: the plan under the write lock,
/// and the ledger and history rows of merges and adopted checksums.
extension SQLCipherMigrationRunner {
    func dataVersion(_ db: SQLCipherDatabase) throws -> Int {
        try db.fetchInt(sql: "PRAGMA data_version") ?? 0
    }

    /// The plan, from what the database holds now (see `MigrationPlan`).
    func plan(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationPlan<SQLCipherDatabase> {
        let analysis = MigrationAnalysis(registry: registry, snapshot: try MigrationHistory.snapshot(in: db))
        return try analysis.migratePlan(through: lastIndex, allowOutOfOrder: allowOutOfOrder, acceptModified: options.acceptModified)
    }

    /// Ledger rewrites for merged steps, adopted checksums (steps applied by GRDB or
    /// before checksums were kept) and deliberately accepted edits.
    func recordBookkeeping(_ plan: MigrationPlan<SQLCipherDatabase>, in db: SQLCipherDatabase) throws {
        for merge in plan.merges {
            try MigrationBookkeeping.recordMerge(merge, in: db)
        }
        for (identifier, checksum) in plan.checksumsToAdopt.sorted(by: { $0.key < $1.key }) {
            try MigrationBookkeeping.setChecksum(checksum, for: identifier, in: db)
        }
        for identifier in plan.acceptedEdits {
            if let checksum = registry.step(identifier)?.checksum {
                try MigrationBookkeeping.setChecksum(checksum, for: identifier, in: db)
            }
        }
    }

    /// What `recordBookkeeping` wrote, as the report says it.
    func reportBookkeeping(of plan: MigrationPlan<SQLCipherDatabase>, in report: inout MigrationReport) {
        report.merges = plan.merges
        report.adoptedChecksums = plan.checksumsToAdopt.keys.sorted()
    }
}
