import Foundation
import GRDB
@testable import MigrationKit
@testable import MigrationKitGRDB
import GRDBTestSupport
import Testing

/// What only the app registers — a function its triggers call, a collation an index is
/// ordered by — given to the runner's connections the GRDB way, with the writer's
/// `Configuration.prepareDatabase`: migrations run through the app's triggers and the
/// verification checks every index. Without them, the step fails naming the function,
/// and the verification passes what it can check and names what it could not, never a
/// failure.
@Suite struct GRDBAppRegistrationTests {
    /// calibre's `title_sort`, as `app_sort`: the title without a leading article.
    static let appSort = DatabaseFunction("app_sort", argumentCount: 1, pure: true) { values in
        guard let title = String.fromDatabaseValue(values[0]) else { return nil }
        for article in ["The ", "A ", "An "] where title.hasPrefix(article) { return String(title.dropFirst(article.count)) }
        return title
    }

    /// A case-blind collation the app orders its tags by.
    static let appNocase = DatabaseCollation("app_nocase") { left, right in
        left.lowercased() < right.lowercased() ? .orderedAscending : left.lowercased() > right.lowercased() ? .orderedDescending : .orderedSame
    }

    static func appConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: appSort)
            db.add(collation: appNocase)
        }
        return configuration
    }

    static func appSchema(_ scratch: ScratchDatabase) throws {
        try DatabaseQueue(path: scratch.path, configuration: appConfiguration()).write { db in
            try db.execute(sql: """
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
                CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
                CREATE TABLE tags (name TEXT NOT NULL);
                CREATE INDEX tags_by_name ON tags (name COLLATE app_nocase);
                INSERT INTO books (title) VALUES ('The Hobbit');
                INSERT INTO tags VALUES ('Fantasy'), ('classic');
                """)
        }
    }

    static func runner() -> GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        runner.registerMigration("0001_book", rollback: { db in try db.execute(sql: "DELETE FROM books WHERE title = 'A Wizard of Earthsea'") }) { db in
            try db.execute(sql: "INSERT INTO books (title) VALUES ('A Wizard of Earthsea')")
        }
        return runner
    }

    @Test func theWritersPrepareDatabaseGivesTheRunnerWhatOnlyTheAppRegisters() throws {
        let scratch = try ScratchDatabase()
        try Self.appSchema(scratch)
        let plain = try DatabaseQueue(path: scratch.path)
        // GRDB's migrator lets the step's own error through, as it does for any step.
        #expect { try Self.runner().migrate(plain) } throws: { error in
            AppExtensionNeed(error: error) == AppExtensionNeed(.function, "app_sort")
        }
        // The verification without the collation: every table checked that can be, the
        // index it orders named, nothing failed.
        let report = try Self.runner().verificationReport(in: plain)
        #expect(report.passed, "\(report.checks.map { "\($0.name): \($0.detail)" })")
        #expect(report.unmetNeeds == [AppExtensionNeed(.collation, "app_nocase")], "\(report.checks.map { "\($0.name): \($0.detail)" })")
        try plain.close()

        let app = try DatabaseQueue(path: scratch.path, configuration: Self.appConfiguration())
        try Self.runner().migrate(app)
        #expect(try app.read { try String.fetchOne($0, sql: "SELECT sort FROM books WHERE id = 2") } == "Wizard of Earthsea")
        let checked = try Self.runner().verificationReport(in: app)
        #expect(checked.passed && checked.unmetNeeds.isEmpty, "\(checked.checks.map { "\($0.name): \($0.detail)" })")
        try Self.runner().rollbackLastMigration(in: app)
    }
}
