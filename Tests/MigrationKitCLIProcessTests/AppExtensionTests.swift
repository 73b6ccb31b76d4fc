import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// Databases that need what only their app registers — a full-text tokenizer (Signal's,
/// Thunderbird's), functions their triggers and views call (calibre's), as the fixture
/// extension stands in for (`AppExtensionFixture`) — through every command, without
/// the app's extension and with it (`--load-extension`). Without it nothing is called
/// damaged, no restore or rebuild is advised, every copy is made and proven by what can
/// be proven without the app, and what could not be checked is named with how to check
/// it; with it every check runs.
///
/// Through the binary: the extension is loaded into the process (CONTRIBUTING.md's table,
/// "a library loaded into the process"), and SpatiaLite brings the system's libsqlite3
/// along with it, which must never share the test process with SQLCipher.
@Suite struct AppExtensionTests {
    /// FTS5 exists from SQLite 3.9; SQLCipher 3.4.1's 3.15.2 is built without it.
    static var hasFTS5: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// An app's database, written by the `sqlcipher` shell with the app's extension
    /// loaded (keyed with `key`, or plaintext): an FTS5 index of `messages` with the
    /// app's tokenizer, filled by triggers (where FTS5 exists), an FTS4 index with it, a
    /// trigger calling the app's function and a view calling its aggregate.
    static func appDatabase(_ path: String, key: TestKey?) throws {
        let fts5 = hasFTS5 ? """
            CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE messages_fts USING fts5(body, content='messages', content_rowid='id', tokenize='app_words');
            CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN INSERT INTO messages_fts(rowid, body) VALUES (new.id, new.body); END;
            CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN INSERT INTO messages_fts(messages_fts, rowid, body) VALUES ('delete', old.id, old.body); END;
            INSERT INTO messages (body) VALUES ('Hello World'), ('The quick brown fox'), ('Lunch at noon?');
            DELETE FROM messages WHERE id = 2;
            INSERT INTO messages (body) VALUES ('Quick reply');

            """ : ""
        let sql = """
            .load \(try AppExtensionFixture.path)
            PRAGMA trusted_schema = 1;
            \(fts5)CREATE VIRTUAL TABLE notes_fts USING fts4(title, body, tokenize=app_words);
            INSERT INTO notes_fts VALUES ('Groceries', 'Milk and BREAD'), ('Plans', 'Hiking on Sunday');
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
            CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
            CREATE VIEW book_titles AS SELECT app_concat(title) AS titles FROM books;
            INSERT INTO books (title) VALUES ('The Hobbit'), ('A Tale of Two Cities');
            SELECT count(*) FROM books;
            """
        let written = try SQLCipherShell.run(path, keyPragma: key?.pragma, sql)
        #expect(written.status == 0 && written.stdout.hasSuffix("2\n"), "\(written.output)")
    }

    /// What the app reads back through its own extension: its searches find their rows,
    /// its trigger and view work, and SQLite's `integrity_check`, which runs each
    /// full-text index's own check with the app's tokenizer, passes.
    /// - Parameter formatThree: the file is in SQLCipher 3's format (a backup a
    ///   `cipher-upgrade` kept), which SQLCipher 4 reads after `cipher_compatibility = 3`.
    static func expectAppReads(_ path: String, key: TestKey?, books: Int = 2, formatThree: Bool = false,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let search = hasFTS5 ? "SELECT group_concat(rowid) FROM messages_fts WHERE messages_fts MATCH 'quick';\n" : ""
        let read = try SQLCipherShell.run(path, keyPragma: key?.pragma, """
            \(formatThree ? "PRAGMA cipher_compatibility = 3;" : "")
            .load \(try AppExtensionFixture.path)
            PRAGMA trusted_schema = 1;
            \(search)SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'bread';
            SELECT titles FROM book_titles;
            SELECT count(*) FROM books WHERE sort = app_sort(title);
            PRAGMA integrity_check;
            """)
        let titles = books == 2 ? "A Tale of Two Cities&The Hobbit" : "A Tale of Two Cities&The Fellowship&The Hobbit"
        let expected = (hasFTS5 ? "4\n" : "") + "1\n\(titles)\n\(books)\nok\n"
        #expect(read.status == 0 && read.stdout == expected, "\(read.output)", sourceLocation: sourceLocation)
    }

