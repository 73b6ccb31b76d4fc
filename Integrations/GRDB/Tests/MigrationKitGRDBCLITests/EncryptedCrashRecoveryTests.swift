#if canImport(SQLCipher)
import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
@testable import MigrationKitKeys
import MigrationKitTestSupport
import Testing

/// An encrypted GRDB app after a crash: a writer killed in the middle of a transaction
/// (another client, the app itself, the app's own commands) leaves a hot journal. The
/// app's open and every embedded command roll it back, as SQLite does on any open, and
/// the next migrate finishes the job. Kills through GRDB on SQLCipher.
@Suite struct EncryptedCrashRecoveryTests {
    /// A writer that starts a large transaction on `database` and is killed with SIGKILL
    /// once its changes have reached the file: SQLCipher's shell with a one-page cache,
    /// so that its pages spill into the file before it commits.
    private func killWriterMidTransaction(_ database: String, key: TestKey, compatibility: Int? = nil) throws {
        let size = try fileSize(database)
        let process = try ChildProcess([SQLCipherShell.path, "-batch", database], input: .pipe)
        let script = """
            PRAGMA key = \(key.pragma);
            \(compatibility.map { "PRAGMA cipher_compatibility = \($0);" } ?? "")
            PRAGMA cache_size = 1;
            BEGIN IMMEDIATE;
            CREATE TABLE spill (x);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO spill SELECT randomblob(1000) FROM c;
            UPDATE note SET body = 'changed by a writer that never committed';

            """
        try process.input!.write(contentsOf: Data(script.utf8))
        // The transaction is open, and has written pages into the file.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, try !(FileManager.default.fileExists(atPath: database + "-journal") && fileSize(database) > size) {
            usleep(10_000)
        }
        usleep(200_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: database + "-journal"), "no hot journal: the writer was not caught mid-transaction")
        #expect(try fileSize(database) > size, "the writer's pages never reached the file")
    }

    private func fileSize(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    private func keyFile(_ key: TestKey, in scratch: ScratchDatabase) throws -> String {
        let path = scratch.folder.appendingPathComponent("notes.key").path
        try Data((key.text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    /// The app's open (`GRDBDatabaseFile`), in each format an app's file may be in: the
    /// format is found by opening, read-write, so the journal is rolled back whichever
    /// format is tried first.
    @Test(arguments: [4, 3])
    func theAppsOpenRollsBackWhatAKilledWriterLeft(_ version: Int) throws {
        let scratch = try ScratchDatabase()
        let key = TestKey.raw()
        let made = try SQLCipherShell.run(scratch.path, key: key, """
            \(version == 3 ? "PRAGMA cipher_compatibility = 3;" : "")
            CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            INSERT INTO note (body) VALUES ('one'), ('two'), ('three');
            """)
        #expect(made.status == 0, "\(made)")
        try killWriterMidTransaction(scratch.path, key: key, compatibility: version == 3 ? 3 : nil)

        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try GRDBDatabaseFile.openQueue(path: scratch.path, key: DatabaseKey(keyText: SecretBytes(copying: Array(key.text.utf8))),
                                                   configuration: configuration)
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT body FROM note ORDER BY id") } == ["one", "two", "three"])
        #expect(try queue.read { try $0.tableExists("spill") } == false)
        try queue.close()
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "-journal"))
        // And the other client reads it too, in its format.
        let shell = try SQLCipherShell.run(scratch.path, key: key, "\(version == 3 ? "PRAGMA cipher_compatibility = 3;" : "")SELECT count(*) FROM note;")
        #expect(shell.stdout == "3\n", "\(shell)")
    }

    /// The app's embedded commands, read-only ones first: `status` of a file a killed
    /// writer left recovers it and answers, where it said "make it writable" (exit 9).
    @Test func theEmbeddedCommandsRecoverTheFileAndMigrateFinishesTheJob() throws {
        let scratch = try ScratchDatabase()
        let key = TestKey.raw()
        let keyPath = try keyFile(key, in: scratch)
        func app(_ arguments: [String]) throws -> ChildProcessResult {
            try ChildProcess.run([GRDBExampleAppTests.binary] + arguments + ["--db-path", scratch.path, "--password-file", keyPath],
                                 directory: scratch.folder.path)
        }
        #expect(try app(["migrate", "--to", "0002_index_notes_by_date", "--no-backup"]).status == 0)
        // The app opens a pool (WAL), where a killed writer leaves frames SQLite ignores;
        // in rollback-journal mode it leaves a hot journal, what a read-only look cannot
        // get past.
        try SQLCipherShell.run(scratch.path, key: key, "PRAGMA journal_mode = DELETE; INSERT INTO note (body) VALUES ('one'), ('two'), ('three');")
        try killWriterMidTransaction(scratch.path, key: key)

        let status = try app(["status"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("pending  0003_add_word_count"), "\(status.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "-journal"))
        let migrate = try app(["migrate", "--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 0003_add_word_count"), "\(migrate.output)")
        let rows = try SQLCipherShell.run(scratch.path, key: key, "SELECT group_concat(body || ':' || wordCount, ' ') FROM note;")
        #expect(rows.stdout == "one:1 two:1 three:1\n", "\(rows)")
    }

    /// The app itself killed while a step runs (its own commands: `migrate` in the app's
    /// binary, on its pool), at several moments: every time the app reopens the file,
    /// the step is either committed or not at all, and the next migrate finishes.
    @Test func anAppKilledWhileAStepRunsReopensAndFinishes() throws {
        let scratch = try ScratchDatabase()
        let key = TestKey.raw()
        let keyPath = try keyFile(key, in: scratch)
        let arguments = ["--db-path", scratch.path, "--password-file", keyPath, "--no-backup"]
        let migrated = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--to", "0002_index_notes_by_date"] + arguments,
                                            directory: scratch.folder.path)
        #expect(migrated.status == 0, "\(migrated.output)")
        // Enough notes that the Swift data migration of 0003 takes a while.
        try SQLCipherShell.run(scratch.path, key: key, """
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 60000)
            INSERT INTO note (body) SELECT 'note ' || i FROM c;
            """)
        let kills = TestDepth.count(quick: 2, full: 6)
        for attempt in 0..<kills {
            let process = try ChildProcess([GRDBExampleAppTests.binary, "migrate"] + arguments, directory: scratch.folder.path)
            usleep(UInt32(150_000 + attempt * 120_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            let pool = try GRDBDatabaseFile.openPool(path: scratch.path, key: DatabaseKey(keyText: SecretBytes(copying: Array(key.text.utf8))),
                                                     configuration: configuration)
            let (ledger, counted, columns) = try pool.read { db in
                (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM note"),
                 try db.columns(in: "note").map(\.name))
            }
            try pool.close()
            #expect(counted == 60000)
            #expect(columns.contains("wordCount") == ledger.contains("0003_add_word_count"), "half a step: \(ledger) \(columns)")
            if ledger.contains("0003_add_word_count") { break }
        }
        let finish = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate"] + arguments, directory: scratch.folder.path)
        #expect(finish.status == 0, "\(finish.output)")
        let words = try SQLCipherShell.run(scratch.path, key: key, "SELECT count(*) FROM note WHERE wordCount = 2; PRAGMA quick_check;")
        #expect(words.stdout == "60000\nok\n", "\(words)")
    }
}
#endif
