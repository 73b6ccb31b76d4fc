import MigrationKit

/// A database MigrationKit's ledger records nothing of, which is not new: another tool
/// migrated it (its ledger records versions), or it has tables and no ledger MigrationKit
/// reads. `status` says so, and `migrate` refuses it before writing anything, as Flyway
/// refuses a schema with tables and no history, in the one sentence here: migrating it
/// would run the first migrations over tables that exist, where a `CREATE TABLE IF NOT
/// EXISTS` changes nothing, a seed `INSERT` adds its rows again, and the ledger then
/// says the database is what the migrations make.
enum OtherToolNotice {
    /// What the database holds instead of a ledger MigrationKit can go on from.
    package enum Finding {
        /// Other tools' ledgers that record something (`adopt` takes it over).
        case otherTools([OtherToolLedger])
        /// App tables (`tables`, by name), and no ledger MigrationKit reads; the tables
        /// among them that look like another tool's ledger (`ledgerLike`).
        case tablesWithoutLedger(tables: [String], ledgerLike: [UnreadLedgerTable])

        /// The other tools' ledgers, for `status --json`; empty for tables without one.
        var ledgers: [OtherToolLedger] {
            if case .otherTools(let ledgers) = self { return ledgers }
            return []
        }
    }

    /// What the database holds, when its own ledger (`grdb_migrations`) records nothing
    /// and it is not new; nil when MigrationKit manages it, or it is new: no app table (a
    /// `user_version` set on an empty database is nothing to adopt either).
    ///
    /// - Parameter acceptingExistingTables: tables without a ledger are the app's own,
    ///   created before its first migration (`--accept-existing-tables`): no finding.
    package static func finding(in db: some SQLQuerying, acceptingExistingTables: Bool) throws -> Finding? {
        guard try MigrationBookkeeping.snapshot(in: db).identifiers.isEmpty else { return nil }
        let objects = try SchemaDump.objects(in: db)
        let tables = objects.filter { $0.type == "table" }.map(\.name)
        let ledgers = try OtherToolLedger.all(in: db).filter { $0.lastVersion != nil && ($0.tool != .userVersion || !objects.isEmpty) }
        if !ledgers.isEmpty { return .otherTools(ledgers) }
        let ledgerLike = try UnreadLedgerTable.all(in: db)
        guard !objects.isEmpty || !ledgerLike.isEmpty, !acceptingExistingTables else { return nil }
        return .tablesWithoutLedger(tables: tables.filter { table in !ledgerLike.contains { $0.name == table } }, ledgerLike: ledgerLike)
    }

    /// The sentence, with `commandName`'s `adopt` and `baseline`.
    package static func sentence(_ finding: Finding, database: String, commandName: String) -> String {
        switch finding {
        case .otherTools(let ledgers):
            return sentence(ledgers, database: database, commandName: commandName)
        case .tablesWithoutLedger(let tables, let ledgerLike):
            let shown = tables.count <= 3 ? tables.joined(separator: ", ") : tables.prefix(3).joined(separator: ", ") + " and \(tables.count - 3) more"
            let holds = tables.isEmpty ? "" : "has tables (\(shown)) and "
            let lookalikes = ledgerLike.isEmpty ? "" : "; it holds \(ledgerLike.map(\.description).joined(separator: ", ")), which looks like a migration ledger MigrationKit cannot read"
            return "\(database) \(holds)no ledger MigrationKit reads: grdb_migrations records nothing, and no other tool's ledger is there\(lookalikes). "
                + "Migrating it would run the first migrations over what is there, so migrate refuses it: if a tool migrated it, `\(commandName) adopt` names what it finds; "
                + "to record the migrations whose work its schema already holds, run `\(commandName) baseline --to ID`, which proves the schema first (docs/adopting.md); "
                + "if the app creates these tables itself before its first migration, pass --accept-existing-tables (`accept-existing-tables = true` in migrationkit.toml)."
        }
    }

    /// The sentence for other tools' ledgers: which tool, its last version (and a
    /// version left dirty or failed, which `adopt` refuses), and `adopt` (with `--from`
    /// when several tools' ledgers are there); for a `user_version` ladder, both ways
    /// in: the ladder's steps as migrations, or the app's schema as a first migration
    /// recorded by `baseline`.
    package static func sentence(_ ledgers: [OtherToolLedger], database: String, commandName: String) -> String {
        let tools = ledgers.map { ledger -> String in
            if ledger.tool == .userVersion { return "a `PRAGMA user_version` ladder (at \(ledger.lastVersion ?? "0"))" }
            let unfinished = ledger.unfinished.map { record in
                record.state == .dirty ? ", which it marked dirty (it failed half way)" : "; version \(record.version) failed"
            }.joined()
            return "\(ledger.tool.displayName) (its ledger's last version is \(ledger.lastVersion ?? "none")\(unfinished))"
        }
        let adopt = "`\(commandName) adopt\(ledgers.count > 1 ? " --from TOOL" : "")`"
        let repair = ledgers.filter { !$0.unfinished.isEmpty }.map { ledger in
            ledger.tool == .golangMigrate ? "repair the database and clear the dirty flag as golang-migrate says (`migrate force`), then "
                : "repair the failed version with \(ledger.tool.displayName) first, then "
        }.first ?? ""
        let ladder = ledgers.first { $0.tool == .userVersion }.map { ledger in
            let number = ledger.lastVersion ?? "0"
            return " if the folder holds the ladder's steps as migrations (the first \(number) of them; in SQLDelight's layout, every N.sqm with N below \(number)); if \(number) is the app's own schema number instead, "
                + "write a first migration holding the app's schema as it is at \(number) and record it with `\(commandName) baseline --to` that migration"
        } ?? ""
        return "\(database) was migrated by \(tools.joined(separator: " and ")), and MigrationKit's ledger records nothing yet: "
            + "\(repair)run \(adopt) to record what it applied, proven against the schema\(ladder) (docs/adopting.md); migrate would run every migration again."
    }
}
