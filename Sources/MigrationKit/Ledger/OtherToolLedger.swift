import Foundation

/// What another migration tool recorded in a database it migrated (`OtherTool`), read
/// as that tool reads it, so that MigrationKit can take the database over (`adopt`).
/// The one place that knows each tool's table.
public struct OtherToolLedger: Hashable, Sendable {
    /// What a row of the other tool's ledger says of one version.
    package enum State: Hashable, Sendable {
        /// Applied.
        case applied
        /// golang-migrate's `dirty = 1`: the migration failed half way, and the tool
        /// waits for someone to repair the database by hand (`migrate force`).
        case dirty
        /// A failed run (Flyway's or sqlx's `success = 0`, a Prisma row that neither
        /// finished nor was rolled back).
        case failed
        /// Flyway's `BASELINE` row: the schema holds every version up to this one,
        /// none of which Flyway ran.
        case baseline
    }

    /// The checksum the other tool recorded for a migration.
    package enum RecordedChecksum: Hashable, Sendable {
        /// sqlx's: the SHA-384 of the up file's bytes, as lowercase hex.
        case sha384(String)
        /// Flyway's: the CRC32 of the script's lines (`FlywayChecksum`), as Java's `int`.
        case crc32(Int32)
        /// Prisma's: the SHA-256 of `migration.sql`, as lowercase hex (`PrismaChecksum`).
        case prismaSHA256(String)
        /// sql-migrate's: the SHA-256 of the file's bytes, as lowercase hex.
        case sha256(String)
        /// refinery's: the SipHash-1-3 of the file's name, version and text
        /// (`RefineryChecksum`), as the decimal text refinery writes.
        case refinery(String)
        /// Liquibase's `MD5SUM`: `9:` and an MD5 of the changeset's SQL
        /// (`LiquibaseChangelog.checksum(ofSQL:)`), or another version's (`8:…`), which
        /// MigrationKit does not compute.
        case liquibase(String)
    }

    /// One version the other tool recorded.
    package struct Record: Hashable, Sendable {
        /// The version as the tool wrote it (`3`, `20240101120000`, `1.2`); for a tool
        /// that records names, the name.
        package let version: String
        /// The migration's identifier, for a tool that records names rather than
        /// versions (Prisma's folder, a D1 or sql-migrate file's name without `.sql`):
        /// the record maps to the migration of that identifier. Nil for a tool that
        /// records versions.
        package var identifier: String? = nil
        /// Applied, dirty, failed, or a baseline.
        package let state: State
        /// The checksum the tool recorded (sqlx's, Flyway's); nil when it keeps none.
        package var checksum: RecordedChecksum? = nil
        /// The script the tool names (Flyway's), for sentences; nil otherwise.
        var script: String? = nil
        /// Whether the tool ran code rather than a SQL file for it (Flyway's Java or
        /// Kotlin migrations, `JDBC` rows), which MigrationKit cannot run.
        var isCode = false
        /// The SHA-256 of the migration's identifier, as lowercase hex, for a tool that
        /// keys its rows by it (yoyo's `migration_hash`): the record maps to the migration
        /// whose identifier has it.
        var identifierSHA256: String? = nil
    }

    /// The tool that wrote it.
    public let tool: OtherTool
    /// Its records, in the order the tool applied them (golang-migrate's one row; for
    /// `user_version`, the number itself).
    let records: [Record]
    /// Flyway's repeatable migrations (`R__x.sql`) it recorded, which MigrationKit does
    /// not run: what they made is compared with the rest of the schema.
    var repeatables: [String] = []

    /// The latest version it records, as the tool writes it; nil when it records none.
    package var lastVersion: String? { records.last?.version }

    /// The records a migration failed half way in (golang-migrate's dirty version, a
    /// failed Flyway, sqlx or Prisma row), which `adopt` refuses: `status` and `migrate`
    /// name them too.
    package var unfinished: [Record] { records.filter { $0.state == .dirty || $0.state == .failed } }

    /// Every other tool's ledger in the database, in `OtherTool.all`'s order: a table
    /// of the tool's name and shape, or a `user_version` above 0.
    public static func all(in db: some SQLQuerying) throws -> [OtherToolLedger] {
        try OtherTool.all.compactMap { try read($0, in: db) }
    }

