import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

@Suite struct VerifierTests {
    @Test func anOrphanedRowFailsTheForeignKeyCheck() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks])
        try runner.migrate(in: writer)
        try writer.writeWithoutTransaction { db throws in
            try db.setForeignKeysEnabled(false)
            try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (404, 'orphan')")
            try db.setForeignKeysEnabled(true)
        }
        #expect(throws: MigrationKitError.foreignKeyViolations(count: 1)) { try runner.runPostMigrationChecks(in: writer) }
        let report = try runner.verificationReport(in: writer)
        #expect(!report.passed)
        #expect(report.failures.map(\.name) == ["foreign_key_check"])
        #expect(report.checks.first { $0.name == "quick_check" }?.passed == true)
    }

    @Test func aMissingRequiredIndexIsReported() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let dropIndex = SQLCipherMigrationStep(identifier: "0003_drop_index") { try $0.execute(sql: "DROP INDEX books_authorId") }
        let verifier = SQLCipherMigrationVerifier(requiredIndexes: [
            RequiredIndexSpec(table: "authors", index: "authors_name"),
            RequiredIndexSpec(table: "books", index: "books_authorId"),
        ])
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks], verifier: verifier)
        try runner.migrate(in: writer)
        let dropping = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors, SampleSteps.createBooks, dropIndex], verifier: verifier)
        // The step commits; verification afterwards reports the loss.
        #expect(throws: MigrationKitError.missingIndex(table: "books", index: "books_authorId")) { try dropping.migrate(in: writer) }
        #expect(try writer.read { try MigrationBookkeeping.snapshot(in: $0).identifiers }.last == "0003_drop_index")
    }

    @Test func aFlippedByteInADataPageFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let runner = try SQLCipherMigrationRunner(steps: [SampleSteps.createAuthors])
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try runner.migrate(in: writer)
            try writer.write { db throws in
                for index in 1...400 {
                    try db.execute(sql: "INSERT INTO authors (name) VALUES (?)", arguments: [.text(String(repeating: "n\(index)", count: 20))])
                }
            }
        }
        // Flip one byte in the middle of the file: a data page, not page 1.
        var bytes = try fileBytes(path)
        let offset = bytes.count / 2 + 100
        bytes[offset] ^= 0xFF
        let damaged = directory.path("damaged.db")
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let writer = try SQLCipherWriter(path: damaged, key: .testRawKey)
        #expect {
            try runner.runPostMigrationChecks(in: writer)
        } throws: { error in
            guard case .quickCheckFailed(let result) = error as? MigrationKitError else { return false }
            return !result.isEmpty && result != "ok"
        }
        // The original is intact.
        try runner.runPostMigrationChecks(in: try SQLCipherWriter(path: path, key: .testRawKey))
    }
}

/// Verification limited to what a migration changed (the default): it must still see
/// every table the change can break, and say what it checked.
@Suite struct ChangedTablesVerificationTests {
    private static let family = SQLCipherMigrationStep(identifier: "0001_family") { db in
        try db.execute(sql: """
            CREATE TABLE parents (id INTEGER PRIMARY KEY);
            CREATE TABLE children (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id));
            CREATE TABLE unrelated (id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO parents VALUES (1), (2);
            INSERT INTO children VALUES (10, 1), (20, 2);
            INSERT INTO unrelated VALUES (1, 'left alone');
            """)
    }

