import CSQLCipher
import Foundation
@testable import MigrationKitCLI
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// An app embedding the commands (`MigrationCLI`) registers what only it has on every
/// connection they open, with `MigrationCLIHost.prepareDatabase` — here a function its
/// trigger calls and a collation an index is ordered by, registered from Swift through
/// SQLCipher's C API: `migrate` runs through the trigger, `verify` checks the index, and
/// `encrypt` copies a database whose schema names the collation, with no `--collation`
/// stand-in. The tool's own host has neither, and says what is missing.
@Suite struct HostRegistrationTests {
    /// calibre's `title_sort`, as `app_sort`: the title without a leading "The ".
    private static let appSort: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
        guard let text = sqlite3_value_text(values?[0]) else { return sqlite3_result_null(context) }
        let title = String(cString: text)
        let sorted = title.hasPrefix("The ") ? String(title.dropFirst(4)) : title
        sqlite3_result_text(context, sorted, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// Case-blind, for ASCII letters.
    private static let appNocase: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, leftCount, left, rightCount, right in
        let a = Data(bytes: left!, count: Int(leftCount)).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        let b = Data(bytes: right!, count: Int(rightCount)).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        return a.lexicographicallyPrecedes(b) ? -1 : b.lexicographicallyPrecedes(a) ? 1 : 0
    }

    /// The app's registration, as its `prepareDatabase` runs it on each connection.
    static func register(_ db: SQLCipherDatabase) throws {
        let handle = db.sqliteConnection
        // SQLITE_INNOCUOUS (SQLite 3.31+): usable from the schema's triggers however it is trusted.
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | (sqlite3_libversion_number() >= 3_031_000 ? 0x200000 : 0)
        guard sqlite3_create_function_v2(handle, "app_sort", 1, flags, nil, appSort, nil, nil, nil) == SQLITE_OK,
              sqlite3_create_collation_v2(handle, "app_nocase", SQLITE_UTF8, nil, appNocase, nil) == SQLITE_OK
        else { throw SQLCipherError(kind: .sqlite, message: String(cString: sqlite3_errmsg(handle))) }
    }

    static var appHost: MigrationCLIHost {
        var host = Tool.host
        host.prepareDatabase = { try register($0) }
        return host
    }

    /// The app's schema, written by the `sqlcipher` shell with the app's extension loaded.
    static func appDatabase(_ path: String, key: TestKey?) throws {
        let made = try SQLCipherShell.run(path, keyPragma: key?.pragma, """
            .load \(try AppExtensionFixture.path)
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, sort TEXT);
            CREATE TRIGGER books_ai AFTER INSERT ON books BEGIN UPDATE books SET sort = app_sort(new.title) WHERE id = new.id; END;
            CREATE TABLE tags (name TEXT NOT NULL);
            CREATE INDEX tags_by_name ON tags (name COLLATE app_nocase);
            INSERT INTO tags VALUES ('fantasy'), ('Classic');
            """)
        #expect(made.status == 0, "\(made.output)")
    }

    @Test func theHostsPrepareDatabaseReachesEveryConnectionTheCommandsOpen() throws {
        let workspace = try Workspace()
        try Self.appDatabase(workspace.database, key: workspace.key)
        try workspace.migration("0001_book.sql", "-- migrate:up\nINSERT INTO books (title) VALUES ('The Hobbit');\n-- migrate:down\nDELETE FROM books;\n")

        let refused = try Tool.run(["migrate", "--no-backup", "--accept-existing-tables"] + workspace.options(), directory: workspace.root)
        #expect(refused.exitCode == .migrationFailed && refused.stderr.contains("it needs the app's function app_sort"), "\(refused.output)")
        // SQLite 3.46's quick_check compares an index's keys with its collation, so it
        // names the collation it could not check with; 3.15.2's does not need it.
        let named = try Tool.run(["verify"] + workspace.options(), directory: workspace.root)
        #expect(named.status == 0, "\(named.output)")
        if (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 { #expect(named.stdout.contains("app_nocase"), "\(named.output)") }

        let migrated = try Tool.run(["migrate", "--no-backup", "--accept-existing-tables", "--verify", "full"] + workspace.options(), directory: workspace.root, host: Self.appHost)
        #expect(migrated.status == 0, "\(migrated.output)")
        let verified = try Tool.run(["verify"] + workspace.options(), directory: workspace.root, host: Self.appHost)
        #expect(verified.status == 0 && verified.stdout.contains("Verification passed.") && !verified.stdout.contains("n/a"), "\(verified.output)")
        let read = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT sort FROM books;")
        #expect(read.stdout == "Hobbit\n", "\(read.output)")

        let plain = workspace.path("plain.db")
        try Self.appDatabase(plain, key: nil)
        let copy = ["encrypt", "--db-path", plain, "--output", workspace.path("copy.db"), "--password-file", workspace.keyFile]
        let withoutIt = try Tool.run(copy, directory: workspace.root)
        #expect(withoutIt.exitCode == .refused && withoutIt.stderr.contains("\"app_nocase\""), "\(withoutIt.output)")
        let copied = try Tool.run(copy, directory: workspace.root, host: Self.appHost)
        #expect(copied.status == 0 && !copied.output.contains("stood in"), "\(copied.output)")
    }
}
