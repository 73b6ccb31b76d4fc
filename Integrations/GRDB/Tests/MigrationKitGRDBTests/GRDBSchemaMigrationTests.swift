import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// `SchemaMigration` on a GRDB app's own writer: the migration from the app's database
/// to the schema a scratch GRDB database holds, registered with GRDB's
/// `DatabaseMigrator` (whose deferred foreign-key checks make the rebuild safe), keeps
/// every row and gives the desired schema.
@Suite struct GRDBSchemaMigrationTests {
    @Test(arguments: WriterKind.allCases)
    func theMigrationToADesiredSchemaRunsInGRDBsMigrator(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT);
                INSERT INTO author VALUES (1, 'Le Guin'), (2, NULL);
                INSERT INTO book VALUES (1, 1, 'Earthsea'), (2, 2, 'Untitled');
                """)
        }
        try migrator.migrate(writer)

        // The schema the app wants: a foreign key that cascades (a rebuild), a column
        // renamed as the comment declares, a name that may no longer be NULL.
        let desired = try DatabaseQueue()
        try desired.write { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, fullName TEXT NOT NULL DEFAULT 'anonymous' -- @renamed from=name
                );
                CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id) ON DELETE CASCADE, title TEXT);
                CREATE INDEX book_authorId ON book(authorId);
                """)
        }
        let migration = try writer.read { current in
            try desired.read { wanted in
                let linked = try SQLiteVersion(String.fetchOne(current, sql: "SELECT sqlite_version()") ?? "")!
                return try SchemaMigration.between(current: current, desired: wanted, oldestSQLite: linked)
            }
        }
        #expect(migration.destructiveChanges.isEmpty, "\(migration.destructiveChanges)")
        #expect(migration.up.contains { $0.hasPrefix("INSERT INTO \"author_migrationkit_new\"") }, "\(migration.up)")

        migrator.registerMigration("v2") { db in
            for statement in migration.up { try db.execute(sql: statement) }
        }
        try migrator.migrate(writer)
        let rows = try writer.read { db in
            try String.fetchAll(db, sql: "SELECT fullName || ':' || title FROM book JOIN author ON author.id = book.authorId ORDER BY book.id")
        }
        #expect(rows == ["Le Guin:Earthsea", "anonymous:Untitled"])
        let left = try writer.read { made in try desired.read { wanted in try SchemaDifference.between(expected: wanted, actual: made) } }
        #expect(left.isEmpty, "\(left.map(\.summary))")
        try writer.write { db in try db.execute(sql: "PRAGMA foreign_keys = ON; DELETE FROM author WHERE id = 1") }
        #expect(try writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM book") } == 1)
    }
}