    private func migrated(_ steps: [SQLCipherMigrationStep]) throws -> (TemporaryDirectory, SQLCipherWriter) {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: steps).migrate(in: writer)
        return (directory, writer)
    }

    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic])
    func deletingAParentRowFailsThoughTheChildTableWasNotWritten(mode: MigrateOptions.Mode) throws {
        let (directory, writer) = try migrated([Self.family])
        defer { withExtendedLifetime(directory) {} }
        let deleteParent = SQLCipherMigrationStep(identifier: "0002_delete_parent") { try $0.execute(sql: "DELETE FROM parents WHERE id = 1") }
        #expect {
            try SQLCipherMigrationRunner(steps: [Self.family, deleteParent]).migrate(in: writer, options: MigrateOptions(mode: mode))
        } throws: { error in
            // Step by step the step is named; all at once, the transaction's check
            // comes after every step.
            let step = error as? MigrationStepError
            guard case .foreignKeyViolationsAdded(let added) = (step?.underlying ?? error) as? MigrationKitError else { return false }
            return (mode == .atomic || step?.identifier == "0002_delete_parent") && added.groups.map(\.table) == ["children"]
        }
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM parents") } == 2)
    }

    /// A run that changed many small tables of a small file may have them checked by one
    /// check of the whole file, but only where that answers "ok": a page the run did not
    /// touch, damaged, fails the whole file's check and nothing of the run's, whose tables
    /// are then checked one by one, as they always were.
    @Test func damageInATableTheRunLeftAloneFailsNothingWhenManySmallTablesChanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let archive = SQLCipherMigrationStep(identifier: "0001_archive") { db in
            try db.execute(sql: "CREATE TABLE archive (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO archive VALUES (1, 'kept')")
        }
        let tables = (1...6).map { "small\($0)" }
        let smallTables = SQLCipherMigrationStep(identifier: "0002_small_tables") { db in
            for table in tables { try db.execute(sql: "CREATE TABLE \(table) (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO \(table) VALUES (1, 'x')") }
        }
        let rootPage: Int
        let pageSize: Int
        do {
            let writer = try SQLCipherWriter(path: path, key: .testRawKey)
            try SQLCipherMigrationRunner(steps: [archive]).migrate(in: writer)
            rootPage = try #require(try writer.read { try $0.fetchInt(sql: "SELECT rootpage FROM sqlite_master WHERE name = 'archive'") })
            pageSize = try #require(try writer.read { try $0.fetchString(sql: "PRAGMA cipher_page_size") }.flatMap { Int($0) })
        }
        var bytes = try fileBytes(path)
        let offset: Int = (rootPage - 1) * pageSize + pageSize / 2
        bytes[offset] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))

        let writer = try SQLCipherWriter(path: path, key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: [archive, smallTables])
        guard SQLCipherLibrary.hasTableQuickCheck else {
            // A SQLite before 3.33 checks no table alone: the verification after a run
            // is the whole file's (docs/how-a-migration-runs.md), which finds the damage.
            #expect(throws: MigrationKitError.self) { try runner.migrate(in: writer) }
            return
        }
        let report = try runner.migrate(in: writer)
        #expect(report.steps.map(\.identifier) == ["0002_small_tables"])
        #expect(report.verification.first == "quick_check of \(tables.count) changed tables", "\(report.verification)")
        // The damage is there, for a check of the whole file to find.
        #expect(throws: (any Error).self) { try runner.runPostMigrationChecks(in: writer) }
    }

    @Test func aTriggersWriteIsAChangeToo() throws {
        let (directory, writer) = try migrated([Self.family])
        defer { withExtendedLifetime(directory) {} }
        // The step writes only `unrelated`; its trigger deletes a parent row.
        let trigger = SQLCipherMigrationStep(identifier: "0002_trigger") { db in
            try db.execute(sql: """
                CREATE TRIGGER unrelated_cleans_parents AFTER UPDATE ON unrelated BEGIN DELETE FROM parents WHERE id = 2; END;
                UPDATE unrelated SET note = 'touched';
                """)
        }
        #expect(throws: MigrationStepError.self) {
            try SQLCipherMigrationRunner(steps: [Self.family, trigger]).migrate(in: writer)
        }
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM parents") } == 2)
    }

    @Test func theReportNamesWhatWasChecked() throws {
        let (directory, writer) = try migrated([Self.family])
        defer { withExtendedLifetime(directory) {} }
        let addColumn = SQLCipherMigrationStep(identifier: "0002_add_column") { try $0.execute(sql: "ALTER TABLE parents ADD COLUMN name TEXT") }
        let runner = try SQLCipherMigrationRunner(steps: [Self.family, addColumn])
        let report = try runner.migrate(in: writer)
        if SQLCipherLibrary.hasTableQuickCheck {
            // parents was altered; children points at it; unrelated is left alone.
            #expect(report.verification == ["quick_check of 1 changed table", "foreign keys of 2 tables"])
        } else {
            #expect(report.verification == ["quick_check", "foreign keys of 2 tables"])
        }
        // Nothing pending: nothing changed, nothing to check.
        #expect(try runner.migrate(in: writer).verification == [])
        // The whole file, on request.
        let whole = try runner.migrate(in: writer, options: MigrateOptions(verification: .wholeFile)).verification
        #expect(whole == (SQLCipherLibrary.hasCipherIntegrityCheck ? ["cipher_integrity_check"] : []) + ["quick_check", "foreign keys"])
    }
}

extension ChangedTablesVerificationTests {
    /// A Swift step's statement comes from the connection's cache the second time: it
    /// still counts as a write to its table.
    @Test func aCachedStatementStillNamesTheTableItWrites() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let delete = "DELETE FROM parents WHERE id = ?"
        let nothing = SQLCipherMigrationStep(identifier: "0002_delete_nothing") { try $0.execute(sql: delete, arguments: [.integer(999)]) }
        let parent = SQLCipherMigrationStep(identifier: "0003_delete_parent") { try $0.execute(sql: delete, arguments: [.integer(1)]) }
        let runner = try SQLCipherMigrationRunner(steps: [Self.family, nothing, parent])
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let step = error as? MigrationStepError, case .foreignKeyViolationsAdded(let added) = step.underlying as? MigrationKitError else { return false }
            return step.identifier == "0003_delete_parent" && added.groups.map(\.table) == ["children"]
        }
        #expect(try runner.appliedIdentifiers(in: writer) == ["0001_family", "0002_delete_nothing"])
    }
}

