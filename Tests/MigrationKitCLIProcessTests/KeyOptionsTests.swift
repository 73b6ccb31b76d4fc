import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// The key option tests whose subject is the process's own environment (GLib reads the
/// session bus from it). The others are in MigrationKitCLITests.
@Suite struct KeyOptionsTests {
    @Test func withoutASessionBusTheKeyringErrorSaysWhatToStart() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        var environment = Binary.environment()
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment.removeValue(forKey: "DISPLAY")
        environment["XDG_RUNTIME_DIR"] = workspace.root
        // The binary: GLib reads the bus address from the process's own environment.
        let result = try Binary.run(["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations,
                                     "--keychain-service", "app", "--keychain-account", "db"], environment: environment)
        #expect(result.exitCode == .keyUnavailable)
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.lowercased().contains("bus"))
    }
}
