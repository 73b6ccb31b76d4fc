// An app that embeds the migrationkit commands in its own binary, with its
// migrations written as Swift closures. Run it like the tool:
//
//   swift run notes-migrate status --db-path notes.db --password-file ../../Keys/demo.key
//   swift run notes-migrate migrate --db-path notes.db --password-file ../../Keys/demo.key
//
// Swift steps earn their keep when a migration needs the app's own logic: step 0003
// computes each note's word count in Swift, which SQL alone cannot do the same way.
import Foundation
import MigrationKit
import MigrationKitCLI
import MigrationKitSQLCipher

let steps: [SQLCipherMigrationStep] = [
    SQLCipherMigrationStep(
        identifier: "0001_create_notes",
        sourceFile: #fileID,
        apply: { db in
            try db.execute(sql: """
                CREATE TABLE notes (
                    id INTEGER PRIMARY KEY,
                    body TEXT NOT NULL,
                    createdAt TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
                );
                """)
        },
        rollback: { db in try db.execute(sql: "DROP TABLE notes") }),
    SQLCipherMigrationStep(
        identifier: "0002_index_notes_by_date",
        sourceFile: #fileID,
        apply: { db in try db.execute(sql: "CREATE INDEX notes_createdAt ON notes(createdAt)") },
        rollback: { db in try db.execute(sql: "DROP INDEX notes_createdAt") }),
    SQLCipherMigrationStep(
        identifier: "0003_add_word_count",
        sourceFile: #fileID,
        apply: { db in
            try db.execute(sql: "ALTER TABLE notes ADD COLUMN wordCount INTEGER NOT NULL DEFAULT 0")
            // A data migration in Swift: the same word splitting the app uses.
            var counts: [(Int64, Int)] = []
            try db.forEachRow(sql: "SELECT id, body FROM notes") { row in
                let words = (row[1].string ?? "").split(whereSeparator: { $0.isWhitespace || $0.isPunctuation })
                counts.append((row[0].int64 ?? 0, words.count))
            }
            for (id, count) in counts {
                try db.execute(sql: "UPDATE notes SET wordCount = ? WHERE id = ?", arguments: [.integer(Int64(count)), .integer(id)])
            }
        },
        rollback: { db in
            try db.execute(sql: """
                CREATE TABLE notes_old (
                    id INTEGER PRIMARY KEY,
                    body TEXT NOT NULL,
                    createdAt TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
                );
                INSERT INTO notes_old (id, body, createdAt) SELECT id, body, createdAt FROM notes;
                DROP TABLE notes;
                ALTER TABLE notes_old RENAME TO notes;
                CREATE INDEX notes_createdAt ON notes(createdAt);
                """)
        }),
]

do {
    let runner = try SQLCipherMigrationRunner(
        steps: steps,
        verifier: SQLCipherMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "notes", index: "notes_createdAt")]))
    MigrationCLI.main(host: MigrationCLIHost(runner: runner, commandName: "notes-migrate"))
} catch {
    // A registry error (a duplicated identifier) is a bug in this app; say so plainly.
    FileHandle.standardError.write(Data("notes-migrate: error: the app's own migrations are invalid: \(error)\n".utf8))
    exit(CLIExitCode.fileError.rawValue)
}
