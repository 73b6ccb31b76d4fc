import ArgumentParser
@testable import MigrationKit
@testable import MigrationKitCommands
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
        func verdict(_ status: MigrationStatus) -> CommandVerdict? {
            StatusReport.verdict(migrateWouldRefuse: status.migrateWouldRefuse, pending: status.pending.count)
        }
        #expect(verdict(status) == .migrateWouldRefuse)
        let pendingOnly = MigrationStatus(entries: [MigrationStatusEntry(identifier: "0001_a", state: .pending)], unknownApplied: [])
        #expect(verdict(pendingOnly) == .migrationsPending)
        let upToDate = MigrationStatus(entries: [MigrationStatusEntry(identifier: "0001_a", state: .applied)], unknownApplied: [])
        #expect(verdict(upToDate) == nil)
    }

    @Test func theJSONListsEveryMigrationWithItsStateAndNullsForMerges() throws {
        let text = try JSONOutput.encode(StatusReport(status).migrations)
        #expect(text.contains("\"identifier\" : \"0002_b\""))
        #expect(text.contains("\"state\" : \"modified\""))
        #expect(text.contains("\"mergedApplied\" : null"))
    }
}
