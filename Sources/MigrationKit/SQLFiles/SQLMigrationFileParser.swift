import Foundation

/// Parses the text of one migration file into sections.
///
/// dbmate's form: `-- migrate:up` and an optional `-- migrate:down` line split the
/// file; goose's: `-- +goose Up` and an optional `-- +goose Down`. Header lines before
/// the up section (any form): `-- migrate:merging A B` lists the identifiers this
/// migration replaces; `-- migrate:row-changes T U` the tables whose row counts it
/// changes on purpose; `-- migrate:compatible [from ID]` that builds which do not know it
/// may keep using the database (`MigrationCompatibility`). dbmate's `transaction:false` option (and sqlx's `-- no-transaction`
/// first line) is a request to run outside a transaction, kept as
/// `SQLMigrationFile.noTransactionRequest`: MigrationKit runs every step in a transaction
/// all the same, since that is what makes a failed step leave nothing behind. A file's own `BEGIN` … `COMMIT` around its statements is left out
/// (`SQLSection.OwnTransaction`): the runner's transaction takes its place.
package enum SQLMigrationFileParser {
    /// A `-- migrate:<name> [options]` line.
    struct Directive {
        let name: String
        let arguments: [String]
    }

    /// The header lines every layout reads above its up SQL: `-- migrate:merging A B`,
    /// `-- migrate:row-changes T U` and `-- migrate:compatible [from ID]`.
    struct Header {
        var merging: [String] = []
        var rowChanges: [String] = []
        var compatibility: MigrationCompatibility?
        private var compatibleLine: Int?

        static let directiveNames: Set<String> = ["merging", "row-changes", "compatible"]

        /// Takes in one header line's directive, one of `directiveNames`.
        mutating func read(_ directive: Directive, path: String, line: Int) throws {
            switch directive.name {
            case "merging": merging += directive.arguments
            case "row-changes": rowChanges += directive.arguments
            default:
                if let compatibleLine {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: line,
                                                message: "A second `-- migrate:compatible` line (the first is line \(compatibleLine)); a migration declares its compatibility once.")
                }
                switch directive.arguments.count {
                case 0: compatibility = .withOlderBuilds
                case 2 where directive.arguments[0].lowercased() == "from": compatibility = .withBuildsKnowing(directive.arguments[1])
                default:
                    throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: line,
                                                message: "`-- migrate:compatible` takes no argument or `from ID`; use `-- migrate:compatible` or `-- migrate:compatible from ID`.")
                }
                compatibleLine = line
            }
        }
    }

    /// Parses a dbmate-style file (`NAME.sql`).
    package static func parseSections(_ text: String, identifier: String, path: String) throws -> SQLMigrationFile {
        try parseSections(text, identifier: identifier, path: path, version: MigrationVersion(leadingDigitsOf: identifier))
    }

    static func parseSections(_ text: String, identifier: String, path: String, version: MigrationVersion?) throws -> SQLMigrationFile {
        let lines = splitLines(text)
        var header = Header()
        var upStart: Int?
        var downStart: Int?
        var noTransaction: SQLFileLine?
        for (index, line) in lines.enumerated() {
            guard let directive = directive(in: line) else { continue }
            let lineNumber = index + 1
            switch directive.name {
            case "up":
                guard upStart == nil else {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: lineNumber,
                                                message: "A second `-- migrate:up` line; a file has one up section.")
                }
                noTransaction = try noTransactionOption(directive, path: path, line: lineNumber) ?? noTransaction
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
                let downRequest = try noTransactionOption(directive, path: path, line: lineNumber)
                noTransaction = noTransaction ?? downRequest
                downStart = lineNumber
            case let name where Header.directiveNames.contains(name):
                guard upStart == nil else {
                    throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                                message: "`-- migrate:\(directive.name)` must come before `-- migrate:up`.")
                }
                try header.read(directive, path: path, line: lineNumber)
            default:
                throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                            message: "Unknown directive `-- migrate:\(directive.name)`; use `-- migrate:up`, `-- migrate:down`, `-- migrate:merging`, `-- migrate:row-changes` or `-- migrate:compatible`.")
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
        try refuseGooseSections(lines, in: .migrationKit, path: path)
        let upEnd = (downStart ?? (lines.count + 1)) - 1
        let up = section(lines, from: upStart + 1, through: upEnd, path: path).leavingOutOwnTransaction()
        try requireStatements(up, path: path, line: upStart)
        let down = downStart.map { section(lines, from: $0 + 1, through: lines.count, path: path).leavingOutOwnTransaction() }
        // Comments above `-- migrate:up` are kept for lint (`-- migrationkit:nolint-file`).
        let headerLines = upStart > 1 ? section(lines, from: 1, through: upStart - 1, path: path) : nil
        return SQLMigrationFile(identifier: identifier, form: .sections, up: up, down: down, merging: header.merging, rowChanges: header.rowChanges,
                                compatibility: header.compatibility, version: version, noTransactionRequest: noTransaction, header: headerLines)
    }

    /// Parses a golang-migrate/sqlx pair (`NAME.up.sql`, optional `NAME.down.sql`).
    static func parseUpDown(upText: String, upPath: String, downText: String?, downPath: String?, identifier: String) throws -> SQLMigrationFile {
        try parseUpDown(upText: upText, upPath: upPath, downText: downText, downPath: downPath, identifier: identifier,
                        layout: .migrationKit, version: MigrationVersion(leadingDigitsOf: identifier))
    }

    /// Parses a migration whose up SQL is a file of its own, in `layout`: a pair
    /// (`.up.sql`, `.down.sql`), sqlx's up-only file, Flyway's `V` and `U` files, diesel's
    /// `up.sql` and `down.sql`. Every line is SQL but the header lines
    /// (`-- migrate:merging`, `-- migrate:row-changes`). In diesel's layout an up file
    /// without a statement is a step that changes nothing, as diesel runs it
    /// (`MigrationFolderLayout.upMayHoldNoStatement`).
    ///
    /// - Parameter placeholders: in Flyway's layout, the placeholders' values, replaced
    ///   in the up and down SQL as Flyway replaces them (`FlywayPlaceholders`), at `time`;
    ///   the up SQL as written is kept for the checksum (`SQLMigrationFile.writtenUp`).
    static func parseUpDown(upText: String, upPath: String, downText: String?, downPath: String?, identifier: String,
                            layout: MigrationFolderLayout, version: MigrationVersion?, noTransactionRequest: SQLFileLine? = nil,
                            placeholders: FlywayPlaceholders = FlywayPlaceholders(), time: Date = Date()) throws -> SQLMigrationFile {
        let written = upText
        let upText = layout == .flyway ? try placeholders.substitute(upText, path: upPath, time: time) ?? upText : upText
        let upLines = splitLines(upText)
        var header = Header()
        for (index, line) in upLines.enumerated() {
            guard let directive = directive(in: line) else { continue }
            switch directive.name {
            case let name where Header.directiveNames.contains(name): try header.read(directive, path: upPath, line: index + 1)
            // In another tool's layout, a comment to that tool; but a down section's line
            // would have its down SQL run with the up SQL.
            case let name where layout != .migrationKit && name != "down": break
            default:
                throw misplacedDirective(directive.name, in: layout, path: upPath, line: index + 1, isUp: true)
            }
        }
        try refuseGooseSections(upLines, in: layout, path: upPath)
        let up = SQLSection(sql: upText, path: upPath, startLine: 1).leavingOutOwnTransaction()
        let writtenUp = written == upText ? nil : SQLSection(sql: written, path: upPath, startLine: 1).leavingOutOwnTransaction()
        // sqlx runs a file that starts with `-- no-transaction` outside a transaction.
        let noTransactionRequest = noTransactionRequest
            ?? (layout == .sqlx && upText.hasPrefix("-- no-transaction") ? SQLFileLine(path: upPath, line: 1) : nil)
        if !layout.upMayHoldNoStatement { try requireStatements(up, path: upPath, line: nil) }
        var down: SQLSection?
        if let writtenDown = downText, let downPath {
            let downText = layout == .flyway ? try placeholders.substitute(writtenDown, path: downPath, time: time) ?? writtenDown : writtenDown
            let downLines = splitLines(downText)
            if let index = downLines.firstIndex(where: { directive(in: $0).map { layout == .migrationKit || $0.name == "down" } ?? false }),
               let found = directive(in: downLines[index]) {
                throw misplacedDirective(found.name, in: layout, path: downPath, line: index + 1, isUp: false)
            }
            try refuseGooseSections(downLines, in: layout, path: downPath)
            down = SQLSection(sql: downText, path: downPath, startLine: 1).leavingOutOwnTransaction()
        }
        return SQLMigrationFile(identifier: identifier, form: .upDownFiles, up: up, down: down, merging: header.merging, rowChanges: header.rowChanges,
                                compatibility: header.compatibility, layout: layout, version: version, noTransactionRequest: noTransactionRequest, writtenUp: writtenUp)
    }

    /// A `-- migrate:` line other than a header in a file that is all up (or all down)
    /// SQL: in MigrationKit's own layout it belongs in a single NAME.sql file; in
    /// another tool's, `-- migrate:down` is a section line that tool does not read, so
    /// the down SQL after it would run as up SQL (any other is a comment to that tool).
    private static func misplacedDirective(_ name: String, in layout: MigrationFolderLayout, path: String, line: Int, isUp: Bool) -> SQLMigrationFileError {
        guard layout == .migrationKit else {
            return SQLMigrationFileError(code: .unsupportedOption, path: path, line: line, advice: Advice(
                situation: "`-- migrate:\(name)` is a line of MigrationKit's (dbmate's) layout, but this folder is read in \(layout.possessive), "
                    + "where this file is all \(isUp ? "up" : "down") SQL, so what follows the line would run as \(isUp ? "up" : "down") SQL too",
                otherwise: "put the down SQL where \(layout.possessive) layout keeps it (\(layout.namingInWords))", remedy: .nameMigrationsLayout))
        }
        if isUp {
            return SQLMigrationFileError(code: .unsupportedOption, path: path, line: line,
                                         message: "`-- migrate:\(name)` belongs in a single NAME.sql file; an .up.sql file is all up SQL.")
        }
        return SQLMigrationFileError(code: .unsupportedOption, path: path, line: line,
                                     message: "`-- migrate:` lines belong in a single NAME.sql file; a .down.sql file is all down SQL.")
    }

    /// goose's `-- +goose Down` line in a file of another layout: a section line that
    /// layout does not read, so the down SQL after it would run with the up SQL.
    private static func refuseGooseSections(_ lines: [Substring], in layout: MigrationFolderLayout, path: String) throws {
        for (index, line) in lines.enumerated() {
            let sqlMigrateDown = layout != .sqlMigrate && sqlMigrateAnnotation(in: line)?.first == "Down"
            guard gooseAnnotation(in: line) == "down" || sqlMigrateDown else { continue }
            throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: index + 1, advice: Advice(
                situation: "`\(sqlMigrateDown ? "-- +migrate Down" : "-- +goose Down")` is a line of \(sqlMigrateDown ? "sql-migrate's" : "goose's") layout, but this folder is read in \(layout.possessive), "
                    + "which does not split a file there, so the down SQL after it would run with the up SQL",
                otherwise: "put the down SQL where \(layout.possessive) layout keeps it (\(layout.namingInWords))", remedy: .nameMigrationsLayout))
        }
    }

    // MARK: - goose

    /// Parses a goose file (`VERSION_NAME.sql`): `-- +goose Up`, an optional
    /// `-- +goose Down`, with `StatementBegin`/`StatementEnd` around statements that hold
    /// `;` (read as SQLite cuts statements, the lines themselves are comments), and
    /// `NO TRANSACTION` recorded for lint (the runner runs every step in its own
    /// transaction). `ENVSUB ON` is refused: the SQL goose runs would then depend on the
    /// environment, and a checksum or a lint of the file as written would say nothing
    /// of it. Annotations are goose's: a line that starts with `--`, then `+goose` and
    /// the annotation in any case.
    static func parseGoose(_ text: String, identifier: String, path: String, version: MigrationVersion?) throws -> SQLMigrationFile {
        let lines = splitLines(text)
        var header = Header()
        var upLine: Int?
        var downLine: Int?
        var openBlock: Int?
        var noTransaction: SQLFileLine?
        for (index, line) in lines.enumerated() {
            let lineNumber = index + 1
            if let directive = directive(in: line) {
                switch directive.name {
                case let name where Header.directiveNames.contains(name) && upLine == nil:
                    try header.read(directive, path: path, line: lineNumber)
                case let name where Header.directiveNames.contains(name):
                    throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                                message: "`-- migrate:\(directive.name)` must come before `-- +goose Up`.")
                case "down":
                    throw misplacedDirective(directive.name, in: .goose, path: path, line: lineNumber, isUp: downLine == nil)
                default:
                    break
                }
                continue
            }
            guard let annotation = gooseAnnotation(in: line) else { continue }
            switch annotation {
            case "up":
                guard upLine == nil else {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: lineNumber,
                                                message: "A second `-- +goose Up` line; a goose file has one up section.")
                }
                if let stray = firstStatementLine(lines[0..<index]) {
                    throw SQLMigrationFileError(code: .upSectionMissing, path: path, line: stray,
                                                message: "SQL before the `-- +goose Up` line, which goose refuses and would never run; move it into the up section.")
                }
                upLine = lineNumber
            case "down":
                guard upLine != nil else {
                    throw SQLMigrationFileError(code: .upSectionMissing, path: path, line: lineNumber,
                                                message: "`-- +goose Down` comes before any `-- +goose Up` line; put the up section first.")
                }
                guard downLine == nil else {
                    throw SQLMigrationFileError(code: .duplicateSection, path: path, line: lineNumber,
                                                message: "A second `-- +goose Down` line; a goose file has one down section.")
                }
                if let openBlock { throw unclosedBlock(path: path, line: openBlock) }
                downLine = lineNumber
            case "statementbegin":
                guard upLine != nil, openBlock == nil else {
                    throw SQLMigrationFileError(code: .misplacedDirective, path: path, line: lineNumber,
                                                message: openBlock == nil ? "`-- +goose StatementBegin` comes before `-- +goose Up`; put it inside the up or down section."
                                                    : "A second `-- +goose StatementBegin` before the `-- +goose StatementEnd` of the one on line \(openBlock!); end the first one.")
                }
                openBlock = lineNumber
            case "statementend":
                guard openBlock != nil else {
                    throw SQLMigrationFileError(code: .misplacedDirective, path: path, line: lineNumber,
                                                message: "`-- +goose StatementEnd` without a `-- +goose StatementBegin` before it; add the StatementBegin line where the statement starts.")
                }
                openBlock = nil
            case "no transaction":
                noTransaction = noTransaction ?? SQLFileLine(path: path, line: lineNumber)
            case "envsub off", "envsubst off":
                break
            case "envsub on", "envsubst on":
                throw SQLMigrationFileError(code: .unsupportedFeature, path: path, line: lineNumber,
                                            message: "`-- +goose ENVSUB ON` has goose put environment variables into the SQL before it runs, and MigrationKit runs the SQL as it is written (its checksum and lint are of that text); write the values into the migration.")
            default:
                throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                            message: "`-- +goose \(annotation)` is not an annotation goose reads (Up, Down, StatementBegin, StatementEnd, NO TRANSACTION, ENVSUB ON/OFF); correct it.")
            }
        }
        guard let upLine else {
            throw SQLMigrationFileError(code: .upSectionMissing, path: path,
                                        message: "No `-- +goose Up` line; goose files start their up SQL with one (and their down SQL with `-- +goose Down`).")
        }
        if let openBlock { throw unclosedBlock(path: path, line: openBlock) }
        return try annotatedFile(lines, upLine: upLine, downLine: downLine, identifier: identifier, path: path, layout: .goose, version: version,
                                 noTransaction: noTransaction, header: header)
    }

    /// A file its tool's annotation lines cut (goose's, sql-migrate's): the up SQL after
    /// `upLine` up to `downLine`, the down SQL after that; the lines above `upLine`, which
    /// run nothing, kept for lint (`-- migrationkit:nolint-file`).
    private static func annotatedFile(_ lines: [Substring], upLine: Int, downLine: Int?, identifier: String, path: String, layout: MigrationFolderLayout,
                                      version: MigrationVersion?, noTransaction: SQLFileLine?, header directives: Header = Header()) throws -> SQLMigrationFile {
        let upEnd = (downLine ?? (lines.count + 1)) - 1
        let up = section(lines, from: upLine + 1, through: upEnd, path: path).leavingOutOwnTransaction()
        try requireStatements(up, path: path, line: upLine)
        let down = downLine.map { section(lines, from: $0 + 1, through: lines.count, path: path).leavingOutOwnTransaction() }
        let header = upLine > 1 ? section(lines, from: 1, through: upLine - 1, path: path) : nil
        return SQLMigrationFile(identifier: identifier, form: .sections, up: up, down: down, merging: directives.merging,
                                rowChanges: directives.rowChanges, compatibility: directives.compatibility, layout: layout, version: version,
                                noTransactionRequest: noTransaction, header: header)
    }

    // MARK: - sql-migrate

    /// sql-migrate's annotation on `line`, its words (`["Up", "notransaction"]`), or nil:
    /// sql-migrate reads a line that starts with exactly `-- +migrate `, in that case.
    static func sqlMigrateAnnotation(in line: Substring) -> [Substring]? {
        guard line.utf8.starts(with: "-- +migrate ".utf8) else { return nil }
        let words = line.dropFirst(12).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        return words.isEmpty ? nil : Array(words)
    }

    /// Whether some line of `text` is an sql-migrate annotation.
    static func holdsSQLMigrateAnnotation(_ text: String) -> Bool {
        splitLines(text).contains { sqlMigrateAnnotation(in: $0) != nil }
    }

    /// Parses an sql-migrate file: `-- +migrate Up` and an optional `-- +migrate Down`
    /// (with `notransaction`, recorded for lint: the runner runs every step in its own
    /// transaction), `StatementBegin`/`StatementEnd` around statements that hold `;`
    /// (read as SQLite cuts statements; the lines are comments). What comes before the
    /// first `Up` sql-migrate never runs, as here. A second `Up` or `Down` section, which
    /// sql-migrate would join to the first, is refused: one file, one up and one down.
    static func parseSQLMigrate(_ text: String, identifier: String, path: String, version: MigrationVersion?) throws -> SQLMigrationFile {
        let lines = splitLines(text)
        var (upLine, downLine, openBlock): (Int?, Int?, Int?) = (nil, nil, nil)
        var noTransaction: SQLFileLine?
        for (index, words) in lines.enumerated().compactMap({ line in sqlMigrateAnnotation(in: line.element).map { (line.offset, $0) } }) {
            let lineNumber = index + 1
            switch words[0] {
            case "Up", "Down":
                let isUp = words[0] == "Up"
                guard (isUp ? upLine : downLine) == nil, isUp || upLine != nil else {
                    throw SQLMigrationFileError(code: isUp || upLine != nil ? .duplicateSection : .upSectionMissing, path: path, line: lineNumber,
                                                message: isUp || upLine != nil ? "A second `-- +migrate \(words[0])` line; write the file with one up section and one down section."
                                                    : "`-- +migrate Down` comes before any `-- +migrate Up` line; put the up section first.")
                }
                if let openBlock { throw unclosedBlock(path: path, line: openBlock, annotation: "-- +migrate") }
                if words.dropFirst().contains("notransaction") { noTransaction = noTransaction ?? SQLFileLine(path: path, line: lineNumber) }
                if isUp { upLine = lineNumber } else { downLine = lineNumber }
            case "StatementBegin":
                openBlock = openBlock ?? lineNumber
            case "StatementEnd":
                openBlock = nil
            default:
                throw SQLMigrationFileError(code: .unsupportedOption, path: path, line: lineNumber,
                                            message: "`-- +migrate \(words[0])` is not an annotation sql-migrate reads (Up, Down, StatementBegin, StatementEnd); correct it.")
            }
        }
        guard let upLine else {
            throw SQLMigrationFileError(code: .upSectionMissing, path: path,
                                        message: "No `-- +migrate Up` line; sql-migrate files start their up SQL with one (and their down SQL with `-- +migrate Down`).")
        }
        if let openBlock { throw unclosedBlock(path: path, line: openBlock, annotation: "-- +migrate") }
        return try annotatedFile(lines, upLine: upLine, downLine: downLine, identifier: identifier, path: path, layout: .sqlMigrate, version: version,
                                 noTransaction: noTransaction)
    }

    /// A `StatementBegin` (goose's, or sql-migrate's with `annotation` `-- +migrate`)
    /// without its `StatementEnd`.
    private static func unclosedBlock(path: String, line: Int, annotation: String = "-- +goose") -> SQLMigrationFileError {
        SQLMigrationFileError(code: .misplacedDirective, path: path, line: line,
                              message: "This `\(annotation) StatementBegin` has no `\(annotation) StatementEnd` after it in its section; add one where the statement ends.")
    }

    /// goose's annotation on `line`, lower-cased with single spaces (`no transaction`),
    /// or nil: goose reads a line that starts with `--` (no leading blank), then
    /// `+goose`, in any case.
    static func gooseAnnotation(in line: Substring) -> String? {
        // Bytes first: every line of every file is asked, and most are SQL.
        guard line.utf8.starts(with: "--".utf8), line.utf8.dropFirst(2).contains(UInt8(ascii: "+")) else { return nil }
        let words = line.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = words.first, first.lowercased() == "+goose" else { return nil }
        return words.dropFirst().map { $0.lowercased() }.joined(separator: " ")
    }

    /// Whether some line of `text` is a goose annotation.
    static func holdsGooseAnnotation(_ text: String) -> Bool {
        splitLines(text).contains { gooseAnnotation(in: $0) != nil }
    }

    /// Whether some line of `text` is `-- migrate:up` or `-- migrate:down`: a file of
    /// MigrationKit's (dbmate's) layout.
    static func holdsSectionDirective(_ text: String) -> Bool {
        splitLines(text).contains { line in
            guard let name = directive(in: line)?.name else { return false }
            return name == "up" || name == "down"
        }
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

    /// The line of dbmate's `transaction:false` on a section line, a request to run
    /// outside a transaction; any other option is refused.
    private static func noTransactionOption(_ directive: Directive, path: String, line: Int) throws -> SQLFileLine? {
        guard let option = directive.arguments.first else { return nil }
        if option == "transaction:false", directive.arguments.count == 1 {
            return SQLFileLine(path: path, line: line)
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
                                        message: "The up section holds no SQL; write the migration's statements (a migration that changes nothing says so with `SELECT 1;`).")
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
