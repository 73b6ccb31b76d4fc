import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A down section with no statement is no down section: blank, whitespace or comments
/// alone (as `new`'s template, diesel's generated `down.sql` and goose's empty `Down`
/// sections are) undo nothing, so a rollback that ran one would drop the ledger row and
/// leave what the up made, for the next `migrate` to fail on. `rollback` refuses it
/// before changing anything, `lint` reports `missing-down`, `check` says there is no
/// down section; a down that means "nothing to undo" says so with `SELECT 1;`.
@Suite struct DownSectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The second migration's files, its down included.
        let files: [(name: String, text: String)]
        /// Where lint points: the `-- migrate:down` line, or the down file's first.
        let finding: String
        /// The files again, with a down that says there is nothing to undo.
        let nothingToUndo: [(name: String, text: String)]
        var testDescription: String { name }
    }

    private static let up = "UPDATE t SET a = lower(a);\n"
    private static let explicit = "SELECT 1; -- nothing to undo: the values stay lower-case\n"

    private static func sections(_ name: String, down: String) -> Case {
        Case(name: name, files: [("0002_lower.sql", "-- migrate:up\n" + up + "-- migrate:down\n" + down)], finding: "0002_lower.sql:3",
             nothingToUndo: [("0002_lower.sql", "-- migrate:up\n" + up + "-- migrate:down\n" + explicit)])
    }

    private static func downFile(_ name: String, down: String) -> Case {
        Case(name: name, files: [("0002_lower.up.sql", up), ("0002_lower.down.sql", down)], finding: "0002_lower.down.sql:1",
             nothingToUndo: [("0002_lower.up.sql", up), ("0002_lower.down.sql", explicit)])
    }

    static let cases: [Case] = [
        sections("empty down section", down: ""),
        sections("whitespace-only down section", down: "  \n\t\n\n"),
        sections("comment-only down section", down: "-- Undo later.\n/* or never */\n"),
        downFile("empty .down.sql", down: ""),
        downFile("whitespace-only .down.sql", down: "\n \t\n"),
        downFile("diesel's generated down.sql", down: "-- This file should undo anything in up.sql\n"),
    ]

    @Test(arguments: cases)
    func aDownWithoutStatementIsNoDownAndSelect1IsOne(_ testCase: Case) throws {
        let workspace = try Workspace()
        try workspace.migration("0001_t.sql", "-- migrate:up\nCREATE TABLE t (a TEXT);\n-- migrate:down\nDROP TABLE t;\n")
        for file in testCase.files { try workspace.migration(file.name, file.text) }
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0, "\(migrate.output)")

        // Refused before anything is touched: the database (its ledger with it) and
        // every file beside it, -wal, -shm and -journal included, as they were.
        let before = try TreeSnapshot(workspace.root)
        let rollback = try workspace.run("rollback")
        #expect(rollback.exitCode == .refused, "\(rollback.output)")
        #expect(rollback.stderr.contains("Migration \"0002_lower\" has no rollback (a migration file's down section or down file holding at least one statement")
                && rollback.stderr.contains("`SELECT 1;`"), "\(rollback.stderr)")
        try expectUnchanged(before, "rollback")
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0 && status.stdout.contains("applied  0002_lower"), "\(status.output)")

        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(lint.stdout.contains("\(workspace.migrations)/\(testCase.finding): warning[missing-down]: Migration \"0002_lower\" has no down section"), "\(lint.output)")
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.stdout.contains("ok     round trip 0002_lower: skipped: no down section") && !check.stdout.contains("does not undo"), "\(check.output)")

        // `SELECT 1;` says there is nothing to undo: a down that rolls back.
        for file in testCase.nothingToUndo { try workspace.migration(file.name, file.text) }
        let lintAgain = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(!lintAgain.stdout.contains("missing-down"), "\(lintAgain.output)")
        let undone = try workspace.run("rollback")
        #expect(undone.status == 0 && undone.stdout.contains("Rolled back 0002_lower ("), "\(undone.output)")
        let after = try workspace.run("status")
        #expect(after.stdout.contains("pending  0002_lower") && after.stdout.contains("applied  0001_t"), "\(after.output)")
        let proved = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(proved.status == 0 && proved.stdout.contains("ok     round trip 0002_lower: up, down and up again"), "\(proved.output)")
    }

    /// `new` writes a down section (or `.down.sql` file) holding a comment that says what
    /// to write: until a statement is written there, the migration cannot be rolled back.
    @Test(arguments: [false, true])
    func newWritesADownThatIsNoDownUntilWritten(_ pairs: Bool) throws {
        let workspace = try Workspace()
        if pairs {
            try workspace.migration("0001_t.up.sql", "CREATE TABLE t (a TEXT);\n")
            try workspace.migration("0001_t.down.sql", "DROP TABLE t;\n")
        } else {
            try workspace.migration("0001_t.sql", "-- migrate:up\nCREATE TABLE t (a TEXT);\n-- migrate:down\nDROP TABLE t;\n")
        }
        let new = try Tool.run(["new", "lower", "--migrations", workspace.migrations, "--json"])
        #expect(new.status == 0, "\(new.output)")
        let files = try #require(try decodeJSON(new.stdout)["files"] as? [String])
        let downFile = try #require(files.last)
        let written = try String(contentsOfFile: downFile, encoding: .utf8)
        #expect(written.contains("-- Write the SQL that undoes the up section here, or SELECT 1; if there is nothing to undo.\n"), "\(written)")
        // The author writes the up SQL only.
        let upText = pairs ? "UPDATE t SET a = lower(a);\n"
            : try String(contentsOfFile: files[0], encoding: .utf8).replacingOccurrences(of: "-- migrate:up\n", with: "-- migrate:up\nUPDATE t SET a = lower(a);")
        try upText.write(toFile: files[0], atomically: true, encoding: .utf8)
        #expect(try workspace.run("migrate").status == 0)
        let before = try TreeSnapshot(workspace.root)
        let rollback = try workspace.run("rollback")
        #expect(rollback.exitCode == .refused && rollback.stderr.contains("has no rollback"), "\(rollback.output)")
        try expectUnchanged(before, "rollback")
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(lint.stdout.contains("warning[missing-down]"), "\(lint.output)")
    }
}
