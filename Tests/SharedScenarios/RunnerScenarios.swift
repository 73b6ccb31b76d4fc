import MigrationKit

/// The same scenarios, run through the SQLCipher runner and the GRDB runner: this file
/// is compiled into both test targets (the GRDB package links it), so the two
/// connections of the one engine are held to one table of outcomes — rollbacks, the
/// order steps apply in, the shape of a failure, erase-on-schema-change and the
/// foreign-key modes. Each scenario is SQL alone, so each runner's harness builds its
/// own steps from it.
enum RunnerScenarios {
    /// A step of a scenario: up SQL, down SQL, and for a squash what it replaces.
    struct Step: Sendable {
        let identifier: String
        let up: String
        let down: String?
        var merging: [String] = []
        /// Set to read as edited since it was applied.
        var editedChecksum: String? = nil
        /// When its foreign keys are checked (nil: the runner's default, deferred).
        var foreignKeyChecks: ForeignKeyChecks? = nil

        /// The checksum the registry gives the step.
        var checksum: String { editedChecksum ?? "sum-\(identifier)" }
    }

    /// What a runner under test must do, in its own types.
    protocol Harness {
        /// Migrates a fresh registry of `steps`, erasing the database first when its
        /// history no longer matches them if `erasingOnSchemaChange`.
        func migrate(_ steps: [Step], erasingOnSchemaChange: Bool) throws
        /// Rolls back the latest `count` steps of a registry of `steps`; the identifiers.
        func rollback(_ steps: [Step], count: Int, acceptModified: Set<String>) throws -> [String]
        /// Runs SQL outside any migration, foreign keys off (an app's own writes).
        func execute(_ sql: String) throws
        /// What a registry of `steps` reads as applied.
        func applied(_ steps: [Step]) throws -> [String]
        /// The ledger's rows, in order.
        func ledger() throws -> [String]
    }

    /// How a scenario ended: the rolled-back (or applied) identifiers, the
    /// `MigrationKitError` case it failed with (unwrapped from a step's error), the step
    /// whose statement failed (a `MigrationStepError` with the database's own error,
    /// whatever the layer, and SQLite's words for it), or the step whose code failed
    /// otherwise.
    enum Outcome: Equatable, Sendable {
        case rolledBack([String])
        case failed(String)
        case statementFailed(String, MigrationStepError.Phase, String)
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
            if let statement = error.underlying as? any DatabaseStatementError {
                return .statementFailed(error.identifier, error.phase, statement.sqliteMessage)
            }
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

        Scenario(name: "a failing step is reported as that step's error, with the database's own underneath, and the steps before it stay", run: { h in
            outcome { try h.migrate([a, failsToApply]); return [] }
        }, expected: .statementFailed("0002_fails", .apply, "no such table: nowhere"), ledgerAfter: ["0001_a"]),

        Scenario(name: "a failing down step is reported as that step's error, and the step stays applied", run: { h in
            try h.migrate([a, failsToRollBack])
            return outcome { try h.rollback([a, failsToRollBack], count: 1, acceptModified: []) }
        }, expected: .statementFailed("0002_stuck", .rollback, "no such table: nowhere"), ledgerAfter: ["0001_a", "0002_stuck"]),

        Scenario(name: "registration order is the order, whatever the identifiers: v1 to v10", run: { h in
            let steps = (1...10).map { Step(identifier: "v\($0)", up: "CREATE TABLE t\($0) (x);", down: nil) }
            try h.migrate(steps)
            return .rolledBack(try h.applied(steps))
        }, expected: .rolledBack((1...10).map { "v\($0)" }), ledgerAfter: (1...10).map { "v\($0)" }),

        Scenario(name: "GRDB's documentation example's names, in its order", run: { h in
            let steps = [
                Step(identifier: "Create authors",
                     up: "CREATE TABLE author (id INTEGER PRIMARY KEY AUTOINCREMENT, creationDate DATETIME, name TEXT);", down: nil),
                Step(identifier: "Add books and author.birthYear",
                     up: "CREATE TABLE book (id INTEGER PRIMARY KEY AUTOINCREMENT, authorId INTEGER NOT NULL REFERENCES author(id), title TEXT NOT NULL); "
                         + "ALTER TABLE author ADD COLUMN birthYear INTEGER;", down: nil),
            ]
            try h.migrate(Array(steps.prefix(1)))
            try h.migrate(steps)
            return .rolledBack(try h.applied(steps))
        }, expected: .rolledBack(["Create authors", "Add books and author.birthYear"]),
           ledgerAfter: ["Create authors", "Add books and author.birthYear"]),

        Scenario(name: "erase on schema change: a removed step erases the database, which is migrated again", run: { h in
            try h.migrate([a, b])
            try h.execute("INSERT INTO a VALUES (1)")
            let c = Step(identifier: "0002_c", up: "CREATE TABLE c (x);", down: nil)
            try h.migrate([a, c], erasingOnSchemaChange: true)
            return .rolledBack(try h.applied([a, c]))
        }, expected: .rolledBack(["0001_a", "0002_c"]), ledgerAfter: ["0001_a", "0002_c"]),

        Scenario(name: "erase on schema change leaves a database whose history matches", run: { h in
            try h.migrate([a])
            try h.execute("INSERT INTO a VALUES (1)")
            try h.migrate([a, b], erasingOnSchemaChange: true)
            return .rolledBack(try h.applied([a, b]))
        }, expected: .rolledBack(["0001_a", "0002_b"]), ledgerAfter: ["0001_a", "0002_b"]),

        Scenario(name: "a deferred step may break a foreign key on the way if it mends it before it commits", run: { h in
            var mends = Step(identifier: "0002_mend", up: "INSERT INTO children VALUES (11, 99); INSERT INTO parents VALUES (99);", down: nil)
            mends.foreignKeyChecks = .deferred
            try h.migrate([parents, mends])
            return .rolledBack(try h.applied([parents, mends]))
        }, expected: .rolledBack(["0001_parents", "0002_mend"]), ledgerAfter: ["0001_parents", "0002_mend"]),

        Scenario(name: "an immediate step fails at the statement that breaks a foreign key", run: { h in
            var immediate = Step(identifier: "0002_mend", up: "INSERT INTO children VALUES (11, 99); INSERT INTO parents VALUES (99);", down: nil)
            immediate.foreignKeyChecks = .immediate
            try h.migrate([parents])
            return outcome { try h.migrate([parents, immediate]); return [] }
        }, expected: .statementFailed("0002_mend", .apply, "FOREIGN KEY constraint failed"), ledgerAfter: ["0001_parents"]),

        Scenario(name: "a down step that orphans a row fails and leaves the step applied", run: { h in
            try h.migrate([parents, deletesParentOnRollback])
            return outcome { try h.rollback([parents, deletesParentOnRollback], count: 1, acceptModified: []) }
        }, expected: .failed("foreignKeyViolationsAdded"), ledgerAfter: ["0001_parents", "0002_cleanup"]),
    ]
}

extension RunnerScenarios.Harness {
    /// Migrates a fresh registry of `steps`.
    func migrate(_ steps: [RunnerScenarios.Step]) throws { try migrate(steps, erasingOnSchemaChange: false) }
}
