import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Atlas's migration directory and `atlas_schema_revisions`, read as Atlas reads them
/// (docs/coming-from/atlas.md): `atlas.sum` must sum the folder's files as Atlas sums them,
/// or the folder is refused as Atlas refuses it; a baseline revision stands for every
/// version up to its own; a file run in part failed. Every database is one Atlas's own
/// source would leave (`OtherToolFixture`), its atlas.sum computed apart from MigrationKit's.
@Suite struct AtlasTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A file edited, a file added before the last, a file removed, and atlas.sum's own
    /// first line edited are each refused (exit 9) naming the file and `atlas migrate
    /// hash`, with every file as it was; the folder as atlas.sum sums it reads again.
    @Test func atlasSumMustSumTheFolderAsAtlasSumsIt() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.atlas, in: workspace, applied: 2, pending: 1)
        let sumPath = workspace.migrations + "/atlas.sum"
        let sum = try String(contentsOfFile: sumPath, encoding: .utf8)
        func refused(_ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = try TreeSnapshot(workspace.root)
            let status = try workspace.run("status")
            #expect(status.exitCode == .fileError && status.stderr.contains(words) && status.stderr.contains("`atlas migrate hash`"), "\(status.output)", sourceLocation: sourceLocation)
            try expectUnchanged(before, "a refused status", sourceLocation: sourceLocation)
        }

        let original = try String(contentsOfFile: fixture.upFiles[1], encoding: .utf8)
        try write(original + "-- a comment added afterwards\n", to: fixture.upFiles[1])
        try refused("\(fixture.identifiers[1]).sql: This file is not what atlas.sum records for it")
        try write(original, to: fixture.upFiles[1])

        try workspace.migration("20240101000001a_between.sql", "SELECT 1;\n")
        try refused("\(fixture.identifiers[1]).sql: This file is not where atlas.sum records it: a file was added before it")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/20240101000001a_between.sql")

        let last = try String(contentsOfFile: fixture.upFiles[2], encoding: .utf8)
        try FileManager.default.removeItem(atPath: fixture.upFiles[2])
        try refused("atlas.sum: This atlas.sum lists \(fixture.identifiers[2]).sql, which is not in the folder")
        try write(last, to: fixture.upFiles[2])
        try write(sum.replacingOccurrences(of: "h1:", with: "h1:A", options: .anchored), to: sumPath)
        try refused("atlas.sum: This atlas.sum's first line is not the sum of its other lines")
        try write(sum, to: sumPath)
        #expect(try workspace.run("status").exitCode != .fileError)
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Atlas's ledger (last version \(fixture.versions[1]))"), "\(adopt.output)")

        let new = try workspace.run("new", ["more"])
        #expect(new.exitCode == .usage && new.stderr.contains("write the next one with `atlas migrate new`"), "\(new.output)")
    }

    /// A baseline revision (`atlas migrate apply --baseline`) stands for every version up to
    /// its own; a revision whose `applied` is not its `total` (a file that failed half way)
    /// is refused; Atlas's own identifier row is no revision.
    @Test func aBaselineStandsForTheVersionsBeforeItAndAPartialFileIsRefused() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.atlas, in: workspace, applied: 2, pending: 1)
        _ = try fixture.query(workspace, "DELETE FROM atlas_schema_revisions WHERE version = '\(fixture.versions[0])'; UPDATE atlas_schema_revisions SET type = 1, applied = 0, total = 0 WHERE version = '\(fixture.versions[1])';")
        let baseline = try workspace.run("adopt", ["--dry-run"])
        #expect(baseline.status == 0 && baseline.stdout.contains("Would record 2 migrations from Atlas's ledger"), "\(baseline.output)")

        _ = try fixture.query(workspace, "UPDATE atlas_schema_revisions SET type = 2, applied = 1, total = 2, error = 'no such table' WHERE version = '\(fixture.versions[1])';")
        let partial = try workspace.run("adopt")
        #expect(partial.exitCode == .refused && partial.stderr.contains("Atlas recorded version \(fixture.versions[1]) as failed; repair it with Atlas first"), "\(partial.output)")
    }

    /// A checkpoint file and a file with its own delimiter are refused naming the line; a
    /// `txmode none` file runs in a transaction all the same, noted; two files of one
    /// version are refused.
    @Test func atlasDirectivesAndVersions() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101000001_init.sql", "-- atlas:txmode none\n\nCREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        try workspace.migration("atlas.sum", try OtherToolFixture.atlasSum(of: workspace.migrations))
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stderr.contains("20240101000001_init.sql:1: note[transaction-control]"), "\(migrate.output)")

        try workspace.migration("20240101000002_checkpoint.sql", "-- atlas:checkpoint\n\nCREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        try workspace.migration("20240101000003_trigger.sql", "-- atlas:delimiter -- end\n\nCREATE TRIGGER t AFTER INSERT ON notes BEGIN SELECT 1; END\n-- end\n")
        try workspace.migration("20240101000004_a.sql", "SELECT 1;\n")
        try workspace.migration("20240101000004_b.sql", "SELECT 2;\n")
        try workspace.migration("atlas.sum", try OtherToolFixture.atlasSum(of: workspace.migrations))
        let status = try workspace.run("status")
        #expect(status.exitCode == .fileError, "\(status.output)")
        for words in ["20240101000002_checkpoint.sql:1: This is an Atlas checkpoint", "20240101000003_trigger.sql:1: Atlas cuts this file's statements at `-- end`",
                      "20240101000004_b.sql: This file and", "20240101000004_a.sql are both version 20240101000004"] {
            #expect(status.stderr.contains(words), "\(words): \(status.stderr)")
        }
    }
}
