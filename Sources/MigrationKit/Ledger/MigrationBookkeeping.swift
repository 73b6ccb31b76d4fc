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

    package static func insert(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(identifier)])
    }

    package static func delete(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("DELETE FROM grdb_migrations WHERE identifier = ?", [.text(identifier)])
    }
}

extension MigrationHistoryTable {
    package static let create = BookkeepingStatement(createSQL)

    package static let selectSQL = "SELECT identifier, checksum, applied_at, duration_ms FROM migrationkit_history"

    /// The row of a step just applied: its checksum, now, and how long it took.
    package static func record(_ identifier: String, checksum: String?, duration: Duration) -> BookkeepingStatement {
        BookkeepingStatement(
            """
            INSERT OR REPLACE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
            VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)
            """,
            [.text(identifier), checksum.map { .text($0) } ?? .null, .integer(duration.wholeMilliseconds)])
    }

    /// The checksum of a step applied without one recorded (by GRDB, or an older
    /// MigrationKit), or deliberately accepted after an edit; the rest of its row kept.
    /// INSERT OR IGNORE, then UPDATE: SQLite 3.15 has no UPSERT.
    package static func setChecksum(_ checksum: String, for identifier: String) -> [BookkeepingStatement] {
        [BookkeepingStatement(
            """
            INSERT OR IGNORE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms)
            VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0)
            """,
            [.text(identifier), .text(checksum)]),
         BookkeepingStatement("UPDATE migrationkit_history SET checksum = ? WHERE identifier = ?", [.text(checksum), .text(identifier)])]
    }

    package static func delete(_ identifier: String) -> BookkeepingStatement {
        BookkeepingStatement("DELETE FROM migrationkit_history WHERE identifier = ?", [.text(identifier)])
    }

    /// A history row with every value given, for `RunHistory`: the time its step was
    /// applied, in milliseconds since 1970 (UTC), and how long it took.
    package struct Row: Sendable {
        package let identifier: String
        package let checksum: String?
        package let unixMilliseconds: Int64
        package let duration: Duration
    }

    /// The most rows in one statement: four values each, within the 999 values a
    /// statement may bind on SQLite before 3.32 (SQLCipher 3.4.1's 3.15.2).
    private static let rowsPerStatement = 240

    /// `rows`, written (or rewritten) in as few statements as SQLite allows.
    package static func record(_ rows: [Row]) -> [BookkeepingStatement] {
        stride(from: 0, to: rows.count, by: rowsPerStatement).map { start in
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            let values = Array(repeating: "(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0, 'unixepoch'), ?)", count: chunk.count)
            return BookkeepingStatement(
                "INSERT OR REPLACE INTO migrationkit_history (identifier, checksum, applied_at, duration_ms) VALUES " + values.joined(separator: ", "),
                chunk.flatMap { row -> [BookkeepingValue] in
                    [.text(row.identifier), row.checksum.map { .text($0) } ?? .null, .integer(row.unixMilliseconds), .integer(row.duration.wholeMilliseconds)]
                })
        }
    }

    /// The rows of steps written ahead (`RunHistory`) that their run did not apply,
    /// except those the ledger has: another process applied them meanwhile, and the row
    /// holds the checksum of the same file.
    package static func deleteUnapplied(_ identifiers: [String]) -> [BookkeepingStatement] {
        stride(from: 0, to: identifiers.count, by: rowsPerStatement).map { start in
            let chunk = identifiers[start..<min(start + rowsPerStatement, identifiers.count)]
            return BookkeepingStatement(
                "DELETE FROM migrationkit_history WHERE identifier IN (" + Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    + ") AND identifier NOT IN (SELECT identifier FROM grdb_migrations)",
                chunk.map { .text($0) })
        }
    }
}

/// Every change the runners make to the ledger and the history, in one place: what a
/// step's application records, what a merge rewrites, what a rollback forgets.
package enum MigrationBookkeeping {
    /// The ledger's identifiers and the recorded checksums.
    package static func snapshot(in db: some SQLQuerying) throws -> LedgerSnapshot {
        let identifiers = try db.tableExists(MigrationLedgerTable.name) ? try db.textColumn(sql: MigrationLedgerTable.selectIdentifiersSQL) : []
        var checksums: [String: String] = [:]
        if try db.tableExists(MigrationHistoryTable.name) {
            try db.forEachTextRow(sql: "SELECT identifier, checksum FROM migrationkit_history WHERE checksum IS NOT NULL", arguments: []) { row in
                if let identifier = row[0], let checksum = row[1] { checksums[identifier] = checksum }
            }
        }
        return LedgerSnapshot(identifiers: identifiers, checksums: checksums)
    }

    /// A step applied: its ledger row and its history row.
    package static func recordApplied(_ identifier: String, checksum: String?, duration: Duration, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationLedgerTable.create)
        try db.execute(MigrationLedgerTable.insert(identifier))
        try recordHistory(identifier, checksum: checksum, duration: duration, in: db)
    }

    /// A step's history row alone (GRDB's migrator writes the ledger row itself).
    package static func recordHistory(_ identifier: String, checksum: String?, duration: Duration, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationHistoryTable.create)
        try db.execute(MigrationHistoryTable.record(identifier, checksum: checksum, duration: duration))
    }

    /// A squash whose replaced steps were all applied: the ledger says so in one row.
    package static func recordMerge(_ merge: LedgerMerge, in db: some BookkeepingExecuting) throws {
        try forget(merge.replaces, in: db)
        try db.execute(MigrationLedgerTable.create)
        try db.execute(MigrationLedgerTable.insert(merge.identifier))
    }

    package static func setChecksum(_ checksum: String, for identifier: String, in db: some BookkeepingExecuting) throws {
        try db.execute(MigrationHistoryTable.create)
        for statement in MigrationHistoryTable.setChecksum(checksum, for: identifier) { try db.execute(statement) }
    }

    /// The ledger and history rows of `identifiers`, deleted: what a rolled-back step
    /// leaves (`RollbackPlan.Step.forgets`).
    package static func forget(_ identifiers: [String], in db: some BookkeepingExecuting) throws {
        let ledger = try db.tableExists(MigrationLedgerTable.name)
        let history = try db.tableExists(MigrationHistoryTable.name)
        for identifier in identifiers {
            if ledger { try db.execute(MigrationLedgerTable.delete(identifier)) }
            if history { try db.execute(MigrationHistoryTable.delete(identifier)) }
        }
    }
}

extension SQLQuerying {
    /// Whether a table of this name exists (names compare as SQLite compares them).
    package func tableExists(_ name: String) throws -> Bool {
        try !textColumn(sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [name]).isEmpty
    }
}
