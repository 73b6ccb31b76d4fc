import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher

/// Steps used across tests: a small "library" app's history.
enum SampleSteps {
    static let createAuthors = SQLCipherMigrationStep(
        identifier: "0001_create_authors",
        apply: { db in
            try db.execute(sql: """
                CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE INDEX authors_name ON authors(name);
                """)
        },
        rollback: { db in try db.execute(sql: "DROP TABLE authors") })

    static let createBooks = SQLCipherMigrationStep(
        identifier: "0002_create_books",
        apply: { db in
            try db.execute(sql: """
                CREATE TABLE books (
                    id INTEGER PRIMARY KEY,
                    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
                    title TEXT NOT NULL
                );
                CREATE INDEX books_authorId ON books(authorId);
                """)
        },
        rollback: { db in try db.execute(sql: "DROP TABLE books") })

    static let addYear = SQLCipherMigrationStep(
        identifier: "0003_add_year",
        apply: { db in try db.execute(sql: "ALTER TABLE books ADD COLUMN year INTEGER") },
        rollback: { db in
            // SQLite 3.15 has no DROP COLUMN: recreate the table (the 12-step way).
            try db.execute(sql: """
                CREATE TABLE books_new (
                    id INTEGER PRIMARY KEY,
                    authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
                    title TEXT NOT NULL
                );
                INSERT INTO books_new (id, authorId, title) SELECT id, authorId, title FROM books;
                DROP TABLE books;
                ALTER TABLE books_new RENAME TO books;
                CREATE INDEX books_authorId ON books(authorId);
                """)
        })

    static var all: [SQLCipherMigrationStep] { [createAuthors, createBooks, addYear] }
}

extension DatabaseKey {
    /// A passphrase for tests that do not care which.
    static let testPassphrase = DatabaseKey.passphrase("correct horse battery staple")
    /// A raw key: no PBKDF2, so tests that open many databases stay fast.
    static let testRawKey = DatabaseKey.rawKey(Array(1...32))
    static let testRawKeyPragma = "\"x'0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20'\""
}

import Testing

/// Expects `body` to throw an `SQLCipherError` of this kind.
func expectError(_ kind: SQLCipherError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    #expect(sourceLocation: sourceLocation) { try body() } throws: { ($0 as? SQLCipherError)?.kind == kind }
}

/// Expects `body` to throw an `SQLCipherError` matching this result code.
func expectError(_ code: ResultCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    #expect(sourceLocation: sourceLocation) { try body() } throws: { code ~= $0 }
}
