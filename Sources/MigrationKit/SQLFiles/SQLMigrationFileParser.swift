/// Parses the text of one migration file into sections.
///
/// dbmate's form: `-- migrate:up` and an optional `-- migrate:down` line split the
/// file. Header lines before the up section (either form): `-- migrate:merging A B`
/// lists the identifiers this migration replaces; `-- migrate:row-changes T U` the
/// tables whose row counts it changes on purpose. dbmate's `transaction:false` option is
/// refused: MigrationKit runs every step in a transaction, and that is what makes a
/// failed step leave nothing behind.
public enum SQLMigrationFileParser {
    /// A `-- migrate:<name> [options]` line.
    struct Directive {
        let name: String
        let arguments: [String]
    }

    /// Parses a dbmate-style file (`NAME.sql`).
    public static func parseSections(_ text: String, identifier: String, path: String) throws -> SQLMigrationFile {
        let lines = splitLines(text)
        var merging: [String] = []
        var rowChanges: [String] = []
        var upStart: Int?
        var downStart: Int?
        for (index, line) in lines.enumerated() {
            guard let directive = directive(in: line) else { continue }
            let lineNumber = index + 1
            switch directive.name {
            case "up":
                guard upStart == nil else {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: lineNumber,
                                                message: "A second `-- migrate:up` line; a file has one up section.")
                }
                try refuseOptions(directive, path: path, line: lineNumber)
                upStart = lineNumber
            case "down":
                guard upStart != nil else {
                    throw SQLMigrationFileError(code: .upSectionMissing, path: path, line: lineNumber,
                                                message: "`-- migrate:down` comes before any `-- migrate:up` line; put the up section first.")
                }
                guard downStart == nil else {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: lineNumber,
                                                message: "A second `-- migrate:down` line; a file has one down section.")
                }
                try refuseOptions(directive, path: path, line: lineNumber)
                downStart = lineNumber
            case "merging", "row-changes":
                guard upStart == nil else {
                    throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                                message: "`-- migrate:\(directive.name)` must come before `-- migrate:up`.")
                }
                if directive.name == "merging" { merging += directive.arguments } else { rowChanges += directive.arguments }
            default:
                throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                            message: "Unknown directive `-- migrate:\(directive.name)`; use `-- migrate:up`, `-- migrate:down`, `-- migrate:merging` or `-- migrate:row-changes`.")
            }
        }
        guard let upStart else {
            throw SQLMigrationFileError(code: .upSectionMissing, path: path,
                                        message: "No `-- migrate:up` line; start the migration's SQL with one (and optionally end with a `-- migrate:down` section).")
        }
        if let stray = firstStatementLine(lines[0..<(upStart - 1)]) {
            throw SQLMigrationFileError(code: .upSectionMissing, path: path, line: stray,
                                        message: "SQL before the `-- migrate:up` line would never run; move it into the up section.")
        }
        let upEnd = (downStart ?? (lines.count + 1)) - 1
        let up = section(lines, from: upStart + 1, through: upEnd, path: path)
        try requireStatements(up, path: path, line: upStart)
        let down = downStart.map { section(lines, from: $0 + 1, through: lines.count, path: path) }
        // Comments above `-- migrate:up` are kept for lint (`-- migrationkit:nolint-file`).
        let header = upStart > 1 ? section(lines, from: 1, through: upStart - 1, path: path) : nil
        return SQLMigrationFile(identifier: identifier, form: .sections, up: up, down: down, merging: merging, rowChanges: rowChanges,
                                header: header)
    }

    /// Parses a golang-migrate/sqlx pair (`NAME.up.sql`, optional `NAME.down.sql`).
    public static func parseUpDown(upText: String, upPath: String, downText: String?, downPath: String?, identifier: String) throws -> SQLMigrationFile {
        let upLines = splitLines(upText)
        var merging: [String] = []
        var rowChanges: [String] = []
        for (index, line) in upLines.enumerated() {
            guard let directive = directive(in: line) else { continue }
            switch directive.name {
            case "merging": merging += directive.arguments
            case "row-changes": rowChanges += directive.arguments
            default:
                throw SQLMigrationFileError(code: .unsupportedOption, path: upPath, line: index + 1,
                                            message: "`-- migrate:\(directive.name)` belongs in a single NAME.sql file; an .up.sql file is all up SQL.")
            }
        }
        let up = SQLSection(sql: upText, path: upPath, startLine: 1)
        try requireStatements(up, path: upPath, line: nil)
        var down: SQLSection?
        if let downText, let downPath {
            if let index = splitLines(downText).firstIndex(where: { directive(in: $0) != nil }) {
                throw SQLMigrationFileError(code: .unsupportedOption, path: downPath, line: index + 1,
                                            message: "`-- migrate:` lines belong in a single NAME.sql file; a .down.sql file is all down SQL.")
            }
            down = SQLSection(sql: downText, path: downPath, startLine: 1)
        }
        return SQLMigrationFile(identifier: identifier, form: .upDownFiles, up: up, down: down, merging: merging, rowChanges: rowChanges)
    }

    // MARK: - Pieces

    /// Splits on "\n" bytes, keeping any "\r" at a line's end (SQLite reads it as
    /// whitespace, and the directive reader skips it). Bytes, not Characters: in Swift
    /// "\r\n" is a single Character, so a Character split on "\n" would read a whole
    /// CRLF file as one line.
    static func splitLines(_ text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// Recognises `-- migrate:name args...` (spaces after `--` optional, as in dbmate).
    /// Read as bytes: every line of every file passes here, and most are SQL (made into
    /// Characters, the lines of 300 small files cost more than reading the files).
    static func directive(in line: Substring) -> Directive? {
        line.utf8.withContiguousStorageIfAvailable(directive(in:)) ?? Array(line.utf8).withUnsafeBufferPointer(directive(in:))
    }

    private static func directive(in line: UnsafeBufferPointer<UInt8>) -> Directive? {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func starts(with prefix: StaticString, at index: Int) -> Bool {
            index + prefix.utf8CodeUnitCount <= line.count
                && (0..<prefix.utf8CodeUnitCount).allSatisfy { line[index + $0] == prefix.utf8Start[$0] }
        }
        var index = 0
        while index < line.count, isBlank(line[index]) { index += 1 }
        guard starts(with: "--", at: index) else { return nil }
        index += 2
        while index < line.count, isBlank(line[index]) { index += 1 }
        guard starts(with: "migrate:", at: index) else { return nil }
        index += 8
        let words = line[index...].split(whereSeparator: { isBlank($0) || $0 == UInt8(ascii: "\r") })
            .map { String(decoding: $0, as: UTF8.self) }
        guard let name = words.first else { return nil }
        return Directive(name: name, arguments: Array(words.dropFirst()))
    }

    private static func refuseOptions(_ directive: Directive, path: String, line: Int) throws {
        guard let option = directive.arguments.first else { return }
        if option == "transaction:false" {
            throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: line,
                                        message: "`transaction:false` is not supported: every migration runs in a transaction so that a failure leaves nothing behind; remove the option (and any statement that cannot run in a transaction, such as VACUUM).")
        }
        throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: line,
                                    message: "Unknown option `\(option)` on `-- migrate:\(directive.name)`; remove it.")
    }

    /// Lines `first` through `last` (1-based) as one text: the file's own text from the
    /// start of the first to the end of the last, the newlines between them included,
    /// since `lines` are slices of it split on "\n" alone.
    private static func section(_ lines: [Substring], from first: Int, through last: Int, path: String) -> SQLSection {
        let body = first <= last ? String(lines[first - 1].base[lines[first - 1].startIndex..<lines[last - 1].endIndex]) : ""
        return SQLSection(sql: body, path: path, startLine: first)
    }

    private static func requireStatements(_ section: SQLSection, path: String, line: Int?) throws {
        guard section.holdsStatement else {
            throw SQLMigrationFileError(code: .upSectionEmpty, path: path, line: line,
                                        message: "The up section holds no SQL; write the migration's statements, or delete the file.")
        }
    }

    /// UTF-8 offset of the first token that is not whitespace or a comment, read by the
    /// same tokenizer the linter uses (so `--` inside a string is not a comment).
    static func firstCodeOffset(_ text: String) -> Int? {
        SQLTokenizer(text).first { !$0.isTrivia }?.offset
    }

    /// The first line (1-based, within the whole file) holding something other than
    /// blanks and comments.
    private static func firstStatementLine(_ lines: ArraySlice<Substring>) -> Int? {
        let text = lines.joined(separator: "\n")
        guard let offset = Self.firstCodeOffset(text) else { return nil }
        return text.utf8.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}
