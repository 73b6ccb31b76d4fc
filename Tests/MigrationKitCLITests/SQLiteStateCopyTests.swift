import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// States a real SQLite file can be in that no migration of MigrationKit's own makes,
/// each copied by every command that copies or rewrites a database — `encrypt` (into
/// `--output` and `--in-place`), `decrypt`, `rekey`, `cipher-upgrade` — and read back by
/// the `sqlcipher` shell: every table's rows as they were, and no sentence showing a
/// statement of MigrationKit's own.
@Suite struct SQLiteStateCopyTests {
    /// One state: the SQL that makes it (after a table every state has), and the tables
    /// whose rows the copies must keep.
    struct State: CustomStringConvertible {
        let name: String
        let sql: String
        let tables: [String]
        var description: String { name }
    }

    static let states = [
        // diesel's databases once a migration dropped their last AUTOINCREMENT table
        // (wealthfolio's): SQLite never drops sqlite_sequence.
        State(name: "sqlite_sequence with no AUTOINCREMENT table", sql: """
            CREATE TABLE accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
            INSERT INTO accounts (name) VALUES ('cash');
            DROP TABLE accounts;
            """, tables: ["sqlite_sequence"]),
        State(name: "sqlite_sequence with rows of tables that are gone", sql: """
            CREATE TABLE accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
            DROP TABLE accounts;
            INSERT INTO sqlite_sequence (name, seq) VALUES ('accounts', 41), ('activities', 7);
            """, tables: ["sqlite_sequence"]),
        State(name: "an empty sqlite_sequence beside its AUTOINCREMENT table", sql: """
            CREATE TABLE accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
            INSERT INTO accounts (name) VALUES ('cash');
            DELETE FROM sqlite_sequence;
            """, tables: ["sqlite_sequence", "accounts"]),
        State(name: "sqlite_stat1 naming tables that are gone", sql: """
            CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT);
            CREATE INDEX events_kind ON events (kind);
            INSERT INTO events (kind) VALUES ('a'), ('b'), ('b');
            ANALYZE;
            DROP TABLE events;
            INSERT INTO sqlite_stat1 VALUES ('events', 'events_kind', '3 2'), ('gone', NULL, '10');
            """, tables: ["sqlite_stat1"]),
        State(name: "a WITHOUT ROWID table", sql: """
            CREATE TABLE tags (tag TEXT PRIMARY KEY, uses INTEGER NOT NULL, color BLOB) WITHOUT ROWID;
            INSERT INTO tags VALUES ('home', 3, x'00ff'), ('Work', 1, NULL), ('work', 2, x'');
            """, tables: ["tags"]),
        // The storage tables an FTS5 index keeps, left as ordinary tables by a tool that
        // removed the index itself from the schema: two of them WITHOUT ROWID.
        State(name: "another tool's shadow tables", sql: """
            CREATE TABLE "search_data" (id INTEGER PRIMARY KEY, block BLOB);
            CREATE TABLE "search_idx" (segid, term, pgno, PRIMARY KEY (segid, term)) WITHOUT ROWID;
            CREATE TABLE "search_config" (k PRIMARY KEY, v) WITHOUT ROWID;
            INSERT INTO search_data VALUES (1, x'0102'), (10, x'');
            INSERT INTO search_idx VALUES (1, x'', 2), (1, x'30616263', 3);
            INSERT INTO search_config VALUES ('version', 4);
            """, tables: ["search_data", "search_idx", "search_config"]),
    ]

    /// Every state's database, plaintext or keyed with `key` (in SQLCipher 3's format
    /// when `formatThree`), written by the `sqlcipher` shell.
    static func make(_ state: State, at path: String, key: TestKey?, formatThree: Bool = false) throws {
        let made = try SQLCipherShell.run(path, keyPragma: key?.pragma, """
            \(formatThree ? "PRAGMA cipher_compatibility = 3;" : "")
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO notes (body) VALUES ('kept');
            \(state.sql)
            SELECT 'made';
            """)
        #expect(made.stdout == "made\n", "\(state): \(made.output)")
    }

    /// The tables' rows and rowids (each value as an SQL literal, so a blob is not
    /// text), and the schema's names, as the shell reads them.
    static func contents(_ path: String, key: TestKey?, _ state: State, formatThree: Bool = false) throws -> String {
        let compatibility = formatThree ? "PRAGMA cipher_compatibility = 3;\n" : ""
        let queries = try (["notes"] + state.tables).map { table in
            let info = try SQLCipherShell.run(path, keyPragma: key?.pragma, compatibility + """
                SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE name = '\(table)';
                PRAGMA table_info("\(table)");
                """)
            let lines = info.stdout.split(separator: "\n")
            let columns = lines.dropFirst().compactMap { $0.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first }
            let rowid = lines.first == "1" ? [] : ["rowid"]
            let values = (rowid + columns.map { "quote(\"\($0)\")" }).joined(separator: ", ")
            return "SELECT '\(table)', \(values) FROM \"\(table)\" ORDER BY 2, 3;"
        }
        let read = try SQLCipherShell.run(path, keyPragma: key?.pragma, compatibility + """
            SELECT group_concat(type || ' ' || name, ', ') FROM (SELECT type, name FROM sqlite_master ORDER BY name);
            \(queries.joined(separator: "\n"))
            PRAGMA integrity_check;
            """)
        #expect(read.status == 0, "\(state): \(read.output)")
        return read.stdout
    }

    static func expectClean(_ result: CommandResult, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(context): \(result.output)", sourceLocation: sourceLocation)
        for ownSQL in ["migrationkit_export", "SELECT", "INSERT", "sqlite_master"] where result.output.contains(ownSQL) {
            Issue.record("\(context): a sentence shows MigrationKit's own SQL (\(ownSQL)): \(result.output)", sourceLocation: sourceLocation)
        }
    }