extension ChangedTablesVerificationTests {
    /// A rename rewrites the foreign keys of the tables pointing at the renamed one,
    /// which the step never wrote: a later step deleting from it must still check them.
    /// And names compare as SQLite compares them: ASCII case folded, nothing else.
    @Test func afterARenameTheChildrenOfTheNewNameAreStillChecked() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let rename = SQLCipherMigrationStep(identifier: "0002_rename") { try $0.execute(sql: "ALTER TABLE parents RENAME TO \"Älteste\"") }
        let delete = SQLCipherMigrationStep(identifier: "0003_delete") { try $0.execute(sql: "DELETE FROM \"Älteste\" WHERE id = 1") }
        let runner = try SQLCipherMigrationRunner(steps: [Self.family, rename, delete])
        expectTheChildrenBroken(running: runner, in: writer)
        #expect(try runner.appliedIdentifiers(in: writer) == (Self.renameRewritesChildren ? ["0001_family", "0002_rename"] : ["0001_family"]))
    }

    /// Before SQLite 3.26 a rename with foreign keys off leaves the children pointing
    /// at the old name: the rename itself breaks them, and is refused.
    private static let renameRewritesChildren = SQLCipherLibrary.sqlite >= SQLiteVersion(3, 26, 0)

    /// Expects `runner` (the family, `0002_rename`, `0003_delete`) to stop at the step
    /// that breaks the children's foreign keys: the delete, or the rename before 3.26.
    private func expectTheChildrenBroken(running runner: SQLCipherMigrationRunner, in writer: SQLCipherWriter) {
        let failing = Self.renameRewritesChildren ? "0003_delete" : "0002_rename"
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            guard let step = error as? MigrationStepError, case .foreignKeyViolationsAdded(let added) = step.underlying as? MigrationKitError else { return false }
            return step.identifier == failing && added.groups.map(\.table) == ["children"]
        }
    }

    /// Renames that leave the same set of names behind (two tables swapped, or a table
    /// renamed and its old name created again) still move the children to the new
    /// name; a `LIKE` made case-sensitive by the step does not hide them either.
    @Test(arguments: [
        "ALTER TABLE parents RENAME TO spare; ALTER TABLE unrelated RENAME TO parents; ALTER TABLE spare RENAME TO unrelated",
        "ALTER TABLE parents RENAME TO unrelated2; CREATE TABLE parents (id INTEGER PRIMARY KEY); ALTER TABLE unrelated RENAME TO spare; ALTER TABLE unrelated2 RENAME TO unrelated",
        "PRAGMA case_sensitive_like = ON; ALTER TABLE unrelated RENAME TO spare; ALTER TABLE parents RENAME TO unrelated",
    ])
    func renamesThatKeepTheNamesStillMoveTheChildren(renames: String) throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let rename = SQLCipherMigrationStep(identifier: "0002_rename") { try $0.execute(sql: renames) }
        // A step with no schema change: the graph built before it must be right.
        let delete = SQLCipherMigrationStep(identifier: "0003_delete") { try $0.execute(sql: "DELETE FROM unrelated WHERE id = 1") }
        expectTheChildrenBroken(running: try SQLCipherMigrationRunner(steps: [Self.family, rename, delete]), in: writer)
        if Self.renameRewritesChildren {
            let children = try writer.read { try $0.fetchAll(sql: "SELECT sql FROM sqlite_master WHERE name = 'children'") }
            #expect(children.first?[0].string?.contains("\"unrelated\"") == true)
        }
    }

    /// A table renamed to a new name is among the checked tables when a later step
    /// writes it, though it has no foreign keys.
    @Test func aRenamedTableIsInTheNextStepsScope() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let rename = SQLCipherMigrationStep(identifier: "0002_rename") { try $0.execute(sql: "ALTER TABLE unrelated RENAME TO notes") }
        let update = SQLCipherMigrationStep(identifier: "0003_update") { try $0.execute(sql: "UPDATE notes SET note = 'seen'") }
        let report = try SQLCipherMigrationRunner(steps: [Self.family, rename, update]).migrate(in: writer)
        // parents and children (new), unrelated (renamed away), notes.
        #expect(report.verification.last == "foreign keys of 3 tables")
    }

    /// SQLite folds ASCII letters only; the fold works on UTF-8 bytes, so a letter
    /// outside ASCII, whose bytes are all above 127, must come through untouched.
    @Test func namesFoldAsSQLiteComparesThem() {
        #expect("Parents".sqlNameFolded == "parents")
        #expect("parents".sqlNameFolded == "parents")
        #expect("ÄLTESTE_Z".sqlNameFolded == "Älteste_z")
        #expect("Ärzte".sqlNameFolded != "ärzte".sqlNameFolded)
        #expect("ΣΊΣΥΦΟΣ AZ".sqlNameFolded == "ΣΊΣΥΦΟΣ az")
        #expect("".sqlNameFolded == "")
    }
}
