// A GRDB app whose migrations MigrationKit runs: `GRDBMigrationRunner` over GRDB's own
// `DatabaseMigrator`. The ledger stays GRDB's `grdb_migrations`, so the app can move to
// plain `DatabaseMigrator` (or come from it) without touching its users' databases,
// and it gains what GRDB's migrator has not: rollback through down steps, checksums of
// applied steps, and verification after every change.
//
// On Linux, GRDB uses the system SQLite: this database is NOT encrypted.
//
//   cd Integrations/GRDB
//   swift run grdb-notes migrate notes.sqlite
//   swift run grdb-notes status notes.sqlite
//   swift run grdb-notes rollback notes.sqlite
//   swift run grdb-notes verify notes.sqlite
import Foundation
import GRDB
import MigrationKit
import MigrationKitGRDB

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

/// One line on standard error, and the exit code a script can test.
func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("grdb-notes: error: \(message)\n".utf8))
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let commands = ["migrate", "status", "rollback", "verify"]
guard arguments.count == 2, commands.contains(arguments[0]) else {
    fail("usage: grdb-notes \(commands.joined(separator: "|")) DATABASE", code: 64)
}
let (command, path) = (arguments[0], arguments[1])
// Only migrate creates the database, readable by its owner alone (SQLite would follow
// the umask); the other commands read one that exists.
if !FileManager.default.fileExists(atPath: path) {
    guard command == "migrate" else { fail("\(path): no database here; run `grdb-notes migrate \(path)` first.", code: 9) }
    guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
        fail("\(path): the database cannot be created here; check the folder and its permissions.", code: 9)
    }
}

do {
    let runner = try GRDBMigrationRunner(steps: steps, verifier: verifier)
    let dbQueue = try DatabaseQueue(path: path)
    switch command {
    case "migrate":
        let before = Set(try runner.appliedIdentifiers(in: dbQueue))
        try runner.migrate(in: dbQueue)
        let applied = try runner.appliedIdentifiers(in: dbQueue).filter { !before.contains($0) }
        print(applied.isEmpty ? "Nothing to migrate." : applied.map { "Applied \($0)" }.joined(separator: "\n"))
    case "status":
        for entry in try runner.migrationStatus(in: dbQueue).entries {
            print("\(entry.state)".padding(toLength: 13, withPad: " ", startingAt: 0) + entry.identifier)
        }
    case "rollback":
        for identifier in try runner.rollbackLastMigration(in: dbQueue) { print("Rolled back \(identifier)") }
    default:
        try runner.runPostMigrationChecks(in: dbQueue)
        print("Verification passed.")
    }
} catch let error as MigrationKitError {
    fail("\(error)", code: 2)
} catch let error as MigrationStepError {
    fail("\(error)", code: 2)
} catch {
    fail("\(error)", code: 1)
}
