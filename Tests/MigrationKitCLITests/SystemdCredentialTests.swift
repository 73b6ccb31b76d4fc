import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--systemd-credential NAME` (`systemd-credential`, `MIGRATIONKIT_SYSTEMD_CREDENTIAL`):
/// the key is the file `$CREDENTIALS_DIRECTORY/NAME`, laid out here as systemd lays it
/// out for a service with `LoadCredential=` (a folder of mode 0500 holding files of mode
/// 0400), and, where systemd runs this machine, through a real transient unit.
@Suite struct SystemdCredentialTests: SystemdCredentialHelpers {
    /// A migrated workspace and a credentials folder holding its key as `db.key`.
    private func workspaceWithCredentials(_ names: [String: String]? = nil) throws -> (Workspace, String) {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate)")
        let folder = workspace.path("credentials")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (name, text) in names ?? ["db.key": workspace.key.text + "\n"] {
            try workspace.write("credentials/" + name, text, mode: 0o400)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder)
        return (workspace, folder)
    }

    /// Lets the workspace remove the folder again.
    private func reopen(_ folder: String) {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
    }

    private func status(_ workspace: Workspace, _ key: [String], environment: [String: String], json: Bool = false) throws -> CommandResult {
        try Tool.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations] + key + (json ? ["--json"] : []),
                       environment: environment, directory: workspace.root)
    }

    @Test func theCredentialOpensTheDatabaseFromTheFlagTheVariableAndTheProjectFile() throws {
        let (workspace, folder) = try workspaceWithCredentials()
        defer { reopen(folder) }
        let byFlag = try status(workspace, ["--systemd-credential", "db.key"], environment: service(folder))
        #expect(byFlag.status == 0 && byFlag.stdout.contains("2 applied, 0 pending."), "\(byFlag)")

        let byVariable = try status(workspace, [], environment: service(folder, ["MIGRATIONKIT_SYSTEMD_CREDENTIAL": "db.key"]))
        #expect(byVariable.status == 0, "\(byVariable)")

        try workspace.write("migrationkit.toml", "db-path = \"app.db\"\nsystemd-credential = \"db.key\"\n", mode: 0o600)
        let byFile = try Tool.run(["status"], environment: service(folder), directory: workspace.root)
        #expect(byFile.status == 0 && byFile.stdout.contains("2 applied"), "\(byFile)")
        let shown = try decodeJSON(try Tool.run(["config", "--json"], environment: service(folder), directory: workspace.root).stdout)
        #expect(shown["key"] as? String == "systemd credential db.key in \(folder) (\(workspace.path("migrationkit.toml")):2)", "\(shown)")
        // A key flag replaces the file's credential as a whole (docs/configuration.md: the key source is chosen as a whole).
        let flagWins = try Tool.run(["status", "--password-file", workspace.keyFile], environment: service(nil), directory: workspace.root)
        #expect(flagWins.status == 0, "\(flagWins)")

        for result in [byFlag, byVariable, byFile] {
            #expect(!result.output.contains(workspace.key.secret))
        }
    }

    /// `{name}`: one credential per database, as a fleet's unit loads them.
    @Test func eachDatabaseOfAFleetHasItsOwnCredential() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try FileManager.default.createDirectory(atPath: workspace.path("tenants"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: workspace.path("credentials"), withIntermediateDirectories: false)
        let keys = ["acme": "acme key \(UUID().uuidString.prefix(8))", "globex": "globex key \(UUID().uuidString.prefix(8))"]
        for (name, key) in keys {
            try workspace.write("credentials/tenant-\(name).key", key + "\n", mode: 0o400)
            try workspace.write("\(name).key", key + "\n", mode: 0o600)
        }
        let folder = workspace.path("credentials")
        // A fleet migrates databases that exist: each made with its own key file, one migration in.
        for name in keys.keys {
            let made = try Tool.run(["migrate", "--no-backup", "--to", "0001_authors", "--db-path", workspace.path("tenants/\(name).db"),
                                       "--migrations", workspace.migrations, "--password-file", workspace.path("\(name).key")], environment: service(nil))
            #expect(made.status == 0, "\(made)")
        }
        let migrate = try Tool.run(["migrate", "--no-backup", "--db-path", workspace.path("tenants/acme.db"), "--db-path", workspace.path("tenants/globex.db"),
                                      "--migrations", workspace.migrations, "--systemd-credential", "tenant-{name}.key"],
                                     environment: service(folder), directory: workspace.root)
        #expect(migrate.status == 0, "\(migrate)")
        for (name, key) in keys {
            let own = try Tool.run(["status", "--db-path", workspace.path("tenants/\(name).db"), "--migrations", workspace.migrations,
                                      "--password-file", workspace.path("\(name).key")], environment: service(nil))
            #expect(own.status == 0 && own.stdout.contains("2 applied"), "\(name) was migrated with its own key: \(own)")
            #expect(!migrate.output.contains(key))
        }
    }

    @Test func aMissingFolderOrCredentialIsOneSentenceThatSaysWhatToDo() throws {
        let (workspace, folder) = try workspaceWithCredentials()
        defer { reopen(folder) }
        let before = workspace.bytes(workspace.database)

        let notAService = try status(workspace, ["--systemd-credential", "db.key"], environment: service(nil))
        expectCleanFailure(notAService, .keyUnavailable, mentions: ["CREDENTIALS_DIRECTORY is not set", "LoadCredential=db.key"], "no CREDENTIALS_DIRECTORY")
        let empty = try status(workspace, ["--systemd-credential", "db.key"], environment: service(""))
        expectCleanFailure(empty, .keyUnavailable, mentions: ["CREDENTIALS_DIRECTORY is not set"], "an empty CREDENTIALS_DIRECTORY")

        let missing = try status(workspace, ["--systemd-credential", "other.key"], environment: service(folder))
        expectCleanFailure(missing, .keyUnavailable, mentions: ["other.key", folder, "LoadCredential=other.key"], "a credential not loaded")
        let json = try status(workspace, ["--systemd-credential", "other.key"], environment: service(folder), json: true)
        #expect((try decodeJSON(json.stdout)["error"] as? [String: Any])?["kind"] as? String == "key.credentialNotFound", "\(json)")

        for name in ["../key", "sub/db.key", "..", "/etc/db.key"] {
            let refused = try status(workspace, ["--systemd-credential", name], environment: service(folder))
            expectCleanFailure(refused, .usage, mentions: ["--systemd-credential", "not a credential name"], "name \(name)")
        }
        let two = try status(workspace, ["--systemd-credential", "db.key", "--password-file", workspace.keyFile], environment: service(folder))
        expectCleanFailure(two, .usage, mentions: ["exactly one key source", "--systemd-credential"], "two key sources")
        #expect(workspace.bytes(workspace.database) == before)
    }

    /// The file is read by the key-file rules: a trailing line break is dropped (above),
    /// a file others can write is refused, one larger than a key is refused.
    @Test func theCredentialIsReadByTheKeyFileRules() throws {
        let (workspace, folder) = try workspaceWithCredentials([:])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        try workspace.write("credentials/writable.key", workspace.key.text, mode: 0o666)
        try workspace.write("credentials/large.key", String(repeating: "x", count: 5000), mode: 0o400)
        let writable = try status(workspace, ["--systemd-credential", "writable.key"], environment: service(folder))
        expectCleanFailure(writable, .keyUnavailable, mentions: [folder + "/writable.key", "chmod"], "a writable credential")
        let large = try status(workspace, ["--systemd-credential", "large.key"], environment: service(folder))
        expectCleanFailure(large, .keyUnavailable, mentions: [folder + "/large.key", "4096"], "a credential larger than a key")
        #expect(!writable.output.contains(workspace.key.secret))
    }
}
