import Foundation
import MigrationKitTestSupport
import Testing

/// Copies keep the header settings the app chose: `auto_vacuum` (which can only be set
/// before a file's first table, so an app never sets it again), `user_version` and
/// `application_id`, through `decrypt`, `encrypt --output`, `encrypt --in-place`,
/// `rekey` and `cipher-upgrade`, each read back by the `sqlcipher` shell.
@Suite struct HeaderSettingsTests {
    private static let header = "PRAGMA auto_vacuum; PRAGMA user_version; PRAGMA application_id;"
    private static let chosen = "2\n7\n1234\n"

    private func headerOf(_ path: String, key: TestKey?) throws -> String {
        let result = try key.map { try SQLCipherShell.run(path, key: $0, Self.header) } ?? SQLCipherShell.run(path, keyPragma: nil, Self.header)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    @Test func everyCopyKeepsAutoVacuumAndTheAppsNumbers() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA auto_vacuum = INCREMENTAL; PRAGMA user_version = 7; PRAGMA application_id = 1234;
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('a');
            """)
        try #require(made.status == 0, "\(made.output)")
        #expect(try headerOf(workspace.database, key: workspace.key) == Self.chosen)

        let plain = workspace.path("plain.db")
        let decrypt = try workspace.run("decrypt", ["--output", plain])
        #expect(decrypt.status == 0, "\(decrypt.output)")
        #expect(try headerOf(plain, key: nil) == Self.chosen, "decrypt")

        let encrypted = workspace.path("again.db")
        let encrypt = try Tool.run(["encrypt", "--output", encrypted, "--db-path", plain, "--password-file", workspace.keyFile])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        #expect(try headerOf(encrypted, key: workspace.key) == Self.chosen, "encrypt --output")

        let inPlace = try Tool.run(["encrypt", "--in-place", "--no-backup", "--db-path", plain, "--password-file", workspace.keyFile])
        #expect(inPlace.status == 0, "\(inPlace.output)")
        #expect(try headerOf(plain, key: workspace.key) == Self.chosen, "encrypt --in-place")

        let rekey = try workspace.run("rekey", ["--new-password", "another passphrase", "--no-backup"])
        #expect(rekey.status == 0, "\(rekey.output)")
        #expect(try headerOf(workspace.database, key: .passphrase("another passphrase")) == Self.chosen, "rekey")
    }
}
