import Foundation
@testable import MigrationKit
import Testing

/// Library errors carry remedies, never a command line's flags: each program words them.
@Suite struct RemedyTests {
    private let edited = MigrationKitError.modifiedMigrations(identifiers: ["0002_books"], files: ["0002_books.sql"])
    private let outOfOrder = MigrationKitError.pendingMigrationsOutOfOrder(pending: ["0002_b"], latestApplied: "0003_c")

    @Test func aRefusalCarriesItsRemedyAndTheLibrarysWords() {
        #expect(edited.remedy == .acceptModified(["0002_books"]))
        #expect(outOfOrder.remedy == .allowOutOfOrder)
        #expect(MigrationKitError.unknownMigration("x").remedy == nil)
        #expect(edited.description.hasSuffix("put the change in a new migration, or if the edit changes nothing that matters, "
                                             + "accept it (`MigrateOptions.acceptModified`: \"0002_books\")."))
        #expect(!edited.description.contains("--") && !outOfOrder.description.contains("--"))
    }

    @Test func aProgramWordsTheRemedyOrLeavesItOut() {
        let flags = RemedyWording { $0 == .allowOutOfOrder ? "pass --allow-out-of-order" : nil }
        #expect(outOfOrder.sentence(flags).hasSuffix("; rename it to sort last, or pass --allow-out-of-order."))
        #expect(edited.sentence(flags).hasSuffix("; revert the edit and put the change in a new migration."))
        let error = SQLMigrationFileError(code: .folderMissing, path: "Migrations",
                                          advice: Advice(situation: "No migrations folder here", remedy: .createMigrationsFolder))
        #expect(error.description == "Migrations: No migrations folder here; create it.")
        #expect(error.sentence(RemedyWording { _ in nil }) == "Migrations: No migrations folder here.")
    }

    /// No string in the libraries names a command line's flag or command; remedies do.
    /// Backquoted commands of other programs (`secret-tool store --label=…`) may.
    @Test func theLibrariesNameNoFlag() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folders = ["Sources/MigrationKit", "Sources/MigrationKitSQLCipher", "Sources/MigrationKitKeys",
                       "Sources/MigrationKitSecrets", "Sources/MigrationKitGRDB"]
        let flag = try Regex(#"(^|[^\w-])--[a-z][a-z0-9-]*"#)
        let command = try Regex(#"\bmigrationkit [a-z]"#)
        var scanned = 0
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), code.contains("\"") else { continue }
                    // Other programs' commands, in backquotes, keep their own flags.
                    let outsideBackquotes = code.split(separator: "`", omittingEmptySubsequences: false)
                        .enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
                    #expect(!outsideBackquotes.contains(flag) && !code.contains(command),
                            "\(folder)/\(file):\(number + 1) names a command line's flag or command: \(code)")
                }
                scanned += 1
            }
        }
        #expect(scanned > 50, "the library sources were not found under \(root.path)")
    }
}
