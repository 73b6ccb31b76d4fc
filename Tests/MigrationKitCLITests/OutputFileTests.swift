import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `--output` refuses an existing file without `--force`, and even with `--force` never
/// replaces a file the same command reads: its database, its key file, a migration file.
@Suite struct OutputFileTests {
    @Test func noOutputEverReplacesAFileTheCommandReads() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let read = [workspace.keyFile, workspace.migrations + "/0001_authors.sql", workspace.database]
        let before = read.map { workspace.bytes($0) }
        for target in read {
            for (command, extra) in [("schema-dump", ["--force"]), ("decrypt", ["--force"]), ("encrypt", [])] {
                let result = try workspace.run(command, ["--output", target] + extra)
                #expect(result.exitCode == .usage, "\(command) --output \(target): \(result.output)")
                #expect(result.stderr.contains("which this command reads"), "\(result.stderr)")
            }
        }
        #expect(read.map { workspace.bytes($0) } == before)
    }

    @Test func anExistingFileNeedsForce() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.write("existing", "mine\n")
        for (command, forceable) in [("schema-dump", true), ("decrypt", true), ("encrypt", false)] {
            let result = try workspace.run(command, ["--output", workspace.path("existing")])
            #expect(result.exitCode == .fileError && result.stderr.contains("already exists"), "\(command): \(result.output)")
            #expect(try String(contentsOfFile: workspace.path("existing"), encoding: .utf8) == "mine\n")
            if forceable {
                #expect(try workspace.run(command, ["--output", workspace.path("existing"), "--force"]).status == 0)
                try workspace.write("existing", "mine\n")
            }
        }
    }
}
