/// A run of SQL from a migration file, with where it starts so errors can say `file:line`.
public struct SQLSection: Hashable, Sendable {
    /// The SQL text.
    public let sql: String
    /// The file it came from.
    public let path: String
    /// 1-based line in `path` of the section's first line of SQL.
    public let startLine: Int

    /// A section of `sql` that starts at line `startLine` of `path`.
    public init(sql: String, path: String, startLine: Int) {
        self.sql = sql
        self.path = path
        self.startLine = startLine
    }

    /// The file line of a line inside `sql` (both 1-based).
    public func fileLine(forSectionLine line: Int) -> Int {
        startLine + line - 1
    }

    /// Whether the section holds at least one statement; blanks, comments and `;`
    /// alone are no SQL to run. The one test of whether an up or a down section is
    /// there at all.
    public var holdsStatement: Bool {
        SQLStatementSplitter.holdsStatement(sql)
    }
}

/// One migration loaded from a migrations folder, in either form:
/// - `0003_add_genre.up.sql` (+ optional `0003_add_genre.down.sql`), golang-migrate/sqlx style;
/// - `0003_add_genre.sql` with `-- migrate:up` and optional `-- migrate:down`, dbmate style.
public struct SQLMigrationFile: Hashable, Sendable {
    /// Which of the two layouts a migration was written in.
    public enum Form: String, Hashable, Sendable {
        /// `.up.sql` with an optional `.down.sql`.
        case upDownFiles
        /// One `.sql` file with `-- migrate:up` / `-- migrate:down` sections.
        case sections
    }

    /// The file name without its suffix: the ledger identifier.
    public let identifier: String
    /// The layout the migration was written in.
    public let form: Form
    /// The SQL that applies the migration.
    public let up: SQLSection
    /// The SQL that undoes it, or nil when the migration has none. A down section or
    /// file that holds no statement (blank, or comments alone, as diesel's generated
    /// `down.sql` and an unfilled `new` template are) is none: nil here, and kept as
    /// `emptyDown`. A migration with nothing to undo says so with a statement that
    /// changes nothing, such as `SELECT 1;`.
    public let down: SQLSection?
    /// The down section or file as written when it holds no statement, so that what
    /// reports the missing down can point at it; nil otherwise.
    public let emptyDown: SQLSection?
    /// Identifiers this migration replaces (`-- migrate:merging A B`).
    public let merging: [String]
    /// Tables whose row counts this migration changes on purpose
    /// (`-- migrate:row-changes T U`), so `check --from-database` expects it.
    public let rowChanges: [String]
    /// The lines above `-- migrate:up` in a single file, which run nothing but may hold
    /// comments lint reads (`-- migrationkit:nolint-file`); nil when there are none, or
    /// when the up SQL is the whole file.
    public let header: SQLSection?

    /// A migration from its parts; `SQLMigrationDirectory` makes them from files. A
    /// `down` that holds no statement becomes `emptyDown`, and `down` nil.
    public init(identifier: String, form: Form, up: SQLSection, down: SQLSection?, merging: [String] = [], rowChanges: [String] = [],
                header: SQLSection? = nil) {
        self.identifier = identifier
        self.form = form
        self.up = up
        let holdsStatement = down?.holdsStatement ?? false
        self.down = holdsStatement ? down : nil
        self.emptyDown = holdsStatement ? nil : down
        self.merging = merging
        self.rowChanges = rowChanges
        self.header = header
    }

    /// The file that holds the up SQL.
    public var path: String { up.path }
}
