import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The project settings tests whose subject is the process: a bad setting is one clean
/// line, and files another user owns or the user cannot read. The others are in
/// MigrationKitCLITests.
@Suite struct ProjectConfigTests {
    enum BadFile: String, CaseIterable, CustomTestStringConvertible {
        case unknownSetting, wrongType, keyInFile, keyInADatabaseTable, notTOML, groupWritable, databasesNotATable, missingConfig, badVariable
        case lintUnknownKey, lintRulesNotNames, lintEmptyPattern, lintInADatabaseTable
        var testDescription: String { rawValue }
    }

    @Test(arguments: BadFile.allCases)
    func aBadSettingIsOneUsageErrorNamingWhereItIs(_ bad: BadFile) throws {
        let workspace = try migratedWorkspace(pending: true)
        let file = workspace.path("migrationkit.toml")
        var arguments = ["migrate"]
        var environment: [String: String] = [:]
        var mentions: [String]
        switch bad {
        case .unknownSetting:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\ndbpath = \"other.db\"\n", mode: 0o600)
            mentions = [file + ":2", "unknown setting `dbpath`. Did you mean `db-path`?"]
        case .wrongType:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n\nlock-timeout = \"soon\"\n", mode: 0o600)
            mentions = [file + ":3", "`lock-timeout` must be a number of seconds, not text"]
        case .keyInFile:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\npassword = \"\(workspace.key.text)\"\n", mode: 0o600)
            mentions = [file + ":2", "a key never goes in migrationkit.toml", "keychain-service", "MIGRATIONKIT_PASSWORD"]
        case .keyInADatabaseTable:
            try workspace.write("migrationkit.toml", "[databases.app]\ndb-path = \"app.db\"\n  passphrase = 'x'\n", mode: 0o600)
            mentions = [file + ":3", "a key never goes in"]
        case .notTOML:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\nmigrations = \n", mode: 0o600)
            mentions = [file + ":2", "not valid TOML"]
        case .groupWritable:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n", mode: 0o664)
            mentions = [file, "writable by its group", "chmod go-w"]
        case .databasesNotATable:
            try workspace.write("migrationkit.toml", "databases = \"app\"\n", mode: 0o600)
            mentions = [file + ":1", "[databases.NAME]"]
        case .missingConfig:
            arguments += ["--config", workspace.path("nowhere.toml")]
            mentions = ["nowhere.toml does not exist", "--config"]
        case .badVariable:
            environment = ["MIGRATIONKIT_LOCK_TIMEOUT": "soon", "MIGRATIONKIT_DB_PATH": workspace.database]
            mentions = ["environment MIGRATIONKIT_LOCK_TIMEOUT", "`lock-timeout` must be a number of seconds"]
        case .lintUnknownKey:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n[lint]\ndisabled = [\"missing-down\"]\n", mode: 0o600)
            mentions = [file + ":3", "unknown key `disabled` in [lint]. Did you mean `disable`?"]
        case .lintRulesNotNames:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n[lint.files]\n\"0001_*.sql\" = \"missing-down\"\n", mode: 0o600)
            mentions = [file + ":3", "`lint.files.\"0001_*.sql\"` must be a list of rule names in quotes"]
        case .lintEmptyPattern:
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n[lint.files]\n\"\" = [\"missing-down\"]\n", mode: 0o600)
            mentions = [file + ":3", "an empty file pattern in [lint.files] matches no file"]
        case .lintInADatabaseTable:
            try workspace.write("migrationkit.toml", "[databases.app]\ndb-path = \"app.db\"\n[databases.app.lint]\ndisable = [\"missing-down\"]\n", mode: 0o600)
            mentions = [file + ":3", "[lint] is a top-level table", "move it out of [databases.app]"]
        }
        let before = try TreeSnapshot(workspace.root)
        let result = try Guarded.run(arguments + ["--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                     environment: Binary.environment(environment), directory: workspace.root, timeout: 20)
        expectCleanFailure(result, .usage, mentions: mentions, "\(bad)")
        #expect(!result.output.contains(workspace.key.secret), "\(bad) printed the key")
        try expectUnchanged(before, "\(bad)")
        let json = try Guarded.run(arguments + ["--json", "--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                   environment: Binary.environment(environment), directory: workspace.root, timeout: 20)
        try expectJSONError(json, .usage, "\(bad) --json")
    }

    @Test func anUnreadableProjectFileIsNamed() throws {
        try requiringCapability {
            let workspace = try migratedWorkspace(pending: false)
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n", mode: 0o600)
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chmod(workspace.path("migrationkit.toml"), 0o000) == 0)
            let result = try Guarded.run(["status", "--password-file", workspace.keyFile], directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(result, .usage, mentions: [workspace.path("migrationkit.toml"), "cannot be read"], "unreadable config")
        }
    }

    /// Found by walking up from the current folder, a project file someone else put in a
    /// shared parent folder must not steer the command.
    @Test func aProjectFileOfAnotherUserIsNotTrusted() throws {
        try requiringCapability {
            guard Guarded.isRoot else { throw CapabilityMissing("making a file that belongs to another user needs root") }
            let workspace = try migratedWorkspace(pending: false)
            try workspace.write("migrationkit.toml", "db-path = \"app.db\"\n", mode: 0o644)
            #expect(chown(workspace.path("migrationkit.toml"), Guarded.unprivilegedID, Guarded.unprivilegedID) == 0)
            let result = try Guarded.run(["status", "--password-file", workspace.keyFile], directory: workspace.root, timeout: 20)
            expectCleanFailure(result, .usage, mentions: [workspace.path("migrationkit.toml"), "belongs to another user", "--config"], "another user's config")
            // Named on purpose, it is used: root deploying an app whose files the app's
            // user owns.
            let named = try Guarded.run(["status", "--password-file", workspace.keyFile, "--config", workspace.path("migrationkit.toml")],
                                        directory: workspace.root, timeout: 20)
            #expect(named.status == 0 && named.stdout.contains("0002_books"), "\(named)")
        }
    }
}
