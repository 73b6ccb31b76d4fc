import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `key delete` of an item the keyring does not hold.
@Suite struct KeyDeleteTests {
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func deletingAMissingKeyIsDoneNotAnError() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let service = "org.migrationkit.tests.delete.\(UUID().uuidString)"
        let item = ["--keychain-service", service, "--keychain-account", "db"]
        #expect(try Tool.run(["key", "generate"] + item).status == 0)
        let first = try Tool.run(["key", "delete", "--json"] + item)
        #expect(first.status == 0, "\(first.output)")
        #expect(try decodeJSON(first.stdout)["deleted"] as? Bool == true)
        let again = try Tool.run(["key", "delete", "--json"] + item)
        #expect(again.status == 0, "\(again.output)")
        #expect(try decodeJSON(again.stdout)["deleted"] as? Bool == false)
        let text = try Tool.run(["key", "delete"] + item)
        #expect(text.status == 0 && text.stdout.contains("nothing to delete"), "\(text.output)")
    }
}
