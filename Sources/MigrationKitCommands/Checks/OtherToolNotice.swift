import MigrationKit

/// A database another migration tool migrated that MigrationKit has not adopted yet:
/// its ledger records nothing, and another tool's ledger records versions. `status`
/// says so, and `migrate` refuses it before writing anything, in the one sentence here.
package enum OtherToolNotice {
    /// The other tools' ledgers that record something in a database whose own ledger
    /// (`grdb_migrations`) records nothing; empty when MigrationKit manages it or no
    /// other tool does. A `user_version` ladder counts only beside tables: an app that
    /// sets `user_version` on an empty database has nothing to adopt.
    package static func unadoptedLedgers(in db: some SQLQuerying) throws -> [OtherToolLedger] {
        guard try MigrationBookkeeping.snapshot(in: db).identifiers.isEmpty else { return [] }
        let ledgers = try OtherToolLedger.all(in: db).filter { $0.lastVersion != nil }
        guard ledgers.contains(where: { $0.tool == .userVersion }) else { return ledgers }
        let hasTables = try !SchemaDump.objects(in: db).isEmpty
        return ledgers.filter { $0.tool != .userVersion || hasTables }
    }

    /// The sentence: which tool, its last version, and `adopt` (with `--from` when
    /// several tools' ledgers are there), with `commandName`'s `adopt`.
    package static func sentence(_ ledgers: [OtherToolLedger], database: String, commandName: String) -> String {
        let tools = ledgers.map { ledger -> String in
            ledger.tool == .userVersion
                ? "a `PRAGMA user_version` ladder (at \(ledger.lastVersion ?? "0"))"
                : "\(ledger.tool.displayName) (its ledger's last version is \(ledger.lastVersion ?? "none"))"
        }
        let adopt = "`\(commandName) adopt\(ledgers.count > 1 ? " --from TOOL" : "")`"
        return "\(database) was migrated by \(tools.joined(separator: " and ")), and MigrationKit's ledger records nothing yet: "
            + "run \(adopt) to record what it applied, proven against the schema (docs/adopting.md); migrate would run every migration again."
    }
}
