import ArgumentParser
import MigrationKit
import MigrationKitCommands
import Testing

/// What `status` says of each state, and what `--exit-code` answers, for every layer.
@Suite struct StatusReportTests {
    private let status = MigrationStatus(
        entries: [
            MigrationStatusEntry(identifier: "0001_a", state: .applied),
            MigrationStatusEntry(identifier: "0002_b", state: .modified),
            MigrationStatusEntry(identifier: "0003_c", state: .pending),
        ],
        unknownApplied: [])

    @Test func aStateMigrateRefusesSaysWhy() {
        #expect(StatusReport.line(for: status.entries[0], in: status) == "applied  0001_a")
        #expect(StatusReport.line(for: status.entries[1], in: status).hasPrefix("modified 0002_b (edited since it was applied; migrate refuses"))
        #expect(StatusReport.line(for: status.entries[2], in: status) == "pending  0003_c")
    }

    @Test func exitCodeSaysRefusedBeforePending() throws {
        #expect(throws: ExitCode(CLIExitCode.refused.rawValue)) { try StatusReport(status).throwExitCode() }
        let pendingOnly = MigrationStatus(entries: [MigrationStatusEntry(identifier: "0001_a", state: .pending)], unknownApplied: [])
        #expect(throws: ExitCode(CLIExitCode.pendingMigrations.rawValue)) { try StatusReport(pendingOnly).throwExitCode() }
        let upToDate = MigrationStatus(entries: [MigrationStatusEntry(identifier: "0001_a", state: .applied)], unknownApplied: [])
        try StatusReport(upToDate).throwExitCode()
    }

    @Test func theJSONListsEveryMigrationWithItsStateAndNullsForMerges() throws {
        let text = try JSONOutput.encode(StatusReport(status).migrations)
        #expect(text.contains("\"identifier\" : \"0002_b\""))
        #expect(text.contains("\"state\" : \"modified\""))
        #expect(text.contains("\"mergedApplied\" : null"))
    }
}
