@testable import MigrationKit
import Testing

@Suite struct RegistryTests {
    private func step(_ identifier: String, merging: [String] = []) -> MigrationStep<Void> {
        MigrationStep(identifier: identifier, merging: merging, apply: { _ in })
    }

    @Test func acceptsUniqueIdentifiersInOrder() throws {
        let registry = try MigrationRegistry(steps: [step("0001_a"), step("0002_b"), step("0010_c")])
        #expect(registry.identifiers == ["0001_a", "0002_b", "0010_c"])
        #expect(registry.index(of: "0002_b") == 1)
        #expect(registry.step("nope") == nil)
    }

    @Test func refusesDuplicatesNamingEachOnce() {
        #expect(throws: MigrationKitError.duplicateIdentifiers(["0001_a", "0002_b"])) {
            try MigrationRegistry(steps: [step("0001_a"), step("0001_a"), step("0002_b"), step("0002_b"), step("0001_a")], enforceLexicographicOrder: false)
        }
    }

    /// The registry's own default, as its documentation gives it: identifiers in byte-wise
    /// order, the order migration files are read and listed in.
    @Test func refusesIdentifiersOutOfLexicographicOrderByDefault() {
        #expect(throws: MigrationKitError.identifiersOutOfOrder(expected: "0002_b", actual: "0003_c")) {
            try MigrationRegistry(steps: [step("0001_a"), step("0003_c"), step("0002_b")])
        }
    }

    @Test func orderIsByteWiseLikeSQLiteAndLs() throws {
        // Unicode-aware comparison would put "B" and "a" differently than ls or ORDER BY.
        _ = try MigrationRegistry(steps: [step("0001_B"), step("0001_a")], enforceLexicographicOrder: true)
        #expect(throws: MigrationKitError.identifiersOutOfOrder(expected: "0001_B", actual: "0001_a")) {
            try MigrationRegistry(steps: [step("0001_a"), step("0001_B")], enforceLexicographicOrder: true)
        }
    }

    /// As in GRDB, when asked (the runners ask unless the app says otherwise):
    /// registration order is the order, whatever the identifiers.
    @Test func orderIsTheRegistrationsWhenNotEnforced() throws {
        let registry = try MigrationRegistry(steps: [step("v1"), step("v2"), step("v10"), step("Create authors"), step("Add books")],
                                             enforceLexicographicOrder: false)
        #expect(registry.identifiers == ["v1", "v2", "v10", "Create authors", "Add books"])
        let registered = try MigrationRegistry<Void>().registering(step("b")).registering(step("a"))
        #expect(registered.identifiers == ["b", "a"])
        #expect(throws: MigrationKitError.duplicateIdentifiers(["b"])) { try registered.registering(step("b")) }
    }

    @Test func errorsSayWhatToDo() {
        for error in [
            MigrationKitError.duplicateIdentifiers(["x"]),
            .identifiersOutOfOrder(expected: "a", actual: "b"),
            .rollbackNotDefined("x"),
            .rollbackMustTargetLatestApplied(latestApplied: "b", requested: "a"),
            .rollbackStepCountMustBeNonNegative,
            .quickCheckFailed(result: "row 3 missing"),
            .foreignKeyViolations(count: 2),
            .missingIndex(table: "t", index: "i"),
            .unknownMigration("x"),
            .databaseAlreadyMigratedBeyond("x"),
            .databaseSuperseded(unknown: ["z"]),
        ] {
            let text = error.description
            #expect(text.hasSuffix("."), "\(text)")
            #expect(text.count > 30, "\(text)")
        }
        #expect(MigrationKitError.duplicateIdentifiers((1...20).map { "id\($0)" }).description.contains("and 12 more"))
    }
}
