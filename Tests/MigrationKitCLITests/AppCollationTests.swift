import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// A schema that uses a collation the app registers (Anki's `unicase`), written by
/// another client that has it (PyPI's `sqlcipher3-binary`, a Unicode case-folding
/// comparison). The copying commands refuse it with one sentence naming the collation
/// and what uses it (exit 7, every file as it was), and copy it with a built-in collation
/// standing in (`--collation unicase=NOCASE`), saying what the app must then rebuild;
/// the Python client, which has the real collation, reads the copy back and checks it.
@Suite(.enabled(if: PythonClients.enabled, "needs sqlcipher3-binary from scripts/python-tools.sh"))
struct AppCollationTests {
    static let schema = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, sfld TEXT COLLATE unicase, flds TEXT);
        CREATE INDEX ix_notes_sfld ON notes (sfld);
        CREATE TABLE tags (tag TEXT NOT NULL PRIMARY KEY COLLATE unicase, usn INTEGER) WITHOUT ROWID;
        INSERT INTO notes (sfld, flds) VALUES ('Zebra', 'z'), ('apple', 'a'), ('Banana', 'b');
        INSERT INTO tags VALUES ('Leech', 0), ('marked', 1)
        """

    /// Runs `sql` through sqlcipher3 with `unicase` registered, keyed when `key` is given
    /// (in SQLCipher 3's format on SQLCipher 3.4.1, the only one it reads); prints the
    /// last statement's rows as `a|b`.
    @discardableResult
    func python(_ path: String, key: TestKey?, _ sql: String) throws -> ChildProcessResult {
        let pragmas = key == nil ? [] : ["PRAGMA key = " + key!.pragma] + ((SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 ? [] : ["PRAGMA cipher_compatibility = 3"])
        let script = """
            import sys, sqlcipher3
            path, pragmas, script = sys.argv[1:4]
            connection = sqlcipher3.connect(path, isolation_level=None)
            for pragma in filter(None, pragmas.split("\\n")):
                connection.execute(pragma)
            connection.create_collation("unicase", lambda a, b: (a.casefold() > b.casefold()) - (a.casefold() < b.casefold()))
            statements = [s for s in script.split(";") if s.strip()]
            for statement in statements[:-1]:
                connection.execute(statement)
            for row in connection.execute(statements[-1]):
                print("|".join(str(value) for value in row))
            connection.close()
            """
        let result = try PythonClients.run(script, arguments: [path, pragmas.joined(separator: "\n"), sql])
        #expect(result.status == 0, "\(result.output)")
        return result
    }

    /// What the app reads back, through its own collation: every row, in its order, and
    /// a clean `integrity_check` (which compares each index with its collation's order).
    func expectAppReads(_ path: String, key: TestKey?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let read = try python(path, key: key, "SELECT group_concat(sfld, ',') FROM (SELECT sfld FROM notes ORDER BY sfld)")
        #expect(read.stdout == "apple,Banana,Zebra\n", "\(read.output)", sourceLocation: sourceLocation)
        let checked = try python(path, key: key, "PRAGMA integrity_check")
        #expect(checked.stdout == "ok\n", "\(checked.output)", sourceLocation: sourceLocation)
    }

    @Test func encryptRefusesWithoutAStandInAndCopiesWithOne() throws {
        let workspace = try Workspace()
        let plain = workspace.path("anki.db")
        try python(plain, key: nil, Self.schema + "; SELECT count(*) FROM notes")
        let before = try TreeSnapshot(workspace.root)

        for arguments in [["--output", workspace.database], ["--in-place"]] {
            let refused = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile] + arguments)
            #expect(refused.status == 7, "\(arguments): \(refused.output)")
            #expect(refused.stderr.contains("The database's schema uses the collation \"unicase\" (in notes, tags), which only the app that made it registers, so it cannot be read and copied as it is; pass --collation unicase=NOCASE (or BINARY, RTRIM) to let a built-in collation stand in for it while copying. Nothing was changed."),
                    "\(refused.stderr)")
            #expect(!refused.output.contains("no such collation"), "\(refused.output)")
            #expect(try TreeSnapshot(workspace.root) == before, "\(arguments) changed the folder")
        }

        let copied = try Tool.run(["encrypt", "--db-path", plain, "--password-file", workspace.keyFile, "--output", workspace.database,
                                   "--collation", "unicase=NOCASE"])
        #expect(copied.status == 0, "\(copied.output)")
        #expect(copied.stderr.contains("warning: NOCASE stood in for the collation unicase while copying: indexes ordered by unicase follow NOCASE's order in the copy, so once the app has registered unicase, rebuild them with REINDEX unicase."),
                "\(copied.stderr)")
        try expectAppReads(workspace.database, key: workspace.key)
        // As the warning says, in the app: its own order from then on.
        try python(workspace.database, key: workspace.key, "REINDEX unicase; SELECT 1")
        try expectAppReads(workspace.database, key: workspace.key)
    }

    @Test func decryptCopiesWithAStandIn() throws {
        let workspace = try Workspace()
        try python(workspace.database, key: workspace.key, Self.schema + "; SELECT count(*) FROM notes")
        let output = workspace.path("support.db")
        let refused = try workspace.run("decrypt", ["--output", output])
        #expect(refused.status == 7 && refused.stderr.contains("--collation unicase=NOCASE"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let copied = try workspace.run("decrypt", ["--output", output, "--collation", "unicase=NOCASE"])
        #expect(copied.status == 0, "\(copied.output)")
        try expectAppReads(output, key: nil)
    }

    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "cipher-upgrade writes SQLCipher 4's format"))
    func cipherUpgradeCopiesWithAStandIn() throws {
        let workspace = try Workspace()
        try python(workspace.database, key: workspace.key, "PRAGMA cipher_compatibility = 3; " + Self.schema + "; SELECT count(*) FROM notes")
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("cipher-upgrade", ["--no-backup"])
        #expect(refused.status == 7 && refused.stderr.contains("--collation unicase=NOCASE"), "\(refused.output)")
        #expect(try TreeSnapshot(workspace.root) == before, "cipher-upgrade changed the folder")
        let dryRun = try workspace.run("cipher-upgrade", ["--dry-run"])
        #expect(dryRun.status == 7, "a dry run says what the run would do, refusals included: \(dryRun.output)")
        let upgraded = try workspace.run("cipher-upgrade", ["--no-backup", "--collation", "unicase=NOCASE"])
        #expect(upgraded.status == 0, "\(upgraded.output)")
        #expect(upgraded.stderr.contains("REINDEX unicase"), "\(upgraded.stderr)")
        try expectAppReads(workspace.database, key: workspace.key)
    }

    @Test(arguments: ["unicase", "unicase=FOLD", "=NOCASE", "nocase=BINARY"])
    func aMalformedStandInIsAUsageError(_ value: String) throws {
        let workspace = try Workspace()
        let result = try Tool.run(["encrypt", "--db-path", workspace.path("anki.db"), "--password-file", workspace.keyFile, "--output", workspace.database,
                                   "--collation", value])
        #expect(result.status == 64, "\(result.output)")
        #expect(result.stderr.contains("--collation") && result.stderr.contains("e.g. --collation unicase=NOCASE"), "\(result.stderr)")
    }
}
