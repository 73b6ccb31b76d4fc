import Foundation
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
    /// A WAL database at `path` whose shell was killed after committing `table`, with
    /// its rows, to the `-wal` only.
    private func killedWriter(_ path: String, key: TestKey, table: String) throws {
        let made = try SQLCipherShell.run(path, key: key, "PRAGMA journal_mode = WAL; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO base (v) VALUES ('a'), ('b');")
        try #require(made.status == 0, "\(made.output)")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: SQLCipherShell.path)
        shell.arguments = ["-batch", path]
        let input = Pipe()
        let output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        shell.standardError = output
        try shell.run()
        let script = """
            .output /dev/null
            PRAGMA key = \(key.pragma);
            .output
            PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE \(table) (id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO \(table) (v) SELECT hex(randomblob(64)) FROM base, base AS b2, base AS b3;
            UPDATE base SET v = 'changed';
            SELECT 'committed';

            """
        input.fileHandleForWriting.write(Data(script.utf8))
        var seen = Data()
        while !(String(decoding: seen, as: UTF8.self).contains("committed")) {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the shell ended: \(String(decoding: seen, as: UTF8.self))")
            seen += chunk
        }
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
        #expect(FileProbeForTests.size(path + "-wal") > 0)
    }

    private func files(_ database: String) -> [String: Data] {
        var found: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: database + suffix) { found[suffix] = data }
        }
        return found
    }

    @Test func aLookLeavesAKilledWritersWALAsItWasAndSeesItsRows() throws {
        let workspace = try Workspace()
        try killedWriter(workspace.database, key: workspace.key, table: "notes")
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

    @Test func migrateAppliesTheDatabasesOwnWAL() throws {
        let workspace = try Workspace()
        try killedWriter(workspace.database, key: workspace.key, table: "notes")
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM notes; SELECT DISTINCT v FROM base;")
        #expect(rows.stdout == "8\nchanged\n", "\(rows.output)")
    }

    @Test func aForeignWALIsRefusedByEveryCommandAndLeftAlone() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          "PRAGMA journal_mode = WAL; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO base (v) VALUES ('mine');")
        try #require(made.status == 0, "\(made.output)")
        // The same app's other copy, same key, another salt: its killed writer's -wal is
        // restored beside this database.
        let other = workspace.path("other.db")
        try killedWriter(other, key: workspace.key, table: "notes")
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

/// A file's size, or 0 when it is missing.
enum FileProbeForTests {
    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
