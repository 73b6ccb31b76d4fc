/// The layout a migrations folder is written in: how its files are named, which of their
/// lines split up from down SQL, and the order they apply in. A team that wrote its
/// migrations for another tool keeps them as they are; MigrationKit reads them in that
/// tool's layout, detected from the files (`SQLMigrationDirectory`) or named
/// (`--layout`, `migrations-layout`).
///
/// Every layout records a migration under its file's name without the suffix (a diesel
/// migration under its folder's name), and runs every step in its own transaction.
/// A struct with static members, so a new layout never breaks a caller's `switch`.
public struct MigrationFolderLayout: Hashable, Sendable, CustomStringConvertible {
    /// The name `--layout` and `migrations-layout` take, and `status` shows: `migrationkit`,
    /// `sqlx`, `golang-migrate`, `goose`, `flyway`, `diesel`, `prisma`, `drizzle`, `refinery`,
    /// `sql-migrate`, `sqldelight`, `liquibase`, `atlas`, `yoyo`.
    package let name: String

    private init(_ name: String) {
        self.name = name
    }

    /// MigrationKit's own, which is dbmate's: `NAME.sql` with `-- migrate:up` and an
    /// optional `-- migrate:down` line, or `NAME.up.sql` with an optional `NAME.down.sql`,
    /// mixed as you like; applied in byte-wise order of their names.
    package static let migrationKit = MigrationFolderLayout("migrationkit")
    /// sqlx's: `VERSION_DESCRIPTION.sql` (up only), or `VERSION_DESCRIPTION.up.sql` with
    /// `.down.sql`; applied in order of the version number.
    package static let sqlx = MigrationFolderLayout("sqlx")
    /// golang-migrate's: `VERSION_TITLE.up.sql` and `VERSION_TITLE.down.sql`, paired and
    /// applied in order of the version number.
    package static let golangMigrate = MigrationFolderLayout("golang-migrate")
    /// goose's: `VERSION_NAME.sql` with `-- +goose Up` and an optional `-- +goose Down`
    /// line; applied in order of the version number.
    package static let goose = MigrationFolderLayout("goose")
    /// Flyway's: `V<version>__<description>.sql`, with `U<version>__<description>.sql` as
    /// its undo; applied in order of the version, compared part by part (`1.2.10` after
    /// `1.2.9`).
    package static let flyway = MigrationFolderLayout("flyway")
    /// diesel's: a folder `VERSION_NAME` holding `up.sql` and `down.sql`; applied in
    /// order of the version (the name before its first `_`, without dashes), as diesel
    /// compares it: byte-wise.
    package static let diesel = MigrationFolderLayout("diesel")
    /// Prisma's: a folder `TIMESTAMP_NAME` holding `migration.sql` (and, where the team
    /// wrote one as Prisma's documentation shows, `down.sql`), beside
    /// `migration_lock.toml`; applied in byte-wise order of the folders' names, as Prisma
    /// lists them. A migration is recorded under its folder's name, which is what Prisma
    /// records.
    package static let prisma = MigrationFolderLayout("prisma")
    /// Drizzle's: `TAG.sql` files listed, in order, by `meta/_journal.json`, each entry's
    /// `when` (milliseconds) its version, what Drizzle records; a file's statements are
    /// separated by `--> statement-breakpoint` lines, which are SQL comments. Applied in
    /// the journal's order.
    package static let drizzle = MigrationFolderLayout("drizzle")
    /// refinery's: `V<version>__<name>.sql` and `U<version>__<name>.sql`, both up SQL
    /// (refinery's `U` is an unversioned migration, which it also applies out of order,
    /// not an undo), with whole-number versions; applied in order of the version.
    package static let refinery = MigrationFolderLayout("refinery")
    /// sql-migrate's: `NAME.sql` with `-- +migrate Up` and an optional `-- +migrate Down`
    /// line; applied in order of the number a name starts with (numbered names first),
    /// then by name, as sql-migrate sorts them. Recorded under the name without `.sql`
    /// (sql-migrate records the file's name).
    static let sqlMigrate = MigrationFolderLayout("sql-migrate")
    /// SQLDelight's: `N.sqm` files, each taking the schema from version `N` to `N + 1`
    /// (SQLDelight's `Schema.migrate` runs the file whose number is at least the
    /// database's `user_version` and below the new one), up SQL only; a name's number is
    /// its first run of digits, as SQLDelight reads it (`1.sqm`, `v2_add_x.sqm`). Applied in
    /// order of that number.
    package static let sqlDelight = MigrationFolderLayout("sqldelight")
    /// Liquibase's formatted SQL: `.sql` changelogs starting `--liquibase formatted sql`,
    /// each `--changeset author:id` in them a migration (with its `--rollback` lines as
    /// down SQL), recorded as `FILE::ID::AUTHOR`; applied as a master changelog's
    /// `includeAll` applies the folder: the files in byte-wise order of their names, each
    /// one's changesets in its order (`LiquibaseChangelog`).
    package static let liquibase = MigrationFolderLayout("liquibase")
    /// Atlas's: `VERSION_DESCRIPTION.sql` files (up only) beside `atlas.sum`, which sums them
    /// (`AtlasDirectory`) and must match, as Atlas refuses a folder it does not; applied in
    /// byte-wise order of their names, as Atlas lists them.
    package static let atlas = MigrationFolderLayout("atlas")
    /// yoyo's SQL migrations: `ID.sql` files with their `ID.rollback.sql`, ordered by their
    /// `-- depends:` lines, and among those ready, by name (`YoyoMigrations`); recorded
    /// under `ID`, as yoyo records it.
    package static let yoyo = MigrationFolderLayout("yoyo")

