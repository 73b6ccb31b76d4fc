import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A file with several names, through the binary. The other user file tests are in
/// MigrationKitCLITests.
@Suite struct UserFileSafetyTests {
    /// A rename gives one name a new file and leaves every other name (a hard link) on
    /// the old one: plaintext, or in the old format, after a run that said it was done.
    /// So every command that replaces a file refuses one with several names, before it
    /// writes anything (a backup included).
    @Test func aFileWithSeveralNamesIsNeverReplacedUnderOneOfThem() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let plain = workspace.path("plain.db")
        #expect(try Tool.run(["migrate", "--plaintext", "--db-path", plain, "--migrations", workspace.migrations]).status == 0)
        #expect(link(plain, workspace.path("plain-alias.db")) == 0)
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--no-backup"]).status == 0)
        #expect(try workspace.run("migrate").status == 0)  // leaves a backup to restore
        let backup = workspace.path(try #require(try FileManager.default.contentsOfDirectory(atPath: workspace.root).first { $0.hasPrefix("app.db.backup-") }))
        #expect(link(workspace.database, workspace.path("app-alias.db")) == 0)

        var runs: [(String, [String], [String])] = [
            ("encrypt --in-place", ["encrypt", "--in-place", "--db-path", plain, "--password-file", workspace.keyFile], [plain, "2 names", "still plaintext", "Nothing was changed"]),
            ("restore", ["restore", "--from", backup] + workspace.options(), [workspace.database, "2 names", "Nothing was changed"]),
        ]
        if (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 {
            let old = workspace.path("old.db")
            #expect(try Tool.run(["migrate", "--cipher-compatibility", "3", "--db-path", old, "--password-file", workspace.keyFile,
                                    "--migrations", workspace.migrations]).status == 0)
            #expect(link(old, workspace.path("old-alias.db")) == 0)
            let upgrade = ["cipher-upgrade", "--db-path", old, "--password-file", workspace.keyFile]
            runs += [("cipher-upgrade", upgrade, [old, "2 names", "in the old format"]),
                     ("cipher-upgrade --dry-run", upgrade + ["--dry-run"], [old, "2 names"])]
        }
        for (name, arguments, mentions) in runs {
            let before = try TreeSnapshot(workspace.root)
            let result = try Guarded.run(arguments, directory: workspace.root)
            expectCleanFailure(result, .fileError, mentions: mentions, name)
            try expectUnchanged(before, name)
        }
    }
}
