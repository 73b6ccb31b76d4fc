import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// The migrate tests whose subject is the process's descriptors: a pipe that is not a
/// terminal, a reader that goes away. The others are in MigrationKitCLITests.
@Suite struct MigrateCommandTests {
    /// The binary, whose standard error is a real pipe: what decides is isatty(2).
    @Test func progressNeverWritesControlCharactersWhenNotATerminal() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try workspace.runBinary("migrate")
        // A run that did its work: the progress line had steps to show.
        #expect(result.status == 0 && result.stdout.contains("0002_books"), "\(result.output)")
        #expect(!result.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D })
    }
    /// A pipe whose reader leaves after one byte (`| head -c 1`): the broken pipe must
    /// not end the run between two migrations.
    @Test func aReaderThatGoesAwayDoesNotStopTheMigration() throws {
        let workspace = try Workspace()
        for number in 1...40 {
            try workspace.migration(String(format: "%04d_t.sql", number), "-- migrate:up\nCREATE TABLE t\(number) (x);\n")
        }
        let command = ([Binary.migrationkit, "migrate"] + workspace.options())
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try ChildProcess.run(["/bin/sh", "-c", command + " | head -c 1 >/dev/null"], environment: Binary.environment(), directory: workspace.root)
        #expect(result.status == 0)
        #expect(try workspace.run("status").stdout.contains("40 applied, 0 pending."))
    }
}
