import Foundation
@testable import MigrationKit
import Testing

/// How a folder's layout reads versions, orders them, and leaves out a file's own
/// transaction (docs/migration-layouts.md), below the command line.
@Suite struct MigrationLayoutReadingTests {
    /// Flyway's versions compare part by part as numbers, however many digits (beyond
    /// 64 bits too); trailing zero parts and leading zeros say nothing, so `1.0` and `1`
    /// take one place; `_` separates parts as `.` does.
    @Test func versionsCompareByPartsAsNumbers() throws {
        let folder = try MigrationsFolder()
        let names = ["V1.2.9__a", "V1.2.10__b", "V1.10__c", "V1_11__d", "V2__e", "V" + String(repeating: "9", count: 30) + "__f"]
        for name in names.reversed() { try folder.write(name + ".sql", "SELECT 1;\n") }
        let files = try folder.load()
        #expect(files.map(\.identifier) == names)
        #expect(files.allSatisfy { $0.layout == .flyway })
        #expect(files.map { $0.version?.text } == ["1.2.9", "1.2.10", "1.10", "1.11", "2", String(repeating: "9", count: 30)])
        #expect(files[2].version?.parts == ["1", "10"])

        let same = try MigrationsFolder()
        try same.write("V1__a.sql", "SELECT 1;\n")
        try same.write("V01.0__b.sql", "SELECT 1;\n")
        #expect {
            _ = try same.load()
        } throws: { error in
            (error as? SQLMigrationFileError)?.code == .duplicateVersion && "\(error)".contains("V01.0__b.sql") && "\(error)".contains("V1__a.sql")
        }
    }

    /// Each layout's version is what its tool records: diesel's digits without dashes,
    /// the number as written for the numbered layouts, the leading digits in
    /// MigrationKit's own.
    @Test func eachMigrationCarriesItsLayoutAndVersion() throws {
        let diesel = try MigrationsFolder()
        try FileManager.default.createDirectory(atPath: diesel.path + "/2024-06-05-131359_create_users", withIntermediateDirectories: false)
        try diesel.write("2024-06-05-131359_create_users/up.sql", "CREATE TABLE users (id);\n")
        let read = try diesel.load()
        #expect(read.map(\.identifier) == ["2024-06-05-131359_create_users"] && read[0].layout == .diesel)
        #expect(read[0].version == MigrationVersion(text: "20240605131359") && read[0].down == nil && read[0].emptyDown == nil)

        let pairs = try MigrationsFolder()
        try pairs.write("0010_x.up.sql", "SELECT 1;\n")
        try pairs.write("0010_other_title.down.sql", "SELECT 2;\n")
        let pair = try #require(try pairs.load().first)
        #expect(pair.layout == .golangMigrate && pair.version?.text == "0010" && pair.version?.parts == ["10"])
        #expect(pair.down?.path.hasSuffix("0010_other_title.down.sql") == true)

        let own = try MigrationsFolder()
        try own.write("20240101000000_a.sql", "-- migrate:up\nSELECT 1;\n")
        try own.write("create_b.sql", "-- migrate:up\nSELECT 1;\n")
        let files = try own.load()
        #expect(files.map(\.layout) == [.migrationKit, .migrationKit] && files.map { $0.version?.text } == ["20240101000000", nil])
    }

    /// A file's own `BEGIN` … `COMMIT` (with `PRAGMA foreign_keys` around it) is left out
    /// where it stands, every other line where it was; anything else is kept as written,
    /// so a file without one reads (and checksums) as it always did.
    @Test func aFilesOwnTransactionIsLeftOutWhereItStandsAndNothingElse() throws {
        let folder = try MigrationsFolder()
        let wrapped = "-- migrate:up\r\nPRAGMA foreign_keys = 0;\r\nBEGIN IMMEDIATE TRANSACTION;\r\nCREATE TABLE a (x);\r\n"
            + "CREATE TRIGGER a_t AFTER INSERT ON a BEGIN SELECT 1; END;\r\nEND TRANSACTION;\r\nPRAGMA main.foreign_keys = 'on';\r\n"
        try folder.write("0001_a.sql", wrapped)
        try folder.write("0002_b.sql", "-- migrate:up\nBEGIN;\nCREATE TABLE b (x);\nCOMMIT;\nSELECT 1;\n")
        try folder.write("0003_c.sql", "-- migrate:up\nPRAGMA foreign_keys = OFF;\nCREATE TABLE c (x);\nPRAGMA foreign_keys = ON;\n")
        let files = try folder.load()

        let up = files[0].up
        #expect(up.ownTransaction?.lines == [2, 3, 6, 7] && up.ownTransaction?.beginLine == 3)
        // Lines end at "\n" bytes ("\r\n" is one Character, so not split as Characters).
        func lines(_ text: String) -> [String] { text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) } }
        #expect(lines(up.sql).count == lines(wrapped).count - 1)
        #expect(!up.sql.contains("PRAGMA") && !up.sql.contains("TRANSACTION") && up.sql.contains("CREATE TABLE a (x);")
                && up.sql.contains("BEGIN SELECT 1; END;"), "\(up.sql)")
        // The statements keep their lines: the trigger is still on the file's line 5.
        #expect(lines(up.sql).dropFirst(3).first?.hasPrefix("CREATE TRIGGER") == true, "\(lines(up.sql))")

        for file in files.dropFirst() {
            #expect(file.up.ownTransaction == nil)
            let text = try String(contentsOfFile: file.path, encoding: .utf8)
            #expect(file.up.sql == String(text.dropFirst("-- migrate:up\n".count)), "\(file.identifier)")
        }
    }
}
