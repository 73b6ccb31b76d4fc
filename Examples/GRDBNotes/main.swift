// A GRDB app whose migrations MigrationKit runs: `GRDBMigrationRunner` over GRDB's own
// `DatabaseMigrator`. The ledger stays GRDB's `grdb_migrations`, so the app can move to
// plain `DatabaseMigrator` (or come from it) without touching its users' databases,
// and it gains what GRDB's migrator has not: rollback through down steps, checksums of
// applied steps, and verification after every change.
//
// The commands are MigrationKit's own (`MigrationKitGRDBCLI`): the same output, `--json`
// documents and exit codes as the `migrationkit` tool, over this app's GRDB writer.
//
// On GRDB's own package, GRDB uses the system SQLite: this database is NOT encrypted.
// Built on SQLCipher with the GRDBSQLCipher trait (`make grdb-example`), the commands take
// the tool's key options and the file is encrypted:
//
//   grdb-notes migrate --db-path notes.db --password-file notes.key
//
// Plaintext, on GRDB's own package:
//
//   cd Integrations/GRDB
//   swift run grdb-notes migrate --db-path notes.sqlite
//   swift run grdb-notes status --db-path notes.sqlite
//   swift run grdb-notes rollback --db-path notes.sqlite
//   swift run grdb-notes verify --db-path notes.sqlite
//   swift run grdb-notes schema-dump --db-path notes.sqlite
import Foundation
import GRDB
import MigrationKit
import MigrationKitGRDB
import MigrationKitGRDBCLI

let steps = [
    MigrationStep<Database>(
        identifier: "0001_create_notes",
        sourceFile: #fileID,
        apply: { db in
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("body", .text).notNull()
                t.column("createdAt", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
            }
        },
        rollback: { db in try db.drop(table: "note") }),
    MigrationStep<Database>(
        identifier: "0002_index_notes_by_date",
        sourceFile: #fileID,
        apply: { db in try db.create(index: "note_createdAt", on: "note", columns: ["createdAt"]) },
        rollback: { db in try db.drop(index: "note_createdAt") }),
    MigrationStep<Database>(
        identifier: "0003_add_word_count",
        sourceFile: #fileID,
        apply: { db in
            try db.alter(table: "note") { t in t.add(column: "wordCount", .integer).notNull().defaults(to: 0) }
            // A data migration in Swift: the same word splitting the app uses.
            for row in try Row.fetchAll(db, sql: "SELECT id, body FROM note") {
                let body: String = row["body"]
                let words = body.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).count
                try db.execute(sql: "UPDATE note SET wordCount = ? WHERE id = ?", arguments: [words, row["id"] as Int64])
            }
        },
        rollback: { db in try db.alter(table: "note") { t in t.drop(column: "wordCount") } }),
]

/// What the app checks after every migrate and rollback, besides SQLite's own checks.
let verifier = GRDBMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "note", index: "note_createdAt")])

// The app's steps and checks, and how it opens its database: here a DatabasePool in WAL
// mode, so the app's readers keep reading while a migration runs.
// (A read-only file is opened as a queue: a pool would need to create its WAL files.)
let runner: GRDBMigrationRunner
do {
    runner = try GRDBMigrationRunner(steps: steps, verifier: verifier)
} catch {
    // Two steps with one identifier, or out of order: a mistake in this file.
    FileHandle.standardError.write(Data("grdb-notes: error: \(error)\n".utf8))
    exit(1)
}
let host = GRDBMigrationCLIHost(
    runner: runner,
    openWriter: { settings -> any DatabaseWriter in
        if settings.readOnly { return try DatabaseQueue(path: settings.path, configuration: settings.configuration) }
        return try DatabasePool(path: settings.path, configuration: settings.configuration)
    },
    commandName: "grdb-notes")
GRDBMigrationCLI.main(host: host)
