import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// A row's identity is its rowid, and every command that copies rows keeps it: the
/// export behind `encrypt` (both forms), `decrypt` and `cipher-upgrade`, and `diff`'s
/// rebuild. The app's database (`RowIdentityFixture`) is written by the `sqlcipher`
/// shell, which after each command reads every rowid back and asks the full-text
/// indexes, which answer only while they point at the right rows.
@Suite struct RowIdentityTests {
    static var fts: String { RowIdentityFixture.fts }
    static var appSQL: String { RowIdentityFixture.appSQL }
    static var identitySQL: String { RowIdentityFixture.identitySQL }
    static var original: String { RowIdentityFixture.original }

    @discardableResult
    func shell(_ path: String, key: TestKey?, _ sql: String) throws -> String {
        let result = try key.map { try SQLCipherShell.run(path, key: $0, sql) } ?? SQLCipherShell.run(path, keyPragma: nil, sql)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    func identities(_ path: String, key: TestKey?) throws -> String {
        let read = try RowIdentityFixture.identities(path, key: key)
        #expect(read.status == 0, "\(read.output)")
        return read.stdout
    }

    func plaintextApp(_ workspace: Workspace) throws -> String {
        let path = workspace.path("plain.db")
        try shell(path, key: nil, Self.appSQL)
        #expect(try identities(path, key: nil) == Self.original)
        return path
    }

    @Test func encryptIntoANewFileKeepsEveryRowid() throws {
        let workspace = try Workspace()
        let plain = try plaintextApp(workspace)
        let encrypted = try Tool.run(["encrypt", "--db-path", plain, "--output", workspace.database, "--password-file", workspace.keyFile])
        #expect(encrypted.status == 0, "\(encrypted.output)")
        #expect(try identities(workspace.database, key: workspace.key) == Self.original)
        let verified = try workspace.run("verify")
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.stdout.contains("ok     \(Self.fts.uppercased()) index notes_fts: ok"), "\(verified.stdout)")
    }

