/// What the linter knows about the database the migrations will run against.
///
/// The engine module fills it from a real connection (the SQLite version behind
/// SQLCipher, row counts, view definitions); without a database the linter still
/// checks everything that does not depend on data, and says when it could not tell.
package struct LintContext: Sendable {
    /// The SQLite version the migrations are judged against: the linked library's
    /// (3.15.2 for SQLCipher 3.4.1), or the older one `--min-sqlite` names.
    package var sqliteVersion: SQLiteVersion
    /// The newest SQLite the migrations will meet: the linked one, still, when
    /// `--min-sqlite` judges against an older one too. A rule whose risk differs by
    /// version checks both ends.
    var newestSQLiteVersion: SQLiteVersion
    /// How messages name the library, e.g. "SQLCipher 3.4.1 (SQLite 3.15.2)".
    var libraryDescription: String
    /// The library's `PRAGMA compile_options` (`ENABLE_FTS5`, …), which decide the
    /// features a build may lack; nil when unknown, as for `--min-sqlite`, where the
    /// SQLite the migrations will meet is not this one.
    package var compileOptions: Set<String>? = nil
    /// Rows in a table of the target database, given the table's name as written in
    /// the migration (unquoted; SQLite matches names case-insensitively). Nil when
    /// unknown because no database was given; a database without the table answers 0.
    var rowCount: @Sendable (String) -> Int?
    /// Names of the target database's views whose SQL references a table, given the
    /// table's name as written in the migration (unquoted).
    var viewsReferencing: @Sendable (String) -> [String]
    /// The linked SQLite's parser, for the `syntax-error` rule; nil when no SQLite is at
    /// hand, and the rule stays quiet.
    package var parser: (any SQLParsing)? = nil
    /// What the target database's schema uses that only its app registers and the
    /// connection lacks (its tokenizer, functions, collations): empty when no database
    /// was given, or when every piece is there (the app's extension loaded).
    var appExtensions = AppExtensionInventory()

    /// A context for a real database: its SQLite version, how messages name its library,
    /// and how to look up row counts and the views that reference a table.
    /// `newestSQLiteVersion` starts as `sqliteVersion`.
    package init(sqliteVersion: SQLiteVersion,
                libraryDescription: String,
                rowCount: @escaping @Sendable (String) -> Int?,
                viewsReferencing: @escaping @Sendable (String) -> [String]) {
        self.sqliteVersion = sqliteVersion
        self.newestSQLiteVersion = sqliteVersion
        self.libraryDescription = libraryDescription
        self.rowCount = rowCount
        self.viewsReferencing = viewsReferencing
    }

    /// The same context judged against an older SQLite the migrations must also run on
    /// (`--min-sqlite`): its version, and its build unknown.
    package func judgedAgainst(minimum: SQLiteVersion) -> LintContext {
        guard minimum < sqliteVersion else { return self }
        var older = self
        older.sqliteVersion = minimum
        older.libraryDescription = "SQLite \(minimum) (the oldest the migrations must run on; the linked one is \(libraryDescription))"
        older.compileOptions = nil
        return older
    }

    /// No database to look at: row counts are unknown and no views are known.
    package init(sqliteVersion: SQLiteVersion, libraryDescription: String? = nil) {
        self.init(sqliteVersion: sqliteVersion,
                  libraryDescription: libraryDescription ?? "SQLite \(sqliteVersion)",
                  rowCount: { _ in nil },
                  viewsReferencing: { _ in [] })
    }
}

/// SQLite reading statements without running them, for the `syntax-error` rule.
package protocol SQLParsing: AnyObject, Sendable {
    /// Nil when `statement` parses (or fails only for a name it cannot find, which is
    /// not a syntax error), else what SQLite could not read and where.
    func problem(of statement: String) -> SQLParseProblem?
}

/// Text SQLite cannot parse: its message ("near "FROMM": syntax error") and the UTF-8
/// offset in the statement of the token where it stopped, when known.
package struct SQLParseProblem: Hashable, Sendable {
    /// What SQLite said, e.g. "near "FROMM": syntax error".
    package let message: String
    /// The UTF-8 offset in the statement of the token where SQLite stopped, or nil when
    /// unknown.
    package let offset: Int?

    /// A problem from SQLite's message and offset.
    package init(message: String, offset: Int?) {
        self.message = message
        self.offset = offset
    }
}
