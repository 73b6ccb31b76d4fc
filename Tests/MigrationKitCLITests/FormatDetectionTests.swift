import Foundation
import MigrationKitTestSupport
import Testing

/// docs/encryption-recipes.md, "Format detection": with a key and no cipher option, each format the linked
/// library reads is tried, and a file opens in its own format and stays in it. The files
/// are written by the `sqlcipher` shell of the configuration under test.
@Suite struct FormatDetectionTests {
    /// The settings of SQLCipher 1, 2 and 3 files, as the shell of either version takes
    /// them: SQLCipher 4 names the format, SQLCipher 3.4.1 has no such pragma.
    private static func formatPragmas(_ version: Int, shellIsFour: Bool) -> String {
        if shellIsFour { return "PRAGMA cipher_compatibility = \(version);\n" }
        switch version {
        case 1: return "PRAGMA kdf_iter = 4000;\nPRAGMA cipher_use_hmac = OFF;\n"
        case 2: return "PRAGMA kdf_iter = 4000;\n"
        default: return ""
        }
    }

    private static var shellIsFour: Bool {
        get throws {
            let version = try SQLCipherShell.run(":memory:", keyPragma: "'probe'", "PRAGMA cipher_version;")
            return version.stdout.hasPrefix("4.")
        }
    }

    @Test(arguments: [1, 2, 3])
    func anOlderFormatOpensWithoutSettingsAndKeepsItsFormat(_ version: Int) throws {
        let workspace = try Workspace()
        let four = try Self.shellIsFour
        let pragmas = Self.formatPragmas(version, shellIsFour: four)
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept');")
        #expect(made.status == 0, "\(made.output)")
        let before = try #require(workspace.bytes(workspace.database))

        let status = try workspace.run("status")
        #expect(status.status == 0, "SQLCipher \(version) file: \(status.output)")
        #expect(workspace.bytes(workspace.database) == before, "status changed the file")

        try workspace.migration("0001_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let migrated = try workspace.run("migrate", ["--no-backup", "-q"])
        #expect(migrated.status == 0, "SQLCipher \(version) file: \(migrated.output)")
        // Still in its format: the shell reads it with that format's settings.
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          pragmas + "SELECT body FROM notes; SELECT count(*) FROM grdb_migrations;")
        #expect(read.status == 0 && read.stdout == "kept\n1\n", "SQLCipher \(version) file after migrate: \(read.output)")
        if four {
            let asFour = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT count(*) FROM notes;")
            #expect(asFour.status != 0, "the SQLCipher \(version) file was rewritten in the 4 format")
        }
    }
}
