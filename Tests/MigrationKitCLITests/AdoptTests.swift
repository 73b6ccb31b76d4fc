import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `adopt` takes over a database another tool migrated, from that tool's ledger
/// (docs/adopting.md); `status` and `migrate` say so of one not adopted yet, and
/// `baseline` proves the schema of an unmanaged database. Every database here is one a
/// tool's own source would leave (`OtherToolFixture`).
@Suite struct AdoptTests {
    /// Every file of the workspace (the database, its folder, the key, the migrations).
    private func snapshot(_ workspace: Workspace) throws -> TreeSnapshot { try TreeSnapshot(workspace.root) }

    /// A database each tool left, with two migrations applied and one not: `status` names
    /// the tool and its last version and says `adopt`; `migrate` refuses it before writing
    /// anything (no backup); `adopt` records the two, proven against the schema; then
    /// `status` shows them applied, `diff` finds no drift (the other ledger left out),
    /// `migrate` runs the third, and every row is kept.
    @Test(arguments: OtherToolFixture.Tool.allCases)
    func eachToolsDatabaseIsAdoptedAndMigratedToTheEnd(_ tool: OtherToolFixture.Tool) throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(tool, in: workspace, applied: 2, pending: 1)

        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        let lastVersion = fixture.versions[1]
        let named = tool.isUserVersionLadder ? "a `PRAGMA user_version` ladder (at \(lastVersion))" : "(its ledger's last version is \(lastVersion))"
        #expect(status.stdout.contains(named) && status.stdout.contains("run `migrationkit adopt` to record what it applied"), "\(status.output)")