    /// The words that would send a user to restore a backup, rebuild an index, or read
    /// damage into a healthy file.
    static let alarming = ["FAILED", "restore it", "'rebuild'", "damaged", "malformed", "choose another backup", "discarded"]

    static func expectNoAlarm(_ result: GuardedResult, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for word in alarming where result.output.contains(word) {
            Issue.record("\(context): says \"\(word)\" of a healthy database: \(result)", sourceLocation: sourceLocation)
        }
        #expect(result.strayErrorOutput.isEmpty, "\(context): \(result.strayErrorOutput)", sourceLocation: sourceLocation)
    }

    func run(_ workspace: Workspace, _ arguments: [String], extension loaded: Bool) throws -> GuardedResult {
        try Guarded.run(arguments + (loaded ? ["--load-extension", try AppExtensionFixture.path] : []), directory: workspace.root, timeout: 60)
    }

    @Test func verifyNamesWhatOnlyTheAppCanCheckAndPasses() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        let before = try TreeSnapshot(workspace.root)
        let key = ["--password-file", workspace.keyFile]

        let without = try run(workspace, ["verify", "--db-path", workspace.database] + key, extension: false)
        #expect(without.status == 0, "\(without)")
        Self.expectNoAlarm(without, "verify without the extension")
        #expect(without.stdout.contains("n/a    FTS4 index notes_fts: not checked: it needs the app's tokenizer app_words"), "\(without)")
        #expect(without.stdout.contains("Verification passed for everything that could be checked;"), "\(without)")
        #expect(without.stdout.contains("without the app's tokenizer app_words, which is no sign of damage; to run"), "\(without)")
        #expect(without.stdout.contains("load the app's extension that registers it with --load-extension PATH[:ENTRY]"), "\(without)")
        if Self.hasFTS5 {
            #expect(without.stdout.contains("n/a    FTS5 index messages_fts: not checked: it needs the app's tokenizer app_words"), "\(without)")
        }
        let json = try decodeJSON(try run(workspace, ["verify", "--db-path", workspace.database, "--json"] + key, extension: false).stdout)
        let checks = try #require(json["checks"] as? [[String: Any]])
        let fts4 = try #require(checks.first { $0["name"] as? String == "FTS4 index notes_fts" })
        #expect(fts4["passed"] as? Bool == true && (fts4["notChecked"] as? [[String: String]]) == [["kind": "tokenizer", "name": "app_words"]], "\(fts4)")

