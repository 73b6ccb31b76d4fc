@testable import MigrationKit
import Testing

/// The migrate plan, from a registry and a ledger snapshot alone: no database.
@Suite struct MigrationPlanTests {
    private func step(_ identifier: String, checksum: String? = nil, merging: [String] = []) -> MigrationStep<Void> {
        MigrationStep(identifier: identifier, checksum: checksum, merging: merging, apply: { _ in })
    }

    private func plan(_ steps: [MigrationStep<Void>], ledger: [String], checksums: [String: String] = [:],
                      through target: String? = nil, allowOutOfOrder: Bool = false, accept: Set<String> = []) throws -> MigrationPlan<Void> {
        let registry = try MigrationRegistry(steps: steps)
        let analysis = MigrationAnalysis(registry: registry, snapshot: LedgerSnapshot(identifiers: ledger, checksums: checksums))
        let last = try target.map(registry.index(ofTarget:)) ?? (steps.count - 1)
        return try analysis.migratePlan(through: last, allowOutOfOrder: allowOutOfOrder, acceptModified: accept)
    }

    @Test func pendingStepsUpToTheTargetAndNothingElse() throws {
        let steps = [step("0001_a", checksum: "A"), step("0002_b", checksum: "B"), step("0003_c", checksum: "C")]
        let upToB = try plan(steps, ledger: ["0001_a"], checksums: ["0001_a": "A"], through: "0002_b")
        #expect(upToB.steps.map(\.identifier) == ["0002_b"])
        #expect(!upToB.hasBookkeeping && upToB.changesAnything)
        let done = try plan(steps, ledger: ["0001_a", "0002_b", "0003_c"], checksums: ["0001_a": "A", "0002_b": "B", "0003_c": "C"])
        #expect(done.steps.isEmpty && !done.changesAnything)
    }

    @Test func bookkeepingAloneIsAChange() throws {
        // Applied by GRDB (no checksum yet), and a squash whose replaced steps are applied.
        let steps = [step("0001_a", checksum: "A"), step("0003_squash", checksum: "S", merging: ["0002_x", "0002_y"])]
        let planned = try plan(steps, ledger: ["0001_a", "0002_x", "0002_y"])
        #expect(planned.steps.isEmpty)
        #expect(planned.merges == [LedgerMerge(identifier: "0003_squash", replaces: ["0002_x", "0002_y"])])
        #expect(planned.checksumsToAdopt == ["0001_a": "A", "0003_squash": "S"])
        #expect(planned.hasBookkeeping && planned.changesAnything)
    }