    /// A workspace with the state's database in plain text, and what it holds.
    static func plainDatabase(_ state: State) throws -> (workspace: Workspace, plain: String, original: String) {
        let workspace = try Workspace()
        let plain = workspace.path("plain.db")
        try make(state, at: plain, key: nil)
        return (workspace, plain, try contents(plain, key: nil, state))
    }

    @Test(arguments: states)
    func encryptBothWaysAndDecryptKeepTheState(_ state: State) throws {
        let (workspace, plain, original) = try Self.plainDatabase(state)

        let copied = try Tool.run(["encrypt", "--db-path", plain, "--output", workspace.database, "--password-file", workspace.keyFile],
                                  directory: workspace.root)
        Self.expectClean(copied, "\(state): encrypt --output")
        #expect(try Self.contents(workspace.database, key: workspace.key, state) == original, "\(state): encrypt --output")

        let inPlace = workspace.path("in-place.db")
        try FileManager.default.copyItem(atPath: plain, toPath: inPlace)
        let replaced = try Tool.run(["encrypt", "--db-path", inPlace, "--in-place", "--no-backup", "--password-file", workspace.keyFile],
                                    directory: workspace.root)
        Self.expectClean(replaced, "\(state): encrypt --in-place")
        #expect(try Self.contents(inPlace, key: workspace.key, state) == original, "\(state): encrypt --in-place")

        // From a file another client encrypted.
        let encrypted = workspace.path("encrypted.db")
        try Self.make(state, at: encrypted, key: workspace.key)
        let exported = workspace.path("export.db")
        let decrypted = try Tool.run(["decrypt", "--db-path", encrypted, "--output", exported, "--password-file", workspace.keyFile],
                                     directory: workspace.root)
        Self.expectClean(decrypted, "\(state): decrypt")
        #expect(try Self.contents(exported, key: nil, state) == original, "\(state): decrypt")
    }

    @Test(arguments: states)
    func rekeyAndCipherUpgradeKeepTheState(_ state: State) throws {
        let (workspace, _, original) = try Self.plainDatabase(state)

        try Self.make(state, at: workspace.database, key: workspace.key)
        let newKey = TestKey.raw()
        try workspace.write("new-key", newKey.text + "\n", mode: 0o600)
        let rekeyed = try Tool.run(["rekey", "--db-path", workspace.database, "--password-file", workspace.keyFile,
                                    "--new-password-file", workspace.path("new-key"), "--no-backup"], directory: workspace.root)
        Self.expectClean(rekeyed, "\(state): rekey")
        #expect(try Self.contents(workspace.database, key: newKey, state) == original, "\(state): rekey")

        // SQLCipher 3.4.1 cannot write SQLCipher 4's format (cipher-upgrade refuses there).
        guard (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 else { return }
        let old = workspace.path("old.db")
        try Self.make(state, at: old, key: workspace.key, formatThree: true)
        let upgraded = try Tool.run(["cipher-upgrade", "--db-path", old, "--password-file", workspace.keyFile, "--no-backup"], directory: workspace.root)
        Self.expectClean(upgraded, "\(state): cipher-upgrade")
        #expect(try Self.contents(old, key: workspace.key, state) == original, "\(state): cipher-upgrade")
    }

    /// `sqlite_stat4`, which only a SQLite built with `SQLITE_ENABLE_STAT4` writes (not
    /// Debian's SQLCipher; Firefox's and Android's SQLite, and sqlcipher3-binary's):
    /// written by the Python client, of tables still there and of one that is gone.
    @Test(.enabled(if: PythonClients.enabled, "needs sqlcipher3-binary from scripts/python-tools.sh"))
    func statisticsOfAnotherSQLiteAreCopied() throws {
        let workspace = try Workspace()
        let plain = workspace.path("plain.db")
        let written = try PythonClients.run("""
            import sys, sqlcipher3
            connection = sqlcipher3.connect(sys.argv[1], isolation_level=None)
            connection.executescript('''
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
                INSERT INTO notes (body) VALUES ('kept');
                CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT);
                CREATE INDEX events_kind ON events (kind);
                CREATE TABLE gone (x); CREATE INDEX gone_x ON gone (x);
                INSERT INTO events (kind) VALUES ('a'), ('b'), ('b');
                INSERT INTO gone VALUES (1), (2);
                ANALYZE;
                DROP TABLE gone;
            ''')
            print(connection.execute("SELECT count(*) FROM sqlite_stat4").fetchone()[0])
            connection.close()
            """, arguments: [plain])
        #expect(written.status == 0 && written.stdout != "0\n", "\(written.output)")
        let state = State(name: "sqlite_stat4", sql: "", tables: ["sqlite_stat1", "sqlite_stat4", "events"])
        let original = try Self.contents(plain, key: nil, state)
        #expect(original.contains("table sqlite_stat4"), "\(original)")
        let copied = try Tool.run(["encrypt", "--db-path", plain, "--output", workspace.database, "--password-file", workspace.keyFile],
                                  directory: workspace.root)
        Self.expectClean(copied, "encrypt")
        #expect(try Self.contents(workspace.database, key: workspace.key, state) == original)
        let exported = workspace.path("export.db")
        let decrypted = try Tool.run(["decrypt", "--db-path", workspace.database, "--output", exported, "--password-file", workspace.keyFile],
                                     directory: workspace.root)
        Self.expectClean(decrypted, "decrypt")
        #expect(try Self.contents(exported, key: nil, state) == original)
    }
}
