import Foundation

/// Another migration tool, whose record of what it applied to a database MigrationKit
/// reads to adopt that database (`OtherToolLedger`). A struct with static members, so a
/// new tool never breaks a caller's `switch`.
public struct OtherTool: Hashable, Sendable, CustomStringConvertible {
    /// The name `adopt --from` takes: `golang-migrate`, `dbmate`, `sqlx`, `diesel`,
    /// `goose`, `flyway`, `prisma`, `drizzle`, `refinery`, `d1`, `sql-migrate`,
    /// `liquibase`, `atlas`, `yoyo`, `user-version`.
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
    /// (`BASELINE`) or undo, with the CRC32 of the script's lines as `checksum`; a
    /// Java or Kotlin migration's row has the type `JDBC`.
    public static let flyway = OtherTool("flyway")
    /// Prisma: `_prisma_migrations`, a row per attempt at a migration folder
    /// (`migration_name`) with the SHA-256 of its `migration.sql` as `checksum`; a row
    /// with `finished_at` is applied, one with `rolled_back_at` does not count, one with
    /// neither failed.
    public static let prisma = OtherTool("prisma")
    /// Drizzle: `__drizzle_migrations (id, hash, created_at)`, a row per applied journal
    /// entry, `created_at` the entry's `when`.
    public static let drizzle = OtherTool("drizzle")
    /// refinery: `refinery_schema_history (version, name, applied_on, checksum)`, a row
    /// per applied version with refinery's SipHash of the file as `checksum`.
    public static let refinery = OtherTool("refinery")
    /// Cloudflare D1 (wrangler): `d1_migrations (id, name, applied_at)`, a row per applied
    /// file, by its name.
    public static let d1 = OtherTool("d1")
    /// sql-migrate: `gorp_migrations (id, applied_at)`, a row per applied file, by its name.
    public static let sqlMigrate = OtherTool("sql-migrate")
    /// An app's own ladder on `PRAGMA user_version`: N means the first N migrations of
    /// the folder, in its order, are applied.
    public static let userVersion = OtherTool("user-version")

    /// yoyo: `_yoyo_migration (migration_hash, migration_id, applied_at_utc)`, a row per
    /// applied migration, keyed by the SHA-256 of its id (its file's name without the
    /// suffix); with its log, version and lock tables beside it.
    public static let yoyo = OtherTool("yoyo")
    /// Atlas: `atlas_schema_revisions (version, description, type, applied, total,
    /// executed_at, execution_time, error, error_stmt, hash, partial_hashes,
    /// operator_version)`, a row per file run (or a baseline), `applied` of its `total`
    /// statements.
    public static let atlas = OtherTool("atlas")
    /// Liquibase: `DATABASECHANGELOG (ID, AUTHOR, FILENAME, DATEEXECUTED, ORDEREXECUTED,
    /// EXECTYPE, MD5SUM, …)`, a row per changeset run (or marked ran), with its checksum
    /// as `9:` and an MD5 (`LiquibaseChangelog.checksum(ofSQL:)`); with
    /// `DATABASECHANGELOGLOCK` beside it.
    public static let liquibase = OtherTool("liquibase")

    /// Every tool whose ledger `adopt` reads, in the order documentation lists them.
    package static let all: [OtherTool] = [.golangMigrate, .dbmate, .sqlx, .diesel, .goose, .flyway,
                                           .prisma, .drizzle, .refinery, .d1, .sqlMigrate, .liquibase, .atlas, .yoyo, .userVersion]

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
        case .prisma: return "Prisma"
        case .drizzle: return "Drizzle"
        case .d1: return "Cloudflare D1 (wrangler)"
        case .atlas: return "Atlas"
        case .liquibase: return "Liquibase"
        case .userVersion: return "a `PRAGMA user_version` ladder"
        default: return name
        }
    }

    /// The tables the tool keeps its ledger in (none for `user_version`): the one `adopt`
    /// reads first, then its other bookkeeping (yoyo's log and lock, Liquibase's lock).
    package var ledgerTables: [String] {
        switch self {
        case .golangMigrate, .dbmate: return ["schema_migrations"]
        case .sqlx: return ["_sqlx_migrations"]
        case .diesel: return ["__diesel_schema_migrations"]
        case .goose: return ["goose_db_version"]
        case .flyway: return ["flyway_schema_history"]
        case .prisma: return ["_prisma_migrations"]
        case .drizzle: return ["__drizzle_migrations"]
        case .refinery: return ["refinery_schema_history"]
        case .d1: return ["d1_migrations"]
        case .sqlMigrate: return ["gorp_migrations"]
        case .yoyo: return ["_yoyo_migration", "_yoyo_log", "_yoyo_version", "yoyo_lock"]
        case .atlas: return ["atlas_schema_revisions"]
        case .liquibase: return ["DATABASECHANGELOG", "DATABASECHANGELOGLOCK"]
        default: return []
        }
    }

    /// Every known tool's ledger table, lowercased: another tool's bookkeeping, which
    /// schema dumps, drift, `diff` and `baseline`'s proof leave out as they leave out
    /// MigrationKit's own (`SchemaDump`).
    static let ledgerTableNames: Set<String> = Set(all.flatMap(\.ledgerTables).map { $0.lowercased() })

    /// Whether a table's name looks like a migration tool's ledger (`schema_migrations`,
    /// `__migrations`, `schema_version`, a `…changelog`), whatever its shape: what
    /// `adopt` and `migrate` name when no ledger they read is there, so that a ledger of a
    /// shape they do not know is never taken for the app's own table in silence.
    static func looksLikeLedger(_ table: String) -> Bool {
        let name = table.lowercased()
        return ledgerTableNames.contains(name)
            || ["migration", "schema_version", "schema_history", "schema_revision", "changelog", "db_version"].contains { name.contains($0) }
    }
}
