/// A run of SQL from a migration file, with where it starts so errors can say `file:line`.
public struct SQLSection: Hashable, Sendable {
    /// The SQL text.
    package let sql: String
    /// The file it came from.
    package let path: String
    /// 1-based line in `path` of the section's first line of SQL.
    package let startLine: Int
    /// The transaction the file wrapped these statements in itself, left out of `sql`
    /// (`OwnTransaction`); nil when it wrapped them in none.
    let ownTransaction: OwnTransaction?

    /// A section of `sql` that starts at line `startLine` of `path`; `ownTransaction`
    /// when the statements that wrapped it in a transaction of its own were left out.
    package init(sql: String, path: String, startLine: Int, ownTransaction: OwnTransaction? = nil) {
        self.sql = sql
        self.path = path
        self.startLine = startLine
        self.ownTransaction = ownTransaction
    }

    /// The file line of a line inside `sql` (both 1-based).
    package func fileLine(forSectionLine line: Int) -> Int {
        startLine + line - 1
    }

    /// Whether the section holds at least one statement; blanks, comments and `;`
    /// alone are no SQL to run. The one test of whether an up or a down section is
    /// there at all.
    var holdsStatement: Bool {
        SQLStatementSplitter.holdsStatement(sql)
    }
}

/// A line of a migration file.
package struct SQLFileLine: Hashable, Sendable {
    /// The file.
    package let path: String
    /// 1-based line in it.
    package let line: Int

    /// Line `line` of `path`.
    package init(path: String, line: Int) {
        self.path = path
        self.line = line
    }
}

/// One migration loaded from a migrations folder, in the folder's layout
/// (`MigrationFolderLayout`), in one of two forms:
/// - its up SQL in a file of its own, with its down SQL (when it has one) in another:
///   `0003_add_genre.up.sql` and `0003_add_genre.down.sql` (golang-migrate, sqlx, and
///   MigrationKit's own), sqlx's up-only `0003_add_genre.sql`, Flyway's `V3__add_genre.sql`
///   and `U3__add_genre.sql`, diesel's `0003_add_genre/up.sql` and `down.sql`;
/// - one file with an up section and an optional down section: `0003_add_genre.sql` with
///   `-- migrate:up` and `-- migrate:down` (dbmate, and MigrationKit's own), or with
///   `-- +goose Up` and `-- +goose Down` (goose).
public struct SQLMigrationFile: Hashable, Sendable {
    /// Which of the two forms a migration was written in.
    package enum Form: String, Hashable, Sendable {
        /// Up SQL in a file of its own (`.up.sql`, sqlx's up-only `.sql`, Flyway's `V`
        /// file, diesel's `up.sql`), with an optional down file.
        case upDownFiles
        /// One `.sql` file with an up section and an optional down section
        /// (`-- migrate:up`/`-- migrate:down`, or goose's `-- +goose Up`/`Down`).
        case sections
    }

    /// The file name without its suffix (a diesel migration's folder name): the ledger
    /// identifier.
    package let identifier: String
    /// The form the migration was written in.
    let form: Form
    /// The layout of the folder it was read from: with `version`, what a tool that reads
    /// another tool's ledger maps that tool's recorded versions by.
    public let layout: MigrationFolderLayout
    /// Its version, as its layout reads it from the name (`MigrationVersion`); nil in
    /// MigrationKit's own layout for a name that does not start with a number.
    public let version: MigrationVersion?
    /// Where the file asks to run outside a transaction (goose's
    /// `-- +goose NO TRANSACTION`, diesel's `run_in_transaction = false`, sqlx's
    /// `-- no-transaction`, dbmate's `transaction:false`), which the
    /// runner does not do: every step runs in its own transaction. Nil when it does not ask.
    let noTransactionRequest: SQLFileLine?
    /// The SQL that applies the migration.
    let up: SQLSection
    /// The SQL that undoes it, or nil when the migration has none. A down section or
    /// file that holds no statement (blank, or comments alone, as diesel's generated
    /// `down.sql` and an unfilled `new` template are) is none: nil here, and kept as
    /// `emptyDown`. A migration with nothing to undo says so with a statement that
    /// changes nothing, such as `SELECT 1;`.
    let down: SQLSection?
    /// The down section or file as written when it holds no statement, so that what
    /// reports the missing down can point at it; nil otherwise.
    let emptyDown: SQLSection?
    /// Identifiers this migration replaces (`-- migrate:merging A B`).
    let merging: [String]
    /// Tables whose row counts this migration changes on purpose
    /// (`-- migrate:row-changes T U`), so `check --from-database` expects it.
    package let rowChanges: [String]
    /// Whether builds that do not know this migration may keep using a database it was
    /// applied to (`-- migrate:compatible [from ID]`); nil when not declared.
    package let compatibility: MigrationCompatibility?
    /// The lines above `-- migrate:up` in a single file, which run nothing but may hold
    /// comments lint reads (`-- migrationkit:nolint-file`); nil when there are none, or
    /// when the up SQL is the whole file.
    package let header: SQLSection?
    /// The up SQL as written when `up` is it with Flyway's placeholders replaced
    /// (`FlywayPlaceholders`): what the migration's checksum is of, so that a value
    /// changed edits no migration; nil when nothing was replaced.
    let writtenUp: SQLSection?

    /// A migration from its parts; `SQLMigrationDirectory` makes them from files. A
    /// `down` that holds no statement becomes `emptyDown`, and `down` nil.
    package init(identifier: String, form: Form, up: SQLSection, down: SQLSection?, merging: [String] = [], rowChanges: [String] = [],
                compatibility: MigrationCompatibility? = nil, layout: MigrationFolderLayout = .migrationKit, version: MigrationVersion? = nil, noTransactionRequest: SQLFileLine? = nil,
                header: SQLSection? = nil, writtenUp: SQLSection? = nil) {
        self.identifier = identifier
        self.form = form
        self.layout = layout
        self.version = version
        self.noTransactionRequest = noTransactionRequest
        self.up = up
        let holdsStatement = down?.holdsStatement ?? false
        self.down = holdsStatement ? down : nil
        self.emptyDown = holdsStatement ? nil : down
        self.merging = merging
        self.rowChanges = rowChanges
        self.compatibility = compatibility
        self.header = header
        self.writtenUp = writtenUp
    }

    /// The file that holds the up SQL.
    package var path: String { up.path }
}
