import Foundation

/// Another migration tool, whose record of what it applied to a database MigrationKit
/// reads to adopt that database (`OtherToolLedger`). A struct with static members, so a
/// new tool never breaks a caller's `switch`.
public struct OtherTool: Hashable, Sendable, CustomStringConvertible {
    /// The name `adopt --from` takes: `golang-migrate`, `dbmate`, `sqlx`, `diesel`,
    /// `goose`, `flyway`, `user-version`.
    public let name: String

    private init(_ name: String) {
        self.name = name
    }

    /// golang-migrate: `schema_migrations (version uint64, dirty bool)` with the unique
    /// index `version_unique`; one row, the latest version applied (every earlier one is
    /// applied too), `dirty = 1` after a migration that failed half way.
    public static let golangMigrate = OtherTool("golang-migrate")
    /// dbmate: `schema_migrations (version varchar(128) primary key)`, a row per applied
    /// version. Told from golang-migrate's table of the same name by its columns.
    public static let dbmate = OtherTool("dbmate")
    /// sqlx: `_sqlx_migrations`, a row per applied version with `success` and the
    /// SHA-384 of the migration's up file as `checksum`.
    public static let sqlx = OtherTool("sqlx")
    /// diesel: `__diesel_schema_migrations (version VARCHAR(50) PRIMARY KEY, run_on)`, a
    /// row per applied migration, its version the folder name's leading part without
    /// dashes.
    public static let diesel = OtherTool("diesel")
    /// goose: `goose_db_version (id, version_id, is_applied, tstamp)`, a row per up or
    /// down, the latest row of a version deciding; version 0 is goose's own first row.
    public static let goose = OtherTool("goose")
    /// Flyway: `flyway_schema_history`, a row per migration run (`success`), baseline
    /// (`BASELINE`) or undo, with the CRC32 of the script's lines as `checksum`.
    public static let flyway = OtherTool("flyway")
    /// An app's own ladder on `PRAGMA user_version`: N means the first N migrations of
    /// the folder, in its order, are applied.
    public static let userVersion = OtherTool("user-version")

    /// Every tool, in the order documentation lists them.
    package static let all: [OtherTool] = [.golangMigrate, .dbmate, .sqlx, .diesel, .goose, .flyway, .userVersion]

    /// The tool named `name` (as `adopt --from` takes it), or nil for an unknown name.
    package init?(name: String) {
        guard let tool = Self.all.first(where: { $0.name == name }) else { return nil }
        self = tool
    }

    public var description: String { name }

    /// The tool's name in a sentence: `golang-migrate`, `Flyway`, `a PRAGMA user_version ladder`.
    package var displayName: String {
        switch self {
        case .flyway: return "Flyway"
        case .userVersion: return "a `PRAGMA user_version` ladder"
        default: return name
        }
    }

    /// The tables the tool keeps its ledger in (none for `user_version`).
    package var ledgerTables: [String] {
        switch self {
        case .golangMigrate, .dbmate: return ["schema_migrations"]
        case .sqlx: return ["_sqlx_migrations"]
        case .diesel: return ["__diesel_schema_migrations"]
        case .goose: return ["goose_db_version"]
        case .flyway: return ["flyway_schema_history"]
        default: return []
        }
    }

