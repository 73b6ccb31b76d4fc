/// A value bound to one `?` of a bookkeeping statement.
package enum BookkeepingValue: Hashable, Sendable {
    /// A text value: an identifier or a checksum.
    case text(String)
    /// An integer value: a duration in milliseconds.
    case integer(Int64)
    /// SQL NULL: the checksum of a step that has none.
    case null
}

/// One statement MigrationKit itself runs — the ledger's, the history's, the engine's
/// pragmas — with its arguments. The core writes every one of them; each database layer
/// only runs them (`BookkeepingExecuting`), so the SQLCipher and GRDB runners cannot
/// drift apart.
package struct BookkeepingStatement: Hashable, Sendable {
    /// The SQL, with a `?` for each argument.
    package let sql: String
    /// The values bound to the statement's `?` placeholders, in order.
    package let arguments: [BookkeepingValue]

    /// A statement and its arguments (none by default).
    package init(_ sql: String, _ arguments: [BookkeepingValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// A database layer's connection, as the bookkeeping needs it: run a statement, read
/// rows as text (`SQLQuerying`).
package protocol BookkeepingExecuting: SQLQuerying {
    /// Runs `statement`, binding its arguments in order.
    func execute(_ statement: BookkeepingStatement) throws
}

/// GRDB's ledger, `grdb_migrations`, exactly as GRDB's `DatabaseMigrator` keeps it:
/// one row per applied identifier, in the order applied. Databases move between GRDB
/// apps and MigrationKit in both directions because nothing else is ever written here.
package enum MigrationLedgerTable {
    package static let name = "grdb_migrations"

    package static let create = BookkeepingStatement("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")

    package static let selectIdentifiersSQL = "SELECT identifier FROM grdb_migrations ORDER BY rowid"

    static func insert(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(identifier)])
    }

    static func delete(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("DELETE FROM grdb_migrations WHERE identifier = ?", [.text(identifier)])
    }

    /// The row of a step the ledger may hold already (a merge GRDB's migrator left its
    /// replaced steps beside).
    static func insertIfMissing(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)", [.text(identifier)])
    }

    /// What the ledger records when `step` is applied, as GRDB's migrator records it:
    /// the step's row, after the rows of the steps it replaces when it is a merged step
    /// in GRDB's form (`MigrationStep.applyMerged`). A squash of a migration file runs
    /// only when none of its steps is applied, so it has none to remove.
    static func recordApplied<Database>(_ step: MigrationStep<Database>) -> [BookkeepingStatement] {
        let replaced = step.applyMerged == nil ? [] : step.merging.map(delete)
        return [create] + replaced + [insert(step.identifier)]
    }
}

extension MigrationHistoryTable {
    package static let create = BookkeepingStatement(createSQL)

    /// Every row of the table `table` (the current one, or the legacy one).
    static func selectSQL(from table: String = name) -> String {
        "SELECT identifier, checksum, applied_at, duration_ms FROM \(table)"
    }

    /// The row of a step just applied: its checksum, now, and how long it took.
    static func record(_ identifier: String, checksum: String?, duration: Duration) -> BookkeepingStatement {
        BookkeepingStatement(
            """
            INSERT OR REPLACE INTO \(name) (identifier, checksum, applied_at, duration_ms)
            VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)
            """,
            [.text(identifier), checksum.map { .text($0) } ?? .null, .integer(duration.wholeMilliseconds)])
    }

    /// The checksum of a step applied without one recorded (by GRDB, or an older
    /// MigrationKit), or deliberately accepted after an edit; the rest of its row kept.
    /// INSERT OR IGNORE, then UPDATE: SQLite 3.15 has no UPSERT.
    static func setChecksum(_ checksum: String, for identifier: String) -> [BookkeepingStatement] {
        [BookkeepingStatement(
            """
            INSERT OR IGNORE INTO \(name) (identifier, checksum, applied_at, duration_ms)
            VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0)
            """,
            [.text(identifier), .text(checksum)]),
         BookkeepingStatement("UPDATE \(name) SET checksum = ? WHERE identifier = ?", [.text(checksum), .text(identifier)])]
    }

