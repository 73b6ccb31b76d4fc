@testable import MigrationKit
import Testing

/// What an older build does with a database a newer build migrated, decided from the
/// ledger's order, what the older build knows and what each newer step left.
@Suite struct NewerDatabaseJudgementTests {
    private static let down = "DROP TABLE t;"

    private static func row(_ identifier: String, down: String? = Self.down, checksumOf checked: String? = nil,
                            _ compatibility: MigrationCompatibility? = nil) -> MigrationDowngradeTable.Entry {
        MigrationDowngradeTable.Entry(identifier: identifier, downSQL: down,
                                      downChecksum: (checked ?? down).map(MigrationDowngradeTable.checksum(of:)), compatibility: compatibility)
    }

    private static func judge(_ ledger: [String], knowing known: Set<String>, _ rows: [MigrationDowngradeTable.Entry]) -> DatabaseCompatibility {
        NewerDatabaseJudgement.judge(ledger: ledger, knows: known.contains, recorded: Dictionary(uniqueKeysWithValues: rows.map { ($0.identifier, $0) }))
    }

    private static func verdicts(_ answer: DatabaseCompatibility) -> [String: NewerMigration.Verdict] {
        Dictionary(uniqueKeysWithValues: answer.newerMigrations.map { ($0.identifier, $0.verdict) })
    }

    @Test func nothingUnknownIsCurrent() {
        #expect(Self.judge(["1", "2"], knowing: ["1", "2", "3"], []) == .current)
    }

    @Test func newerStepsThatAllAllowThisBuildAreUsedAsTheyAre() {
        let answer = Self.judge(["1", "2", "3"], knowing: ["1"], [Self.row("2", .withOlderBuilds), Self.row("3", down: nil, .withBuildsKnowing("1"))])
        guard case .compatible(let steps) = answer else { Issue.record("\(answer)"); return }
        #expect(steps.map(\.identifier) == ["2", "3"])
        #expect(answer.blocking.isEmpty && answer.undone.isEmpty)
    }

    /// `from ID` names the oldest build a step allows by what that build knows.
    @Test func compatibleFromAStepThisBuildDoesNotKnowBlocks() {
        let answer = Self.judge(["1", "2", "3"], knowing: ["1"], [Self.row("2", .withOlderBuilds), Self.row("3", .withBuildsKnowing("2"))])
        guard case .canStepBack = answer else { Issue.record("\(answer)"); return }
        #expect(answer.blocking == ["3"])
        #expect(answer.undone == ["3"])
        #expect(Self.verdicts(answer) == ["2": .allowsThisBuild, "3": .stepsBack])
    }

    /// A compatible step applied after one that is not stands on it: it is undone too,
    /// newest first; compatible steps before the first blocking one stay.
    @Test func everythingFromTheFirstBlockingStepOnIsUndoneNewestFirst() {
        let answer = Self.judge(["1", "2", "3", "4"], knowing: ["1"],
                                [Self.row("2", .withOlderBuilds), Self.row("3"), Self.row("4", .withOlderBuilds)])
        guard case .canStepBack = answer else { Issue.record("\(answer)"); return }
        #expect(answer.undone == ["4", "3"])
        #expect(answer.blocking == ["3"])
        #expect(Self.verdicts(answer) == ["2": .allowsThisBuild, "3": .stepsBack, "4": .stepsBack])
    }

    @Test func aStepToUndoWithoutAnIntactStoredDownRefusesAndSaysWhy() {
        let missing = Self.judge(["1", "2", "3"], knowing: ["1"], [Self.row("2"), Self.row("3", down: nil)])
        guard case .mustRefuse = missing else { Issue.record("\(missing)"); return }
        #expect(Self.verdicts(missing) == ["2": .stepsBack, "3": .blocks(.noStoredDown)])

        let noRow = Self.judge(["1", "2"], knowing: ["1"], [])
        #expect(Self.verdicts(noRow) == ["2": .blocks(.noStoredDown)])

        let edited = Self.judge(["1", "2"], knowing: ["1"], [Self.row("2", down: "DROP TABLE t; DROP TABLE u;", checksumOf: Self.down)])
        guard case .mustRefuse = edited else { Issue.record("\(edited)"); return }
        #expect(Self.verdicts(edited) == ["2": .blocks(.storedDownEdited)])
    }

    /// Undoing a newer step under a step this build knows would pull the ground from
    /// under it.
    @Test func aKnownStepAppliedAfterANewerOneBlocksIt() {
        let answer = Self.judge(["1", "2", "3"], knowing: ["1", "3"], [Self.row("2")])
        guard case .mustRefuse = answer else { Issue.record("\(answer)"); return }
        #expect(Self.verdicts(answer) == ["2": .blocks(.appliedUnder("3"))])
    }

    /// The refusal names only the steps that do not allow this build; the analysis
    /// judges from the ledger and the downgrade rows it read, and a compatible newer
    /// step no longer makes migrate refuse.
    @Test func migrateRefusesOnlyForStepsThatDoNotAllowThisBuild() throws {
        let registry = try MigrationRegistry<Void>(steps: [MigrationStep(identifier: "1", apply: { _ in })])
        let compatible = MigrationAnalysis(registry: registry, snapshot: LedgerSnapshot(identifiers: ["1", "2"], downgrade: ["2": Self.row("2", .withOlderBuilds)]))
        try compatible.refuseUnsafeHistory()
        #expect(!compatible.status.migrateWouldRefuse && compatible.status.isSuperseded)

        let blocking = MigrationAnalysis(registry: registry, snapshot: LedgerSnapshot(identifiers: ["1", "2", "3"],
                                                                                    downgrade: ["2": Self.row("2", .withOlderBuilds), "3": Self.row("3")]))
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["3"])) { try blocking.refuseUnsafeHistory() }
        #expect(blocking.status.migrateWouldRefuse)
        #expect(try blocking.stepBackPlan().map(\.identifier) == ["3"])
    }
}
