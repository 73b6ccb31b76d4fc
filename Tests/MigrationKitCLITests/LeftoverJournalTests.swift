import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `-wal` left beside a database by a process that was killed, or one that belongs to
/// another database (a restore that copied only the main file): a command that only
/// reads leaves the files byte for byte as they were (`-shm` included) and still sees
/// the rows the `-wal` holds; a command that fails changes nothing either; a foreign
/// `-wal` is refused by every command, named, and left alone; `migrate` applies the
/// database's own. The files are made by the configuration's `sqlcipher` shell, killed
/// with SIGKILL after its last commit.
@Suite struct LeftoverJournalTests {
    private func files(_ database: String) -> [String: Data] {
        KilledShell.files(database)
    }

    @Test func aLookLeavesAKilledWritersWALAsItWasAndSeesItsRows() throws {
        let workspace = try Workspace()
        try KilledShell.writer(workspace.database, key: workspace.key, table: "notes")
        let before = files(workspace.database)
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE notes"), "\(dump.output)")
        #expect(files(workspace.database) == before, "schema-dump changed the files")
        for command in ["status", "verify", "diff"] {
            let result = try workspace.run(command)
            #expect(result.status != 1 && !result.output.contains("Wrong key"), "\(command): \(result.output)")
            #expect(files(workspace.database) == before, "\(command) changed the files")
        }
        // A command that fails before it changes anything changes nothing.
        try workspace.write("wrong.key", "wrong passphrase\n", mode: 0o600)
        let wrongKey = try Tool.run(["migrate", "--db-path", workspace.database, "--password-file", workspace.path("wrong.key"),
                                     "--migrations", workspace.migrations], directory: workspace.root)
        #expect(wrongKey.status == 4, "\(wrongKey.output)")
        #expect(files(workspace.database) == before, "a failed migrate changed the files")
    }

    /// A WAL connection killed after a checkpoint leaves an empty `-wal` and its `-shm`:
    /// nothing to apply, and yet any connection to the file itself changes them (the
    /// first rebuilds the `-shm`, the last deletes both, a wrong key's included). Every
    /// look, and every command that fails, leaves them as they were, byte for byte.
    @Test func aKilledProcesssEmptyWALAndShmStayAsTheyWereAfterLooksAndFailures() throws {
        let workspace = try Workspace()
        try KilledShell.afterCheckpoint(workspace.database, key: workspace.key)
        let before = files(workspace.database)
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE base"), "\(dump.output)")
        #expect(files(workspace.database) == before, "schema-dump changed the files")
        // diff: exit 3, for the table no migration makes.
        for (command, code) in [("status", Int32(0)), ("verify", 0), ("diff", 3)] {
            let result = try workspace.run(command)
            #expect(result.status == code, "\(command): \(result.output)")
            #expect(files(workspace.database) == before, "\(command) changed the files")
        }
        let plain = workspace.path("plain.db")
        let decrypt = try workspace.run("decrypt", ["--output", plain])
        #expect(decrypt.status == 0, "\(decrypt.output)")
        #expect(files(workspace.database) == before, "decrypt changed the files")
        let rows = try SQLCipherShell.run(plain, keyPragma: nil, "SELECT group_concat(v) FROM base;")
        #expect(rows.stdout == "a,b,c\n", "\(rows.output)")

        try workspace.write("wrong.key", TestKey.raw().text + "\n", mode: 0o600)
        for (command, extra) in [("status", []), ("verify", []), ("schema-dump", []), ("diff", []), ("migrate", []), ("baseline", ["--to", "0001_x"]),
                                 ("rekey", ["--new-password", "another key"]), ("decrypt", ["--output", workspace.path("other.db")])] {
            let result = try Tool.run([command, "--db-path", workspace.database, "--password-file", workspace.path("wrong.key"),
                                       "--migrations", workspace.migrations] + extra, directory: workspace.root)
            #expect(result.status == 4, "\(command) with a wrong key: \(result.output)")
            #expect(files(workspace.database) == before, "\(command) with a wrong key changed the files")
        }
    }

    /// The same files of a database made with settings no format has (8192-byte pages):
    /// a command not given them fails without touching them; given them, a look reads
    /// it and leaves them too.
    @Test func aCommandMissingTheCipherSettingsLeavesAKilledProcesssWALFilesAlone() throws {
        let workspace = try Workspace()
        try KilledShell.afterCheckpoint(workspace.database, key: workspace.key, settings: "PRAGMA cipher_page_size = 8192;")
        let before = files(workspace.database)
        for command in ["status", "verify", "migrate", "decrypt"] {
            let extra = command == "decrypt" ? ["--output", workspace.path("plain.db")] : []
            let result = try workspace.run(command, extra)
            #expect(result.status == 4 && result.stderr.contains("--cipher-page-size"), "\(command) without its settings: \(result.output)")
            #expect(files(workspace.database) == before, "\(command) without its settings changed the files")
        }
        let status = try workspace.run("status", ["--cipher-page-size", "8192"])
        #expect(status.status == 0 && status.stdout.contains("8192-byte pages"), "\(status.output)")
        #expect(files(workspace.database) == before, "status with its settings changed the files")
    }