    @Test func anEditedStepIsRefusedUnlessAccepted() throws {
        let steps = [step("0001_a", checksum: "new")]
        // A Swift step's file is where it was declared.
        #expect(throws: MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: [#fileID])) {
            try plan(steps, ledger: ["0001_a"], checksums: ["0001_a": "old"])
        }
        let accepted = try plan(steps, ledger: ["0001_a"], checksums: ["0001_a": "old"], accept: ["0001_a"])
        #expect(accepted.acceptedEdits == ["0001_a"] && accepted.changesAnything)
    }

    /// Unknown identifiers accepted by name (a migrator's later passes, or a newer
    /// version's the caller takes on) are migrated past; any other is still refused,
    /// and named alone. `.grdb` checks refuse none, as GRDB's migrator.
    @Test func unknownIdentifiersAreRefusedUnlessEachIsAccepted() throws {
        let registry = try MigrationRegistry(steps: [step("0001_a"), step("0002_b")])
        let analysis = MigrationAnalysis(registry: registry, snapshot: LedgerSnapshot(identifiers: ["0001_a", "data_1", "0009_newer"]))
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0009_newer"])) {
            try analysis.migratePlan(through: 1, allowOutOfOrder: false, acceptUnknown: ["data_1"])
        }
        let accepted = try analysis.migratePlan(through: 1, allowOutOfOrder: false, acceptUnknown: ["data_1", "0009_newer"])
        #expect(accepted.steps.map(\.identifier) == ["0002_b"])
        #expect(try analysis.migratePlan(through: 1, allowOutOfOrder: false, checks: .grdb).steps.map(\.identifier) == ["0002_b"])
        let refusal = MigrationKitError.databaseSuperseded(unknown: ["0009_newer"])
        #expect(refusal.remedy == .acceptUnknown(["0009_newer"]))
        #expect(refusal.description.hasSuffix("use the newer version, or if it is a step this app registers later (a migrator registered "
            + "in passes), or this version may migrate the database all the same, accept it (`MigrateOptions.acceptUnknown`: \"0009_newer\")."),
            "\(refusal)")
    }

    @Test func refusalsComeFromThePlan() throws {
        let steps = [step("0001_a"), step("0002_b"), step("0003_c")]
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0009_newer"])) { try plan(steps, ledger: ["0001_a", "0009_newer"]) }
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0001_a")) { try plan(steps, ledger: ["0001_a", "0002_b"], through: "0001_a") }
        #expect(throws: MigrationKitError.pendingMigrationsOutOfOrder(pending: ["0002_b"], latestApplied: "0003_c")) {
            try plan(steps, ledger: ["0001_a", "0003_c"])
        }
        #expect(try plan(steps, ledger: ["0001_a", "0003_c"], allowOutOfOrder: true).steps.map(\.identifier) == ["0002_b"])
        #expect(throws: MigrationKitError.unknownMigration("0004_typo")) { try plan(steps, ledger: [], through: "0004_typo") }
    }

    /// A merged step in GRDB's form, registered where the steps it replaces were, on a
    /// database that applied them and a step after them: GRDB runs it (it knows what it
    /// replaces is applied), so it is pending, not out of order. One that replaces steps
    /// not all applied still is.
    @Test func aMergeOfAppliedStepsBeforeALaterStepIsNotOutOfOrder() throws {
        let merged = MigrationStep<Void>(identifier: "v2-v4", merging: ["v2", "v3", "v4"], applyMerged: { _, _ in })
        let steps = [step("v1"), merged, step("v5")]
        let registry = try MigrationRegistry(steps: steps, enforceLexicographicOrder: false)
        func analysis(_ ledger: [String]) -> MigrationAnalysis<Void> {
            MigrationAnalysis(registry: registry, snapshot: LedgerSnapshot(identifiers: ledger))
        }
        let whole = analysis(["v1", "v2", "v3", "v4", "v5"])
        #expect(try whole.migratePlan(through: 2, allowOutOfOrder: false).steps.map(\.identifier) == ["v2-v4"])
        #expect(whole.status.entries.map(\.state) == [.applied, .pending, .applied])

        let partial = analysis(["v1", "v2", "v5"])
        #expect(throws: MigrationKitError.pendingMigrationsOutOfOrder(pending: ["v2-v4"], latestApplied: "v5")) {
            try partial.migratePlan(through: 2, allowOutOfOrder: false)
        }
        #expect(partial.status.entries.map(\.state) == [.applied, .outOfOrder, .applied])
    }

    @Test func rollbackPlansWalkBackFromTheLatestAppliedStep() throws {
        let down: @Sendable (()) throws -> Void = { _ in }
        let steps = [MigrationStep<Void>(identifier: "0001_a", apply: { _ in }, rollback: down),
                     MigrationStep<Void>(identifier: "0002_b", apply: { _ in }),
                     MigrationStep<Void>(identifier: "0003_c", apply: { _ in }, rollback: down),
                     MigrationStep<Void>(identifier: "0004_d", apply: { _ in }, rollback: down)]
        let analysis = MigrationAnalysis(registry: try MigrationRegistry(steps: steps), snapshot: LedgerSnapshot(identifiers: ["0001_a", "0002_b", "0003_c", "0004_d"]))
        #expect(try analysis.rollbackPlan(.latest(2)).map(\.identifier) == ["0004_d", "0003_c"])
        #expect(try analysis.rollbackPlan(.after("0002_b")).map(\.identifier) == ["0004_d", "0003_c"])
        #expect(try analysis.rollbackPlan(.only("0004_d")).map(\.identifier) == ["0004_d"])
        #expect(try analysis.rollbackPlan(.latest(0)).isEmpty)
        #expect(throws: MigrationKitError.rollbackNotDefined("0002_b")) { try analysis.rollbackPlan(.latest(3)) }
        #expect(throws: MigrationKitError.rollbackBeyondApplied(requested: 5, applied: 4)) { try analysis.rollbackPlan(.latest(5)) }
        #expect(throws: MigrationKitError.rollbackStepCountMustBeNonNegative) { try analysis.rollbackPlan(.latest(-1)) }
        #expect(throws: MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: "0004_d", requested: "0003_c")) {
            try analysis.rollbackPlan(.only("0003_c"))
        }
        #expect(throws: MigrationKitError.unknownMigration("0009_z")) { try analysis.rollbackPlan(.after("0009_z")) }
        let newer = MigrationAnalysis(registry: try MigrationRegistry(steps: steps), snapshot: LedgerSnapshot(identifiers: ["0001_a", "0009_newer"]))
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0009_newer"])) { try newer.rollbackPlan(.latest(1)) }
    }

    @Test func aBaselineRecordsTheUnappliedStepsUpToItsTarget() throws {
        let steps = [step("0001_a"), step("0002_b"), step("0003_c"), step("0004_d")]
        let analysis = MigrationAnalysis(registry: try MigrationRegistry(steps: steps), snapshot: LedgerSnapshot(identifiers: ["0002_b"]))
        #expect(try analysis.baselinePlan(through: 2).map(\.identifier) == ["0001_a", "0003_c"])
        let beyond = MigrationAnalysis(registry: try MigrationRegistry(steps: steps), snapshot: LedgerSnapshot(identifiers: ["0004_d"]))
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0002_b")) { try beyond.baselinePlan(through: 1) }
        let newer = MigrationAnalysis(registry: try MigrationRegistry(steps: steps), snapshot: LedgerSnapshot(identifiers: ["0009_z"]))
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["0009_z"])) { try newer.baselinePlan(through: 3) }
    }
}
