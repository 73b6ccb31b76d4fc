import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitCommands
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Settings from `MIGRATIONKIT_*` variables and `migrationkit.toml`, in the test process
/// (what only the binary shows is in MigrationKitCLIProcessTests): each source, the
/// precedence between them, a project file found from a subfolder, the database chosen
/// by name, `config`, `init`, and every bad input.
@Suite struct ProjectConfigTests {
    private func config(_ arguments: [String] = [], environment: [String: String] = [:], in directory: String) throws -> (result: CommandResult, settings: [String: (value: String, origin: String)]) {
        let result = try Tool.run(["config", "--json"] + arguments, environment: Binary.environment(environment), directory: directory)
        var settings: [String: (String, String)] = [:]
        if result.status == 0, let rows = try decodeJSON(result.stdout)["settings"] as? [[String: Any]] {
            for row in rows {
                if let name = row["name"] as? String, let value = row["value"] as? String, let origin = row["origin"] as? String {
                    settings[name] = (value, origin)
                }
            }
        }
        return (result, settings)
    }

    /// A workspace whose database has the sample migrations applied, migrated in this
    /// process (the process tests' `migratedWorkspace` runs the binary).
    private func migratedWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate)")
        return workspace
    }

    /// The tests keep the settings variables of the person running them away from the
    /// commands under test, every one the documentation's tables name included: those
    /// tables must be found (the settings table's and the key sources').
    @Test func theTestsClearEveryVariableTheDocumentationTablesName() {
        let documented = Set(Binary.documentedTableVariables)
        for name in ["MIGRATIONKIT_DB_PATH", "MIGRATIONKIT_MEMORY_SECURITY", "MIGRATIONKIT_SYSTEMD_CREDENTIAL"] {
            #expect(documented.contains(name), "the tables in \(Binary.settingsArticles) do not name \(name): \(documented.sorted())")
        }
        #expect(documented.isSubset(of: Binary.settingsVariables))
    }

    @Test func theEnvironmentGivesTheGlobalOptions() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let environment = [
            "MIGRATIONKIT_DB_PATH": workspace.database, "MIGRATIONKIT_MIGRATIONS": workspace.migrations,
            "MIGRATIONKIT_PASSWORD_FILE": workspace.keyFile, "MIGRATIONKIT_LOCK_TIMEOUT": "3",
            "MIGRATIONKIT_BACKUP_DIR": workspace.path("backups"),
        ]
        let first = try Tool.run(["migrate", "--to", "0001_authors"], environment: Binary.environment(environment), directory: workspace.root)
        #expect(first.status == 0, "\(first)")
        let second = try Tool.run(["migrate"], environment: Binary.environment(environment), directory: workspace.root)
        #expect(second.status == 0, "\(second)")
        // The backup went where MIGRATIONKIT_BACKUP_DIR said.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("backups")).contains { $0.hasPrefix("app.db.backup-") })
        let (result, settings) = try config(environment: environment, in: workspace.root)
        #expect(result.status == 0, "\(result)")
        #expect(settings["db-path"]?.value == workspace.database && settings["db-path"]?.origin == "environment MIGRATIONKIT_DB_PATH")
        #expect(settings["lock-timeout"]?.value == "3" && settings["lock-timeout"]?.origin == "environment MIGRATIONKIT_LOCK_TIMEOUT")
        #expect(settings["password-file"]?.origin == "environment MIGRATIONKIT_PASSWORD_FILE")
    }

    @Test func aProjectFileIsFoundFromASubfolderAndItsPathsAreItsOwn() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.write("migrationkit.toml", """
            # the project
            db-path = "app.db"
            migrations = "Migrations"
            password-file = "key"
            """, mode: 0o600)
        let deeper = workspace.path("src/deeper")
        try FileManager.default.createDirectory(atPath: deeper, withIntermediateDirectories: true)
        let migrate = try Tool.run(["migrate", "--no-backup"], directory: deeper)
        #expect(migrate.status == 0, "\(migrate)")
        #expect(FileManager.default.fileExists(atPath: workspace.database))
        #expect(!FileManager.default.fileExists(atPath: deeper + "/app.db"))
        let status = try Tool.run(["status"], directory: deeper)
        #expect(status.status == 0 && status.stdout.contains("2 applied, 0 pending."), "\(status)")
        let (_, settings) = try config(in: deeper)
        #expect(settings["db-path"]?.value == workspace.database)
        #expect(settings["db-path"]?.origin == workspace.path("migrationkit.toml") + ":2")
        #expect(settings["migrations"]?.origin == workspace.path("migrationkit.toml") + ":3")
        #expect(settings["lock-timeout"]?.value == "10" && settings["lock-timeout"]?.origin == "default")
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() throws {
        let workspace = try Workspace()
        try workspace.write("migrationkit.toml", "db-path = \"from-file.db\"\nlock-timeout = 7\n", mode: 0o600)
        let environment = ["MIGRATIONKIT_DB_PATH": "/srv/from-environment.db"]
        let flag = try config(["--db-path", "/srv/from-flag.db"], environment: environment, in: workspace.root).settings
        #expect(flag["db-path"]?.value == "/srv/from-flag.db" && flag["db-path"]?.origin == "flag")
        let variable = try config(environment: environment, in: workspace.root).settings
        #expect(variable["db-path"]?.value == "/srv/from-environment.db" && variable["db-path"]?.origin == "environment MIGRATIONKIT_DB_PATH")
        #expect(variable["lock-timeout"]?.value == "7" && variable["lock-timeout"]?.origin == workspace.path("migrationkit.toml") + ":2")
        let file = try config(in: workspace.root).settings
        #expect(file["db-path"]?.value == workspace.path("from-file.db") && file["db-path"]?.origin == workspace.path("migrationkit.toml") + ":1")
    }

    /// The key source is chosen as a whole: a flag's key source replaces the file's
    /// (instead of making two), and MIGRATIONKIT_PASSWORD beats a key file in the file.
    @Test func theKeySourceComesWholeFromOnePlace() throws {
        let workspace = try migratedWorkspace()
        try workspace.write("wrong-key", "not the key\n", mode: 0o600)
        try workspace.write("migrationkit.toml", "db-path = \"app.db\"\nmigrations = \"Migrations\"\npassword-file = \"wrong-key\"\n", mode: 0o600)
        let fromFile = try Tool.run(["status"], directory: workspace.root)
        #expect(fromFile.status == CLIExitCodeValue.wrongKeyOrNotADatabase.rawValue, "the file's key file is used: \(fromFile)")
        let fromVariable = try Tool.run(["status"], environment: Binary.environment(["MIGRATIONKIT_PASSWORD": workspace.key.text]), directory: workspace.root)
        #expect(fromVariable.status == 0, "\(fromVariable)")
        // Empty counts as not set (docs/configuration.md, Keys/README.md): the file's key file is used,
        // and a warning says why the variable was not.
        try workspace.write("right-key", workspace.key.text + "\n", mode: 0o600)
        try workspace.write("migrationkit.toml", "db-path = \"app.db\"\nmigrations = \"Migrations\"\npassword-file = \"right-key\"\n", mode: 0o600)
        let emptyVariable = try Tool.run(["status"], environment: Binary.environment(["MIGRATIONKIT_PASSWORD": ""]), directory: workspace.root)
        #expect(emptyVariable.status == 0 && emptyVariable.stderr.contains("warning: MIGRATIONKIT_PASSWORD is set but empty, so it counts as not set"), "\(emptyVariable)")
        #expect(try config(environment: ["MIGRATIONKIT_PASSWORD": ""], in: workspace.root).settings["password-file"]?.value == workspace.path("right-key"))
        try workspace.write("migrationkit.toml", "db-path = \"app.db\"\nmigrations = \"Migrations\"\nkeychain-service = \"org.migrationkit.tests.absent\"\nkeychain-account = \"db\"\n", mode: 0o600)
        let fromFlag = try Tool.run(["status", "--password-file", workspace.keyFile], directory: workspace.root)
        #expect(fromFlag.status == 0, "a key flag replaces the file's keyring item: \(fromFlag)")
        let shown = try config(environment: ["MIGRATIONKIT_PASSWORD": workspace.key.text], in: workspace.root)
        #expect(!shown.result.output.contains(workspace.key.secret))
        #expect(try decodeJSON(shown.result.stdout)["key"] as? String == "MIGRATIONKIT_PASSWORD (not shown)")
        let flagged = try Tool.run(["config", "--password", workspace.key.text], directory: workspace.root)
        #expect(flagged.status == 0 && !flagged.stdout.contains(workspace.key.secret), "\(flagged)")
    }

    @Test func oneOfSeveralDatabasesIsChosenByName() throws {
        let workspace = try Workspace()
        try workspace.write("migrationkit.toml", """
            password-file = "key"

            [databases.app]
            db-path = "app.db"

            [databases.cache]
            db-path = "cache.db"
            migrations = "CacheMigrations"
            """, mode: 0o600)
        let neither = try Tool.run(["status"], directory: workspace.root)
        #expect(neither.status == CLIExitCodeValue.usage.rawValue && neither.stderr.contains("app, cache") && neither.stderr.contains("--database"), "\(neither)")
        #expect(neither.errorLines.count == 1 && neither.strayErrorOutput.isEmpty, "\(neither)")
        let cache = try config(["--database", "cache"], in: workspace.root)
        #expect(cache.settings["db-path"]?.value == workspace.path("cache.db"))
        #expect(cache.settings["db-path"]?.origin == workspace.path("migrationkit.toml") + ":7")
        #expect(cache.settings["password-file"]?.value == workspace.keyFile)
        #expect(try decodeJSON(cache.result.stdout)["database"] as? String == "cache")
        let byVariable = try config(environment: ["MIGRATIONKIT_DATABASE": "app"], in: workspace.root)
        #expect(byVariable.settings["db-path"]?.value == workspace.database)
        #expect(byVariable.settings["migrations"]?.origin == "default")
        let unknown = try Tool.run(["status", "--database", "other"], directory: workspace.root)
        #expect(unknown.status == CLIExitCodeValue.usage.rawValue && unknown.stderr.contains("--database other") && unknown.stderr.contains("app, cache"), "\(unknown)")
    }

    /// docs/configuration.md's own example (top-level settings and one `[databases.cache]`): a
    /// bare command works on the top-level database, never silently on the table's, and
    /// every command that touches a database names it in its first line and its JSON.
    @Test func topLevelSettingsAreADatabaseOfTheirOwnAndEveryCommandNamesItsDatabase() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try FileManager.default.createDirectory(atPath: workspace.path("CacheMigrations"), withIntermediateDirectories: true)
        try workspace.write("CacheMigrations/0001_entries.sql", "-- migrate:up\nCREATE TABLE entries (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE entries;\n")
        try workspace.write("migrationkit.toml", """
            db-path = "app.db"
            migrations = "Migrations"
            password-file = "key"

            [databases.cache]
            db-path = "cache.db"
            migrations = "CacheMigrations"
            """, mode: 0o600)
        let bare = try Tool.run(["migrate", "--no-backup"], directory: workspace.root)
        #expect(bare.status == 0, "\(bare)")
        #expect(bare.stdout.split(separator: "\n").first == "Database: \(workspace.database)", "\(bare)")
        #expect(FileManager.default.fileExists(atPath: workspace.database))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("cache.db")), "the table's database was not asked for")

        let named = try Tool.run(["migrate", "--no-backup", "--database", "cache"], directory: workspace.root)
        #expect(named.status == 0, "\(named)")
        #expect(named.stdout.split(separator: "\n").first == "Database: \(workspace.path("cache.db")) ([databases.cache] in \(workspace.path("migrationkit.toml")))", "\(named)")

        // Each command that opens a database says which, in words and in --json.
        for command in [["status"], ["verify"], ["schema-dump", "--output", workspace.path("schema.sql")], ["baseline", "--to", "0001_entries"],
                        ["rollback", "--no-backup"], ["migrate", "--no-backup"]] {
            let words = try Tool.run(command + ["--database", "cache"], directory: workspace.root)
            #expect(words.status == 0, "\(command): \(words)")
            #expect(words.stdout.hasPrefix("Database: \(workspace.path("cache.db")) ([databases.cache]"), "\(command): \(words)")
            if command.first == "schema-dump" { try FileManager.default.removeItem(atPath: workspace.path("schema.sql")) }
            let json = try Tool.run(command + ["--database", "cache", "--json"], directory: workspace.root)
            #expect(json.status == 0 || command.first == "rollback", "\(command): \(json)")
            let document = try decodeJSON(json.stdout)
            if json.status == 0 {
                #expect(document["database"] as? String == workspace.path("cache.db") && document["databaseName"] as? String == "cache", "\(command): \(json)")
            }
            if command.first == "schema-dump" { try FileManager.default.removeItem(atPath: workspace.path("schema.sql")) }
        }
        let topLevel = try decodeJSON(try Tool.run(["status", "--json"], directory: workspace.root).stdout)
        #expect(topLevel["database"] as? String == workspace.database && topLevel.keys.contains("databaseName") && topLevel["databaseName"] is NSNull)

        // With no top-level db-path, the only table is the database; with two, a refusal.
        try workspace.write("migrationkit.toml", "password-file = \"key\"\n\n[databases.cache]\ndb-path = \"cache.db\"\nmigrations = \"CacheMigrations\"\n", mode: 0o600)
        let only = try Tool.run(["status"], directory: workspace.root)
        #expect(only.status == 0 && only.stdout.hasPrefix("Database: \(workspace.path("cache.db")) ([databases.cache]"), "\(only)")
    }

    /// The issue's deploy script: in the project folder, `migrationkit migrate` and
    /// nothing else, the key from the keyring item the file names.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aDeployRunsMigrateWithNoFlagsAndTheKeyFromTheKeyring() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let service = "org.migrationkit.tests.config.\(UUID().uuidString)"
        defer { _ = try? Tool.run(["key", "delete", "--keychain-service", service, "--keychain-account", "db"]) }
        let init_ = try Tool.run(["init", "--keychain-service", service, "--keychain-account", "db", "--migrations", "db/migrations"], directory: workspace.root)
        #expect(init_.status == 0, "\(init_)")
        try FileManager.default.removeItem(atPath: workspace.path("db/migrations"))
        try FileManager.default.copyItem(atPath: workspace.migrations, toPath: workspace.path("db/migrations"))
        let stored = try Tool.run(["key", "store", "--keychain-service", service, "--keychain-account", "db"], stdin: workspace.key.text + "\n")
        #expect(stored.status == 0, "\(stored)")
        let deploy = try Tool.run(["migrate"], directory: workspace.root)
        #expect(deploy.status == 0 && deploy.stdout.contains("0002_books"), "\(deploy)")
        // Encrypted with the keyring's key: the key file (the same passphrase) opens it.
        let check = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.keyFile, "--migrations", workspace.path("db/migrations")])
        #expect(check.status == 0 && check.stdout.contains("2 applied, 0 pending."), "\(check)")
    }

    @Test func initWritesAProjectOnceAndNeverOverIt() throws {
        let workspace = try Workspace()
        let project = workspace.path("project")
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: false)
        let first = try Tool.run(["init", "--password-file", "secrets/db.key"], directory: project)
        #expect(first.status == 0, "\(first)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: project + "/migrationkit.toml")[.posixPermissions] as? NSNumber)
        #expect(mode.intValue == 0o600)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: project + "/Migrations", isDirectory: &isFolder) && isFolder.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: project + "/Migrations").isEmpty)
        // What it wrote is read back as written.
        let settings = try config(in: project).settings
        #expect(settings["db-path"]?.value == project + "/app.db")
        #expect(settings["password-file"]?.value == project + "/secrets/db.key")
        // Every name it writes, commented out or not, is a setting the commands take.
        let written = try String(contentsOfFile: project + "/migrationkit.toml", encoding: .utf8)
        let names = written.split(separator: "\n").compactMap { row -> String? in
            let text = row.hasPrefix("# ") ? row.dropFirst(2) : row[...]
            guard !text.hasPrefix("#"), let equals = text.firstIndex(of: "=") else { return nil }
            let name = text[..<equals].trimmingCharacters(in: .whitespaces)
            return name.contains(" ") ? nil : name
        }
        #expect(names.count >= 6, "\(written)")
        for name in names { #expect(ProjectSetting(rawValue: name) != nil, "init writes \(name), which is no setting") }

        let before = try TreeSnapshot(project)
        let again = try Tool.run(["init"], directory: project)
        expectCleanFailure(again, .fileError, mentions: ["migrationkit.toml already exists"], "second init")
        try expectUnchanged(before, "second init")
        try FileManager.default.removeItem(atPath: project + "/migrationkit.toml")
        let folderLeft = try Tool.run(["init"], directory: project)
        expectCleanFailure(folderLeft, .fileError, mentions: ["Migrations already exists"], "init beside a migrations folder")
        #expect(!FileManager.default.fileExists(atPath: project + "/migrationkit.toml"))
        let half = try Tool.run(["init", "--keychain-service", "myapp"], directory: workspace.root)
        #expect(half.status == CLIExitCodeValue.usage.rawValue && half.stderr.contains("go together"), "\(half)")
    }
}
