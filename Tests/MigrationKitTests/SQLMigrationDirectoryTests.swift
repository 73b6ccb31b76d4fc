import Foundation
@testable import MigrationKit
import Testing

/// A scratch migrations folder.
final class MigrationsFolder: @unchecked Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    /// - Parameter layout: the layout named; nil reads the folder in its own.
    func load(layout: MigrationFolderLayout? = nil) throws -> [SQLMigrationFile] {
        try SQLMigrationDirectory(path: path, layout: layout).load()
    }

    deinit {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        try? FileManager.default.removeItem(atPath: path)
    }
}

@Suite struct SQLMigrationDirectoryTests {
    private func expectFileError(_ code: SQLMigrationFileError.Code, file: String? = nil, line: Int? = nil, _ folder: MigrationsFolder,
                                 layout: MigrationFolderLayout? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            _ = try folder.load(layout: layout)
        } throws: { error in
            guard let error = error as? SQLMigrationFileError, error.code == code else { return false }
            if let file, !error.path.hasSuffix("/" + file) { return false }
            if let line, error.line != line { return false }
            return error.description.hasPrefix(error.path)
        }
    }

    @Test func readsBothFormsInIdentifierOrderAndIgnoresOtherFiles() throws {
        let folder = try MigrationsFolder()
        try folder.write("0002_books.up.sql", "CREATE TABLE books (id INTEGER PRIMARY KEY);\n")
        try folder.write("0002_books.down.sql", "DROP TABLE books;\n")
        try folder.write("0001_authors.sql", """
            -- A leading comment is fine.
            -- migrate:up
            CREATE TABLE authors (id INTEGER PRIMARY KEY);

            -- migrate:down
            DROP TABLE authors;
            """)
        try folder.write("0003_index.up.sql", "CREATE INDEX books_id ON books(id);")
        try folder.write("README.md", "# notes")
        try folder.write("notes.txt", "-- migrate:up\nnot sql")
        try folder.write(".0000_hidden.sql", "-- migrate:up\nCREATE TABLE hidden (a);")
        let files = try folder.load()
        #expect(files.map(\.identifier) == ["0001_authors", "0002_books", "0003_index"])
        #expect(files.map(\.form) == [.sections, .upDownFiles, .upDownFiles])
        #expect(files[0].up.sql == "CREATE TABLE authors (id INTEGER PRIMARY KEY);\n")
        #expect(files[0].up.startLine == 3)
        #expect(files[0].down?.sql == "DROP TABLE authors;")
        #expect(files[0].down?.startLine == 6)
        #expect(files[1].down?.path.hasSuffix("0002_books.down.sql") == true)
        #expect(files[2].down == nil)
    }

    @Test func bothFormsOfOneIdentifierAreRefusedNamingBothFiles() throws {
        let folder = try MigrationsFolder()
        try folder.write("0003_x.sql", "-- migrate:up\nCREATE TABLE x (a);")
        try folder.write("0003_x.up.sql", "CREATE TABLE x (a);")
        #expect {
            _ = try folder.load()
        } throws: { error in
            guard let error = error as? SQLMigrationFileError, error.code == .duplicateIdentifier else { return false }
            return "\(error)".contains("0003_x.sql") && "\(error)".contains("0003_x.up.sql")
        }
    }

    /// In MigrationKit's own layout (a lone plain `0001_a.sql` is sqlx's up-only file,
    /// a lone `.up.sql` golang-migrate's, unless the layout is named).
    @Test func sectionFilesNeedAnUpSectionWithSQL() throws {
        let noUp = try MigrationsFolder()
        try noUp.write("0001_a.sql", "CREATE TABLE a (x);\n")
        expectFileError(.upSectionMissing, file: "0001_a.sql", noUp, layout: .migrationKit)

        let empty = try MigrationsFolder()
        try empty.write("0001_a.sql", "-- migrate:up\n-- nothing here\n/* still nothing */\n\n-- migrate:down\nDROP TABLE a;")
        expectFileError(.upSectionEmpty, file: "0001_a.sql", line: 1, empty)

        let emptyUpFile = try MigrationsFolder()
        try emptyUpFile.write("0001_a.up.sql", "\n\n")
        expectFileError(.upSectionEmpty, file: "0001_a.up.sql", emptyUpFile, layout: .migrationKit)

        let strayText = try MigrationsFolder()
        try strayText.write("0001_a.sql", "-- header\nCREATE TABLE lost (x);\n-- migrate:up\nCREATE TABLE a (x);")
        expectFileError(.upSectionMissing, file: "0001_a.sql", line: 2, strayText)

        let downFirst = try MigrationsFolder()
        try downFirst.write("0001_a.sql", "-- migrate:down\nDROP TABLE a;\n-- migrate:up\nCREATE TABLE a (x);")
        expectFileError(.upSectionMissing, line: 1, downFirst)

        let twoUps = try MigrationsFolder()
        try twoUps.write("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n-- migrate:up\nCREATE TABLE b (x);")
        expectFileError(.duplicateSection, line: 3, twoUps)
    }

    /// dbmate's `transaction:false` is kept as a request the runner does not honour (lint
    /// notes it); any other option on a section line is refused.
    @Test func transactionFalseIsARequestAndOtherOptionsAreRefused() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_a.sql", "-- migrate:up transaction:false\nCREATE TABLE a (x);\n-- migrate:down transaction:false\nDROP TABLE a;")
        let file = try #require(try SQLMigrationDirectory(path: folder.path).load().first)
        #expect(file.noTransactionRequest?.line == 1)

        let other = try MigrationsFolder()
        try other.write("0001_a.sql", "-- migrate:up transaction:true\nCREATE TABLE a (x);")
        expectFileError(.unsupportedOption, line: 1, other)
    }

    @Test func binaryNonUTF8AndOversizedFilesAreRefusedByName() throws {
        let nul = try MigrationsFolder()
        try nul.writeBytes("0001_a.up.sql", Array("CREATE TABLE a (x);\n".utf8) + [0, 1, 2])
        expectFileError(.containsNUL, file: "0001_a.up.sql", line: 2, nul)

        let latin1 = try MigrationsFolder()
        try latin1.writeBytes("0001_a.sql", Array("-- migrate:up\nINSERT INTO t VALUES ('caf".utf8) + [0xE9] + Array("');\n".utf8))
        expectFileError(.notUTF8, file: "0001_a.sql", line: 2, latin1)

        let huge = try MigrationsFolder()
        let bigPath = huge.path + "/0001_big.up.sql"
        #expect(FileManager.default.createFile(atPath: bigPath, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: bigPath))
        try handle.truncate(atOffset: UInt64(SQLMigrationDirectory.maximumFileSize + 1))
        try handle.close()
        expectFileError(.fileTooLarge, file: "0001_big.up.sql", huge)
    }

    @Test func windowsLineEndingsWorkInBothForms() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_a.sql", "-- migrate:up\r\nCREATE TABLE a (x);\r\n\r\n-- migrate:down\r\nDROP TABLE a;\r\n")
        try folder.write("0002_b.up.sql", "-- migrate:merging 0000_old\r\nCREATE TABLE b (y);\r\n")
        let files = try folder.load()
        #expect(files.map(\.identifier) == ["0001_a", "0002_b"])
        #expect(files[0].up.startLine == 2)
        #expect(files[0].up.sql.contains("CREATE TABLE a (x);"))
        #expect(files[0].down?.startLine == 5)
        #expect(files[0].down?.sql.contains("DROP TABLE a;") == true)
        #expect(files[1].merging == ["0000_old"])
    }

    @Test func aLeadingByteOrderMarkIsDropped() throws {
        let folder = try MigrationsFolder()
        try folder.writeBytes("0001_a.sql", [0xEF, 0xBB, 0xBF] + Array("-- migrate:up\nCREATE TABLE a (x);".utf8))
        #expect(try folder.load().first?.up.sql == "CREATE TABLE a (x);")
    }

    @Test func aDownFileWithoutItsUpFileIsAnError() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_a.down.sql", "DROP TABLE a;")
        expectFileError(.downWithoutUp, file: "0001_a.down.sql", folder)
    }

    @Test func fileNamesWithControlCharactersAreRefused() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_evil\nApplied 0002.sql", "-- migrate:up\nCREATE TABLE a (x);")
        expectFileError(.invalidName, folder)
    }

    @Test func oddButPrintableNamesAreFine() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001 add café ☕.sql", "-- migrate:up\nCREATE TABLE a (x);")
        #expect(try folder.load().map(\.identifier) == ["0001 add café ☕"])
    }

    @Test func missingFolderSymlinkLoopAndFileAreClearErrors() throws {
        let parent = try MigrationsFolder()
        func expectCode(_ code: SQLMigrationFileError.Code, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(sourceLocation: sourceLocation) { try SQLMigrationDirectory(path: path).load() } throws: { code ~= $0 }
        }
        expectCode(.folderMissing, parent.path + "/nope")
        try FileManager.default.createSymbolicLink(atPath: parent.path + "/loop", withDestinationPath: parent.path + "/loop")
        expectCode(.folderUnreadable, parent.path + "/loop")
        try parent.write("plain.txt", "x")
        expectCode(.folderUnreadable, parent.path + "/plain.txt")
    }

    /// A FIFO named like a migration used to be opened for reading, which waits for a
    /// writer forever; links that lead nowhere were skipped, so a migration went
    /// missing without a word. Both now stop the load, naming the file.
    @Test func aFIFOOrABrokenLinkNamedLikeAMigrationIsRefusedByName() throws {
        let fifo = try MigrationsFolder()
        try fifo.write("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);")
        #expect(mkfifo(fifo.path + "/0002_pipe.sql", 0o600) == 0)
        let started = Date()
        expectFileError(.fileUnreadable, file: "0002_pipe.sql", fifo)
        #expect(Date().timeIntervalSince(started) < 5)

        for destination in ["/nonexistent/0002.sql", "0002_link.sql"] {  // dangling, then a loop onto itself
            let links = try MigrationsFolder()
            try links.write("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);")
            try FileManager.default.createSymbolicLink(atPath: links.path + "/0002_link.sql", withDestinationPath: destination)
            expectFileError(.fileUnreadable, file: "0002_link.sql", links)
            #expect(try SQLMigrationDirectory(path: links.path).identifiers() == ["0001_a", "0002_link"])
        }
    }

    @Test func headerLinesListMergedIdentifiersAndRowChangingTables() throws {
        let folder = try MigrationsFolder()
        try folder.write("0010_squash.sql", "-- migrate:merging 0001_a 0002_b\n-- migrate:row-changes books\n-- migrate:up\nCREATE TABLE a (x);")
        try folder.write("0011_more.up.sql", "-- migrate:merging 0003_c\n-- migrate:row-changes authors genres\nCREATE TABLE c (x);")
        let files = try folder.load()
        #expect(files.map(\.merging) == [["0001_a", "0002_b"], ["0003_c"]])
        #expect(files.map(\.rowChanges) == [["books"], ["authors", "genres"]])
        // Headers belong before the up section.
        let late = try MigrationsFolder()
        try late.write("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n-- migrate:row-changes a\n")
        expectFileError(.unsupportedOption, line: 3, late)
    }

    /// `-- migrate:compatible [from ID]` is a header line in every layout that reads
    /// headers, read once, with no argument or exactly `from ID`.
    @Test func theCompatibilityDirectiveIsAHeaderLineOfEveryForm() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_a.sql", "-- migrate:compatible\n-- migrate:up\nCREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;")
        try folder.write("0002_b.up.sql", "-- migrate:compatible from 0001_a\nCREATE TABLE b (x);")
        try folder.write("0003_c.sql", "-- migrate:up\nCREATE TABLE c (x);")
        let files = try folder.load()
        #expect(files.map(\.compatibility) == [.withOlderBuilds, .withBuildsKnowing("0001_a"), nil])

        let goose = try MigrationsFolder()
        try goose.write("00001_a.sql", "-- migrate:compatible\n-- +goose Up\nCREATE TABLE a (x);\n")
        #expect(try goose.load(layout: .goose).map(\.compatibility) == [.withOlderBuilds])

        for (text, code, line) in [("-- migrate:compatible with 0001\n-- migrate:up\nCREATE TABLE a (x);", SQLMigrationFileError.Code.unsupportedOption, 1),
                                   ("-- migrate:compatible\n-- migrate:compatible\n-- migrate:up\nCREATE TABLE a (x);", .duplicateSection, 2),
                                   ("-- migrate:up\nCREATE TABLE a (x);\n-- migrate:compatible\n", .unsupportedOption, 3)] {
            let broken = try MigrationsFolder()
            try broken.write("0001_a.sql", text)
            expectFileError(code, line: line, broken)
        }
    }

    @Test func identifiersComeFromNamesAloneEvenWhenAFileIsBroken() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_a.up.sql", "CREATE TABLE a (x);")
        try folder.write("0001_a.down.sql", "DROP TABLE a;")
        try folder.write("0002_b.sql", "-- migrate:up\n")  // still being written
        try folder.write("notes.txt", "x")
        #expect(try SQLMigrationDirectory(path: folder.path).identifiers() == ["0001_a", "0002_b"])
    }

    @Test func sectionLinesMapBackToFileLines() throws {
        let section = SQLSection(sql: "a\nb", path: "x.sql", startLine: 7)
        #expect(section.fileLine(forSectionLine: 1) == 7)
        #expect(section.fileLine(forSectionLine: 2) == 8)
    }
}