    @Test func migrateAppliesTheDatabasesOwnWAL() throws {
        let workspace = try Workspace()
        try KilledShell.writer(workspace.database, key: workspace.key, table: "notes")
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrate = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM notes; SELECT DISTINCT v FROM base;")
        #expect(rows.stdout == "8\nchanged\n", "\(rows.output)")
    }

    /// The same beside a database whose pages carry no HMAC (`PRAGMA cipher_use_hmac =
    /// OFF`): its format is found on private copies of the file, alone and with the
    /// `-wal`, where a wrong key's noise may make files that go with the copy. A look sees
    /// the `-wal`'s rows, a wrong key fails, both leave every file as it was, and
    /// `migrate` applies the `-wal` and keeps the file without HMACs.
    @Test func aKilledWritersWALBesideADatabaseWithoutPageHMACsIsReadAndApplied() throws {
        let workspace = try Workspace()
        let withoutHMACs = "PRAGMA cipher_use_hmac = OFF;\n"
        try KilledShell.writer(workspace.database, key: workspace.key, table: "notes", settings: withoutHMACs)
        let before = files(workspace.database)
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE notes"), "\(dump.output)")
        #expect(files(workspace.database) == before, "schema-dump changed the files")
        try workspace.write("wrong.key", TestKey.raw().text + "\n", mode: 0o600)
        let wrongKey = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("wrong.key"),
                                     "--migrations", workspace.migrations], directory: workspace.root)
        #expect(wrongKey.exitCode == .wrongKeyOrNotADatabase, "\(wrongKey.output)")
        #expect(files(workspace.database) == before, "status with a wrong key changed the files")

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrate = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          withoutHMACs + "SELECT count(*) FROM notes; SELECT DISTINCT v FROM base; SELECT count(*) FROM grdb_migrations;")
        #expect(rows.stdout == "8\nchanged\n1\n", "\(rows.output)")
        let withHMACs = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM notes;")
        #expect(withHMACs.status != 0, "migrate gave the file page HMACs")
    }

    @Test func aForeignWALIsRefusedByEveryCommandAndLeftAlone() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          "PRAGMA journal_mode = WAL; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO base (v) VALUES ('mine');")
        try #require(made.status == 0, "\(made.output)")
        // The same app's other copy, same key, another salt: its killed writer's -wal is
        // restored beside this database.
        let other = workspace.path("other.db")
        try KilledShell.writer(other, key: workspace.key, table: "notes")
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: workspace.database + "-wal")
        let before = files(workspace.database)
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        for command in ["status", "verify", "schema-dump", "diff", "migrate", "rekey"] {
            let extra = command == "rekey" ? ["--new-password", "another passphrase"] : []
            let result = try workspace.run(command, extra)
            #expect(result.status == 9, "\(command): \(result.output)")
            #expect(result.stderr.contains("app.db-wal beside the database belongs to another database") && result.stderr.contains("move it out of the folder"),
                    "\(command): \(result.stderr)")
            #expect(files(workspace.database) == before, "\(command) changed the files")
        }
        // Moved aside, as the sentence says: the database is as it was.
        try FileManager.default.removeItem(atPath: workspace.database + "-wal")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT v FROM base;")
        #expect(rows.stdout == "mine\n", "\(rows.output)")
    }
}

/// A journal found beside a database that is gone by the time it is copied (its owner, a
/// process that had taken no lock yet, finished with it): the private copy answers nil, so
/// the opener looks at the database again, where an error would have been taken for a
/// failure; a journal that is there is copied beside the copy.
@Suite struct PrivateDatabaseCopyTests {
    @Test func aJournalGoneBeforeItIsCopiedMakesNoCopyAndOneThereIsCopied() throws {
        let workspace = try Workspace()
        try KilledShell.writer(workspace.database, key: workspace.key, table: "notes")
        let wal = workspace.database + "-wal"
        let journal = LeftoverJournal(files: [wal], leftBehind: [wal, workspace.database + "-shm"])
        let copy = try #require(try PrivateDatabaseCopy(of: workspace.database, journal: journal))
        #expect(FileManager.default.contents(atPath: copy.path + "-wal") == FileManager.default.contents(atPath: wal))

        let alone = try #require(try PrivateDatabaseCopy(of: workspace.database, journal: journal, withJournal: false))
        try FileManager.default.moveItem(atPath: wal, toPath: wal + ".finished")
        #expect(try alone.addJournal() == false)
        #expect(try PrivateDatabaseCopy(of: workspace.database, journal: journal) == nil)
        #expect(try PrivateDatabaseCopy(of: workspace.path("gone.db"), journal: .none) == nil)
    }
}