    /// Every other tool's ledger table: another tool's bookkeeping, which schema dumps,
    /// drift and `diff` leave out as they leave out MigrationKit's own (`SchemaDump`).
    package static let ledgerTableNames: Set<String> = Set(all.flatMap(\.ledgerTables))
}

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
        /// A failed run (Flyway's or sqlx's `success = 0`).
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
    }

    /// One version the other tool recorded.
    package struct Record: Hashable, Sendable {
        /// The version as the tool wrote it (`3`, `20240101120000`, `1.2`).
        package let version: String
        /// Applied, dirty, failed, or a baseline.
        package let state: State
        /// The checksum the tool recorded (sqlx's, Flyway's); nil when it keeps none.
        package let checksum: RecordedChecksum?
        /// The script the tool names (Flyway's), for sentences; nil otherwise.
        package let script: String?
    }

    /// The tool that wrote it.
    public let tool: OtherTool
    /// Its records, in the order the tool applied them (golang-migrate's one row; for
    /// `user_version`, the number itself).
    package let records: [Record]
    /// Flyway's repeatable migrations (`R__x.sql`) it recorded, which MigrationKit does
    /// not run: what they made is compared with the rest of the schema.
    package let repeatables: [String]

    /// The latest version it records, as the tool writes it; nil when it records none.
    package var lastVersion: String? { records.last?.version }

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
            return OtherToolLedger(tool: tool, records: [Record(version: "\(version)", state: .applied, checksum: nil, script: nil)], repeatables: [])
        case .golangMigrate, .dbmate:
            // One name, two tools: golang-migrate's table has a `dirty` column.
            let columns = try columnNames(of: "schema_migrations", in: db)
            guard columns.contains("version") else { return nil }
            if tool == .golangMigrate {
                guard columns.contains("dirty") else { return nil }
                let rows = try db.textRows(sql: "SELECT version, dirty FROM main.schema_migrations")
                return OtherToolLedger(tool: tool, records: rows.map { row in
                    Record(version: row[0] ?? "", state: isTrue(row[1]) ? .dirty : .applied, checksum: nil, script: nil)
                }, repeatables: [])
            }
            guard columns == ["version"] else { return nil }
            return OtherToolLedger(tool: tool, records: try db.textColumn(sql: "SELECT version FROM main.schema_migrations ORDER BY version").map {
                Record(version: $0, state: .applied, checksum: nil, script: nil)
            }, repeatables: [])
        case .sqlx:
            guard try columnNames(of: "_sqlx_migrations", in: db).isSuperset(of: ["version", "success", "checksum"]) else { return nil }
            let rows = try db.textRows(sql: "SELECT version, success, lower(hex(checksum)) FROM main._sqlx_migrations ORDER BY version")
            return OtherToolLedger(tool: tool, records: rows.map { row in
                Record(version: row[0] ?? "", state: isTrue(row[1]) ? .applied : .failed, checksum: row[2].map { .sha384($0) }, script: nil)
            }, repeatables: [])
        case .diesel:
            guard try columnNames(of: "__diesel_schema_migrations", in: db).contains("version") else { return nil }
            return OtherToolLedger(tool: tool, records: try db.textColumn(sql: "SELECT version FROM main.__diesel_schema_migrations ORDER BY version").map {
                Record(version: $0, state: .applied, checksum: nil, script: nil)
            }, repeatables: [])
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
            return OtherToolLedger(tool: tool, records: applied.map { Record(version: $0, state: .applied, checksum: nil, script: nil) }, repeatables: [])
        case .flyway:
            guard try columnNames(of: "flyway_schema_history", in: db).isSuperset(of: ["version", "type", "script", "checksum", "success"]) else { return nil }
            return try readFlyway(in: db)
        default:
            return nil
        }
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
            let state: State = type.contains("BASELINE") ? .baseline : (isTrue(row[4]) ? .applied : .failed)
            records.append(Record(version: version, state: state, checksum: row[3].flatMap { Int32($0) }.map { .crc32($0) }, script: script))
        }
        return OtherToolLedger(tool: .flyway, records: records, repeatables: repeatables)
    }

    /// The columns of `table` in the main database, lowercased; empty when there is no
    /// such table. (`PRAGMA table_info`, which SQLite 3.15 has as a statement only.)
    private static func columnNames(of table: String, in db: some SQLQuerying) throws -> Set<String> {
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

/// Flyway's checksum of a migration script: the CRC32 (IEEE, as `java.util.zip.CRC32`)
/// of the UTF-8 bytes of its lines, one after another without their line endings (`\n`,
/// `\r\n` or `\r`, as Java's `BufferedReader.readLine` splits them), a byte-order mark at
/// the start of the first line left out, taken as Java's signed `int`. So line endings
/// and blank lines change nothing, any other byte does.
package enum FlywayChecksum {
    /// The checksum of a script whose bytes are `bytes`.
    package static func of(_ bytes: [UInt8]) -> Int32 {
        var crc: UInt32 = 0xFFFF_FFFF
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { continue }
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return Int32(bitPattern: crc ^ 0xFFFF_FFFF)
    }

    /// The CRC32 lookup table of the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { value -> UInt32 in
        var entry = UInt32(value)
        for _ in 0..<8 { entry = entry & 1 == 1 ? 0xEDB8_8320 ^ (entry >> 1) : entry >> 1 }
        return entry
    }
}
