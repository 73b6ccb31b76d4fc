import Foundation
@testable import MigrationKit
@testable import MigrationKitCLI
import MigrationKitCLITestSupport
@testable import MigrationKitCommands
import MigrationKitTestSupport
import Testing

/// The libraries offer remedies; the command line words them as its own flags and
/// commands: every remedy there is, worded for an app's own binary name, and the
/// sentences commands run in this process (`Tool`) print.
@Suite struct RemedyWordingTests {
    private let everyRemedy: [Remedy] = [
        .allowOutOfOrder, .acceptModified(["0002_books"]), .acceptUnknown(["0003_tags"]), .createMigrationsFolder, .chooseMigrationsFolder,
        .openWithoutKey, .encryptInPlace, .replaceOutput, .keyFromFile, .keyFromAnotherSource, .keyFromPipeOrPrompt,
        .allowKeyCommandMoreTime, .storeKeyAgain(service: "com.example.notes", account: "notes db"),
    ]

    /// Every remedy names what to pass on this command line, and the library's words do not.
    @Test func everyRemedyIsWordedAsAFlagOrCommand() throws {
        let wording = CommandLineRemedies.wording(commandName: "notes-migrate", layer: SQLCipherCommandLayer(host: MigrationCLIHost(commandName: "notes-migrate")), running: nil)
        for remedy in everyRemedy {
            let words = try #require(wording(remedy), "\(remedy) has no words on the command line")
            #expect(words.contains("--"), "\(remedy): \(words)")
            #expect(!remedy.libraryWords.contains("--"), "\(remedy): the library's words name a flag: \(remedy.libraryWords)")
        }
        // An app's binary says its own name, not migrationkit's.
        #expect(wording(.createMigrationsFolder)?.contains("`notes-migrate new NAME`") == true)
        #expect(wording(.acceptModified(["0002_books"]))?.contains("--accept-modified 0002_books") == true)
        #expect(wording(.storeKeyAgain(service: "com.example.notes", account: "notes db"))?
            .contains("`notes-migrate key store --keychain-service com.example.notes --keychain-account 'notes db' --force`") == true)
    }

    /// A migrations folder that is missing is made by `new`; a file given as the folder
    /// is pointed at the folder.
    @Test(arguments: [
        ("nope", "No migrations folder here; create it (`migrationkit new NAME` does), or pass --migrations DIR."),
        ("key", "This is a file, not a folder; point --migrations at the folder that holds the migration files."),
    ])
    func aMigrationsFolderThatIsNotOneSaysWhatToPass(_ name: String, _ sentence: String) throws {
        let workspace = try Workspace()
        let result = try Tool.run(["status", "--db-path", workspace.database, "--plaintext", "--migrations", workspace.path(name)],
                                    directory: workspace.root)
        #expect(result.status == 9, "\(result.output)")
        #expect(result.stderr.contains(sentence), "\(result.output)")
    }

    @Test func aKeyForAPlaintextDatabaseSuggestsPlaintext() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let created = try Tool.run(["migrate", "--db-path", workspace.database, "--plaintext", "--migrations", workspace.migrations, "-q"],
                                     directory: workspace.root)
        #expect(created.status == 0, "\(created.output)")
        let before = try #require(workspace.bytes(workspace.database))
        let result = try workspace.run("status")
        #expect(result.status == 4, "\(result.output)")
        #expect(result.stderr.contains("The database is not encrypted, but a key was given; encrypt it first, or open it without a key (--plaintext)."),
                "\(result.output)")
        #expect(workspace.bytes(workspace.database) == before)
    }
}
