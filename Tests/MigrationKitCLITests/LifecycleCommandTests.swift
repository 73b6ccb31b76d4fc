import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

@Suite struct LifecycleCommandTests {
    private func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// A plaintext database with the sample migrations applied and some rows.
    fileprivate func plaintextWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try Tool.run(["migrate", "--plaintext", "--db-path", workspace.database, "--migrations", workspace.migrations])
        #expect(migrate.status == 0, "\(migrate.output)")
        let insert = try Binary.run(["-batch", workspace.database], executable: SQLCipherShell.path,
                                    stdin: "INSERT INTO authors (name) VALUES ('Ann'), ('Bo'); INSERT INTO books (authorId, title) VALUES (1, 'X'); PRAGMA user_version = 9;\n")
        #expect(insert.status == 0, "\(insert.output)")
        return workspace
    }

    @Test func encryptInPlaceThenRekeyThenDecryptKeepsEverything() throws {
        let workspace = try plaintextWorkspace()
        let encrypt = try workspace.run("encrypt", ["--in-place", "--no-backup"])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        #expect(FileManager.default.contents(atPath: workspace.database)?.prefix(16) != Data("SQLite format 3\0".utf8))
        #expect(try workspace.run("status").stdout.contains("applied  0002_books"))

        try workspace.write("new-key", "the new passphrase\n", mode: 0o600)
        let rekey = try workspace.run("rekey", ["--new-password-file", workspace.path("new-key")])
        #expect(rekey.status == 0, "\(rekey.output)")
        #expect(rekey.stdout.contains("OLD key"))  // the backup it wrote keeps the old key
        #expect(try workspace.run("status").exitCode == .wrongKeyOrNotADatabase)  // the old key no longer opens it
        let withNewKey = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("new-key"), "--migrations", workspace.migrations])
        #expect(withNewKey.status == 0, "\(withNewKey.output)")

        let exported = workspace.path("export.db")
        let decrypt = try Tool.run(["decrypt", "--db-path", workspace.database, "--password-file", workspace.path("new-key"), "--output", exported])
        #expect(decrypt.status == 0, "\(decrypt.output)")
        #expect(mode(exported) == 0o600)
        let shell = try Binary.run([exported], executable: SQLCipherShell.path,
                                   stdin: "SELECT count(*) FROM authors; SELECT count(*) FROM grdb_migrations; PRAGMA user_version;\n")
        #expect(shell.stdout == "2\n2\n9\n")

        let again = try Tool.run(["decrypt", "--db-path", workspace.database, "--password-file", workspace.path("new-key"), "--output", exported])
        #expect(again.exitCode == .fileError)
        #expect(again.stderr.contains("--force"))
        let forced = try Tool.run(["decrypt", "--db-path", workspace.database, "--password-file", workspace.path("new-key"), "--output", exported, "--force"])
        #expect(forced.status == 0)
    }

    /// docs/encryption-recipes.md: a file written with settings format detection cannot
    /// find (16384-byte pages) opens again. `encrypt` names the options later commands
    /// need and the PRAGMAs for the app; a command run without them names the options
    /// in its wrong-key sentence; with them, it opens.
    @Test func aDatabaseWrittenWithCustomSettingsSaysHowToReopenIt() throws {
        let workspace = try plaintextWorkspace()
        let encrypt = try workspace.run("encrypt", ["--in-place", "--no-backup", "--cipher-page-size", "16384"])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        #expect(encrypt.stdout.contains("give later commands --cipher-page-size 16384") && encrypt.stdout.contains("PRAGMA cipher_page_size = 16384."),
                "\(encrypt.stdout)")
        let without = try workspace.run("status")
        #expect(without.exitCode == .wrongKeyOrNotADatabase, "\(without.output)")
        #expect(without.stderr.contains("if the database was made with other cipher settings, give them: --cipher-page-size"), "\(without.stderr)")
        let with = try workspace.run("status", ["--cipher-page-size", "16384"])
        #expect(with.status == 0 && with.stdout.contains("applied  0002_books"), "\(with.output)")

        // A known format's defaults open by detection: no options for later commands.
        let other = try plaintextWorkspace()
        let known = try other.run("encrypt", ["--in-place", "--no-backup", "--cipher-compatibility", "3"])
        #expect(known.status == 0 && !known.stdout.contains("give later commands"), "\(known.output)")
        #expect(try other.run("status").status == 0)
    }

    /// The lines `status` prints for the cipher settings of the database at `path`.
    private func statusCipherLines(_ workspace: Workspace, _ path: String) throws -> [String] {
        let status = try Tool.run(["status", "--db-path", path, "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
        #expect(status.status == 0, "\(status.output)")
        return status.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  cipher:") || $0.hasPrefix("  format:") }
    }

    /// An app's file in SQLCipher 3's format, decrypted and encrypted again without
    /// options, comes back in the linked SQLCipher's own format, which that app may not
    /// open: `encrypt` states the written file's settings as `status` states them (its
    /// `--json` as `status --json` gives them), and for another format than the linked
    /// library's, the PRAGMA an app runs to open it, with which the shell does.
    @Test func encryptStatesTheSettingsOfTheFileItWrote() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let linked = SQLCipherLibrary.cipherVersion?.major ?? 0
        let compatibility = linked >= 4 ? "PRAGMA cipher_compatibility = 3; " : ""
        let app = workspace.path("app3.db")
        let made = try SQLCipherShell.run(app, key: workspace.key, compatibility + "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');")
        try #require(made.status == 0, "\(made.output)")
        let plain = workspace.path("plain.db")
        #expect(try Tool.run(["decrypt", "--db-path", app, "--password-file", workspace.keyFile, "--output", plain]).status == 0)

        let again = workspace.path("again.db")
        let encrypt = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--output", again])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        let lines = try statusCipherLines(workspace, again)
        #expect(lines.count == 2 && lines.last == "  format:  sqlcipher\(linked)", "\(lines)")
        #expect(encrypt.stdout.contains(lines.joined(separator: "\n")), "encrypt does not say what status says: \(encrypt.stdout)")
        #expect(!encrypt.stdout.contains("PRAGMA"), "the linked library's defaults need nothing: \(encrypt.stdout)")

        // Given the app's format: said, with what the app runs to open it.
        let asBefore = workspace.path("as-before.db")
        let inFormat = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--output", asBefore, "--cipher-compatibility", "3"])
        #expect(inFormat.status == 0, "\(inFormat.output)")
        let formatLines = try statusCipherLines(workspace, asBefore)
        #expect(formatLines.last == "  format:  sqlcipher3" && inFormat.stdout.contains(formatLines.joined(separator: "\n")), "\(inFormat.stdout)")
        if linked >= 4 {
            #expect(inFormat.stdout.contains("an app on SQLCipher \(linked) runs, after its key: PRAGMA cipher_compatibility = 3."), "\(inFormat.stdout)")
            let read = try SQLCipherShell.run(asBefore, key: workspace.key, "PRAGMA cipher_compatibility = 3; SELECT body FROM notes;")
            #expect(read.stdout.hasSuffix("kept\n"), "\(read.output)")
        } else {
            #expect(!inFormat.stdout.contains("PRAGMA"), "SQLCipher 3's own format needs nothing: \(inFormat.stdout)")
        }

        // In place, and as JSON: the fields status --json gives.
        let inPlace = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--in-place", "--no-backup", "--json"])
        #expect(inPlace.status == 0, "\(inPlace.output)")
        let written = try decodeJSON(inPlace.stdout)
        let status = try decodeJSON(try Tool.run(["status", "--json", "--db-path", plain, "--password-file", workspace.keyFile,
                                                  "--migrations", workspace.migrations]).stdout)
        #expect(written["format"] as? String == "sqlcipher\(linked)" && written["format"] as? String == status["format"] as? String, "\(inPlace.stdout)")
        #expect((written["cipher"] as? NSDictionary) == (status["cipher"] as? NSDictionary) && written["cipher"] is [String: Any], "\(inPlace.stdout)")
    }

    @Test func encryptToAnOutputFileLeavesTheOriginal() throws {
        let workspace = try plaintextWorkspace()
        let before = workspace.bytes(workspace.database)
        let output = workspace.path("encrypted.db")
        let result = try workspace.run("encrypt", ["--output", output])
        #expect(result.status == 0, "\(result.output)")
        #expect(workspace.bytes(workspace.database) == before)
        #expect(mode(output) == 0o600)
        let status = try Tool.run(["status", "--db-path", output, "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
        #expect(status.stdout.contains("2 applied, 0 pending."))
    }

    @Test func rekeyRefusesAPlaintextDatabaseAndEncryptRefusesAnEncryptedOne() throws {
        let workspace = try plaintextWorkspace()
        let rekey = try Tool.run(["rekey", "--plaintext", "--db-path", workspace.database, "--new-password-file", workspace.keyFile])
        #expect(rekey.exitCode == .usage)
        #expect(rekey.stderr.contains("encrypt"))
        let rekeyWithKey = try workspace.run("rekey", ["--new-password", "x", "--no-backup"])
        #expect(rekeyWithKey.exitCode == .wrongKeyOrNotADatabase)
        #expect(rekeyWithKey.stderr.contains("not encrypted"))

        #expect(try workspace.run("encrypt", ["--in-place", "--no-backup"]).status == 0)
        // Again with the same key, a rerun: done already, nothing written.
        let encrypted = workspace.bytes(workspace.database)
        let twice = try workspace.run("encrypt", ["--in-place", "--no-backup"])
        #expect(twice.status == 0 && twice.stdout.contains("already encrypted with this key: nothing to change"), "\(twice.output)")
        #expect(workspace.bytes(workspace.database) == encrypted)
        // With another key: refused, pointing at rekey.
        let otherKey = try Tool.run(["encrypt", "--in-place", "--no-backup", "--db-path", workspace.database, "--password", "another key"])
        #expect(otherKey.exitCode == .wrongKeyOrNotADatabase, "\(otherKey.output)")
        #expect(otherKey.stderr.contains("rekey"), "\(otherKey.stderr)")
        #expect(workspace.bytes(workspace.database) == encrypted)
    }

    /// With a passphrase: KDF iterations apply only to one.
    @Test(.tags(.passphrase)) func unsupportedCipherSettingsAreRefusedNamingTheLibrary() throws {
        let workspace = try Workspace(key: .randomPassphrase())
        try workspace.writeSampleMigrations()
        let compatible = try Workspace()
        try compatible.writeSampleMigrations()
        let result = try compatible.run("migrate", ["--cipher-compatibility", "4"])
        // On SQLCipher 3.4.1 this is refused before anything is created; on SQLCipher 4
        // it is honoured.
        if (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 {
            #expect(result.status == 0, "\(result.output)")
        } else {
            #expect(result.exitCode == .usage)
            #expect(result.stderr.contains("SQLCipher 3"))
            #expect(!FileManager.default.fileExists(atPath: compatible.database))
        }
        let tuned = try workspace.run("migrate", ["--kdf-iter", "5000", "--cipher-page-size", "4096"])
        #expect(tuned.status == 0, "\(tuned.output)")
        let status = try workspace.run("status", ["--kdf-iter", "5000", "--cipher-page-size", "4096", "--json"])
        let cipher = try #require(try decodeJSON(status.stdout)["cipher"] as? [String: Any])
        #expect(cipher["kdfIterations"] as? Int == 5000)
        #expect(cipher["pageSize"] as? Int == 4096)
        #expect(try workspace.run("status").exitCode == .wrongKeyOrNotADatabase)  // default settings cannot read it
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aGeneratedKeyLivesOnlyInTheKeyring() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let workspace = try plaintextWorkspace()
        let service = "migrationkit-generated-\(UUID().uuidString)"
        defer { _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", "db"]) }
        let generate = try Tool.run(["key", "generate", "--keychain-service", service, "--keychain-account", "db"])
        #expect(generate.status == 0, "\(generate.output)")
        #expect(!generate.stdout.contains("x'"))  // never printed without --print
        let again = try Tool.run(["key", "generate", "--keychain-service", service, "--keychain-account", "db"])
        #expect(again.exitCode == .refused)  // would lose the key the databases depend on

        let keychain = ["--keychain-service", service, "--keychain-account", "db"]
        let encrypt = try Tool.run(["encrypt", "--in-place", "--no-backup", "--db-path", workspace.database] + keychain)
        #expect(encrypt.status == 0, "\(encrypt.output)")
        let status = try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + keychain)
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("applied  0002_books"))

        // Move to a second generated key with rekey.
        let second = "migrationkit-generated-\(UUID().uuidString)"
        defer { _ = try? Tool.run(["key", "delete", "--keychain-service", second, "--keychain-account", "db"]) }
        #expect(try Tool.run(["key", "generate", "--keychain-service", second, "--keychain-account", "db"]).status == 0)
        let rekey = try Tool.run(["rekey", "--no-backup", "--db-path", workspace.database] + keychain
                                   + ["--new-keychain-service", second, "--new-keychain-account", "db"])
        #expect(rekey.status == 0, "\(rekey.output)")
        let afterRekey = try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                         "--keychain-service", second, "--keychain-account", "db"])
        #expect(afterRekey.status == 0)

        let stored = try Tool.run(["key", "store", "--keychain-service", service + "-typed", "--keychain-account", "db"], stdin: "typed passphrase\n")
        #expect(stored.status == 0, "\(stored.output)")
        let deleted = try Tool.run(["key", "delete", "--keychain-service", service + "-typed", "--keychain-account", "db"])
        #expect(deleted.status == 0)
        let deletedAgain = try Tool.run(["key", "delete", "--keychain-service", service + "-typed", "--keychain-account", "db"])
        #expect(deletedAgain.status == 0 && deletedAgain.stdout.contains("nothing to delete"), "\(deletedAgain.output)")
    }
}