@Suite struct MigrationNumberingTests {
    @Test func styleIsReadFromTheLeadingDigits() {
        #expect(MigrationNumbering.style(of: []) == .empty)
        #expect(MigrationNumbering.style(of: ["readme"]) == .empty)
        #expect(MigrationNumbering.style(of: ["0001_a"]) == .padded(width: 4))
        #expect(MigrationNumbering.style(of: ["1_a"]) == .unpadded)
        #expect(MigrationNumbering.style(of: ["1_a", "10_b"]) == .unpadded)
        #expect(MigrationNumbering.style(of: ["20240101120000_a"]) == .timestamp)
    }

    @Test func theNextIdentifierSortsLastOrIsRefused() throws {
        let now = "20261122093000"
        #expect(try MigrationNumbering.next(after: [], slug: "x", now: now, in: "migrations") == "0001_x")
        #expect(try MigrationNumbering.next(after: ["0009_a"], slug: "x", now: now, in: "migrations") == "0010_x")
        #expect(try MigrationNumbering.next(after: ["1_a", "2_b"], slug: "x", now: now, in: "migrations") == "3_x")
        #expect(try MigrationNumbering.next(after: ["20240101120000_a"], slug: "x", now: now, in: "migrations") == "20261122093000_x")
        #expect(try MigrationNumbering.next(after: ["20261122093000_a"], slug: "x", now: now, in: "migrations") == "20261122093001_x")
        for refused in [["9_a"], ["9999_a"], ["1_a", "10_b"], ["18446744073709551615_a"], ["99999999999999999999999_a"]] {
            #expect(throws: SQLMigrationFileError.self, "\(refused)") { try MigrationNumbering.next(after: refused, slug: "x", now: now, in: "migrations") }
        }
    }
}

