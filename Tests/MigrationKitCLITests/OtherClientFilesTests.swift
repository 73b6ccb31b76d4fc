import Foundation
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// Files another SQLCipher wrote — PyPI's `sqlcipher3-binary`, with its own SQLCipher
/// 4.12 — in the settings apps choose, migrated by the tool and handed back: after every
/// command the Python client opens the file with its own settings and reads every row.
/// On SQLCipher 3.4.1 the files are written in SQLCipher 3's format
/// (`cipher_compatibility = 3`), the only one 3.4.1 reads.
@Suite(.enabled(if: PythonClients.enabled, "needs sqlcipher3-binary from scripts/python-tools.sh"))
struct OtherClientFilesTests {
    private static var four: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// The PRAGMAs after the key that make a file 3.4.1 reads too, on that platform.
    private static var platformPragmas: [String] { four ? [] : ["PRAGMA cipher_compatibility = 3"] }

    /// Runs `sql` through sqlcipher3 on `path`, keyed with `key` and then `pragmas`;
    /// prints each row of the last statement as `a|b`. `killed`: the process kills itself
    /// with SIGKILL after `sql`, leaving whatever SQLite had not yet written back.
    @discardableResult
    private func python(_ path: String, _ key: TestKey, _ pragmas: [String], _ sql: String, killed: Bool = false) throws -> ChildProcessResult {
        let script = """
            import os, sys, sqlcipher3
            path, key, pragmas, script, killed = sys.argv[1:6]
            connection = sqlcipher3.connect(path, isolation_level=None)
            connection.execute("PRAGMA key = " + key)
            for pragma in filter(None, pragmas.split("\\n")):
                connection.execute(pragma)
            statements = [s for s in script.split(";") if s.strip()]
            for statement in statements[:-1]:
                connection.execute(statement)
            for row in connection.execute(statements[-1]):
                print("|".join(str(value) for value in row))
            sys.stdout.flush()
            if killed == "1":
                os.kill(os.getpid(), 9)
            connection.close()
            """
        return try PythonClients.run(script, arguments: [path, key.pragma, pragmas.joined(separator: "\n"), sql, killed ? "1" : "0"])
    }

    private func expectRows(_ path: String, _ key: TestKey, _ pragmas: [String], _ sql: String, _ rows: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let read = try python(path, key, pragmas, sql)
        #expect(read.status == 0 && read.stdout == rows, "sqlcipher3 read back: \(read.output)", sourceLocation: sourceLocation)
    }

    /// Made, migrated, read back: one setting an app chose, with the options (if any) it
    /// needs; the file keeps the setting (the Python client reads it with it).
    @Test(arguments: [
        ("no page HMACs", ["PRAGMA cipher_use_hmac = OFF"], [String]()),
        ("16384-byte pages, 1,000 iterations, SHA-256 KDF, SHA-1 HMAC",
         ["PRAGMA cipher_page_size = 16384", "PRAGMA kdf_iter = 1000", "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA256", "PRAGMA cipher_hmac_algorithm = HMAC_SHA1"],
         ["--cipher-page-size", "16384", "--kdf-iter", "1000", "--cipher-kdf-algorithm", "PBKDF2_HMAC_SHA256", "--cipher-hmac-algorithm", "HMAC_SHA1"]),
        ("auto_vacuum INCREMENTAL", ["PRAGMA auto_vacuum = INCREMENTAL"], []),
    ])
    func aFileItWroteIsMigratedAndReadBack(_ described: String, _ settings: [String], _ options: [String]) throws {
        guard Self.four || !settings.contains(where: { $0.contains("algorithm") }) else { return } // 3.4.1 has one of each.
        let workspace = try Workspace(key: .raw())
        let pragmas = Self.platformPragmas + settings
        let made = try python(workspace.database, workspace.key, pragmas,
                              "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('one'), ('two'); SELECT count(*) FROM notes")
        #expect(made.status == 0 && made.stdout == "2\n", "\(described): \(made.output)")
        let before = try #require(workspace.bytes(workspace.database))

        let status = try workspace.run("status", options)
        #expect(status.status == 0, "\(described): \(status.output)")
        #expect(workspace.bytes(workspace.database) == before, "\(described): status changed the file")
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER REFERENCES notes(id));\n")
        let migrated = try workspace.run("migrate", options + ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(described): \(migrated.output)")

        try expectRows(workspace.database, workspace.key, pragmas,
                       "SELECT group_concat(body) FROM notes; SELECT count(*) FROM grdb_migrations", "1\n")
        try expectRows(workspace.database, workspace.key, pragmas, "SELECT group_concat(body, ',') FROM notes", "one,two\n")
        if settings.contains("PRAGMA auto_vacuum = INCREMENTAL") {
            try expectRows(workspace.database, workspace.key, pragmas, "PRAGMA auto_vacuum", "2\n")
        }
    }