    /// `tool`'s ledger in the database, or nil when it has none.
    public static func read(_ tool: OtherTool, in db: some SQLQuerying) throws -> OtherToolLedger? {
        switch tool {
        case .userVersion:
            let version = try db.textColumn(sql: "PRAGMA main.user_version").first.flatMap { Int($0) } ?? 0
            guard version > 0 else { return nil }
            return OtherToolLedger(tool: tool, records: [Record(version: "\(version)", state: .applied)])
        case .golangMigrate, .dbmate:
            // One name, two tools: golang-migrate's table has a `dirty` column.
            let columns = try columnNames(of: "schema_migrations", in: db)
            guard columns.contains("version") else { return nil }
            if tool == .golangMigrate {
                guard columns.contains("dirty") else { return nil }
                let rows = try db.textRows(sql: "SELECT version, dirty FROM main.schema_migrations")
                return OtherToolLedger(tool: tool, records: rows.map { row in
                    Record(version: row[0] ?? "", state: isTrue(row[1]) ? .dirty : .applied)
                })
            }
            guard columns == ["version"] else { return nil }
            return OtherToolLedger(tool: tool, records: try db.textColumn(sql: "SELECT version FROM main.schema_migrations ORDER BY version").map {
                Record(version: $0, state: .applied)
            })
        case .sqlx:
            guard try columnNames(of: "_sqlx_migrations", in: db).isSuperset(of: ["version", "success", "checksum"]) else { return nil }
            let rows = try db.textRows(sql: "SELECT version, success, lower(hex(checksum)) FROM main._sqlx_migrations ORDER BY version")
            return OtherToolLedger(tool: tool, records: rows.map { row in
                Record(version: row[0] ?? "", state: isTrue(row[1]) ? .applied : .failed, checksum: row[2].map { .sha384($0) })
            })
        case .diesel:
            guard try columnNames(of: "__diesel_schema_migrations", in: db).contains("version") else { return nil }
            return OtherToolLedger(tool: tool, records: try db.textColumn(sql: "SELECT version FROM main.__diesel_schema_migrations ORDER BY version").map {
                Record(version: $0, state: .applied)
            })
        case .goose:
            guard try columnNames(of: "goose_db_version", in: db).isSuperset(of: ["version_id", "is_applied"]) else { return nil }
            // The latest row of each version decides (goose's down inserts, or deletes,
            // a row); version 0 is the row goose writes when it creates the table.
            var latest: [String: Bool] = [:]
            var order: [String] = []
            for row in try db.textRows(sql: "SELECT version_id, is_applied FROM main.goose_db_version ORDER BY id") {
                guard let version = row[0], version != "0" else { continue }
                if latest[version] == nil { order.append(version) }
                latest[version] = isTrue(row[1])
            }
            let applied = order.filter { latest[$0] == true }.sorted { (Int64($0) ?? 0) < (Int64($1) ?? 0) }
            return OtherToolLedger(tool: tool, records: applied.map { Record(version: $0, state: .applied) })
        case .flyway:
            guard try columnNames(of: "flyway_schema_history", in: db).isSuperset(of: ["version", "type", "script", "checksum", "success"]) else { return nil }
            return try readFlyway(in: db)
        case .prisma:
            guard try columnNames(of: "_prisma_migrations", in: db).isSuperset(of: ["migration_name", "checksum", "finished_at", "rolled_back_at"]) else { return nil }
            return try readPrisma(in: db)
        case .drizzle:
            let columns = try columnNames(of: "__drizzle_migrations", in: db)
            guard columns.isSuperset(of: ["hash", "created_at"]) else { return nil }
            // Drizzle's later layout (a folder per migration) records its name too.
            let named = columns.contains("name")
            let rows = try db.textRows(sql: "SELECT CAST(created_at AS INTEGER), \(named ? "name" : "NULL") FROM main.__drizzle_migrations ORDER BY created_at, id")
            return OtherToolLedger(tool: tool, records: rows.map { row in
                Record(version: row[1] ?? row[0] ?? "", identifier: row[1], state: .applied)
            })
        case .refinery:
            guard try columnNames(of: "refinery_schema_history", in: db).isSuperset(of: ["version", "name", "checksum"]) else { return nil }
            let rows = try db.textRows(sql: "SELECT version, name, checksum FROM main.refinery_schema_history ORDER BY version")
            return OtherToolLedger(tool: tool, records: rows.map { row in
                Record(version: row[0] ?? "", state: .applied, checksum: row[2].map { .refinery($0) }, script: row[1])
            })
        case .d1, .sqlMigrate:
            // A row per applied migration, by the name of its file; sql-migrate's later
            // versions record the SHA-256 of the file too.
            let (table, column, order) = tool == .d1 ? ("d1_migrations", "name", "id") : ("gorp_migrations", "id", "applied_at, id")
            let columns = try columnNames(of: table, in: db)
            guard columns.contains(column) else { return nil }
            let checksum = tool == .sqlMigrate && columns.contains("checksum") ? "checksum" : "NULL"
            return OtherToolLedger(tool: tool, records: try db.textRows(sql: "SELECT \(column), \(checksum) FROM main.\(table) ORDER BY \(order)").compactMap { row in
                guard let name = row[0] else { return nil }
                let identifier = MigrationFileName.strip(name, ".sql") ?? name
                return Record(version: name, identifier: identifier, state: .applied, checksum: row[1].flatMap { $0.isEmpty ? nil : .sha256($0) })
            })
        case .yoyo:
            // yoyo's table since 6.0; before it, `(id, ctime)`, which yoyo upgrades.
            let columns = try columnNames(of: "_yoyo_migration", in: db)
            if columns.isSuperset(of: ["migration_hash", "migration_id", "applied_at_utc"]) {
                let rows = try db.textRows(sql: "SELECT migration_hash, migration_id FROM main._yoyo_migration ORDER BY applied_at_utc")
                return OtherToolLedger(tool: tool, records: rows.compactMap { row in
                    guard let hash = row[0] else { return nil }
                    return Record(version: row[1] ?? hash, state: .applied, identifierSHA256: hash.lowercased())
                })
            }
            guard columns.isSuperset(of: ["id", "ctime"]) else { return nil }
            return OtherToolLedger(tool: tool, records: try db.textColumn(sql: "SELECT id FROM main._yoyo_migration ORDER BY ctime").map {
                Record(version: $0, identifier: $0, state: .applied)
            })
        case .atlas:
            guard try columnNames(of: "atlas_schema_revisions", in: db).isSuperset(of: ["version", "type", "applied", "total"]) else { return nil }
            // Atlas's own row holding the table's identifier is no revision.
            let rows = try db.textRows(sql: "SELECT version, type, applied, total FROM main.atlas_schema_revisions WHERE version <> '.atlas_cloud_identifier' ORDER BY version")
            return OtherToolLedger(tool: tool, records: rows.compactMap { row in
                guard let version = row[0] else { return nil }
                // `type` is a set of bits: 1 a baseline (every version up to it is in the
                // schema), 2 executed, 4 resolved (marked by `atlas migrate set`); a file
                // whose `applied` statements are not its `total` failed half way, and
                // Atlas goes on from its next statement.
                let type = Int(row[1] ?? "") ?? 2, applied = Int(row[2] ?? "") ?? 0, total = Int(row[3] ?? "") ?? 0
                let state: State = type & 1 != 0 ? .baseline : (applied != total ? .failed : .applied)
                return Record(version: version, state: state)
            })
        case .liquibase:
            let columns = try columnNames(of: "DATABASECHANGELOG", in: db)
            guard columns.isSuperset(of: ["id", "author", "filename", "dateexecuted"]) else { return nil }
            return try readLiquibase(in: db, columns: columns)
        default:
            return nil
        }
    }

