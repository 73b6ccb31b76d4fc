import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// One name, quoted or not: a column named by a keyword SQLite reads bare as a name
/// (`query`, `key`, `action`, `filter`, `row`, `temp`) is the same column whether a
/// statement wrote it bare, `"query"`, `[key]`, `` `action` `` or `'filter'`. Drift,
/// `check`'s round trips, `diff --to` and `migrate --erase-on-schema-change` all see
/// the same schema; and a type keeps SQLite's own spelling (`VARCHAR(255)`), in the
/// dump and in the table a rebuild makes from it.
@Suite struct KeywordNameTests {
    /// The app's schema, its keyword-named columns quoted every way SQLite takes.
    static let quoted = """
        CREATE TABLE events (id INTEGER PRIMARY KEY, "query" TEXT, [key] TEXT, `action` TEXT, 'filter' TEXT, "row" INTEGER, "temp" REAL);
        CREATE INDEX events_by_key ON events ("key", [action]);
        CREATE VIEW recent_events AS SELECT "query", `key` FROM events WHERE "row" > 0;
        """
    /// The same schema, every name bare.
    static let bare = """
        CREATE TABLE events (id INTEGER PRIMARY KEY, query TEXT, key TEXT, action TEXT, filter TEXT, row INTEGER, temp REAL);
        CREATE INDEX events_by_key ON events (key, action);
        CREATE VIEW recent_events AS SELECT query, key FROM events WHERE row > 0;
        """
    static let row = "INSERT INTO events VALUES (1, 'q', 'k', 'open', 'f', 1, 0.5);"