    /// A WAL database the Python process was killed holding, its last commits only in the
    /// `-wal`: a look leaves every file as it was, and `migrate` keeps every row.
    @Test func aKilledClientsWALIsKeptByALookAndByMigrate() throws {
        let workspace = try Workspace(key: .raw())
        let pragmas = Self.platformPragmas
        let made = try python(workspace.database, workspace.key, pragmas,
                              "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('in the wal'); SELECT count(*) FROM notes",
                              killed: true)
        #expect(made.signaled && made.stdout == "1\n", "\(made.output)")
        let files = [workspace.database, workspace.database + "-wal", workspace.database + "-shm"]
        let before = files.map { workspace.bytes($0) }
        #expect(before.allSatisfy { $0 != nil } && (before[1]?.count ?? 0) > 32, "the client left no live -wal")

        for command in ["status", "verify", "schema-dump"] {
            let looked = try workspace.run(command)
            #expect(looked.status == 0, "\(command): \(looked.output)")
            #expect(files.map { workspace.bytes($0) } == before, "\(command) changed the database, its -wal or its -shm")
        }
        #expect(try workspace.run("schema-dump").stdout.contains("CREATE TABLE notes"))

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(migrated.output)")
        try expectRows(workspace.database, workspace.key, pragmas, "SELECT body FROM notes", "in the wal\n")
    }

    /// An iOS-style file (SQLCipher 4): a 32-byte plaintext header, so the salt lives
    /// outside the file. It opens with the header size and the salt, and keeps both.
    @Test func aFileWithAPlaintextHeaderKeepsIt() throws {
        guard Self.four else { return } // SQLCipher 3.4.1 has no plaintext header.
        let workspace = try Workspace(key: .raw())
        let salt = "00112233445566778899aabbccddeeff"
        let pragmas = ["PRAGMA cipher_plaintext_header_size = 32", "PRAGMA cipher_salt = \"x'\(salt)'\""]
        let made = try python(workspace.database, workspace.key, pragmas, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept'); SELECT count(*) FROM notes")
        #expect(made.status == 0, "\(made.output)")
        #expect(workspace.bytes(workspace.database)?.prefix(16) == Data("SQLite format 3\0".utf8))

        let options = ["--cipher-plaintext-header-size", "32", "--cipher-salt", salt]
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", options + ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(workspace.bytes(workspace.database)?.prefix(16) == Data("SQLite format 3\0".utf8), "the plaintext header is gone")
        try expectRows(workspace.database, workspace.key, pragmas, "SELECT body FROM notes; SELECT count(*) FROM tags", "0\n")
        try expectRows(workspace.database, workspace.key, pragmas, "SELECT body FROM notes", "kept\n")
    }

    /// A file keyed with a raw key, its HMAC key and salt (`x'<160 hex>'`), which the
    /// client's SQLCipher 4.12 reads as such: on a linked SQLCipher that takes that text
    /// for a passphrase, it opens nothing as one, and the sentence says how it was read
    /// and what reads the form, with the file as it was; on a SQLCipher that reads the
    /// form, it migrates the file, and the client reads it back.
    @Test func aFileKeyedWithARawKeyHMACKeyAndSaltIsOpenedOnlyWhereTheLinkedSQLCipherReadsThatForm() throws {
        let key = TestKey(text: "x'" + (0..<80).map { String(format: "%02x", UInt8(($0 * 37 + 11) % 256)) }.joined() + "'")
        let workspace = try Workspace(key: key)
        let made = try python(workspace.database, key, Self.platformPragmas, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept'); SELECT count(*) FROM notes")
        try #require(made.status == 0 && made.stdout == "1\n", "\(made.output)")
        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        guard SQLCipherFeature.rawKeyWithHMACKey.isAvailable(in: SQLCipherLibrary.cipherVersion) else {
            let before = try TreeSnapshot(workspace.root)
            for command in ["status", "migrate"] {
                let result = try workspace.run(command, command == "migrate" ? ["--accept-existing-tables", "--no-backup"] : [])
                // Read as the passphrase the linked SQLCipher takes it for, it does not
                // open the file: the wrong key, saying how it was read and what reads it.
                #expect(result.exitCode == .wrongKeyOrNotADatabase && result.stderr.contains("The key is x' and 160 hex digits, which the linked SQLCipher")
                            && result.stderr.contains("open the database with SQLCipher 4.7.0 or later"),
                        "\(command): \(result.output)")
            }
            try expectUnchanged(before, "a key the linked SQLCipher would take for a passphrase")
            try expectRows(workspace.database, key, Self.platformPragmas, "SELECT body FROM notes", "kept\n")
            return
        }
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup", "-q"])
        #expect(migrated.status == 0, "\(migrated.output)")
        try expectRows(workspace.database, key, Self.platformPragmas, "SELECT body FROM notes; SELECT count(*) FROM tags", "0\n")
    }
}
