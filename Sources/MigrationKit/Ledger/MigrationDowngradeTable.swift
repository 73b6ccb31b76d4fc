/// What a database keeps for the builds older than the one that migrated it: each applied
/// step's way back (its down SQL as it runs, with a checksum) and whether builds that do
/// not know the step may use the database anyway (`MigrationCompatibility`). The older
/// build never had the newer files, so the database is the only place that can hold
/// them (sql-migrate #15, sqlx #2943).
///
/// A table of its own beside the history rather than columns added to it: a step with
/// neither writes nothing here, so a GRDB app's Swift steps cost what they cost before;
/// and no `ALTER TABLE` runs on an app's database, whose schema may name a tokenizer or
/// function only the app registers. Its name begins with `grdb_`, so GRDB's dumps and
/// `hasSchemaChanges` pass over it as they pass over the ledger. Its format is recorded in
/// `MigrationHistoryFormat`'s table, written with it.
///
/// A row whose step was stepped back (`rolled_back_at` set) is void: the step is no
/// longer in the ledger, and a build that applies it again writes the row afresh.
package enum MigrationDowngradeTable {
    package static let name = "grdb_migrationkit_downgrade"

    static let create = BookkeepingStatement("""
        CREATE TABLE IF NOT EXISTS \(name) (
            identifier TEXT NOT NULL PRIMARY KEY,
            down_sql TEXT,
            down_checksum TEXT,
            compatible INTEGER NOT NULL DEFAULT 0,
            compatible_from TEXT,
            rolled_back_at TEXT
        ) WITHOUT ROWID
        """)

    /// What applying `step` records here: nothing for a step with no stored way back
    /// and no compatibility, so that most steps write no page more.
    static func record<Database>(_ step: MigrationStep<Database>) -> [BookkeepingStatement] {
        guard step.storedDown != nil || step.compatibility != nil else { return [] }
        let compatibleFrom: String? = if case .withBuildsKnowing(let identifier) = step.compatibility { identifier } else { nil }
        return [create] + MigrationHistoryFormat.record + [BookkeepingStatement(
            """
            INSERT OR REPLACE INTO \(name) (identifier, down_sql, down_checksum, compatible, compatible_from, rolled_back_at)
            VALUES (?, ?, ?, ?, ?, NULL)
            """,
            [.text(step.identifier), step.storedDown.map { .text($0) } ?? .null, step.storedDown.map { .text(checksum(of: $0)) } ?? .null,
             .integer(step.compatibility == nil ? 0 : 1), compatibleFrom.map { .text($0) } ?? .null])]
    }

    /// The checksum a stored down is recorded and checked with: SHA-256 of its UTF-8
    /// bytes, lowercase hex, which tells an edit or a truncation before it runs.
    static func checksum(of downSQL: String) -> String {
        MigrationChecksum.sha256Hex(of: Array(downSQL.utf8))
    }

    /// A step an older build stepped back: its row kept, with when.
    static func markRolledBack(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("UPDATE \(name) SET rolled_back_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE identifier = ?", [.text(identifier)])
    }

    static func delete(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("DELETE FROM \(name) WHERE identifier = ?", [.text(identifier)])
    }

    /// One row as it was read: what an older build judges an unknown step by.
    package struct Entry: Hashable, Sendable {
        package let identifier: String
        /// The down SQL as it runs, or nil when none was stored.
        package let downSQL: String?
        /// SHA-256 of `downSQL`'s bytes as stored, lowercase hex.
        let downChecksum: String?
        package let compatibility: MigrationCompatibility?
        /// Whether the down SQL is the one recorded: stored, and its checksum matches.
        var storedDownIsIntact: Bool {
            guard let downSQL, let downChecksum else { return false }
            return MigrationDowngradeTable.checksum(of: downSQL) == downChecksum
        }
    }

    /// Every live row (none stepped back), by identifier.
    static func entries(in db: some SQLQuerying) throws -> [String: Entry] {
        var entries: [String: Entry] = [:]
        try db.forEachTextRow(
            sql: "SELECT identifier, down_sql, down_checksum, compatible, compatible_from FROM \(name) WHERE rolled_back_at IS NULL",
            arguments: []) { row in
                guard let identifier = row[0] else { return }
                let compatibility: MigrationCompatibility? = row[3] == "1" ? (row[4].map { .withBuildsKnowing($0) } ?? .withOlderBuilds) : nil
                entries[identifier] = Entry(identifier: identifier, downSQL: row[1], downChecksum: row[2], compatibility: compatibility)
        }
        return entries
    }
}

/// The format of MigrationKit's own tables (the history and `MigrationDowngradeTable`), as
/// Chromium's `sql::MetaTable` keeps a file's: the format written, and the oldest
/// MigrationKit format that may still write beside it. A database without the table is in
/// format 1 (the history alone) or earlier; every earlier format is read.
package enum MigrationHistoryFormat {
    package static let tableName = "grdb_migrationkit_meta"
    /// The format this version writes: the history plus the downgrade table.
    package static let current = 2
    /// The oldest format whose writers may still write a database in `current`: format 1
    /// writes only the history, which format 2 leaves as it was.
    static let oldestWriter = 1

    /// The recorded format when this version may not write beside it: a newer
    /// MigrationKit's, whose oldest writer is newer than this version's format. Nil for a
    /// format this version writes, or none recorded (format 1 or earlier). A value that is
    /// no number reads as a format no version writes.
    static func unwritable(in db: some SQLQuerying) throws -> (format: Int, oldestWriter: Int)? {
        var values: [String: String] = [:]
        try db.forEachTextRow(sql: "SELECT key, value FROM \(tableName)", arguments: []) { row in
            if let key = row[0], let value = row[1] { values[key] = value }
        }
        guard let format = values["history_format"] else { return nil }
        let oldestWriter = values["history_oldest_writer"].flatMap { Int($0) } ?? Int.max
        return oldestWriter > current ? (Int(format) ?? Int.max, oldestWriter) : nil
    }

    /// Creates the table with this version's format, unless a format is recorded already.
    static let record: [BookkeepingStatement] = [
        BookkeepingStatement("CREATE TABLE IF NOT EXISTS \(tableName) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"),
        BookkeepingStatement("INSERT OR IGNORE INTO \(tableName) (key, value) VALUES ('history_format', ?), ('history_oldest_writer', ?)",
                             [.text(String(current)), .text(String(oldestWriter))]),
    ]

}