    /// Liquibase's history, in the order it ran the changesets: a changeset is
    /// `FILE::ID::AUTHOR` (`FILE` the last part of `FILENAME`, the changelog's path as
    /// Liquibase was given it); `EXECUTED`, `RERAN` and `MARK_RAN` (marked ran without
    /// running, its work in the schema) are applied, `FAILED` (kept only for a changeset
    /// that may fail) failed, `SKIPPED` nothing. `MD5SUM` is the checksum, or NULL after
    /// `clear-checksums` (Liquibase then records it again without comparing).
    private static func readLiquibase(in db: some SQLQuerying, columns: Set<String>) throws -> OtherToolLedger {
        let execType = columns.contains("exectype") ? "EXECTYPE" : "'EXECUTED'"
        let checksum = columns.contains("md5sum") ? "MD5SUM" : "NULL"
        let order = columns.contains("orderexecuted") ? "DATEEXECUTED, ORDEREXECUTED" : "DATEEXECUTED"
        var records: [Record] = []
        for row in try db.textRows(sql: "SELECT ID, AUTHOR, FILENAME, \(execType), \(checksum) FROM main.DATABASECHANGELOG ORDER BY \(order)") {
            guard let id = row[0], let author = row[1], let file = row[2] else { continue }
            let type = (row[3] ?? "EXECUTED").uppercased()
            guard type != "SKIPPED" else { continue }
            let identifier = LiquibaseChangelog.identifier(fileName: file, id: id, author: author)
            records.removeAll { $0.identifier == identifier }
            records.append(Record(version: identifier, identifier: identifier, state: type == "FAILED" ? .failed : .applied,
                                  checksum: row[4].flatMap { $0.isEmpty ? nil : .liquibase($0) }))
        }
        return OtherToolLedger(tool: .liquibase, records: records)
    }