    /// Every layout, in the order documentation lists them.
    package static let all: [MigrationFolderLayout] = [.migrationKit, .sqlx, .golangMigrate, .goose, .flyway, .diesel, .prisma, .drizzle, .refinery, .sqlMigrate,
                                                         .sqlDelight, .liquibase, .atlas, .yoyo]

    /// The layout named `name` (as `--layout` takes it; `dbmate` is MigrationKit's own,
    /// whose files are dbmate's), or nil for an unknown name.
    public init?(name: String) {
        if name == "dbmate" {
            self = .migrationKit
            return
        }
        guard let layout = Self.all.first(where: { $0.name == name }) else { return nil }
        self = layout
    }

    public var description: String { name }

    /// Every name `init(name:)` takes, for a sentence listing them.
    package static let acceptedNames = all.map(\.name) + ["dbmate"]

    /// Whether an up section without a statement (blank, or comments alone) is a step
    /// that changes nothing: in diesel's layout, whose generated `up.sql` (`-- Your SQL
    /// goes here`, the initial setup's comments) diesel runs so. Every other layout
    /// refuses it as a file not written yet, which `new` leaves it as: a file applied
    /// empty and filled in afterwards would be refused as edited everywhere it ran.
    var upMayHoldNoStatement: Bool { self == .diesel }

    /// The other layouts whose files are these very files, read the same way, which the
    /// files alone cannot tell apart: golang-migrate's `.up.sql`/`.down.sql` pairs are
    /// sqlx's reversible migrations; a folder of Flyway's `V` files alone is refinery's.
    /// Which tool wrote them is the database's ledger to say (`status` names it).
    package var sameFiles: [MigrationFolderLayout] {
        switch self {
        case .golangMigrate: return [.sqlx]
        case .sqlx: return [.golangMigrate]
        case .flyway: return [.refinery]
        case .refinery: return [.flyway]
        default: return []
        }
    }

    /// The tool's own name in a sentence: `golang-migrate's`, `MigrationKit's (dbmate's)`.
    var possessive: String {
        switch self {
        case .migrationKit: return "MigrationKit's (dbmate's)"
        case .sqlx: return "sqlx's"
        case .golangMigrate: return "golang-migrate's"
        case .goose: return "goose's"
        case .flyway: return "Flyway's"
        case .diesel: return "diesel's"
        case .prisma: return "Prisma's"
        case .drizzle: return "Drizzle's"
        case .sqlDelight: return "SQLDelight's"
        case .liquibase: return "Liquibase's"
        case .atlas: return "Atlas's"
        case .yoyo: return "yoyo's"
        default: return "\(name)'s"
        }
    }

    /// How the layout names its migrations, for a sentence about a name it does not take.
    var namingInWords: String {
        switch self {
        case .sqlx: return "VERSION_DESCRIPTION.sql, or VERSION_DESCRIPTION.up.sql and .down.sql"
        case .golangMigrate: return "VERSION_TITLE.up.sql and VERSION_TITLE.down.sql"
        case .goose: return "VERSION_NAME.sql"
        case .flyway: return "V<version>__<description>.sql, with U<version>__<description>.sql as its undo"
        case .diesel: return "a folder VERSION_NAME holding up.sql and down.sql"
        case .prisma: return "a folder TIMESTAMP_NAME holding migration.sql"
        case .drizzle: return "TAG.sql files listed by meta/_journal.json"
        case .refinery: return "V<version>__<name>.sql or U<version>__<name>.sql, the version a whole number"
        case .sqlMigrate: return "NAME.sql with `-- +migrate Up` and `-- +migrate Down` sections"
        case .sqlDelight: return "N.sqm, taking the schema from version N to N + 1"
        case .liquibase: return "formatted SQL changelogs, starting `--liquibase formatted sql`, cut into changesets by `--changeset author:id` lines"
        case .atlas: return "VERSION_DESCRIPTION.sql, summed by atlas.sum"
        case .yoyo: return "ID.sql with its `-- depends:` lines, and ID.rollback.sql"
        default: return "NAME.sql with `-- migrate:up` and `-- migrate:down` sections, or NAME.up.sql and NAME.down.sql"
        }
    }
}
