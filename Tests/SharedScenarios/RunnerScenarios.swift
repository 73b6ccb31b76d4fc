import MigrationKit

/// The same rollback scenarios, run through the SQLCipher runner and the GRDB runner:
/// this file is compiled into both test targets (the GRDB package links it), so the two
/// runners are held to one table of outcomes. Each scenario is SQL alone, so each
/// runner's harness builds its own steps from it.
enum RunnerScenarios {
    /// A step of a scenario: up SQL, down SQL, and for a squash what it replaces.
    struct Step: Sendable {
        let identifier: String
        let up: String
        let down: String?
        var merging: [String] = []
        /// Set to read as edited since it was applied.
        var editedChecksum: String? = nil

        /// The checksum the registry gives the step.
        var checksum: String { editedChecksum ?? "sum-\(identifier)" }
    }

    /// What a runner under test must do, in its own types.
    protocol Harness {
        /// Migrates a fresh registry of `steps`.
        func migrate(_ steps: [Step]) throws
        /// Rolls back the latest `count` steps of a registry of `steps`; the identifiers.
        func rollback(_ steps: [Step], count: Int, acceptModified: Set<String>) throws -> [String]
        /// Runs SQL outside any migration, foreign keys off (an app's own writes).
        func execute(_ sql: String) throws
        /// What a registry of `steps` reads as applied.
        func applied(_ steps: [Step]) throws -> [String]
        /// The ledger's rows, in order.
        func ledger() throws -> [String]
    }

    /// How a scenario ended: the rolled-back identifiers, the `MigrationKitError` case it
    /// failed with (unwrapped from a step's error), or the step whose own code failed
    /// (a `MigrationStepError` around the database layer's error).
    enum Outcome: Equatable, Sendable {
        case rolledBack([String])
        case failed(String)
        case stepFailed(String, MigrationStepError.Phase)
    }

    static let parents = Step(identifier: "0001_parents", up: """
        CREATE TABLE parents (id INTEGER PRIMARY KEY);
        CREATE TABLE children (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id));
        INSERT INTO parents VALUES (1), (2);
        INSERT INTO children VALUES (10, 1);
        """, down: "DROP TABLE children; DROP TABLE parents;")
    static let note = Step(identifier: "0002_note", up: "ALTER TABLE parents ADD COLUMN note TEXT;",
                           down: "CREATE TABLE parents_new (id INTEGER PRIMARY KEY); INSERT INTO parents_new SELECT id FROM parents; "
                               + "DROP TABLE parents; ALTER TABLE parents_new RENAME TO parents;")
    static let deletesParentOnRollback = Step(identifier: "0002_cleanup", up: "CREATE TABLE marks (id INTEGER PRIMARY KEY);",
                                              down: "DROP TABLE marks; DELETE FROM parents WHERE id = 1;")
    static let a = Step(identifier: "0001_a", up: "CREATE TABLE a (x);", down: "DROP TABLE a;")
    static let b = Step(identifier: "0002_b", up: "CREATE TABLE b (x);", down: "DROP TABLE b;")
    static let failsToApply = Step(identifier: "0002_fails", up: "CREATE TABLE c (x); INSERT INTO nowhere VALUES (1);", down: "DROP TABLE c;")
    static let failsToRollBack = Step(identifier: "0002_stuck", up: "CREATE TABLE c (x);", down: "DROP TABLE nowhere;")
    static let squash = Step(identifier: "0003_ab", up: "CREATE TABLE a (x); CREATE TABLE b (x);", down: "DROP TABLE b; DROP TABLE a;",
                             merging: ["0001_a", "0002_b"])

    /// A named scenario and the outcome every runner must reach, with the ledger after.
    struct Scenario: Sendable {
        let name: String
        let run: @Sendable (any Harness) throws -> Outcome
        let expected: Outcome
        let ledgerAfter: [String]
    }

    static func outcome(_ body: () throws -> [String]) -> Outcome {
        do {
            return .rolledBack(try body())
        } catch let error as MigrationStepError {
            guard let refusal = error.underlying as? MigrationKitError else { return .stepFailed(error.identifier, error.phase) }
            return .failed(refusal.name)
        } catch let error as MigrationKitError {
            return .failed(error.name)
        } catch {
            return .failed(String(describing: error))
        }
    }

    static let all: [Scenario] = [
        Scenario(name: "a rolled-back squash no longer reads as applied, even with its replaced steps still in the ledger", run: { h in
            try h.migrate([a, b])
            try h.migrate([squash])
            // A ledger GRDB's migrator has not cleaned yet: the squash and what it replaces.
            try h.execute("INSERT INTO grdb_migrations (identifier) VALUES ('0001_a'), ('0002_b')")
            let result = outcome { try h.rollback([squash], count: 1, acceptModified: []) }
            return try h.applied([squash]).isEmpty ? result : .failed("still applied: \(try h.applied([squash]))")
        }, expected: .rolledBack(["0003_ab"]), ledgerAfter: []),

        Scenario(name: "a step edited since it was applied is not rolled back", run: { h in
            var edited = note
            try h.migrate([parents, note])
            edited.editedChecksum = "edited"
            return outcome { try h.rollback([parents, edited], count: 1, acceptModified: []) }
        }, expected: .failed("modifiedMigrations"), ledgerAfter: ["0001_parents", "0002_note"]),

        Scenario(name: "an edited step is rolled back when accepted", run: { h in
            var edited = note
            try h.migrate([parents, note])
            edited.editedChecksum = "edited"
            return outcome { try h.rollback([parents, edited], count: 1, acceptModified: ["0002_note"]) }
        }, expected: .rolledBack(["0002_note"]), ledgerAfter: ["0001_parents"]),

        Scenario(name: "an edit to an older step does not stop rolling back the latest", run: { h in
            var edited = parents
            try h.migrate([parents, note])
            edited.editedChecksum = "edited"
            return outcome { try h.rollback([edited, note], count: 1, acceptModified: []) }
        }, expected: .rolledBack(["0002_note"]), ledgerAfter: ["0001_parents"]),

        Scenario(name: "orphans the database already had do not fail a rollback", run: { h in
            try h.migrate([parents, note])
            try h.execute("INSERT INTO children VALUES (20, 404)")
            return outcome { try h.rollback([parents, note], count: 1, acceptModified: []) }
        }, expected: .rolledBack(["0002_note"]), ledgerAfter: ["0001_parents"]),

        Scenario(name: "a failing step is reported as that step's error, and the steps before it stay", run: { h in
            outcome { try h.migrate([a, failsToApply]); return [] }
        }, expected: .stepFailed("0002_fails", .apply), ledgerAfter: ["0001_a"]),

        Scenario(name: "a failing down step is reported as that step's error, and the step stays applied", run: { h in
            try h.migrate([a, failsToRollBack])
            return outcome { try h.rollback([a, failsToRollBack], count: 1, acceptModified: []) }
        }, expected: .stepFailed("0002_stuck", .rollback), ledgerAfter: ["0001_a", "0002_stuck"]),

        Scenario(name: "a down step that orphans a row fails and leaves the step applied", run: { h in
            try h.migrate([parents, deletesParentOnRollback])
            return outcome { try h.rollback([parents, deletesParentOnRollback], count: 1, acceptModified: []) }
        }, expected: .failed("foreignKeyViolationsAdded"), ledgerAfter: ["0001_parents", "0002_cleanup"]),
    ]
}
