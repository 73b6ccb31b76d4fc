import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKitFiles
import MigrationKitTestSupport
import Testing

/// Ctrl-C (SIGINT) in an app's embedded commands stops them as it stops the
/// `migrationkit` tool: the step running is rolled back, the command says what stays, no
/// journal or note is left, and `main` ends the process by the signal.
@Suite struct GRDBStopTests {
    private static var arguments: [String] {
        #if GRDBSQLCipher
        ["--no-backup", "--plaintext"]
        #else
        ["--no-backup"]
        #endif
    }

    /// The example app's database as `migrateFirst` leaves it, given enough notes that
    /// the data migration of 0003 (Swift, a statement per note) runs for a while, then
    /// `migrate` stopped by Ctrl-C while that step runs: the process, and what it said.
    private static func stopWhileApplyingWordCounts(_ scratch: ScratchDatabase, after migrateFirst: (ScratchDatabase) throws -> Void)
        throws -> (process: ChildProcess, said: String) {
        let arguments = ["--db-path", scratch.path] + Self.arguments
        try migrateFirst(scratch)
        try DatabaseQueue(path: scratch.path).write { db in
            try db.execute(sql: """
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
                INSERT INTO note (body) SELECT 'note ' || i FROM c;
                """)
        }

        let errors = scratch.folder.appendingPathComponent("stderr").path
        let process = try ChildProcess([GRDBExampleAppTests.binary, "migrate"] + arguments, directory: scratch.folder.path, errors: .file(errors))
        // The command's change note says which step runs (the tool's, from the same tree).
        let note = ChangeNote.path(for: scratch.path)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline,
              (try? String(contentsOfFile: note, encoding: .utf8))?.contains("applying 0003_add_word_count") != true {
            usleep(10_000)
        }
        usleep(200_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return (process, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    @Test func ctrlCRollsTheRunningStepBackAndSaysWhatStays() throws {
        let scratch = try ScratchDatabase()
        let (process, said) = try Self.stopWhileApplyingWordCounts(scratch) { scratch in
            let first = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--to", "0002_index_notes_by_date", "--db-path", scratch.path]
                                             + Self.arguments, directory: scratch.folder.path)
            #expect(first.status == 0, "\(first.output)")
        }
        let note = ChangeNote.path(for: scratch.path)

        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "\(said)")
        #expect(said.contains("Stopped by SIGINT (Ctrl-C) while applying 0003_add_word_count on \(scratch.path): 0003_add_word_count was rolled back. "
            + "Run it again to finish."), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "-journal"))
        #expect(!FileManager.default.fileExists(atPath: note))
        let (ledger, columns, notes) = try DatabaseQueue(path: scratch.path).read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try db.columns(in: "note").map(\.name), try Int.fetchOne(db, sql: "SELECT count(*) FROM note"))
        }
        #expect(ledger == ["0001_create_notes", "0002_index_notes_by_date"])
        #expect(!columns.contains("wordCount"))
        #expect(notes == 200_000)
    }

    /// A call stopped after it applied a step keeps that step's history row and removes
    /// the row it wrote ahead for the step it rolled back (the history is written as the
    /// tool writes it: every planned step's row in the call's first step's transaction).
    /// From a database the app's first step made under GRDB's own migrator (the app's
    /// verifier wants the index its second step makes), which has no history.
    @Test func aStoppedCallKeepsTheHistoryOfWhatItAppliedAndNoMore() throws {
        let scratch = try ScratchDatabase()
        let (process, said) = try Self.stopWhileApplyingWordCounts(scratch) { scratch in
            var migrator = DatabaseMigrator()
            migrator.registerMigration("0001_create_notes") { db in
                try db.create(table: "note") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("body", .text).notNull()
                    t.column("createdAt", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
                }
            }
            try migrator.migrate(DatabaseQueue(path: scratch.path))
        }
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "\(said)")
        #expect(said.contains("0003_add_word_count was rolled back; 0002_index_notes_by_date, applied before it, stays applied."), "\(said)")
        let (ledger, history) = try DatabaseQueue(path: scratch.path).read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrationkit_history ORDER BY identifier"))
        }
        #expect(ledger == ["0001_create_notes", "0002_index_notes_by_date"])
        #expect(history == ["0002_index_notes_by_date"])
    }
}