    /// Flyway's history, in `installed_rank` order: a versioned row (`SQL`, `JDBC`, …)
    /// applies its version, or failed; `BASELINE` stands for every version up to its
    /// own; an undo (`UNDO_SQL`, `UNDO_JDBC`) or a repair's `DELETE` takes a version
    /// back; rows without a version are repeatable migrations (or the `SCHEMA` row).
    private static func readFlyway(in db: some SQLQuerying) throws -> OtherToolLedger {
        var records: [Record] = []
        var repeatables: [String] = []
        let rows = try db.textRows(sql: "SELECT version, type, script, checksum, success FROM main.flyway_schema_history ORDER BY installed_rank")
        for row in rows {
            let type = (row[1] ?? "").uppercased(), script = row[2] ?? ""
            guard let version = row[0], !version.isEmpty else {
                if type != "SCHEMA", !repeatables.contains(script) { repeatables.append(script) }
                continue
            }
            if type.hasPrefix("UNDO") || type == "DELETE" {
                if isTrue(row[4]) { records.removeAll { $0.version == version } }
                continue
            }
            records.removeAll { $0.version == version }
            let isBaseline = type.contains("BASELINE")
            let state: State = isBaseline ? .baseline : (isTrue(row[4]) ? .applied : .failed)
            // Java and Kotlin migrations (`JDBC`, `SPRING_JDBC`), and Teams' scripts.
            let isCode = !isBaseline && (type.contains("JDBC") || type == "SCRIPT" || type == "CUSTOM")
            records.append(Record(version: version, state: state, checksum: isCode ? nil : row[3].flatMap { Int32($0) }.map { .crc32($0) },
                                  script: script, isCode: isCode))
        }
        return OtherToolLedger(tool: .flyway, records: records, repeatables: repeatables)
    }

    /// Prisma's history, in `started_at` order: a row with `rolled_back_at` does not
    /// count (`migrate resolve --rolled-back` marked it), one with `finished_at` applied
    /// its folder, one with neither failed (Prisma refuses to go on, as `adopt` does).
    private static func readPrisma(in db: some SQLQuerying) throws -> OtherToolLedger {
        var records: [Record] = []
        let rows = try db.textRows(sql: "SELECT migration_name, checksum, finished_at IS NOT NULL, rolled_back_at IS NOT NULL FROM main._prisma_migrations ORDER BY started_at")
        for row in rows where !isTrue(row[3]) {
            guard let name = row[0] else { continue }
            records.removeAll { $0.identifier == name }
            records.append(Record(version: name, identifier: name, state: isTrue(row[2]) ? .applied : .failed, checksum: row[1].map { .prismaSHA256($0) }))
        }
        return OtherToolLedger(tool: .prisma, records: records)
    }

    /// The columns of `table` in the main database, lowercased; empty when there is no
    /// such table. (`PRAGMA table_info`, which SQLite 3.15 has as a statement only.)
    static func columnNames(of table: String, in db: some SQLQuerying) throws -> Set<String> {
        var names: Set<String> = []
        try db.forEachTextRow(sql: "PRAGMA main.table_info(\(quoteIdentifier(table)))", arguments: []) { row in
            if row.count > 1, let name = row[1] { names.insert(name.lowercased()) }
        }
        return names
    }

    /// A boolean as the tools' drivers store it in SQLite: 1 (or `true`).
    private static func isTrue(_ value: String?) -> Bool {
        guard let value else { return false }
        return value == "1" || value.lowercased() == "true"
    }
}
