import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// docs/encryption-recipes.md's "Encrypt an existing app database", run by `sh` exactly as
/// written (the keyring service replaced by the test's own), on an app's database whose
/// rows' identity is their rowid (`RowIdentityFixture`): an external-content full-text
/// index over a table without a key. The encrypted file is read back by the `sqlcipher`
/// shell with the key the recipe stored: every rowid kept, and the index finds its rows.
@Suite struct EncryptionRecipeTests {
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func encryptingAnExistingAppDatabaseKeepsEveryRowAtItsRowid() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let recipes = try KeyRecipeTests.recipes(in: "docs/encryption-recipes.md").filter { $0.kind == "encrypt-existing" }
        let recipe = try #require(recipes.count == 1 ? recipes.first : nil, "\(recipes)")
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, keyPragma: nil, RowIdentityFixture.appSQL)
        #expect(made.status == 0, "\(made.output)")
        let service = "org.migrationkit.tests.recipes.\(UUID().uuidString)"
        defer { _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", "db"]) }

        let ran = try KeyRecipeTests.run(recipe, in: workspace.root, service: service, replacing: "myapp")
        #expect(ran.status == 0, "\(recipe): \(ran.output)")
        #expect(workspace.bytes(workspace.database)?.prefix(6) != Data("SQLite".utf8), "the database is still plaintext")

        let stored = try Binary.run(["lookup", "service", service, "account", "db"], executable: "/usr/bin/secret-tool")
        #expect(stored.status == 0, "\(stored.output)")
        let key = TestKey(text: stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let read = try RowIdentityFixture.identities(workspace.database, key: key)
        #expect(read.status == 0 && read.stdout == RowIdentityFixture.original, "\(read.output)")
    }
}