    @Test func encryptInPlaceKeepsEveryRowid() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: nil, Self.appSQL)
        let encrypted = try workspace.run("encrypt", ["--in-place", "--no-backup"])
        #expect(encrypted.status == 0, "\(encrypted.output)")
        #expect(try identities(workspace.database, key: workspace.key) == Self.original)
    }

    @Test func decryptKeepsEveryRowid() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: workspace.key, Self.appSQL)
        let output = workspace.path("support.db")
        let decrypted = try workspace.run("decrypt", ["--output", output])
        #expect(decrypted.status == 0, "\(decrypted.output)")
        #expect(try identities(output, key: nil) == Self.original)
    }

    /// A SQLCipher 3 file the shell wrote, moved to SQLCipher 4's format.
    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "cipher-upgrade writes SQLCipher 4's format"))
    func cipherUpgradeKeepsEveryRowid() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: workspace.key, "PRAGMA cipher_compatibility = 3;\n" + Self.appSQL)
        let upgraded = try workspace.run("cipher-upgrade", ["--no-backup"])
        #expect(upgraded.status == 0, "\(upgraded.output)")
        #expect(try identities(workspace.database, key: workspace.key) == Self.original)
    }

    /// `diff --to`'s rebuild of a table whose column is named `oid` (Anki's `graves`,
    /// whose rows have no other identity) reads and writes the rowid as `rowid`.
    @Test func aRebuiltTableWithAColumnNamedOidKeepsItsRowids() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: workspace.key, Self.appSQL)
        let schema = try workspace.run("schema-dump")
        #expect(schema.status == 0, "\(schema.output)")
        let wanted = schema.stdout.replacingOccurrences(of: "type INTEGER NOT NULL", with: "type INTEGER NOT NULL CHECK (type >= 0)")
        #expect(wanted != schema.stdout, "\(schema.stdout)")
        try workspace.write("schema.sql", wanted)
        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "check_type"])
        #expect(written.status == 0, "\(written.output)")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(try identities(workspace.database, key: workspace.key) == Self.original)
    }

    /// `verify` runs each full-text and R*Tree index's own check, which `quick_check`
    /// never does: an external-content index whose table lost a row behind its back
    /// (the delete trigger dropped) fails, named, with the way to rebuild it.
    @Test func verifyFailsAFullTextIndexThatPointsPastItsRows() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: workspace.key, Self.appSQL)
        let healthy = try workspace.run("verify")
        #expect(healthy.status == 0, "\(healthy.output)")
        if Self.fts == "fts5" {
            #expect(healthy.stdout.contains("ok     R*Tree index places: ok"), "\(healthy.stdout)")
        }
        try shell(workspace.database, key: workspace.key, "DROP TRIGGER notes_ad; DELETE FROM notes WHERE title = 'delta';")
        let before = workspace.bytes(workspace.database)
        let broken = try workspace.run("verify")
        #expect(broken.status == 3, "\(broken.output)")
        let module = Self.fts.uppercased()
        // Named with the difference: the row the table lost is still in the index.
        #expect(broken.stdout.contains("FAILED \(module) index notes_fts: The \(module) index \"notes_fts\" holds 3 rows, and notes 2; it still holds row 4, which notes no longer has, though the app's triggers index every row of notes; rebuild it from its rows in a migration: INSERT INTO \"notes_fts\"(\"notes_fts\") VALUES ('rebuild')."),
                "\(broken.output)")
        #expect(broken.stdout.contains("ok     quick_check: ok"), "quick_check alone would have passed it: \(broken.stdout)")
        #expect(workspace.bytes(workspace.database) == before, "verify changed the database")
        #expect(FileManager.default.fileExists(atPath: workspace.database + "-journal") == false)

        // Rebuilt as the sentence says, in a migration: verify passes again.
        try workspace.migration("0001_rebuild_notes_fts.sql", "-- migrate:up\nINSERT INTO \"notes_fts\"(\"notes_fts\") VALUES ('rebuild');\n")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(try workspace.run("verify").status == 0)
    }

    /// A database whose index was already damaged is still copied (the copy is the
    /// database), and the copy's `verify` says what the original's says.
    @Test func aDamagedIndexIsCopiedAsItIsAndStillNamed() throws {
        let workspace = try Workspace()
        let plain = workspace.path("plain.db")
        try shell(plain, key: nil, Self.appSQL + "\nDROP TRIGGER notes_ad; DELETE FROM notes WHERE title = 'delta';")
        let encrypted = try Tool.run(["encrypt", "--db-path", plain, "--output", workspace.database, "--password-file", workspace.keyFile])
        #expect(encrypted.status == 0, "\(encrypted.output)")
        let verified = try workspace.run("verify")
        #expect(verified.status == 3 && verified.stdout.contains("FAILED \(Self.fts.uppercased()) index notes_fts"), "\(verified.output)")
    }

    /// A migration that writes a contentless FTS4 index, which cannot count its own rows
    /// (SQLite refuses `count(*)` on one), is linted and applied like any other.
    @Test func aMigrationThatWritesAContentlessIndexIsLintedAndApplied() throws {
        let workspace = try Workspace()
        try shell(workspace.database, key: workspace.key, Self.appSQL)
        try workspace.migration("0001_more_terms.sql", "-- migrate:up\nINSERT INTO notes_terms(docid, body) VALUES (6, 'sixth words');\n")
        let linted = try workspace.run("lint")
        #expect(linted.status == 0, "\(linted.output)")
        let migrated = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(try shell(workspace.database, key: workspace.key, "SELECT docid FROM notes_terms WHERE notes_terms MATCH 'sixth';") == "6\n")
    }

    /// A fleet's `decrypt` run again takes a copy a run before wrote for done only when it
    /// is that tenant's copy row for row: one with the same schema and row counts but
    /// other rowids (the `sqlcipher` shell's own `sqlcipher_export`) is a file in the way.
    @Test func aFleetsDecryptRunAgainDoesNotTakeACopyWithOtherRowidsForItsOwn() throws {
        let workspace = try Workspace()
        for folder in ["tenants", "plain"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
        }
        let tenant = workspace.path("tenants/t1.db")
        let copy = workspace.path("plain/t1.db")
        try shell(tenant, key: workspace.key, Self.appSQL)
        try shell(tenant, key: workspace.key, "ATTACH DATABASE '\(copy)' AS plain KEY ''; SELECT sqlcipher_export('plain'); DETACH DATABASE plain;")
        let renumbered = try RowIdentityFixture.identities(copy, key: nil)
        #expect(renumbered.status != 0 || renumbered.stdout != Self.original, "the shell's export kept the rowids: \(renumbered.output)")
        let before = workspace.bytes(copy)
        let rerun = try Tool.run(["decrypt", "--db-glob", workspace.path("tenants/*.db"), "--password-file", workspace.keyFile,
                                  "--output", workspace.path("plain/{name}.db")])
        #expect(rerun.exitCode == .fileError && rerun.stdout.contains("already exists") && !rerun.stdout.contains("already exported"), "\(rerun.output)")
        #expect(workspace.bytes(copy) == before)
    }
}
