import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a migrations folder can hold that a new user does not expect: files the
/// loader skips, no migration at all, two files for one identifier, Windows line
/// endings after a checkout.
@Suite struct MigrationFolderTests {
    @Test func aSuffixInAnotherCaseAndAnEmptyFolderAreWarnedAbout() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try workspace.migration("0002_B.SQL", "-- migrate:up\nCREATE TABLE b (x);\n")
        let status = try workspace.run("status")
        #expect(status.status == 0)
        #expect(status.stderr.contains("0002_B.SQL ends in .SQL, not .sql") && status.stderr.contains("rename it to 0002_B.sql"), "\(status.stderr)")
        let empty = try Workspace()
        let migrate = try empty.run("migrate")
        #expect(migrate.stderr.contains("holds no migration files") && migrate.stderr.contains("--migrations"), "\(migrate.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty.database) || migrate.status == 0)
    }

    @Test func twoFilesForOneIdentifierAreBothNamed() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try workspace.migration("0001_a.up.sql", "CREATE TABLE a (x);\n")
        let both = try workspace.run("status")
        #expect(both.exitCode == .fileError, "\(both.output)")
        #expect(both.stderr.contains("0001_a.sql") && both.stderr.contains("0001_a.up.sql"), "\(both.stderr)")

        let merged = try Workspace()
        try merged.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try merged.migration("0002_all.sql", "-- migrate:merging 0001_a\n-- migrate:up\nCREATE TABLE a (x);\n")
        let stillThere = try merged.run("status")
        #expect(stillThere.exitCode == .fileError, "\(stillThere.output)")
        #expect(stillThere.stderr.contains("0002_all.sql") && stillThere.stderr.contains("0001_a.sql"), "\(stillThere.stderr)")
    }

    @Test func windowsLineEndingsDoNotMakeAMigrationModified() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        // git's autocrlf on a Windows checkout.
        for name in try FileManager.default.contentsOfDirectory(atPath: workspace.migrations) {
            let path = workspace.migrations + "/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0 && !status.stdout.contains("modified"), "\(status.output)")
    }

    @Test func aChecksumAnOlderVersionRecordedForCRLFStillMatches() throws {
        let workspace = try Workspace()
        let up = "CREATE TABLE a (x);\r\nCREATE TABLE b (y);\r\n"
        try workspace.migration("0001_a.up.sql", up)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        // What MigrationKit recorded before line endings stopped counting: the raw bytes'
        // hash, from coreutils (a second implementation of SHA-256).
        let hashed = try ChildProcess.run(["/usr/bin/sha256sum", workspace.migrations + "/0001_a.up.sql"])
        let raw = String(hashed.stdout.prefix(64))
        #expect(hashed.status == 0 && raw.count == 64, "\(hashed.output)")
        let update = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                            "UPDATE grdb_migrationkit_history SET checksum = '\(raw)' WHERE identifier = '0001_a';")
        #expect(update.status == 0, "\(update.output)")
        #expect(try workspace.run("status", ["--exit-code"]).status == 0)
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Already up to date") && !migrate.stdout.contains("Recorded checksums"), "\(migrate.output)")
    }
}

@Suite struct DatabasePathTests {
    @Test(arguments: [":memory:", "file:app.db?mode=memory"])
    func anInMemoryNameIsRefused(_ name: String) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try Tool.run(["migrate", "--db-path", name, "--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                    directory: workspace.root)
        #expect(result.exitCode == .usage, "\(result.output)")
        #expect(result.stderr.contains("in-memory") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
}

/// Interrupted runs leave nothing of theirs for later runs to trip over.
@Suite(.serialized) struct InterruptionTests {
    @Test func aKilledBackupsLeftoverIsRemovedByTheNextBackup() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        // Left by killed runs: an old-style one named after process 1 (which always
        // exists), and one whose process id is alive but started at another time.
        // A kill while a WAL database's backup was being created also leaves that
        // creation's marker.
        let leftovers = [".app.db.migrationkit-backup-1", ".app.db.migrationkit-backup-\(getpid())-1",
                         "..app.db.migrationkit-backup-\(getpid())-2.migrationkit-creating"]
        for name in leftovers { try workspace.write(name, "half a backup") }
        // A killed run's file stopped changing long ago.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: workspace.path(leftovers[0]))
        #expect(try workspace.run("migrate").status == 0)
        for name in leftovers {
            #expect(!FileManager.default.fileExists(atPath: workspace.path(name)), "\(name) survived")
        }
    }
}
