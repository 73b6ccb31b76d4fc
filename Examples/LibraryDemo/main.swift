// The library demo: creates an encrypted database keyed with Keys/demo.key, migrates
// it with Swift-closure steps, and prints status and verification along the way.
//
//   swift run migrationkit-library-demo [DATABASE_PATH]
import Foundation
import MigrationKit
import MigrationKitSQLCipher

let steps: [SQLCipherMigrationStep] = [
    SQLCipherMigrationStep(
        identifier: "0001_create_shelves",
        apply: { db in
            try db.execute(sql: """
                CREATE TABLE shelves (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                CREATE TABLE books (
                    id INTEGER PRIMARY KEY,
                    shelfId INTEGER NOT NULL REFERENCES shelves(id) ON DELETE CASCADE,
                    title TEXT NOT NULL
                );
                INSERT INTO shelves (name) VALUES ('Fiction'), ('Reference');
                INSERT INTO books (shelfId, title) VALUES (1, 'Dune'), (1, 'Emma'), (2, 'Roget''s Thesaurus');
                """)
        },
        rollback: { db in try db.execute(sql: "DROP TABLE books; DROP TABLE shelves;") }),
    SQLCipherMigrationStep(
        identifier: "0002_index_books_by_shelf",
        apply: { db in try db.execute(sql: "CREATE INDEX books_shelfId ON books(shelfId)") },
        rollback: { db in try db.execute(sql: "DROP INDEX books_shelfId") }),
]

func readDemoKey() throws -> DatabaseKey {
    let url = URL(fileURLWithPath: "Keys/demo.key")
    var bytes = [UInt8](try Data(contentsOf: url))
    defer { wipeBytes(&bytes) }
    if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    return .passphrase(bytes: SecretBytes(copying: bytes))
}

func printStatus(_ runner: SQLCipherMigrationRunner, _ writer: SQLCipherWriter) throws {
    for entry in try runner.migrationStatus(in: writer).entries {
        print("  \(entry.state == .applied ? "applied" : "pending")  \(entry.identifier)")
    }
}

do {
    let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "library-demo.db"
    let writer = try SQLCipherWriter(path: path, key: try readDemoKey())
    let runner = try SQLCipherMigrationRunner(
        steps: steps,
        verifier: SQLCipherMigrationVerifier(requiredIndexes: [RequiredIndexSpec(table: "books", index: "books_shelfId")]))
    print("\(path) (\(SQLCipherLibrary.summary))")
    print("Before:")
    try printStatus(runner, writer)
    let report = try runner.migrate(in: writer)
    for step in report.steps { print("Applied \(step.identifier) in \(step.duration)") }
    if report.steps.isEmpty { print("Already up to date.") }
    print("After:")
    try printStatus(runner, writer)
    print("Verification:")
    for check in try runner.verificationReport(in: writer).checks {
        print("  \(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)")
    }
    let books = try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM books") } ?? 0
    print("\(books) books on the shelves; the file is encrypted with the demo key.")
} catch {
    FileHandle.standardError.write(Data("library demo: \(error)\n".utf8))
    exit(1)
}
