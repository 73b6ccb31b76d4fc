import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// docs/downgrades.md's deploy step, run by `sh` as written with the built `migrationkit`
/// first on PATH, in the older release's folder, on a database the newer release
/// migrated: it steps back, then migrates, and the database is the older release's.
@Suite struct DowngradeRecipeTests {
    @Test func theRolledBackDeployStepsBackThenMigrates() throws {
        let recipes = try KeyRecipeTests.recipes(in: "docs/downgrades.md").filter { $0.kind == "step-back" }
        let recipe = try #require(recipes.count == 1 ? recipes.first : nil, "\(recipes)")
        let workspace = try Workspace()
        try workspace.write("db.key", workspace.key.text + "\n", mode: 0o600)
        for folder in ["migrations", "newer"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
            try workspace.write(folder + "/0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n-- migrate:down\nDROP TABLE notes;\n")
        }
        try workspace.write("newer/0002_pinned.sql", "-- migrate:up\nCREATE TABLE pinned (note INTEGER NOT NULL);\n-- migrate:down\nDROP TABLE pinned;\n")
        let migrated = try Tool.run(["migrate", "--db-path", "app.db", "--password-file", "db.key", "--migrations", "newer", "--no-backup"], directory: workspace.root)
        #expect(migrated.status == 0, "\(migrated.output)")

        var environment = Binary.environment()
        environment["PATH"] = Binary.productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let ran = try ChildProcess.run(["/bin/sh", "-ec", recipe.script], environment: environment, directory: workspace.root, timeout: 60)
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.stdout.contains("Stepped back 1 migration in "), "\(ran.output)")
        let ledger = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                            "SELECT group_concat(identifier) FROM grdb_migrations; SELECT count(*) FROM sqlite_master WHERE name = 'pinned';")
        #expect(ledger.stdout == "0001_notes\n0\n", "\(ledger)")
    }
}