        let with = try run(workspace, ["verify", "--db-path", workspace.database] + key, extension: true)
        #expect(with.status == 0 && with.stdout.contains("Verification passed.") && !with.stdout.contains("n/a"), "\(with)")
        #expect(with.stdout.contains("ok     FTS4 index notes_fts: ok"), "\(with)")
        // The extension's other entry point, by name.
        let entry = try Guarded.run(["verify", "--db-path", workspace.database, "--load-extension",
                                     try AppExtensionFixture.path + ":" + AppExtensionFixture.entryPoint] + key, directory: workspace.root)
        #expect(entry.status == 0 && entry.stdout.contains("Verification passed."), "\(entry)")
        try expectUnchanged(before, "verify")
    }

    @Test func everyCopyIsMadeAndProvenWithoutTheAppsExtensionAndWithIt() throws {
        for loaded in [false, true] {
            let workspace = try Workspace()
            let key = ["--password-file", workspace.keyFile]
            let plain = workspace.path("plain.db")
            try Self.appDatabase(plain, key: nil)
            let context = loaded ? "with the extension" : "without it"

            let encrypted = try run(workspace, ["encrypt", "--db-path", plain, "--output", workspace.database] + key, extension: loaded)
            #expect(encrypted.status == 0, "encrypt \(context): \(encrypted)")
            Self.expectNoAlarm(encrypted, "encrypt \(context)")
            #expect(encrypted.stderr.contains("not checked") == !loaded, "encrypt \(context): \(encrypted)")
            try Self.expectAppReads(workspace.database, key: workspace.key)

            let inPlace = workspace.path("in-place.db")
            try FileManager.default.copyItem(atPath: plain, toPath: inPlace)
            let encryptedInPlace = try run(workspace, ["encrypt", "--db-path", inPlace, "--in-place", "--no-backup"] + key, extension: loaded)
            #expect(encryptedInPlace.status == 0, "encrypt --in-place \(context): \(encryptedInPlace)")
            try Self.expectAppReads(inPlace, key: workspace.key)

            let decrypted = try run(workspace, ["decrypt", "--db-path", workspace.database, "--output", workspace.path("export.db")] + key, extension: loaded)
            #expect(decrypted.status == 0, "decrypt \(context): \(decrypted)")
            Self.expectNoAlarm(decrypted, "decrypt \(context)")
            try Self.expectAppReads(workspace.path("export.db"), key: nil)

            let newKey = TestKey.raw()
            try workspace.write("new-key", newKey.text + "\n", mode: 0o600)
            let rekeyed = try run(workspace, ["rekey", "--db-path", inPlace, "--new-password-file", workspace.path("new-key"), "--no-backup"] + key,
                                  extension: loaded)
            #expect(rekeyed.status == 0, "rekey \(context): \(rekeyed)")
            try Self.expectAppReads(inPlace, key: newKey)

            if Self.hasFTS5 {
                // A file in SQLCipher 3's format, upgraded to the linked library's own.
                let old = workspace.path("old.db")
                let written = try run(workspace, ["encrypt", "--db-path", plain, "--output", old, "--cipher-compatibility", "3"] + key, extension: loaded)
                #expect(written.status == 0, "\(written)")
                let upgraded = try run(workspace, ["cipher-upgrade", "--db-path", old] + key, extension: loaded)
                #expect(upgraded.status == 0, "cipher-upgrade \(context): \(upgraded)")
                Self.expectNoAlarm(upgraded, "cipher-upgrade \(context)")
                try Self.expectAppReads(old, key: workspace.key)

                // The backup cipher-upgrade kept, in the old format, restored.
                let backup = try #require(try FileManager.default.contentsOfDirectory(atPath: workspace.root).first { $0.hasPrefix("old.db.backup-") })
                let restored = try run(workspace, ["restore", "--db-path", old, "--from", workspace.path(backup)] + key, extension: loaded)
                #expect(restored.status == 0, "restore \(context): \(restored)")
                Self.expectNoAlarm(restored, "restore \(context)")
                #expect(restored.stderr.contains("The backup was proven by everything that can be checked without the app's tokenizer app_words") == !loaded,
                        "restore \(context): \(restored)")
                try Self.expectAppReads(old, key: workspace.key, formatThree: true)
            }
        }
    }

    /// A migration whose rows fire the app's triggers: without the extension it fails at
    /// once, saying what it needs and how to bring it, and changes nothing; with it, it
    /// runs, the verification after it passes, and the rollback runs too.
    @Test func migrateAndRollBackThroughTheAppsTriggers() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        try workspace.migration("0001_book.sql", """
            -- migrate:up
            INSERT INTO books (title) VALUES ('The Fellowship');
            \(Self.hasFTS5 ? "INSERT INTO messages (body) VALUES ('a quick note');" : "")
            -- migrate:down
            DELETE FROM books WHERE title = 'The Fellowship';
            \(Self.hasFTS5 ? "DELETE FROM messages WHERE body = 'a quick note';" : "")
            """)
        let before = try TreeSnapshot(workspace.root)
        let refused = try run(workspace, ["migrate", "--no-backup", "--accept-existing-tables"] + workspace.options(), extension: false)
        expectCleanFailure(refused, .migrationFailed, mentions: ["--load-extension", "which only the app registers"], "migrate without the extension")
        #expect(refused.stderr.contains("it needs the app's function app_sort"), "\(refused)")
        try expectUnchanged(before, "migrate without the extension")

        let migrated = try run(workspace, ["migrate", "--no-backup", "--accept-existing-tables", "--verify", "full"] + workspace.options(), extension: true)
        #expect(migrated.status == 0 && migrated.stdout.contains("verification passed"), "\(migrated)")
        #expect(!migrated.output.contains("not checked"), "\(migrated)")
        let search = Self.hasFTS5 ? "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'quick';" : "SELECT 2;"
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key, ".load \(try AppExtensionFixture.path)\n\(search)\nSELECT sort FROM books WHERE id = 3;")
        #expect(read.stdout == "2\nFellowship\n", "\(read.output)")

        let rolledBack = try run(workspace, ["rollback", "--no-backup"] + workspace.options(), extension: true)
        #expect(rolledBack.status == 0, "\(rolledBack)")
        try Self.expectAppReads(workspace.database, key: workspace.key)
    }

    /// A migration that touches no table the app's pieces serve, on a database that has
    /// them: migrate and rollback pass their verification of the whole file, naming what
    /// they could not check, without the extension.
    @Test func theVerificationAfterMigrateAndRollbackNamesWhatItCouldNotCheck() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        try workspace.migration("0001_settings.sql", """
            -- migrate:up
            CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT);
            -- migrate:down
            DROP TABLE settings;
            """)
        for command in [["migrate", "--accept-existing-tables", "--verify", "full"], ["rollback"]] {
            let result = try run(workspace, command + ["--no-backup"] + workspace.options(), extension: false)
            #expect(result.status == 0, "\(command): \(result)")
            Self.expectNoAlarm(result, command[0])
            #expect(result.stderr.contains("warning: The verification could not run every check without the app's tokenizer app_words"), "\(command): \(result)")
        }
    }

    @Test func configSaysWhereEachExtensionCameFrom() throws {
        let workspace = try Workspace()
        try workspace.write("migrationkit.toml", """
            db-path = "app.db"
            load-extension = ["lib/app.so", "mod_spatialite"]
            """)
        let fromFile = try Guarded.run(["config"], directory: workspace.root)
        #expect(fromFile.status == 0, "\(fromFile)")
        #expect(fromFile.stdout.contains("load-extension       \(workspace.root)/lib/app.so  (\(workspace.root)/migrationkit.toml:2)"), "\(fromFile)")
        #expect(fromFile.stdout.contains("load-extension       mod_spatialite  (\(workspace.root)/migrationkit.toml:2)"), "\(fromFile)")
        let fromVariable = try Guarded.run(["config"], environment: Binary.environment(["MIGRATIONKIT_LOAD_EXTENSION": "/opt/a.so:entry_a; /opt/b.so"]),
                                           directory: workspace.root)
        #expect(fromVariable.stdout.contains("load-extension       /opt/a.so:entry_a  (environment MIGRATIONKIT_LOAD_EXTENSION)"), "\(fromVariable)")
        #expect(fromVariable.stdout.contains("load-extension       /opt/b.so  (environment MIGRATIONKIT_LOAD_EXTENSION)"), "\(fromVariable)")
        let fromFlag = try Guarded.run(["config", "--load-extension", "/opt/c.so"], directory: workspace.root)
        #expect(fromFlag.stdout.contains("load-extension       /opt/c.so  (flag)") && !fromFlag.stdout.contains("mod_spatialite"), "\(fromFlag)")
    }

    @Test func anExtensionThatDoesNotLoadIsOneSentenceAndChangesNothing() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        let plain = workspace.path("plain.db")
        try Self.appDatabase(plain, key: nil)
        let before = try TreeSnapshot(workspace.root)
        for (library, context) in [(workspace.path("missing.so"), "a missing library"),
                                   (try AppExtensionFixture.path + ":no_such_entry", "a missing entry point")] {
            for command in [["verify"] + workspace.options(), ["migrate", "--no-backup", "--accept-existing-tables"] + workspace.options(),
                            ["encrypt", "--in-place", "--no-backup", "--db-path", plain, "--password-file", workspace.keyFile]] {
                let result = try Guarded.run(command + ["--load-extension", library], directory: workspace.root)
                expectCleanFailure(result, .usage, mentions: [library.split(separator: ":").first.map(String.init) ?? library, "could not be loaded"],
                                   "\(command[0]) with \(context)")
            }
        }
        try expectUnchanged(before, "extensions that do not load")
    }

    /// A GeoPackage (OGC's SQLite format, as GDAL and QGIS write it): its R*Tree index is
    /// kept by triggers that call SpatiaLite's `ST_*` functions. A migration adding a
    /// feature fails without SpatiaLite, naming the function, and with it runs and keeps
    /// the spatial index in step.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/mod_spatialite.so") || TestPlatform.isCI,
                   "needs libsqlite3-mod-spatialite (scripts/install-deps.sh)"))
    func aGeoPackagesSpatialIndexKeepsWorkingThroughAMigration() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA trusted_schema = 1;
            .load mod_spatialite
            SELECT gpkgCreateBaseTables();
            CREATE TABLE places (fid INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
            SELECT gpkgAddGeometryColumn('places', 'geom', 'POINT', 0, 0, 4326);
            SELECT gpkgAddSpatialIndex('places', 'geom');
            INSERT INTO places (name, geom) VALUES ('a', AsGPB(GeomFromText('POINT(1 2)', 4326))), ('b', AsGPB(GeomFromText('POINT(3 4)', 4326)));
            PRAGMA application_id = 1196444487;
            SELECT count(*) FROM rtree_places_geom;
            """)
        #expect(made.status == 0 && made.stdout.hasSuffix("2\n"), "\(made.output)")
        try workspace.migration("0001_place.sql", """
            -- migrate:up
            INSERT INTO places (name, geom) VALUES ('c', x'47500001e6100000010100000000000000000014400000000000001840');
            -- migrate:down
            DELETE FROM places WHERE name = 'c';
            """)
        let refused = try Guarded.run(["migrate", "--no-backup", "--accept-existing-tables"] + workspace.options(), directory: workspace.root)
        expectCleanFailure(refused, .migrationFailed, mentions: ["ST_IsEmpty", "--load-extension"], "migrate without SpatiaLite")

        let spatialite = ["--load-extension", "mod_spatialite"]
        let migrated = try Guarded.run(["migrate", "--no-backup", "--accept-existing-tables", "--verify", "full"] + workspace.options(spatialite), directory: workspace.root)
        #expect(migrated.status == 0, "\(migrated)")
        let index = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT id, minx, miny FROM rtree_places_geom WHERE id = 3; PRAGMA application_id;")
        #expect(index.stdout == "3|5.0|6.0\n1196444487\n", "\(index.output)")
        let verified = try Guarded.run(["verify"] + workspace.options(spatialite), directory: workspace.root)
        #expect(verified.status == 0, "\(verified)")
        // rtreecheck() is SQLite 3.24's: SQLCipher 3.4.1's 3.15.2 cannot check the index.
        if Self.hasFTS5 { #expect(verified.stdout.contains("ok     R*Tree index rtree_places_geom: ok"), "\(verified)") }
        let rolledBack = try Guarded.run(["rollback", "--no-backup"] + workspace.options(spatialite), directory: workspace.root)
        #expect(rolledBack.status == 0, "\(rolledBack)")
        let after = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM rtree_places_geom;")
        #expect(after.stdout == "2\n", "\(after.output)")
    }

    /// Found before it runs: lint names the statements of an up and a down section that
    /// will meet what only the app registers (a trigger's function; a delete whose
    /// trigger takes the row out of the app's index), with the option that brings it; `check` reports the round trips it could not run for
    /// want of it rather than failing them; with the extension loaded, neither says a word.
    @Test func lintAndCheckSayWhatAStepWillNeedBeforeItRuns() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        try workspace.migration("0001_shelf.sql", """
            -- migrate:up
            ALTER TABLE books ADD COLUMN shelf TEXT;
            INSERT INTO books (title, shelf) VALUES ('The Silmarillion', 'top');
            -- migrate:down
            DELETE FROM books WHERE shelf = 'top';
            \(Self.hasFTS5 ? "DELETE FROM messages WHERE body = 'Lunch at noon?';" : "SELECT 1;")
            """)
        let lint = try run(workspace, ["lint"] + workspace.options(), extension: false)
        #expect(lint.status == 0, "\(lint)")
        #expect(lint.stdout.contains("0001_shelf.sql:3: warning[needs-app-extension]: This statement needs the app's function app_sort"), "\(lint)")
        #expect(lint.stdout.contains("INSERT on books runs \"books_ai\""), "\(lint)")
        if Self.hasFTS5 {
            // A delete fires the trigger that takes the row out of the app's index.
            #expect(lint.stdout.contains("0001_shelf.sql:6: warning[needs-app-extension]: This statement needs the app's tokenizer app_words"), "\(lint)")
            #expect(lint.stdout.contains("DELETE on messages runs \"messages_ad\"; the rollback that runs this down section would fail on it"), "\(lint)")
        }
        #expect(lint.stdout.contains("--load-extension PATH[:ENTRY]"), "\(lint)")
        let quiet = try run(workspace, ["lint"] + workspace.options(), extension: true)
        #expect(quiet.status == 0 && !quiet.output.contains("needs-app-extension"), "\(quiet)")

        // The app's schema as a first migration, and a change on top of it.
        let project = try Workspace()
        try project.migration("0001_app.sql", """
            -- migrate:up
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
            CREATE VIRTUAL TABLE notes_fts USING fts4(title, body, tokenize=app_words);
            CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
            -- migrate:down
            DROP TRIGGER books_ai; DROP TABLE notes_fts; DROP TABLE books;
            """)
        try project.migration("0002_shelf.sql", "-- migrate:up\nCREATE TABLE shelves (name TEXT PRIMARY KEY);\n-- migrate:down\nDROP TABLE shelves;\n")
        let check = try Guarded.run(["check", "--migrations", project.migrations], directory: project.root, timeout: 60)
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("n/a    fresh install: not checked: it needs the app's tokenizer app_words"), "\(check)")
        #expect(!check.stdout.contains("FAILED") && check.stdout.contains("--load-extension PATH[:ENTRY]"), "\(check)")
        let checked = try Guarded.run(["check", "--migrations", project.migrations, "--load-extension", try AppExtensionFixture.path],
                                      directory: project.root, timeout: 60)
        #expect(checked.status == 0 && checked.stdout.contains("round trip 0002_shelf: up, down and up again") && !checked.stdout.contains("n/a"), "\(checked)")
    }

    /// `diff --to` takes what `schema-dump` wrote of such a database, one column added:
    /// without the extension it names what the scratch databases lack and the option that
    /// brings it, writing nothing; with it, it writes and proves the migration.
    @Test func diffToTakesWhatSchemaDumpWroteAndTheAppsExtension() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        let dumped = try Guarded.run(["schema-dump"] + workspace.options(), directory: workspace.root)
        try #require(dumped.status == 0, "\(dumped)")
        let edited = dumped.stdout.replacingOccurrences(of: "sort TEXT)", with: "sort TEXT, shelf TEXT)")
        try #require(edited != dumped.stdout, "\(dumped.stdout)")
        try workspace.write("schema.sql", edited)
        let before = try TreeSnapshot(workspace.root)
        let refused = try run(workspace, ["diff", "--to", workspace.path("schema.sql")] + workspace.options(), extension: false)
        expectCleanFailure(refused, .usage, mentions: ["needs the app's", "--load-extension", "Nothing was written"], "diff --to without the extension")
        #expect(!refused.stderr.contains("fix the file"), "\(refused)")
        try expectUnchanged(before, "diff --to without the extension")
        let written = try run(workspace, ["diff", "--to", workspace.path("schema.sql")] + workspace.options(), extension: true)
        #expect(written.status == 0 && written.stdout.contains("ADD COLUMN shelf TEXT"), "\(written)")
    }
}