    @discardableResult
    func shell(_ workspace: Workspace, _ sql: String) throws -> String {
        let result = try SQLCipherShell.run(workspace.database, key: workspace.key, sql)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    /// A database the app made one way (one row in it), and a first migration that
    /// writes the schema the other way, recorded as applied by `baseline`.
    func baselined(database: String, migration: String) throws -> Workspace {
        let workspace = try Workspace()
        try shell(workspace, database + Self.row)
        try workspace.migration("0001_events.sql", "-- migrate:up\n" + migration)
        let baseline = try workspace.run("baseline", ["--to", "0001_events"])
        #expect(baseline.status == 0, "\(baseline.output)")
        return workspace
    }

    @Test(arguments: [(quoted, bare), (bare, quoted)])
    func quotesAloneAreNoDrift(_ schemas: (database: String, migration: String)) throws {
        let workspace = try baselined(database: schemas.database, migration: schemas.migration)
        let diff = try workspace.run("diff")
        #expect(diff.status == 0 && diff.stdout.contains("No drift"), "\(diff.output)")
    }

    /// The schema differs from what the migrations make only in quotes: nothing to
    /// erase, and the pending migration runs on the database's row.
    @Test func eraseOnSchemaChangeKeepsADatabaseThatDiffersOnlyInQuotes() throws {
        let workspace = try baselined(database: Self.quoted, migration: Self.bare)
        try workspace.migration("0002_note.sql", "-- migrate:up\nALTER TABLE events ADD COLUMN note TEXT;\n")
        let migrate = try workspace.run("migrate", ["--erase-on-schema-change", "--yes", "--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(!migrate.output.contains("eras"), "\(migrate.output)")
        #expect(try shell(workspace, "SELECT count(*), max(note IS NULL) FROM events;") == "1|1\n")
    }

    /// `diff --to` a schema file that spells the database's names the other way:
    /// nothing to do, nothing written.
    @Test(arguments: [(quoted, bare), (bare, quoted)])
    func diffToASchemaSpelledTheOtherWayHasNothingToDo(_ schemas: (database: String, migration: String)) throws {
        let workspace = try Workspace()
        try workspace.migration("0001_events.sql", "-- migrate:up\n" + schemas.database)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try shell(workspace, Self.row)
        try workspace.write("schema.sql", schemas.migration)
        let before = workspace.bytes(workspace.database)
        let diff = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "respell"])
        #expect(diff.status == 0 && diff.stdout.contains("No difference"), "\(diff.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.migrations + "/0002_respell.sql"))
        #expect(workspace.bytes(workspace.database) == before)
    }

    /// A step whose down rebuilds the table the 12-step way with the names bare, after
    /// a first step that quoted them: up, down and up again give the same schema.
    @Test func aRoundTripThroughARebuildThatDropsTheQuotesPasses() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_events.sql", "-- migrate:up\n" + Self.quoted)
        try workspace.migration("0002_note.sql", """
            -- migrate:up
            ALTER TABLE events ADD COLUMN note TEXT;
            -- migrate:down
            DROP VIEW recent_events;
            CREATE TABLE events_new (id INTEGER PRIMARY KEY, query TEXT, key TEXT, action TEXT, filter TEXT, row INTEGER, temp REAL);
            INSERT INTO events_new SELECT id, query, key, action, filter, row, temp FROM events;
            DROP TABLE events;
            ALTER TABLE events_new RENAME TO events;
            CREATE INDEX events_by_key ON events (key, action);
            CREATE VIEW recent_events AS SELECT query, key FROM events WHERE row > 0;
            """)
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.stdout.contains("ok     round trip 0002_note"), "\(check.stdout)")
    }

    /// `returning` is a plain name to SQLCipher 3's SQLite, which takes it bare, and a
    /// keyword to SQLCipher 4's, which takes it only quoted: each platform's dump of the
    /// table is the same text, which both run.
    @Test func aNameOnlyOneSQLiteTakesBareIsDumpedAlikeOnBoth() throws {
        let workspace = try Workspace()
        let column = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 ? "\"returning\"" : "returning"
        try shell(workspace, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, \(column) TEXT, nothing_else TEXT);")
        let dump = try workspace.run("schema-dump")
        #expect(dump.stdout == "CREATE TABLE jobs (id INTEGER PRIMARY KEY, \"returning\" TEXT, nothing_else TEXT);\n", "\(dump.output)")
        let replayed = try Workspace()
        try shell(replayed, dump.stdout)
        #expect(try replayed.run("schema-dump").stdout == dump.stdout)
    }

    /// `schema-dump` writes a type as SQLite spells it, and a table `diff --to` rebuilds
    /// from the dump is declared so: `PRAGMA table_info` says `VARCHAR(255)`, as the
    /// tools that read declared types expect.
    @Test func aTypeKeepsSQLitesSpellingInTheDumpAndInARebuiltTable() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_people.sql", """
            -- migrate:up
            CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(255) NOT NULL, price DECIMAL(10, 2), "key" nvarchar( 40 ));
            """)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try shell(workspace, "INSERT INTO people VALUES (1, 'Ada', 1.5, 'a');")
        let dump = try workspace.run("schema-dump")
        #expect(dump.stdout == "CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(255) NOT NULL, price DECIMAL(10, 2), key nvarchar(40));\n", "\(dump.output)")

        try workspace.write("schema.sql", dump.stdout.replacingOccurrences(of: "NOT NULL,", with: "NOT NULL CHECK (length(name) > 0),"))
        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "named"])
        #expect(written.status == 0, "\(written.output)")
        let file = try String(contentsOfFile: workspace.migrations + "/0002_named.sql", encoding: .utf8)
        #expect(file.contains("\"people_migrationkit_new\""), "a rebuild: \(file)")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        // One PRAGMA: SQLCipher 3.4.1's SQLite has no `pragma_table_info`.
        let types = try shell(workspace, "PRAGMA table_info(people);").split(separator: "\n").map { $0.split(separator: "|")[2] }
        #expect(types == ["INTEGER", "VARCHAR(255)", "DECIMAL(10, 2)", "nvarchar(40)"])
        #expect(try shell(workspace, "SELECT count(*) FROM people;") == "1\n")
    }
}
