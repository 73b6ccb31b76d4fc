import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// docs/coming-from/*.md: each page's commands, run by `sh` exactly as written with the
/// built `migrationkit` first on PATH, in a folder holding the plaintext database that
/// page's tool left (its ledger as the tool's own source creates it, `OtherToolFixture`)
/// and the tool's migrations, in its layout, where the page says they are. The database
/// ends encrypted with the key the page made, every migration applied, every row kept,
/// the other tool's ledger kept, and no drift.
@Suite struct ComingFromRecipeTests {
    /// A page, the tool whose database it starts from, and the folder its recipe names.
    struct Page: CustomTestStringConvertible, Sendable {
        let name: String
        let tool: OtherToolFixture.Tool
        let folder: String
        var testDescription: String { name }
    }

    static let pages = [
        Page(name: "diesel", tool: .diesel, folder: "migrations"),
        Page(name: "sqlx", tool: .sqlx, folder: "migrations"),
        Page(name: "goose", tool: .goose, folder: "migrations"),
        Page(name: "golang-migrate", tool: .golangMigrate, folder: "db/migrations"),
        Page(name: "flyway", tool: .flyway, folder: "sql"),
        Page(name: "dbmate", tool: .dbmate, folder: "db/migrations"),
        Page(name: "prisma", tool: .prisma, folder: "prisma/migrations"),
        Page(name: "drizzle", tool: .drizzle, folder: "drizzle"),
        Page(name: "refinery", tool: .refinery, folder: "migrations"),
        Page(name: "d1", tool: .d1, folder: "migrations"),
        Page(name: "sql-migrate", tool: .sqlMigrate, folder: "migrations"),
        Page(name: "user-version", tool: .userVersion, folder: "Migrations"),
        Page(name: "sqldelight", tool: .sqlDelight, folder: "src/main/sqldelight/migrations"),
        Page(name: "liquibase", tool: .liquibase, folder: "src/main/resources/db/changelog/changes"),
        Page(name: "atlas", tool: .atlas, folder: "migrations"),
        Page(name: "yoyo", tool: .yoyo, folder: "migrations"),
    ]

    @Test func everyPageInTheFolderIsRun() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/coming-from").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md") }
        #expect(Set(files) == Set(Self.pages.map { $0.name + ".md" }), "\(files)")
    }

    @Test(arguments: pages)
    func thePagesCommandsTakeTheToolsDatabaseToAnEncryptedAdoptedOne(_ page: Page) throws {
        let recipes = try KeyRecipeTests.recipes(in: "docs/coming-from/\(page.name).md")
        let recipe = try #require(recipes.count == 1 && recipes[0].kind == "coming-from-\(page.name)" ? recipes.first : nil, "\(recipes)")
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(page.tool, in: workspace, applied: 2, pending: 1, encrypted: false)
        let folder = workspace.path(page.folder)
        if folder != workspace.migrations {
            try FileManager.default.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: workspace.migrations, toPath: folder)
        }
        let notes = try fixture.query(workspace, "SELECT id, body FROM notes ORDER BY id;", encrypted: false)
        #expect(notes == ["1|first", "2|kept"], "\(notes)")

        var environment = Binary.environment()
        environment["PATH"] = Binary.productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let ran = try ChildProcess.run(["/bin/sh", "-ec", recipe.script], environment: environment, directory: workspace.root, timeout: 120)
        #expect(ran.status == 0, "\(page.name): \(ran.output)")
        #expect(ran.stdout.contains("Recorded 2 migrations from"), "\(ran.output)")

        #expect(workspace.bytes(workspace.database)?.prefix(15) != Data("SQLite format 3".utf8), "the database is still plaintext")
        let keyText = try String(contentsOfFile: workspace.path("app.key"), encoding: .utf8)
        let key = TestKey(text: keyText.trimmingCharacters(in: .whitespacesAndNewlines))
        let ledger = try SQLCipherShell.run(workspace.database, key: key, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
        #expect(ledger.status == 0 && ledger.stdout == fixture.identifiers.map { $0 + "\n" }.joined(), "\(ledger.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: key, "SELECT id, body FROM notes ORDER BY id; SELECT noteId FROM tag_2; SELECT noteId FROM tag_3;")
        #expect(rows.stdout == "1|first\n2|kept\n1\n1\n", "\(rows.output)")
        for table in page.tool.ledgerTables {
            let kept = try SQLCipherShell.run(workspace.database, key: key, "SELECT count(*) FROM sqlite_master WHERE name = '\(table)';")
            #expect(kept.stdout == "1\n", "\(table): \(kept.output)")
        }

        // No drift, and nothing pending: the project file the page wrote says where.
        let drift = try Binary.run(["diff"], directory: workspace.root)
        #expect(drift.status == 0, "\(drift.output)")
        let status = try Binary.run(["status", "--exit-code"], directory: workspace.root)
        #expect(status.status == 0, "\(status.output)")
    }

    /// docs/adopting.md's second way in, run as written on a database shaped as an app's
    /// own schema at its own number (`user_version` 77, Signal Desktop's way): `migrate`
    /// first refuses naming both ways; the recipe's first migration holds the app's
    /// schema, `baseline` proves and records it, `migrate` applies the rest; every row
    /// and the app's `user_version` are kept.
    @Test func theSecondWayInTakesAnAppsOwnSchemaNumber() throws {
        let recipes = try KeyRecipeTests.recipes(in: "docs/adopting.md")
        let recipe = try #require(recipes.first { $0.kind == "two-ways-in" }, "\(recipes)")
        let workspace = try Workspace()
        try workspace.write("app.key", workspace.key.text + "\n", mode: 0o600)
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            CREATE TABLE conversations (id TEXT PRIMARY KEY, json TEXT, active_at INTEGER);
            CREATE TABLE messages (id TEXT PRIMARY KEY, conversationId TEXT, body TEXT, sent_at INTEGER);
            INSERT INTO conversations VALUES ('c1', '{}', 1700000000);
            INSERT INTO messages VALUES ('m1', 'c1', 'hello', 1700000001), ('m2', 'c1', 'again', 1700000002);
            PRAGMA user_version = 77;
            """)
        try #require(made.status == 0, "\(made.output)")
        try FileManager.default.createDirectory(atPath: workspace.migrations, withIntermediateDirectories: true)
        try workspace.migration("0001_app_schema_77.sql", "-- migrate:up\nSELECT 1;\n")
        let refused = try Binary.run(["migrate", "--db-path", "app.db", "--password-file", "app.key"], directory: workspace.root)
        #expect(refused.status == 7 && refused.stderr.contains("if 77 is the app's own schema number instead, write a first migration holding the app's schema as it is at 77"), "\(refused.output)")
        try FileManager.default.removeItem(atPath: workspace.migrations)

        var environment = Binary.environment()
        environment["PATH"] = Binary.productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let ran = try ChildProcess.run(["/bin/sh", "-ec", recipe.script], environment: environment, directory: workspace.root, timeout: 120)
        #expect(ran.status == 0 && ran.stdout.contains("Baselined 0001_app_schema_77") && ran.stdout.contains("Applied 0002_messages_by_conversation"), "\(ran.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            SELECT count(*) FROM messages; SELECT json FROM conversations; PRAGMA user_version;
            SELECT identifier FROM grdb_migrations ORDER BY rowid; SELECT count(*) FROM sqlite_master WHERE name = 'messages_by_conversation';
            """)
        #expect(rows.stdout == "2\n{}\n77\n0001_app_schema_77\n0002_messages_by_conversation\n1\n", "\(rows.output)")
    }
}