    static func delete(_ identifier: String, from table: String = name) -> BookkeepingStatement {
        BookkeepingStatement("DELETE FROM \(table) WHERE identifier = ?", [.text(identifier)])
    }

    /// One row as it was read (`MigrationBookkeeping.history`).
    package struct Entry: Hashable, Sendable {
        package let identifier: String
        package let checksum: String?
        /// UTC, ISO 8601 ("2026-11-21T23:15:30.123Z").
        let appliedAt: String
        let durationMilliseconds: Int
    }

    /// A history row with every value given, for `RunHistory`: the time its step was
    /// applied, in milliseconds since 1970 (UTC), and how long it took.
    struct Row: Sendable {
        package let identifier: String
        package let checksum: String?
        let unixMilliseconds: Int64
        let duration: Duration
    }

    /// The most rows in one statement: four values each, within the 999 values a
    /// statement may bind on SQLite before 3.32 (SQLCipher 3.4.1's 3.15.2).
    private static let rowsPerStatement = 240

    /// `rows`, written (or rewritten) in as few statements as SQLite allows.
    static func record(_ rows: [Row]) -> [BookkeepingStatement] {
        stride(from: 0, to: rows.count, by: rowsPerStatement).map { start in
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            let values = Array(repeating: "(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0, 'unixepoch'), ?)", count: chunk.count)
            return BookkeepingStatement(
                "INSERT OR REPLACE INTO \(name) (identifier, checksum, applied_at, duration_ms) VALUES " + values.joined(separator: ", "),
                chunk.flatMap { row -> [BookkeepingValue] in
                    [.text(row.identifier), row.checksum.map { .text($0) } ?? .null, .integer(row.unixMilliseconds), .integer(row.duration.wholeMilliseconds)]
                })
        }
    }

    /// The rows of steps written ahead (`RunHistory`) that their run did not apply,
    /// except those the ledger has: another process applied them meanwhile, and the row
    /// holds the checksum of the same file.
    static func deleteUnapplied(_ identifiers: [String]) -> [BookkeepingStatement] {
        stride(from: 0, to: identifiers.count, by: rowsPerStatement).map { start in
            let chunk = identifiers[start..<min(start + rowsPerStatement, identifiers.count)]
            return BookkeepingStatement(
                "DELETE FROM \(name) WHERE identifier IN (" + Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    + ") AND identifier NOT IN (SELECT identifier FROM grdb_migrations)",
                chunk.map { .text($0) })
        }
    }
}