@Suite struct SafetyCommandTests {
    @Test func anEditedMigrationBlocksMigrateUntilAccepted() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try workspace.migration("0001_authors.sql", "-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);\n-- migrate:down\nDROP TABLE authors;\n")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("modified 0001_authors"))
        let before = workspace.bytes(workspace.database)
        let blocked = try workspace.run("migrate")
        #expect(blocked.exitCode == .refused)
        #expect(blocked.stderr.contains("0001_authors.sql"))
        #expect(blocked.stderr.contains("--accept-modified 0001_authors"))
        #expect(workspace.bytes(workspace.database) == before)
        let accepted = try workspace.run("migrate", ["--accept-modified", "0001_authors", "--no-backup"])
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(!(try workspace.run("status").stdout.contains("modified")))
    }

    @Test func lintFindsErrorsWithFileLineRuleAndFixAndBlocksMigrate() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_bad.sql", """
            -- migrate:up
            ALTER TABLE books ADD COLUMN isbn TEXT NOT NULL;
            INSERT INTO books (title) VALUES ('BEGIN; COMMIT;');
            -- migrate:down
            SELECT 1;
            """)
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(lint.exitCode == .migrationFailed, "\(lint.output)")
        #expect(lint.stdout.contains("0003_bad.sql:2: error[not-null-column-without-default]"))
        #expect(lint.stdout.contains("fix:"))
        #expect(!lint.stdout.contains("transaction-control"))  // BEGIN inside a string is not a finding
        let json = try decodeJSON(try Tool.run(["lint", "--migrations", workspace.migrations, "--json"]).stdout)
        #expect(json["errorCount"] as? Int == 1)

        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .migrationFailed)
        #expect(migrate.stderr.contains("0003_bad.sql:2"))
        // Nothing was applied: lint runs before the first step.
        let status = try workspace.run("status")
        #expect(status.stdout.contains("pending  0001_authors"))
    }

    /// A table a pending migration created and filled, dropped by a later one: the
    /// warning names the statement that filled it, in the other file, by its line.
    @Test func lintNamesTheStatementThatFilledATableItWarnsAbout() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_seed.sql", """
            -- migrate:up
            CREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            INSERT INTO genres (name) VALUES ('sf'), ('fantasy');
            -- migrate:down
            DROP TABLE genres;
            """)
        try workspace.migration("0004_no_genres.sql", "-- migrate:up\nDROP TABLE genres;\n-- migrate:down\nSELECT 1;\n")
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(lint.status == 0, "\(lint.output)")
        #expect(lint.stdout.contains("0004_no_genres.sql:2: warning[drop-table-with-data]: DROP TABLE genres deletes the rows put in it by migration \"0003_seed\" (the INSERT at \(workspace.migrations)/0003_seed.sql:3)."),
                "\(lint.stdout)")
    }

    @Test func atomicAndDryRunThroughTheCommandLine() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        let before = workspace.bytes(workspace.database)
        let dryRun = try workspace.run("migrate", ["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.output)")
        #expect(dryRun.stdout.contains("Would apply 0002_books"))
        #expect(dryRun.stdout.contains("+ CREATE TABLE books"))
        #expect(dryRun.stdout.contains("Rolled back: the database is unchanged."))
        #expect(workspace.bytes(workspace.database) == before)
        // A dry run's bookkeeping is rolled back too: it would record, not recorded.
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, "DELETE FROM grdb_migrationkit_history;").status == 0)
        let adopting = try workspace.run("migrate", ["--dry-run"])
        #expect(adopting.stdout.contains("Would record checksums for 1 migration applied before checksums were kept.")
                && !adopting.stdout.contains("Recorded"), "\(adopting.output)")
        let unchanged = workspace.bytes(workspace.database)

        try workspace.migration("0003_broken.sql", "-- migrate:up\nCREATE TABLE c (x);\nINSERT INTO nowhere VALUES (1);\n")
        let atomic = try workspace.run("migrate", ["--atomic", "--no-backup"])
        #expect(atomic.exitCode == .migrationFailed)
        #expect(workspace.bytes(workspace.database) == unchanged)  // 0002 is not kept either
    }

    @Test func migrateWritesARestorableBackupAndPrunesOldOnes() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        let backups = workspace.path("backups")
        let migrate = try workspace.run("migrate", ["--backup-dir", backups, "--keep-backups", "1"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: backups)
        #expect(names.count == 1)
        let backup = backups + "/" + names[0]
        #expect(names[0].hasPrefix("app.db.backup-"))
        #expect(!names[0].contains(workspace.key.secret))

        let restore = try workspace.run("restore", ["--from", backup, "--no-backup"])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(try workspace.run("status").stdout.contains("pending  0002_books"))

        try workspace.write("other", "not the key\n", mode: 0o600)
        let refused = try Tool.run(["restore", "--from", backup, "--db-path", workspace.database, "--password-file", workspace.path("other")])
        #expect(refused.exitCode == .wrongKeyOrNotADatabase)
    }

    /// A backup whose schema reads but a page of a table does not is refused as damaged
    /// (exit 10) in the sentence a GRDB app's `restore` gives it too, and the database
    /// stays as it was.
    @Test func aBackupThatFailsItsIntegrityCheckIsRefusedAsDamaged() throws {
        let workspace = try LifecycleCommandTests().plaintextWorkspace()
        let backup = workspace.path("damaged.db")
        let fill = try Binary.run(["-batch", backup], executable: SQLCipherShell.path,
                                  stdin: "CREATE TABLE filler (body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO filler SELECT hex(zeroblob(500)) FROM n;\n")
        #expect(fill.status == 0, "\(fill.output)")
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: backup))
        try file.seek(toOffset: 2 * 4096)
        try file.write(contentsOf: Data(repeating: 0xff, count: 16))
        try file.close()
        let before = workspace.bytes(workspace.database)
        let restore = try Tool.run(["restore", "--from", backup, "--db-path", workspace.database, "--plaintext", "--no-backup"])
        #expect(restore.exitCode == .damaged, "\(restore.output)")
        #expect(restore.stderr.contains("\(backup): The backup fails its integrity check ("), "\(restore.output)")
        #expect(restore.stderr.contains("; choose another backup."), "\(restore.output)")
        #expect(workspace.bytes(workspace.database) == before)
    }

    @Test func checkProvesAFolderAndCatchesABrokenDown() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let good = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(good.status == 0, "\(good.output)")
        #expect(good.stdout.contains("ok     round trip 0002_books"))
        #expect(good.stdout.contains("ok     migrate twice"))

        // A down that forgets the index its up created.
        try workspace.migration("0003_index.sql", "-- migrate:up\nCREATE INDEX authors_name ON authors(name);\nCREATE TABLE tags (t);\n-- migrate:down\nDROP TABLE tags;\n")
        let bad = try Tool.run(["check", "--migrations", workspace.migrations, "--json"])
        #expect(bad.exitCode == .migrationFailed)
        let checks = try #require(try decodeJSON(bad.stdout)["checks"] as? [[String: Any]])
        let failed = checks.filter { $0["passed"] as? Bool == false }.compactMap { $0["name"] as? String }
        #expect(failed == ["round trip 0003_index"])
    }

    @Test func checkUpgradesACopyOfAnOlderDatabaseWithRows() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        _ = try Binary.run(["-batch", workspace.database], executable: SQLCipherShell.path,
                           stdin: "PRAGMA key = \(workspace.key.pragma);\nINSERT INTO authors (name) VALUES ('x'), ('y');\n")
        let before = workspace.bytes(workspace.database)
        // A step that breaks on existing rows: adding a UNIQUE index on duplicated data.
        try workspace.migration("0003_unique.sql", "-- migrate:up\nUPDATE authors SET name = 'same';\nCREATE UNIQUE INDEX authors_name ON authors(name);\n")
        let result = try Tool.run(["check", "--migrations", workspace.migrations, "--from-database", workspace.database, "--password-file", workspace.keyFile])
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        #expect(result.stdout.contains("FAILED upgrade"))
        #expect(result.stdout.contains("UNIQUE"))
        #expect(result.stdout.contains("ok     fresh install"))
        #expect(workspace.bytes(workspace.database) == before)  // the real database is untouched
    }
}

extension SafetyCommandTests {
    /// Who holds the commits that are still in a WAL database's `-wal`.
    enum WALWriter: String, CaseIterable, CustomTestStringConvertible {
        /// A connection of this process, still open, that never checkpoints.
        case openInThisProcess
        /// A `sqlcipher` shell killed with SIGKILL after committing: a `-wal` and `-shm`
        /// left over, which a look reads on a private copy.
        case killedShell
        var testDescription: String { rawValue }
    }

    /// `check --from-database` upgrades a copy of the database as it is committed, commits
    /// still in its `-wal` included (a copy of the file's bytes alone misses them), and
    /// leaves the database, its `-wal` and `-shm` as they were.
    @Test(arguments: WALWriter.allCases)
    func checkUpgradesTheCommitsStillInTheWAL(_ walWriter: WALWriter) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--no-backup"]).status == 0)
        try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey).writeWithoutTransaction {
            try $0.execute(sql: "PRAGMA journal_mode = WAL")
        }
        let insert = "INSERT INTO authors (name) VALUES ('Ann'), ('Bo'), ('Cy');"
        var app: SQLCipherWriter?
        switch walWriter {
        case .openInThisProcess:
            let writer = try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey)
            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            try writer.write { try $0.execute(sql: insert) }
            app = writer
        case .killedShell:
            try KilledShell.committing(insert, to: workspace.database, key: workspace.key)
        }
        defer { try? app?.close() }
        #expect(FileProbeForTests.size(workspace.database + "-wal") > 0, "the rows are not in the -wal only")
        let before = KilledShell.files(workspace.database)
        let result = try Tool.run(["check", "--migrations", workspace.migrations, "--from-database", workspace.database,
                                   "--password-file", workspace.keyFile])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("ok     upgrade \(workspace.database): a copy upgraded with 1 migration; every table kept its rows"),
                "\(result.output)")
        #expect(KilledShell.files(workspace.database) == before, "the look changed the database or the files beside it")
        try app?.close()
        let authors = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM authors;")
        #expect(authors.stdout == "3\n", "\(authors.output)")
    }
}

@Suite struct HistoryCommandTests {
    @Test func baselineThenMigrateAppliesOnlyLaterSteps() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (name TEXT);\n-- migrate:down\nDROP TABLE genres;\n")
        // A database made before MigrationKit: the tables of 0001 and 0002, no ledger.
        let create = try Binary.run(["-batch", workspace.database], executable: SQLCipherShell.path,
                                    stdin: "PRAGMA key = \(workspace.key.pragma);\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\nCREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL);\nCREATE INDEX books_authorId ON books(authorId);\n")
        #expect(create.status == 0)
        let baseline = try workspace.run("baseline", ["--to", "0002_books"])
        #expect(baseline.status == 0, "\(baseline.output)")
        #expect(baseline.stdout.contains("Baselined 0001_authors"))
        #expect(try workspace.run("status").stdout.contains("applied  0002_books"))
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.stdout.contains("Applied 0003_genres"))
        #expect(!migrate.stdout.contains("Applied 0001"))
        let refused = try workspace.run("baseline", ["--to", "0001_authors"])
        #expect(refused.exitCode == .refused)
    }

    /// A managed database (its ledger names applied migrations) behind the target is
    /// baselined only when its schema is what the migrations up to the target make;
    /// otherwise recording them would leave their tables missing, and it is refused,
    /// naming `migrate --to`, with nothing recorded (Flyway refuses a baseline on a
    /// non-empty history outright).
    @Test func baselineOfAManagedDatabaseNeedsItsSchemaToMatch() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--no-backup"]).status == 0)
        let before = try #require(workspace.bytes(workspace.database))
        let refused = try workspace.run("baseline", ["--to", "0002_books"])
        #expect(refused.exitCode == .refused, "\(refused.output)")
        #expect(refused.stderr.contains("The database is managed (its latest applied migration is 0001_authors)")
                && refused.stderr.contains("table books: missing from the database")
                && refused.stderr.contains("recording 0002_books as applied without running it would leave it undone")
                && refused.stderr.contains("run `migrate --to 0002_books`"), "\(refused.stderr)")
        #expect(workspace.bytes(workspace.database) == before, "a refused baseline wrote")

        // The step's schema made by hand (a hotfix applied outside MigrationKit): proven, recorded.
        let hotfix = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                            "CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL);"
                                                + " CREATE INDEX books_authorId ON books(authorId);")
        #expect(hotfix.status == 0, "\(hotfix.output)")
        let baseline = try workspace.run("baseline", ["--to", "0002_books"])
        #expect(baseline.status == 0 && baseline.stdout.contains("Baselined 0002_books"), "\(baseline.output)")
        #expect(try workspace.run("diff").status == 0)
    }

    @Test func eraseOnSchemaChangeNeedsConfirmationAndBacksUpFirst() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.up.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.down.sql")
        let before = workspace.bytes(workspace.database)
        let refused = try workspace.run("migrate", ["--erase-on-schema-change", "--no-backup"])
        #expect(refused.exitCode == .refused)
        #expect(refused.stderr.contains("removed or renamed"))
        #expect(refused.stderr.contains("--yes"))
        #expect(workspace.bytes(workspace.database) == before)

        let erased = try workspace.run("migrate", ["--erase-on-schema-change", "--yes", "--no-backup"])
        #expect(erased.status == 0, "\(erased.output)")
        #expect(erased.stdout.contains("Backup before erasing: "))  // even with --no-backup
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }
        #expect(backups.count == 1)
        let status = try workspace.run("status")
        #expect(status.stdout.contains("applied  0001_authors"))
        #expect(!status.stdout.contains("unknown"))
        // The backup still holds the erased history.
        let restore = try workspace.run("restore", ["--from", workspace.root + "/" + backups[0], "--no-backup"])
        #expect(restore.status == 0)
        #expect(try workspace.run("status").stdout.contains("unknown  0002_books"))
    }
}

@Suite struct TerminalAndMergeTests {
    @Test func aSquashedFileReplacesTheMigrationsItMergesInTheLedger() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        // Release N squashes 0001 and 0002 into one file.
        for name in ["0001_authors.sql", "0002_books.up.sql", "0002_books.down.sql"] {
            try FileManager.default.removeItem(atPath: workspace.migrations + "/" + name)
        }
        try workspace.migration("0002_schema.sql", """
            -- migrate:merging 0001_authors 0002_books
            -- migrate:up
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL);
            CREATE INDEX books_authorId ON books(authorId);
            """)
        #expect(try workspace.run("status").stdout.contains("applied  0002_schema"))
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(migrate.stdout.contains("Merged 0001_authors, 0002_books into 0002_schema"))
        // GRDB's ledger, rewritten to the new identifier.
        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT identifier FROM grdb_migrations;")
        #expect(shell.stdout == "0002_schema\n")

        // A database with only one of the merged steps is refused, naming both sets.
        let partial = try Workspace(key: workspace.key)
        try partial.writeSampleMigrations()
        #expect(try partial.run("migrate", ["--to", "0001_authors"]).status == 0)
        try FileManager.default.removeItem(atPath: partial.migrations)
        try FileManager.default.copyItem(atPath: workspace.migrations, toPath: partial.migrations)
        let refused = try partial.run("migrate")
        #expect(refused.exitCode == .refused)
        #expect(refused.stderr.contains("\"0001_authors\"") && refused.stderr.contains("\"0002_books\""))
    }
}
