@testable import MigrationKit
import Testing

/// The byte-level fast paths used when loading large migration folders.
@Suite struct LoadingFastPathTests {
    static let texts: [String] = [
        "",
        "\n",
        "\n\n",
        "-- migrate:up\nCREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;\n",
        "-- migrate:up\nCREATE TABLE a (x);",
        "no newline at all",
        "e\u{301}\nthen a combining mark after a newline:\n\u{301}x\n",
        "emoji 👩‍👩‍👧 and é\n\n\ttabs\n  -- migrate:down  \n",
        "\u{2028}line separator is not \\n\u{85}\nnor NEL\n",
        "-- migrate:up\r\nCREATE TABLE a (x);\r\n",
        "lone \r in the middle\nand\r\n",
    ]

    /// Lines end at every "\n" byte, as SQLite counts lines; a "\r" before it stays at
    /// the end of its line. (A Character split would not do: "\r\n" is one Character.)
    @Test(arguments: texts)
    func splitLinesEndsALineAtEveryNewlineByte(_ text: String) {
        let expected = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        let lines = SQLMigrationFileParser.splitLines(text)
        #expect(lines.map(String.init) == expected)
        #expect(lines.count == text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1)
    }

    @Test func identifierOrderIsByteWise() {
        let identifiers = ["0002_b", "0001_a", "0001_A", "0001_é", "0001_e\u{301}", "0001_", "0010", "001", "Z", "a", "ä", "0001_a\u{0}"]
        let sorted = identifiers.sorted(by: MigrationIdentifierOrder.precedes)
        #expect(sorted == identifiers.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for lhs in identifiers {
            for rhs in identifiers {
                #expect(MigrationIdentifierOrder.precedes(lhs, rhs) == lhs.utf8.lexicographicallyPrecedes(rhs.utf8))
            }
        }
        // A string made from a substring: same order.
        let made = String(Substring("x0001_a".dropFirst()))
        #expect(MigrationIdentifierOrder.precedes(made, "0001_b"))
    }

    /// Names with control characters are refused whether or not they are ASCII
    /// (DEL, tab; C1's NEL), and printable non-ASCII names are accepted.
    @Test(arguments: ["0001_del\u{7F}", "0001_tab\t", "0001_nel\u{85}", "0001_esc\u{1B}"])
    func controlCharactersInNamesAreRefused(_ name: String) throws {
        let folder = try MigrationsFolder()
        try folder.write(name + ".sql", "-- migrate:up\nCREATE TABLE a (x);")
        // Refused for its name, and by that code: not for some other problem with the file.
        let error = #expect(throws: SQLMigrationFileError.self) { try folder.load() }
        #expect(error?.code == .invalidName)
        #expect(error?.path.hasSuffix(name + ".sql") == true)
    }

    @Test func printableNamesAreAccepted() throws {
        let folder = try MigrationsFolder()
        try folder.write("0001_café ~!@#.sql", "-- migrate:up\nCREATE TABLE a (x);")
        try folder.write("0002_日本.sql", "-- not a directive - still SQL\n-- migrate:up\nCREATE TABLE b (x); -- trailing - dash")
        #expect(try folder.load().map(\.identifier) == ["0001_café ~!@#", "0002_日本"])
    }
}