        let before = try snapshot(workspace)
        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .refused, "\(migrate.output)")
        #expect(migrate.stderr.contains(named) && migrate.stderr.contains("run `migrationkit adopt`"), "\(migrate.stderr)")
        try expectUnchanged(before, "a refused migrate")

        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0, "\(adopt.output)")
        #expect(adopt.stdout.contains("Recorded 2 migrations from"), "\(adopt.stdout)")
        let statusJSON = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        #expect(statusJSON["appliedCount"] as? Int == 2 && statusJSON["pendingCount"] as? Int == 1, "\(statusJSON)")
        #expect((statusJSON["otherTools"] as? [Any])?.isEmpty == true && statusJSON["migrateWouldRefuse"] as? Bool == false, "\(statusJSON)")
        let drift = try workspace.run("diff")
        #expect(drift.status == 0 && drift.stdout.contains("No drift"), "\(drift.output)")

        let rest = try workspace.run("migrate", ["--no-backup"])
        #expect(rest.status == 0 && rest.stdout.contains("Applied \(fixture.identifiers[2])"), "\(rest.output)")
        #expect(try fixture.query(workspace, "SELECT identifier FROM grdb_migrations ORDER BY rowid;") == fixture.identifiers)
        #expect(try fixture.query(workspace, "SELECT body FROM notes ORDER BY id; SELECT count(*) FROM tag_2; SELECT count(*) FROM tag_3;")
                == ["first", "kept", "1", "1"])
        // The other tool's ledger stays as it was, and is still no drift.
        for table in tool.ledgerTables {
            #expect(try fixture.query(workspace, "SELECT count(*) FROM sqlite_master WHERE name = '\(table)';") == ["1"], "\(table)")
        }
        #expect(try workspace.run("diff").status == 0)
    }

    /// A dirty golang-migrate record, a failed Flyway row, an edited file under sqlx's and
    /// Flyway's checksums, a version no file carries, a schema that differs and a database
    /// adopted already are each refused (exit 7) naming what is wrong, with every file as
    /// it was.
    @Test func whatCannotBeAdoptedIsRefusedNamingEachProblem() throws {
        func refused(_ tool: OtherToolFixture.Tool, _ change: (Workspace, OtherToolFixture) throws -> Void, saying sentences: [String],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
            let workspace = try Workspace()
            let fixture = try OtherToolFixture.make(tool, in: workspace, applied: 2, pending: 1)
            try change(workspace, fixture)
            let before = try snapshot(workspace)
            let adopt = try workspace.run("adopt", ["--retire-ledger", "--yes"])
            #expect(adopt.exitCode == .refused, "\(adopt.output)", sourceLocation: sourceLocation)
            for sentence in sentences + ["cannot be adopted", "Nothing was recorded."] {
                #expect(adopt.stderr.contains(sentence), "\(sentence) missing from: \(adopt.stderr)", sourceLocation: sourceLocation)
            }
            try expectUnchanged(before, "\(tool.name): a refused adopt", sourceLocation: sourceLocation)
        }
        try refused(.golangMigrate, { workspace, fixture in
            _ = try fixture.query(workspace, "UPDATE schema_migrations SET dirty = 1;")
        }, saying: ["golang-migrate marked version 2 dirty"])
        // A failed row and an edited file: both named in one run.
        try refused(.flyway, { workspace, fixture in
            _ = try fixture.query(workspace, """
                INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
                VALUES (3, '3', 'create 3', 'SQL', 'V3__create_3.sql', 1, 'app', 4, 0);
                """)
            try Data("-- edited after Flyway applied it\n\(OtherToolFixture.upSQL(1))\n".utf8).write(to: URL(fileURLWithPath: fixture.upFiles[0]))
        }, saying: ["Flyway recorded version 3 (V3__create_3.sql) as failed", "V1__create_1.sql differs from the version 1 Flyway applied"])
        // Flyway's checksum leaves line endings out: a CRLF copy of the file is the same.
        let crlf = try Workspace()
        let flyway = try OtherToolFixture.make(.flyway, in: crlf, applied: 2, pending: 0)
        try Data(OtherToolFixture.upSQL(1).replacingOccurrences(of: "\n", with: "\r\n").utf8 + Data("\r\n".utf8)).write(to: URL(fileURLWithPath: flyway.upFiles[0]))
        let adopted = try crlf.run("adopt", ["--dry-run"])
        #expect(adopted.status == 0, "\(adopted.output)")
        try refused(.sqlx, { _, fixture in
            try Data("-- Add migration script here\n\(OtherToolFixture.upSQL(2))\n\n".utf8).write(to: URL(fileURLWithPath: fixture.upFiles[1]))
        }, saying: ["20240101000002_create_2.sql differs from the version 20240101000002 sqlx applied"])
        try refused(.dbmate, { workspace, fixture in
            _ = try fixture.query(workspace, "INSERT INTO schema_migrations (version) VALUES ('20990101000000');")
        }, saying: ["dbmate recorded version 20990101000000, and no migration in the folder carries it"])
        try refused(.goose, { workspace, fixture in
            _ = try fixture.query(workspace, "CREATE INDEX notes_body ON notes(body);")
        }, saying: ["its schema is not what the migrations up to 00002_create_2 make (index notes_body: only in the database"])

        let managed = try Workspace()
        _ = try OtherToolFixture.make(.diesel, in: managed, applied: 1, pending: 0)
        #expect(try managed.run("adopt").status == 0)
        let again = try managed.run("adopt")
        #expect(again.exitCode == .refused && again.stderr.contains("already records 1 migration, so it is managed already"), "\(again.output)")
    }

    /// `--dry-run` says what it would record and writes nothing; `--retire-ledger` drops
    /// the other tool's ledger in the transaction that records the migrations, asking
    /// first (refused without `--yes` off a terminal, with nothing written).
    @Test func aDryRunWritesNothingAndRetiringTheLedgerIsOneTransaction() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.sqlx, in: workspace, applied: 2, pending: 1)
        let before = try snapshot(workspace)
        let dry = try workspace.run("adopt", ["--dry-run", "--retire-ledger", "--json"])
        #expect(dry.status == 0, "\(dry.output)")
        let document = try decodeJSON(dry.stdout)
        #expect(document["adopted"] as? [String] == fixture.applied && document["dryRun"] as? Bool == true
                && document["tool"] as? String == "sqlx" && document["retired"] as? [String] == ["_sqlx_migrations"], "\(document)")
        try expectUnchanged(before, "adopt --dry-run")

        let unconfirmed = try workspace.run("adopt", ["--retire-ledger"])
        #expect(unconfirmed.exitCode == .refused && unconfirmed.stderr.contains("pass --yes"), "\(unconfirmed.output)")
        try expectUnchanged(before, "an unconfirmed --retire-ledger")

        let retired = try workspace.run("adopt", ["--retire-ledger", "--yes"])
        #expect(retired.status == 0 && retired.stdout.contains("Retired _sqlx_migrations in the same transaction."), "\(retired.output)")
        #expect(try fixture.query(workspace, "SELECT count(*) FROM sqlite_master WHERE name = '_sqlx_migrations'; SELECT identifier FROM grdb_migrations ORDER BY rowid;")
                == ["0"] + fixture.applied)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        #expect(try workspace.run("diff").status == 0)
    }

    /// A user_version ladder retired is set to 0, with the migrations recorded.
    @Test func aRetiredLadderIsSetToZero() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.userVersion, in: workspace, applied: 2, pending: 1)
        let adopt = try workspace.run("adopt", ["--from", "user-version", "--retire-ledger", "--yes"])
        #expect(adopt.status == 0, "\(adopt.output)")
        #expect(try fixture.query(workspace, "PRAGMA user_version; SELECT count(*) FROM grdb_migrations;") == ["0", "2"])
    }

    /// Two ledgers: `status` names both and `adopt --from TOOL`; without --from, adopt is
    /// refused naming both; --from picks one.
    @Test func twoLedgersNeedFrom() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.goose, in: workspace, applied: 2, pending: 0)
        _ = try fixture.query(workspace, "PRAGMA user_version = 1;")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("was migrated by goose (its ledger's last version is 2) and a `PRAGMA user_version` ladder (at 1)")
                && status.stdout.contains("run `migrationkit adopt --from TOOL`"), "\(status.output)")
        let refused = try workspace.run("adopt")
        #expect(refused.exitCode == .refused && refused.stderr.contains("it has ledgers of goose and a `PRAGMA user_version` ladder; name the one that migrated it with --from (goose, user-version)"),
                "\(refused.output)")
        #expect(try workspace.run("adopt", ["--from", "goose"]).status == 0)
    }

    /// A fleet of databases one tool migrated is adopted, each on its own.
    @Test func aFleetIsAdopted() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.golangMigrate, in: workspace, applied: 2, pending: 1)
        try FileManager.default.createDirectory(atPath: workspace.path("tenants"), withIntermediateDirectories: true)
        for name in ["a", "b"] { try FileManager.default.copyItem(atPath: fixture.database, toPath: workspace.path("tenants/\(name).db")) }
        let adopt = try Tool.run(["adopt", "--db-glob", "tenants/*.db", "--password-file", workspace.keyFile, "--migrations", workspace.migrations, "--json"],
                                 directory: workspace.root)
        #expect(adopt.status == 0, "\(adopt.output)")
        for name in ["a", "b"] {
            let ledger = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: workspace.key, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
            #expect(ledger.stdout.split(separator: "\n").map(String.init) == fixture.applied, "\(name): \(ledger.output)")
        }
    }

    /// `baseline --to` takes the version another tool recorded when one file carries
    /// it, refuses it naming both when two do, and proves an unmanaged database's schema
    /// (a wrong --to is refused, naming the first difference, unless --skip-schema-proof).
    @Test func baselineTakesAVersionAndProvesTheSchema() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.userVersion, in: workspace, applied: 2, pending: 1)
        let before = try snapshot(workspace)
        let wrong = try workspace.run("baseline", ["--to", "3"])
        #expect(wrong.exitCode == .refused && wrong.stderr.contains("Its schema is not what the migrations up to 0003_create_3 make (table tag_3: missing from the database")
                && wrong.stderr.contains("--skip-schema-proof"), "\(wrong.output)")
        try expectUnchanged(before, "a wrong baseline --to")

        try workspace.migration("0002_other.sql", "-- migrate:up\nSELECT 1;\n")
        let twice = try snapshot(workspace)
        let ambiguous = try workspace.run("baseline", ["--to", "2"])
        #expect(ambiguous.exitCode == .usage && ambiguous.stderr.contains("--to 2 is the version of 2 migrations (0002_create_2, 0002_other)"), "\(ambiguous.output)")
        try expectUnchanged(twice, "an ambiguous baseline --to")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_other.sql")

        let baseline = try workspace.run("baseline", ["--to", "2"])
        #expect(baseline.status == 0 && baseline.stdout.contains("Baselined 0002_create_2"), "\(baseline.output)")
        #expect(try fixture.query(workspace, "SELECT identifier FROM grdb_migrations ORDER BY rowid;") == fixture.applied)

        let forced = try Workspace()
        _ = try OtherToolFixture.make(.userVersion, in: forced, applied: 1, pending: 1)
        let skipped = try forced.run("baseline", ["--to", "0002_create_2", "--skip-schema-proof"])
        #expect(skipped.status == 0 && skipped.stdout.contains("Baselined 0002_create_2"), "\(skipped.output)")
    }
}