/// The one order a folder applies in, and the folders it refuses (`MigrationFileOrder`).
@Suite struct MigrationFileOrderTests {
    private func misnumbered(_ identifiers: [String]) -> [String]? {
        MigrationFileOrder.byteWise.misnumbered(identifiers).map { [$0.first, $0.second] }
    }

    @Test func foldersWhoseNumbersOrderAsTheirNamesPass() {
        for identifiers in [["0001_a", "0002_b", "0010_c"], ["20240101000000_a", "20240215093000_b"], ["1_a", "2_b", "9_c"],
                            ["V1__a", "V2__b", "V9__c"], ["V01__a", "V10__b"], ["create_users", "add_index"], ["1_a", "01_b"],
                            ["9_a", "V10__b"], ["1_a", "20240101000000_b"], []] {
            #expect(misnumbered(identifiers) == nil, "\(identifiers)")
        }
    }

    @Test func theFirstTwoOutOfNumberedOrderAreNamedAndTheFixPads() throws {
        #expect(misnumbered((1...10).map { "V\($0)__x\($0)" }) == ["V10__x10", "V1__x1"])
        #expect(misnumbered(["9_a", "10_b"]) == ["10_b", "9_a"])
        #expect(misnumbered(["010_a", "9_b"]) == ["010_a", "9_b"])
        #expect(misnumbered(["9_a", "20240101000000_b"]) == ["20240101000000_b", "9_a"])
        #expect(misnumbered(["step2", "step10"]) == ["step10", "step2"])
        #expect(misnumbered(["1" + String(repeating: "0", count: 30) + "_a", "2_b"]) != nil)
        #expect(MigrationFileOrder.padded("V9__a", toTheWidthOf: "V10__b") == "V09__a")
        #expect(MigrationFileOrder.padded("9_a", toTheWidthOf: "010_b") == "009_a")

        let folder = try MigrationsFolder()
        try folder.write("V1__a.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try folder.write("V10__b.up.sql", "CREATE TABLE b (x);\n")
        #expect {
            _ = try folder.load()
        } throws: { error in
            guard let error = error as? SQLMigrationFileError, error.code == .misnumbered else { return false }
            return error.path == folder.path + "/V10__b.up.sql" && error.message.contains(folder.path + "/V1__a.sql ")
                && error.message.contains("(V01__a.sql, and the others alike)")
        }
        #expect(try SQLMigrationDirectory(path: folder.path).identifiers() == ["V10__b", "V1__a"])
    }
}
