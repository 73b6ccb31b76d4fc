import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Liquibase's formatted SQL changelogs and its `DATABASECHANGELOG`, read as Liquibase reads
/// them (docs/coming-from/liquibase.md): each `--changeset author:id` a migration named
/// `FILE::ID::AUTHOR`, in the order `includeAll` runs the folder, its `--rollback` lines its
/// down SQL, its checksum Liquibase's version 9. Every database is one Liquibase's own
/// source would leave (`OtherToolFixture`), its checksums computed apart from MigrationKit's.
@Suite struct LiquibaseTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private static let changelog = """
        --liquibase formatted sql logicalFilePath:db/changelog/legacy.sql

        --changeset alice:1
        --comment: the notes
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
        INSERT INTO notes (body) VALUES ('first');
        --rollback DROP TABLE notes;

        --changeset alice:2
        CREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES notes(id));
        /* liquibase rollback
        DROP TABLE tags;
        */

        --changeset "bob smith":seed-3 runInTransaction:false
        INSERT INTO notes (body) VALUES ('seeded');
        --rollback not required

        """

    /// Two changelogs, three changesets in the first: a database Liquibase ran the first two
    /// changesets on (through `includeAll`, so `FILENAME` is a longer path, or the file's
    /// `logicalFilePath`) adopts them, its checksums compared, and `migrate` runs the rest in
    /// order; whitespace and a `--rollback` line changed after Liquibase ran a changeset are
    /// no edit to Liquibase (nor here), a changed word is; `rollback` runs the `--rollback`
    /// SQL, and `--rollback not required` rolls back doing nothing.
    @Test func changesetsAreMigrationsInIncludeAllOrderWithLiquibasesChecksums() throws {
        let workspace = try Workspace()
        try workspace.migration("changelog-1.0.sql", Self.changelog)
        try workspace.migration("changelog-1.1.sql", "--liquibase formatted sql\n\n--changeset alice:4\nCREATE INDEX notes_body ON notes (body);\n--rollback DROP INDEX notes_body;\n")
        let path = workspace.migrations + "/changelog-1.0.sql"
        let made = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            INSERT INTO notes (body) VALUES ('first');
            CREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES notes(id));
            INSERT INTO notes (body) VALUES ('kept');
            CREATE TABLE DATABASECHANGELOG (ID VARCHAR(255) NOT NULL, AUTHOR VARCHAR(255) NOT NULL, FILENAME VARCHAR(255) NOT NULL, DATEEXECUTED datetime NOT NULL, ORDEREXECUTED INT NOT NULL, EXECTYPE VARCHAR(10) NOT NULL, MD5SUM VARCHAR(35), DESCRIPTION VARCHAR(255), COMMENTS VARCHAR(255), TAG VARCHAR(255), LIQUIBASE VARCHAR(20), CONTEXTS VARCHAR(255), LABELS VARCHAR(255), DEPLOYMENT_ID VARCHAR(10));
            INSERT INTO DATABASECHANGELOG VALUES ('1', 'alice', 'db/changelog/legacy.sql', '2024-01-01 00:00:00', 1, 'EXECUTED', '\(try OtherToolFixture.liquibaseChecksum(changeset: "1", path: path))', 'sql', 'the notes', NULL, '4.29.2', NULL, NULL, '4067200000');
            INSERT INTO DATABASECHANGELOG VALUES ('2', 'alice', 'db/changelog/legacy.sql', '2024-01-01 00:00:01', 2, 'EXECUTED', '\(try OtherToolFixture.liquibaseChecksum(changeset: "2", path: path))', 'sql', '', NULL, '4.29.2', NULL, NULL, '4067200000');
            """)
        try #require(made.status == 0, "\(made.output)")

        // Liquibase strips whitespace before its checksum, and leaves rollback lines out.
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try write(original.replacingOccurrences(of: "INSERT INTO notes (body) VALUES ('first');", with: "INSERT INTO notes (body)\tVALUES  ('first') ;").replacingOccurrences(of: "--rollback DROP TABLE notes;", with: "--rollback DROP TABLE IF EXISTS notes;"), to: path)
        let status = try workspace.run("status")
        #expect(status.stdout.contains("liquibase layout (detected from its files)") && status.stdout.contains("Liquibase (its ledger's last version is legacy.sql::2::alice)"), "\(status.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Liquibase's ledger (last version legacy.sql::2::alice)"), "\(adopt.output)")
        #expect(adopt.stdout.contains("Liquibase's ledger stays as it was; drift and diff leave it out."), "\(adopt.output)")

        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied legacy.sql::seed-3::bob smith") && migrate.stdout.contains("Applied changelog-1.1.sql::4::alice"), "\(migrate.output)")
        #expect(migrate.stderr.contains("changelog-1.0.sql:15: note[transaction-control]"), "\(migrate.stderr)")
        let rows = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, "SELECT identifier FROM grdb_migrations ORDER BY rowid; SELECT body FROM notes ORDER BY id;")
        #expect(rows.stdout == "legacy.sql::1::alice\nlegacy.sql::2::alice\nlegacy.sql::seed-3::bob smith\nchangelog-1.1.sql::4::alice\nfirst\nkept\nseeded\n", "\(rows.output)")
        let back = try workspace.run("rollback", ["--steps", "2", "--no-backup"])
        #expect(back.status == 0, "\(back.output)")
        let after = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, "SELECT count(*) FROM sqlite_master WHERE name = 'notes_body'; SELECT count(*) FROM notes;")
        #expect(after.stdout == "0\n3\n", "\(after.output)")

        // A word changed after Liquibase ran the changeset is an edit.
        let edited = try Workspace()
        try edited.migration("changelog-1.0.sql", Self.changelog)
        let editedPath = edited.migrations + "/changelog-1.0.sql"
        let checksum = try OtherToolFixture.liquibaseChecksum(changeset: "1", path: editedPath)
        try write(Self.changelog.replacingOccurrences(of: "VALUES ('first')", with: "VALUES ('First')"), to: editedPath)
        let ledger = try SQLCipherShell.run(edited.database, keyPragma: edited.key.pragma, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            CREATE TABLE DATABASECHANGELOG (ID VARCHAR(255) NOT NULL, AUTHOR VARCHAR(255) NOT NULL, FILENAME VARCHAR(255) NOT NULL, DATEEXECUTED datetime NOT NULL, ORDEREXECUTED INT NOT NULL, EXECTYPE VARCHAR(10) NOT NULL, MD5SUM VARCHAR(35));
            INSERT INTO DATABASECHANGELOG VALUES ('1', 'alice', 'db/changelog/legacy.sql', '2024-01-01 00:00:00', 1, 'EXECUTED', '\(checksum)');
            """)
        try #require(ledger.status == 0, "\(ledger.output)")
        let refused = try edited.run("adopt")
        #expect(refused.exitCode == .refused && refused.stderr.contains("changelog-1.0.sql differs from the version legacy.sql::1::alice Liquibase applied"), "\(refused.output)")
    }

    /// Liquibase's ledger rules: a `MARK_RAN` row is applied (its work in the schema), a NULL
    /// checksum (after `clear-checksums`) is not compared, as Liquibase does not, a
    /// `--validCheckSum` line is a checksum Liquibase takes, and a version 8 checksum is
    /// refused naming the way; `new` says to write a changeset.
    @Test func markedRanNullAndOlderChecksums() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.liquibase, in: workspace, applied: 2, pending: 1)
        _ = try fixture.query(workspace, "UPDATE DATABASECHANGELOG SET EXECTYPE = 'MARK_RAN', MD5SUM = NULL WHERE ID = 'create-1'; UPDATE DATABASECHANGELOG SET MD5SUM = '8:0123456789abcdef0123456789abcdef' WHERE ID = 'create-2';")
        let before = try TreeSnapshot(workspace.root)
        let older = try workspace.run("adopt")
        #expect(older.exitCode == .refused && older.stderr.contains("Liquibase recorded a checksum of an older version of its algorithm (before Liquibase 4.24's `9:`) for 002-create-2.sql::create-2::app")
                && older.stderr.contains("`liquibase clear-checksums`"), "\(older.output)")
        try expectUnchanged(before, "a refused adopt")

        let valid = try String(contentsOfFile: fixture.upFiles[1], encoding: .utf8)
            .replacingOccurrences(of: "--changeset app:create-2\n", with: "--changeset app:create-2\n--validCheckSum: 8:0123456789abcdef0123456789abcdef\n")
        try write(valid, to: fixture.upFiles[1])
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Liquibase's ledger"), "\(adopt.output)")

        let new = try workspace.run("new", ["more"])
        #expect(new.exitCode == .usage && new.stderr.contains("write the next one as a `--changeset author:id` section"), "\(new.output)")
    }

    /// What Liquibase decides when it runs is refused naming the line (exit 9), every
    /// problem in one run: a changeset that runs on change, one for a context, a
    /// precondition, a property, a `.sql` file that is not a formatted changelog, an XML
    /// changelog, a subfolder `includeAll` would read.
    @Test func whatLiquibaseDecidesWhenItRunsIsRefusedByName() throws {
        let workspace = try Workspace()
        try workspace.migration("001.sql", """
            --liquibase formatted sql
            --property name:table value:notes
            --changeset a:1 runOnChange:true
            CREATE VIEW v AS SELECT 1;
            --changeset a:2 context:test
            SELECT 2;
            --changeset a:3
            --preconditions onFail:MARK_RAN
            --precondition-sql-check expectedResult:0 SELECT count(*) FROM sqlite_master
            SELECT 3;

            """)
        try workspace.migration("002.sql", "CREATE TABLE plain (x);\n")
        try workspace.migration("db.changelog-master.xml", "<databaseChangeLog/>\n")
        try FileManager.default.createDirectory(atPath: workspace.migrations + "/release-2", withIntermediateDirectories: true)
        let status = try workspace.run("status")
        #expect(status.exitCode == .fileError, "\(status.output)")
        for words in ["001.sql:2: This property's value replaces `${…}`",
                      "002.sql: This file does not start with `--liquibase formatted sql`",
                      "db.changelog-master.xml: This is a Liquibase changelog in another format",
                      "release-2: Liquibase's `includeAll` reads this folder's changelogs too"] {
            #expect(status.stderr.contains(words), "\(words): \(status.stderr)")
        }
        try workspace.migration("001.sql", "--liquibase formatted sql\n--changeset a:1 runOnChange:true\nCREATE VIEW v AS SELECT 1;\n")
        #expect(try workspace.run("status").stderr.contains("001.sql:2: Liquibase runs this changeset again whenever it changes (`runOnChange:true`)"))
        try workspace.migration("001.sql", "--liquibase formatted sql\n--changeset a:2 context:test\nSELECT 2;\n")
        #expect(try workspace.run("status").stderr.contains("001.sql:2: Liquibase runs this changeset only when its update is given a matching `--contexts`"))
        try workspace.migration("001.sql", "--liquibase formatted sql\n--changeset a:3\n--preconditions onFail:MARK_RAN\nSELECT 3;\n")
        #expect(try workspace.run("status").stderr.contains("001.sql:3: Liquibase checks this precondition when it runs the changeset"))
    }
}
