import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `new` numbers the next file the way the folder already does, and never writes a
/// file that sorts before an existing one (migrations apply in byte-wise name order).
@Suite struct NewCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let existing: [String]
        /// The new file's name prefix, or nil when `new` must refuse.
        let expectedPrefix: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty folder", existing: [], expectedPrefix: "0001_"),
        Case(name: "padded", existing: ["0001_a.sql", "0002_b.sql"], expectedPrefix: "0003_"),
        Case(name: "padded, six digits", existing: ["000041_a.sql"], expectedPrefix: "000042_"),
        Case(name: "golang-migrate, unpadded", existing: ["1_a.up.sql", "2_b.up.sql"], expectedPrefix: "3_"),
        Case(name: "unpadded at 9", existing: ["8_a.sql", "9_b.sql"], expectedPrefix: nil),
        Case(name: "padded at 9999", existing: ["9998_a.sql", "9999_b.sql"], expectedPrefix: nil),
        Case(name: "1_a and 10_b", existing: ["1_a.sql", "10_b.sql"], expectedPrefix: nil),
        Case(name: "timestamps", existing: ["20200101000000_a.sql", "20210101000000_b.sql"], expectedPrefix: "20"),
        Case(name: "timestamp in the future", existing: ["29991231235959_a.sql"], expectedPrefix: "29991231235960_"),
    ]

    @Test(arguments: cases)
    func theNewFileFollowsTheFolderAndSortsLast(_ testCase: Case) throws {
        let workspace = try Workspace()
        for file in testCase.existing {
            try workspace.migration(file, file.hasSuffix(".up.sql") ? "SELECT 1;\n" : "-- migrate:up\nSELECT 1;\n")
        }
        let pairs = testCase.existing.contains { $0.hasSuffix(".up.sql") }
        let before = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations)
        let result = try Tool.run(["new", "next step", "--migrations", workspace.migrations, "--json"])
        guard let prefix = testCase.expectedPrefix else {
            #expect(result.exitCode == .fileError, "\(result.output)")
            #expect(result.stderr.contains("sort") && result.stderr.contains(workspace.migrations), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).sorted() == before.sorted())
            return
        }
        #expect(result.status == 0, "\(result.output)")
        let identifier = try #require(try decodeJSON(result.stdout)["identifier"] as? String)
        #expect(identifier.hasPrefix(prefix) && identifier.hasSuffix("_next_step"), "\(identifier)")
        let existingIdentifiers = testCase.existing.map { $0.replacingOccurrences(of: ".up.sql", with: "").replacingOccurrences(of: ".sql", with: "") }
        for old in existingIdentifiers {
            #expect(Array(old.utf8).lexicographicallyPrecedes(Array(identifier.utf8)), "\(identifier) sorts before \(old)")
        }
        // Once written, the folder loads in the order the files were made.
        if pairs {
            // The folder's own form: an .up.sql and a .down.sql.
            #expect(FileManager.default.fileExists(atPath: workspace.migrations + "/" + identifier + ".down.sql"))
            try workspace.migration(identifier + ".up.sql", "SELECT 2;\n")
        } else {
            try workspace.migration(identifier + ".sql", "-- migrate:up\nSELECT 2;\n")
        }
        let status = try Tool.run(["status", "--db-path", workspace.path("none.db"), "--migrations", workspace.migrations, "--json"])
        let order = (try decodeJSON(status.stdout)["migrations"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String }
        #expect(order?.last == identifier, "\(status.output)")
    }
}

extension NewCommandTests {
    /// After `--` every argument is an operand, even one spelled `--json`: the name of
    /// the new file here. The command did not ask for JSON, so its error is a line.
    @Test func anOperandSpelledLikeJSONDoesNotMakeErrorsJSON() throws {
        let workspace = try Workspace()
        try workspace.write("not-a-folder", "")
        let result = try Tool.run(["new", "--migrations", workspace.path("not-a-folder"), "--", "--json"])
        #expect(result.exitCode == .fileError, "\(result.output)")
        #expect(result.stdout.isEmpty && result.stderr.hasPrefix("migrationkit: error: "), "\(result.output)")
        let asked = try Tool.run(["new", "--json", "--migrations", workspace.path("not-a-folder"), "--", "name"])
        try expectJSONError(asked, .fileError, "new --json")
    }

    @Test func newCountsOnFromTimestampsAndRefusesNumbersTooLarge() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101120000_create.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        let next = try Tool.run(["new", "add col", "--migrations", workspace.migrations, "--json"])
        // A timestamp folder gets the current UTC time, which sorts after 2024.
        let identifier = try decodeJSON(next.stdout)["identifier"] as? String ?? ""
        #expect(identifier.count == 22 && identifier.hasSuffix("_add_col") && identifier > "20240101120000_create", "\(next.output)")
        try workspace.migration("18446744073709551615_max.sql", "-- migrate:up\nCREATE TABLE b (x);\n")
        let refused = try Tool.run(["new", "again", "--migrations", workspace.migrations])
        #expect(refused.exitCode == .fileError, "\(refused.output)")
        #expect(!refused.signaled)
    }
}