/// docs/encryption-recipes.md: "`--dry-run` and an up-to-date database write nothing".
/// A killed writer's `-wal` beside a database `cipher-upgrade` has nothing to do for, or
/// is asked only to describe, stays as it was (the database, `-wal` and `-shm` byte for
/// byte); a real upgrade keeps the rows the `-wal` held.
@Suite struct CipherUpgradeLeftoverJournalTests {
    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "cipher-upgrade writes SQLCipher 4's format"))
    func aDryRunAndAnUpToDateDatabaseLeaveAKilledWritersWALAsItWas() throws {
        let workspace = try Workspace()
        try KilledShell.writer(workspace.database, key: workspace.key, table: "notes")
        let before = KilledShell.files(workspace.database)
        for (extra, said) in [(["--dry-run"], "nothing to do"), ([], "nothing to do"), (["--dry-run", "--to-page-size", "8192"], "Nothing was written")] {
            let result = try workspace.run("cipher-upgrade", extra)
            #expect(result.status == 0, "\(extra): \(result.output)")
            #expect(result.stdout.contains(said), "\(extra): \(result.stdout)")
            #expect(KilledShell.files(workspace.database) == before, "cipher-upgrade \(extra) changed the files")
        }
        let upgraded = try workspace.run("cipher-upgrade", ["--to-page-size", "8192", "--no-backup"])
        #expect(upgraded.status == 0, "\(upgraded.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "PRAGMA cipher_page_size = 8192;\nSELECT count(*), min(v) FROM base;")
        #expect(rows.stdout == "2|changed\n", "\(rows.output)")
    }
}

/// WAL databases as a process killed with SIGKILL leaves them, made by the
/// configuration's `sqlcipher` shell: the files another program wrote.
enum KilledShell {
    /// A WAL database at `path` (in the cipher settings `settings`, PRAGMAs run after the
    /// key) whose shell was killed after committing `table`, with its rows, to the `-wal`
    /// only.
    static func writer(_ path: String, key: TestKey, table: String, settings: String = "") throws {
        let made = try SQLCipherShell.run(path, key: key, settings + "PRAGMA journal_mode = WAL; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO base (v) VALUES ('a'), ('b');")
        try #require(made.status == 0, "\(made.output)")
        try run(path, key: key, settings: settings, """
            PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE \(table) (id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO \(table) (v) SELECT hex(randomblob(64)) FROM base, base AS b2, base AS b3;
            UPDATE base SET v = 'changed';
            """)
        #expect(FileProbeForTests.size(path + "-wal") > 0)
    }

    /// A WAL database at `path` (in the cipher settings `settings`, PRAGMAs run after the
    /// key) whose shell was killed after it committed a row and a checkpoint emptied the
    /// `-wal` (`TRUNCATE`): an empty `-wal` and the `-shm` stay beside the file, with
    /// nothing to apply. Its table `base` holds 'a', 'b' and 'c'.
    static func afterCheckpoint(_ path: String, key: TestKey, settings: String = "") throws {
        let made = try SQLCipherShell.run(path, key: key, settings + "PRAGMA journal_mode = WAL; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO base (v) VALUES ('a'), ('b');")
        try #require(made.status == 0, "\(made.output)")
        try run(path, key: key, settings: settings, """
            INSERT INTO base (v) VALUES ('c');
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        try #require(FileManager.default.fileExists(atPath: path + "-wal") && FileProbeForTests.size(path + "-wal") == 0,
                     "the checkpoint left \(FileProbeForTests.size(path + "-wal")) bytes in the -wal")
        try #require(FileManager.default.fileExists(atPath: path + "-shm"))
    }

    /// The database's file and whichever of `-wal`, `-shm` and `-journal` exist, by
    /// suffix ("" for the file), with their bytes.
    static func files(_ database: String) -> [String: Data] {
        var found: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: database + suffix) { found[suffix] = data }
        }
        return found
    }

    /// A WAL database at `path` whose shell was killed after committing `sql` (run with
    /// `wal_autocheckpoint = 0`), which is then in the `-wal` only.
    static func committing(_ sql: String, to path: String, key: TestKey) throws {
        try run(path, key: key, settings: "", "PRAGMA wal_autocheckpoint = 0;\n" + sql)
        #expect(FileProbeForTests.size(path + "-wal") > 0)
    }

    /// Runs `sql` in a shell keyed with `key` and `settings`, waits until it has run,
    /// and kills the shell with SIGKILL, so nothing of a clean close happens.
    private static func run(_ path: String, key: TestKey, settings: String, _ sql: String) throws {
        let shell = try ChildProcess([SQLCipherShell.path, "-batch", path], input: .pipe, output: .pipe, errors: .sameAsOutput)
        let script = """
            .output /dev/null
            PRAGMA key = \(key.pragma);
            \(settings)
            .output
            \(sql)
            SELECT 'committed';

            """
        try shell.input!.write(contentsOf: Data(script.utf8))
        let committed = try shell.output!.read(until: "committed", timeout: 60)
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
        try #require(committed, "the shell ended or did not answer within 60 s")
    }
}

/// A file's size, or 0 when it is missing.
enum FileProbeForTests {
    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
