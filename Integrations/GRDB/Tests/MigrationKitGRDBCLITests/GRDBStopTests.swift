import Foundation
import GRDB
import GRDBTestSupport
import MigrationKitFiles
import MigrationKitTestSupport
import Testing

/// Ctrl-C (SIGINT) in an app's embedded commands stops them as it stops the
/// `migrationkit` tool: the step running is rolled back, the command says what stays, no
/// journal or note is left, and `main` ends the process by the signal.
@Suite struct GRDBStopTests {
    @Test func ctrlCRollsTheRunningStepBackAndSaysWhatStays() throws {
        let scratch = try ScratchDatabase()
        var plaintext: [String] = []
        #if GRDBSQLCipher
        plaintext = ["--plaintext"]
        #endif
        let arguments = ["--db-path", scratch.path, "--no-backup"] + plaintext
        let first = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--to", "0002_index_notes_by_date"] + arguments,
                                         directory: scratch.folder.path)
        #expect(first.status == 0, "\(first.output)")
        // Enough notes that the data migration of 0003 (Swift, a statement per note)
        // runs for a while.
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
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""

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
}