/// Every change the runners make to the ledger and the history, in one place: what a
/// step's application records, what a merge rewrites, what a rollback forgets.
package enum MigrationBookkeeping {
    /// Which of the bookkeeping tables exist, read in one query.
    package struct Tables: Sendable {
        let ledger: Bool
        package let history: Bool
        /// `migrationkit_history`, as versions before the history moved kept it.
        package let legacyHistory: Bool
        /// `MigrationDowngradeTable`, written since history format 2.
        let downgrade: Bool
        /// `MigrationHistoryFormat`'s table, written with the downgrade table.
        let format: Bool

        package init(in db: some SQLQuerying) throws {
            let names = Set(try db.textColumn(
                sql: "SELECT lower(name) FROM sqlite_master WHERE type = 'table' AND lower(name) IN (?, ?, ?, ?, ?)",
                arguments: [MigrationLedgerTable.name, MigrationHistoryTable.name, MigrationHistoryTable.legacyName, MigrationDowngradeTable.name,
                            MigrationHistoryFormat.tableName]))
            ledger = names.contains(MigrationLedgerTable.name)
            history = names.contains(MigrationHistoryTable.name)
            legacyHistory = names.contains(MigrationHistoryTable.legacyName)
            downgrade = names.contains(MigrationDowngradeTable.name)
            format = names.contains(MigrationHistoryFormat.tableName)
        }

        /// The history tables to read, the one whose rows win last: the legacy table
        /// exists beside the current one only when an earlier version wrote it after
        /// the move, so its rows are the newer ones.
        var historyTables: [String] {
            (history ? [MigrationHistoryTable.name] : []) + (legacyHistory ? [MigrationHistoryTable.legacyName] : [])
        }
    }

    /// Whether a database a failed run created kept nothing, so that run may remove it
    /// again (`NewDatabaseFile.discard`): no table but the ledger and the history (GRDB's
    /// migrator creates its ledger before the first step's transaction), no row in the
    /// ledger, and `user_version` still 0. The one test for both connections.
    package static func keptNothing(in db: some SQLQuerying) throws -> Bool {
        let otherObjects = try db.textColumn(
            sql: "SELECT count(*) FROM sqlite_master WHERE lower(tbl_name) NOT IN (?, ?, ?, ?)",
            arguments: [MigrationLedgerTable.name, MigrationHistoryTable.name, MigrationDowngradeTable.name, MigrationHistoryFormat.tableName])
        guard otherObjects == ["0"], try db.textColumn(sql: "PRAGMA user_version") == ["0"] else { return false }
        return try !Tables(in: db).ledger || db.textColumn(sql: "SELECT count(*) FROM \(MigrationLedgerTable.name)") == ["0"]
    }

    /// The ledger's identifiers, the recorded checksums (from both history tables, as
    /// `Tables.historyTables` orders them) and what the downgrade table records.
    package static func snapshot(in db: some SQLQuerying) throws -> LedgerSnapshot {
        let tables = try Tables(in: db)
        let identifiers = tables.ledger ? try db.textColumn(sql: MigrationLedgerTable.selectIdentifiersSQL) : []
        var checksums: [String: String] = [:]
        for table in tables.historyTables {
            try db.forEachTextRow(sql: "SELECT identifier, checksum FROM \(table) WHERE checksum IS NOT NULL", arguments: []) { row in
                if let identifier = row[0], let checksum = row[1] { checksums[identifier] = checksum }
            }
        }
        let downgrade = tables.downgrade ? try MigrationDowngradeTable.entries(in: db) : [:]
        var snapshot = LedgerSnapshot(identifiers: identifiers, checksums: checksums, downgrade: downgrade)
        if tables.format, let unwritable = try MigrationHistoryFormat.unwritable(in: db) {
            snapshot.unwritableFormat = .historyFormatNewer(format: unwritable.format, oldestWriter: unwritable.oldestWriter)
        }
        return snapshot
    }

    /// Every history row, by identifier, from both tables; empty when neither exists
    /// (reading never creates one).
    package static func history(in db: some SQLQuerying) throws -> [String: MigrationHistoryTable.Entry] {
        var entries: [String: MigrationHistoryTable.Entry] = [:]
        for table in try Tables(in: db).historyTables {
            try db.forEachTextRow(sql: MigrationHistoryTable.selectSQL(from: table), arguments: []) { row in
                guard let identifier = row[0] else { return }
                entries[identifier] = MigrationHistoryTable.Entry(
                    identifier: identifier, checksum: row[1], appliedAt: row[2] ?? "", durationMilliseconds: row[3].flatMap { Int($0) } ?? 0)
            }
        }
        return entries
    }

    /// Moves the rows of the legacy history table (`migrationkit_history`) into the
    /// current one and drops it, when it exists: part of the first write a runner makes
    /// to a database an earlier version migrated, inside that write's transaction.
    package static func moveLegacyHistory(in db: some BookkeepingExecuting) throws {
        guard try db.tableExists(MigrationHistoryTable.legacyName) else { return }
        try db.execute(MigrationHistoryTable.create)
        try db.execute(BookkeepingStatement(
            "INSERT OR REPLACE INTO \(MigrationHistoryTable.name) (identifier, checksum, applied_at, duration_ms) "
                + "SELECT identifier, checksum, applied_at, duration_ms FROM \(MigrationHistoryTable.legacyName)"))
        try db.execute(BookkeepingStatement("DROP TABLE \(MigrationHistoryTable.legacyName)"))
    }

    /// A step applied, as `MigrationLedgerTable.recordApplied` says for its kind (a
    /// merged step in GRDB's form also removes what it replaces), and its history row.
    static func recordApplied<Database>(_ step: MigrationStep<Database>, duration: Duration, in db: some BookkeepingExecuting) throws {
        for statement in MigrationLedgerTable.recordApplied(step) { try db.execute(statement) }
        try recordHistory(step.identifier, checksum: step.checksum, duration: duration, in: db)
        for statement in MigrationDowngradeTable.record(step) { try db.execute(statement) }
    }

    /// A step's history row alone (GRDB's migrator writes the ledger row itself).
    package static func recordHistory(_ identifier: String, checksum: String?, duration: Duration, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationHistoryTable.create)
        try db.execute(MigrationHistoryTable.record(identifier, checksum: checksum, duration: duration))
    }

    /// A merge the ledger is to record (`LedgerMerge`): the replaced steps' rows
    /// deleted, and the merged step's row, unless the ledger has it already.
    static func recordMerge(_ merge: LedgerMerge, in db: some BookkeepingExecuting) throws {
        try forget(merge.replaces, in: db)
        try db.execute(MigrationLedgerTable.create)
        try db.execute(MigrationLedgerTable.insertIfMissing(merge.identifier))
    }

    static func setChecksum(_ checksum: String, for identifier: String, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationHistoryTable.create)
        for statement in MigrationHistoryTable.setChecksum(checksum, for: identifier) { try db.execute(statement) }
    }

    /// The ledger, history and downgrade rows of `identifiers`, deleted: what a
    /// rolled-back step leaves (its `MigrationStep.recordedIdentifiers`: its own and a
    /// squash's merged ones).
    static func forget(_ identifiers: [String], in db: some BookkeepingExecuting) throws {
        let tables = try Tables(in: db)
        for identifier in identifiers {
            if tables.ledger { try db.execute(MigrationLedgerTable.delete(identifier)) }
            for table in tables.historyTables { try db.execute(MigrationHistoryTable.delete(identifier, from: table)) }
            if tables.downgrade { try db.execute(MigrationDowngradeTable.delete(identifier)) }
        }
    }

    /// A newer build's step an older build stepped back from its stored down: its ledger
    /// row deleted, as a rollback deletes it; its history kept, and its downgrade row
    /// marked, so the database still tells that it was applied once, and when it was
    /// stepped back.
    static func recordSteppedBack(_ identifier: String, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationLedgerTable.delete(identifier))
        try db.execute(MigrationDowngradeTable.markRolledBack(identifier))
    }
}

extension SQLQuerying {
    /// Whether a table of this name exists (names compare as SQLite compares them).
    func tableExists(_ name: String) throws -> Bool {
        try !textColumn(sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [name]).isEmpty
    }
}

/// An earlier version's history table (`migrationkit_history`), as a run of many
/// transactions moves it: in the first of them to commit, so that a run that writes
/// nothing moves nothing (an upgrade of MigrationKit does not rewrite every database),
/// and one that writes carries it along its first change. Looked for once per run.
struct LegacyHistory {
    private var pending: Bool

    /// Whether `db` has the table; a database that cannot be read has none to move (the
    /// run's own reads say why).
    package init(in db: some SQLQuerying) {
        pending = (try? MigrationBookkeeping.Tables(in: db).legacyHistory) ?? false
    }

    /// Moves it, inside the transaction about to run, until one has committed. (A
    /// transaction rolled back takes the move with it; the next one moves it again.)
    func moveIfPresent(in db: some BookkeepingExecuting) throws {
        if pending { try MigrationBookkeeping.moveLegacyHistory(in: db) }
    }

    /// A transaction that moved it committed.
    package mutating func committed() {
        pending = false
    }
}
