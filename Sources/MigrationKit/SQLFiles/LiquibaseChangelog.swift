/// Liquibase's formatted SQL changelogs, read as Liquibase's `FormattedSqlChangeLogParser`
/// reads them: a file whose first line that is not blank is `--liquibase formatted sql`,
/// cut into changesets at each `--changeset author:id` line, each changeset's SQL being its
/// lines but Liquibase's own (`--rollback`, `--comment`, `--validCheckSum`, a
/// `/* liquibase rollback */` block). A folder of such files is read as a master changelog's
/// `includeAll` reads it: the files in byte-wise order of their names, each one's changesets
/// in the file's order. Every changeset is a migration, identified as Liquibase identifies
/// it: `FILE::ID::AUTHOR`, `FILE` the file's name (or its `logicalFilePath`'s last part),
/// what `DATABASECHANGELOG`'s `FILENAME` ends with. The one place that reads them.
///
/// What Liquibase decides at run time, which a migration applied once in order cannot
/// (`runOnChange`, `runAlways`, `context`, `labels`, a `dbms` other than SQLite,
/// preconditions, `${property}` values, `ignore`), is refused naming the line.
enum LiquibaseChangelog {
    /// One changeset.
    struct Changeset {
        let id: String
        let author: String
        /// The last part of the file path Liquibase records for it.
        let fileName: String
        /// The `--changeset` line.
        let line: Int
        /// Its SQL as Liquibase takes it (its lines but Liquibase's own), which its
        /// checksum is of.
        let sql: String
        /// Its lines as they are, from the one after `--changeset` to the one before the
        /// next: what runs (Liquibase's own lines are comments to SQLite).
        let up: SQLSection
        /// Its `--rollback` SQL, its lines where they stand; `SELECT 1;` for Liquibase's
        /// `--rollback not required` (or `empty`), a rollback that does nothing; nil when it
        /// has none.
        let down: SQLSection?
        /// `runInTransaction:false`.
        let noTransactionRequest: SQLFileLine?
        /// Its `--validCheckSum` lines' values: recorded checksums Liquibase takes as its
        /// own (`ANY` for any).
        let validChecksums: [String]

        /// The migration's identifier: Liquibase's `FILE::ID::AUTHOR`.
        var identifier: String { LiquibaseChangelog.identifier(fileName: fileName, id: id, author: author) }
    }

    /// The folder's changesets as migrations, in the order Liquibase's `includeAll` applies
    /// them, every problem appended to `problems`. A `.sql` file that is not a formatted
    /// SQL changelog (which `includeAll` would run whole, as one changeset of its own), a
    /// changelog in another format (which a master changelog would place in its own order)
    /// and a folder (which `includeAll` reads too) are problems.
    static func migrations(in candidates: [MigrationFolderLayout.Candidate], problems: inout [SQLMigrationFileError]) -> [SQLMigrationFile] {
        var files: [SQLMigrationFile] = []
        for candidate in candidates {
            if candidate.isFolder {
                problems.append(SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path,
                                                      message: "Liquibase's `includeAll` reads this folder's changelogs too, in the order of their paths, and MigrationKit reads one folder; move its changelogs into the migrations folder (named so that their names sort in that order), or the folder out of it."))
                continue
            }
            if [".xml", ".yaml", ".yml", ".json"].contains(where: candidate.name.hasSuffix) {
                problems.append(SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path,
                                                      message: "This is a Liquibase changelog in another format than formatted SQL, which MigrationKit does not read, and which a master changelog places in its own order; write its changesets as formatted SQL (`--liquibase formatted sql`, a `--changeset author:id` line each), or move it out of the migrations folder."))
                continue
            }
            guard candidate.name.hasSuffix(".sql"), let text = candidate.text else { continue }
            guard isFormatted(text) else {
                problems.append(SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path,
                                                      message: "This file does not start with `--liquibase formatted sql`, so Liquibase's `includeAll` would run it whole, as one changeset of its own, and MigrationKit does not; start it with that line and a `--changeset author:id` line, or move it out of the migrations folder."))
                continue
            }
            do {
                for changeset in try changesets(in: text, fileName: candidate.name, path: candidate.path) {
                    files.append(SQLMigrationFile(identifier: changeset.identifier, form: .sections, up: changeset.up, down: changeset.down,
                                                  layout: .liquibase, noTransactionRequest: changeset.noTransactionRequest))
                }
            } catch let error as SQLMigrationFileError {
                problems.append(error)
            } catch {
                // `changesets` throws only SQLMigrationFileError.
            }
        }
        return files
    }

    /// `FILE::ID::AUTHOR`, with `FILE` the last part of `filePath`: how a changeset is
    /// named here and in `DATABASECHANGELOG`'s rows.
    static func identifier(fileName filePath: String, id: String, author: String) -> String {
        let name = filePath.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? filePath
        return "\(name)::\(id)::\(author)"
    }

    /// Whether `text` is a formatted SQL changelog: its first line that is not blank is
    /// `--liquibase formatted …` (any case, blanks around the words).
    static func isFormatted(_ text: String) -> Bool {
        guard let first = SQLMigrationFileParser.splitLines(text).first(where: { !$0.allSatisfy(\.isWhitespace) }) else { return false }
        var words = Words(first)
        words.skipBlanks()
        guard words.take("--") else { return false }
        words.skipBlanks()
        guard words.takeWord(caseInsensitive: "liquibase") else { return false }
        words.skipBlanks()
        return words.takeWord(caseInsensitive: "formatted")
    }

    /// The changesets of the file at `path`, named `fileName`, in its order.
    static func changesets(in text: String, fileName: String, path: String) throws -> [Changeset] {
        let lines = SQLMigrationFileParser.splitLines(text)
        var changesets: [Changeset] = []
        var logicalFile: String?
        var open: (header: Header, line: Int)?
        var sqlLines: [Substring] = []
        var rollback: [(line: Int, sql: String)] = []
        var notRequired: Int?
        var validChecksums: [String] = []
        func close(at end: Int) throws {
            guard let (header, headerLine) = open else { return }
            let sql = sqlLines.joined(separator: "\n").trimmingBlanks()
            guard !sql.isEmpty else {
                throw SQLMigrationFileError(code: .upSectionEmpty, path: path, line: headerLine,
                                            message: "This changeset holds no SQL, which Liquibase refuses; write its statements.")
            }
            let body = headerLine < end ? section(lines, from: headerLine + 1, through: end, path: path) : SQLSection(sql: "", path: path, startLine: headerLine + 1)
            var down: SQLSection?
            if let first = rollback.first, let last = rollback.last {
                var text: [String] = []
                for number in first.line...last.line { text.append(rollback.first { $0.line == number }?.sql ?? "") }
                down = SQLSection(sql: text.joined(separator: "\n") + "\n", path: path, startLine: first.line)
            } else if let notRequired {
                down = SQLSection(sql: "SELECT 1;", path: path, startLine: notRequired)
            }
            changesets.append(Changeset(id: header.id, author: header.author, fileName: header.logicalFile ?? logicalFile ?? fileName, line: headerLine,
                                        sql: sql, up: body, down: down,
                                        noTransactionRequest: header.runsOutsideTransaction ? SQLFileLine(path: path, line: headerLine) : nil,
                                        validChecksums: validChecksums))
        }
        var index = 0
        while index < lines.count {
            let line = lines[index], number = index + 1
            index += 1
            if open == nil, logicalFile == nil, isFormatted(String(line)), let value = attributes(of: line)["logicalfilepath"] {
                logicalFile = value
            }
            switch try metadata(of: line, path: path, line: number) {
            case .changeset(let header):
                try close(at: number - 1)
                open = (header, number)
                sqlLines = []
                rollback = []
                notRequired = nil
                validChecksums = []
            case .rollback(let sql) where open != nil:
                let trimmed = sql.trimmingBlanks().lowercased()
                if rollback.isEmpty && (trimmed.hasPrefix("not required") || trimmed.hasPrefix("empty")) {
                    notRequired = number
                } else if trimmed.contains("changesetid") {
                    throw refusal(path, number, "This rollback names another changeset to undo this one with (`changesetId`), which MigrationKit does not read; write its rollback SQL here")
                } else {
                    rollback.append((number, String(sql)))
                }
            case .rollbackBlock where open != nil:
                // Up to the line that ends the comment, as Liquibase reads it.
                var collected: [(Int, String)] = []
                var closed = false
                while index < lines.count {
                    let inner = lines[index]
                    index += 1
                    if let end = Self.commentEnd(in: inner) {
                        collected.append((index, String(inner[..<end])))
                        closed = true
                        break
                    }
                    collected.append((index, String(inner)))
                }
                guard closed else { throw refusal(path, number, "This `/* liquibase rollback` comment is not closed, which Liquibase refuses; end it with `*/`") }
                rollback += collected
            case .validChecksum(let value) where open != nil:
                validChecksums.append(value.trimmingBlanks())
            case .ignored where open != nil:
                break
            case .sql, .rollback, .rollbackBlock, .validChecksum, .ignored:
                if open != nil { sqlLines.append(line) }
            }
        }
        try close(at: lines.count)
        return changesets
    }

    /// Liquibase's checksum of a changeset, as `DATABASECHANGELOG.MD5SUM` records it
    /// (checksum version 9): the MD5 of `9:` and the MD5 of its SQL's UTF-8 bytes without
    /// spaces, tabs and line breaks, then `:` (a changeset's checksum is made of its one
    /// change's), as lowercase hex after `9:`.
    static func checksum(ofSQL sql: String) -> String {
        let change = MigrationChecksum.hex(Digest.md5(sql.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }))
        return "9:" + MigrationChecksum.hex(Digest.md5(Array("9:\(change):".utf8)))
    }

    // MARK: - Lines

    /// A `--changeset` line's parts.
    struct Header {
        let author: String
        let id: String
        let logicalFile: String?
        let runsOutsideTransaction: Bool
    }

    /// What a line is to Liquibase.
    private enum Metadata {
        case changeset(Header)
        /// `--rollback SQL`.
        case rollback(Substring)
        /// `/* liquibase rollback`, starting a block that runs to `*/`.
        case rollbackBlock
        /// `--validCheckSum VALUE`.
        case validChecksum(Substring)
        /// Liquibase's own, not SQL: `--comment`.
        case ignored
        case sql
    }

    private static func metadata(of line: Substring, path: String, line number: Int) throws -> Metadata {
        var words = Words(line)
        let indented = words.skipBlanks()
        if words.take("/*") {
            words.skipBlanks()
            guard words.takeWord(caseInsensitive: "liquibase") else { return .sql }
            words.skipBlanks()
            guard words.takeWord(caseInsensitive: "rollback"), words.rest.allSatisfy(\.isWhitespace) else { return .sql }
            return .rollbackBlock
        }
        guard words.take("--") else { return .sql }
        words.skipBlanks()
        let rest = words.rest
        let lowered = rest.lowercased()
        if lowered.hasPrefix("changeset") {
            return .changeset(try header(rest.dropFirst("changeset".count), line: line, path: path, number: number))
        }
        if lowered.hasPrefix("rollback ") { return .rollback(rest.dropFirst("rollback ".count)) }
        if !indented, lowered.hasPrefix("comment ") || lowered.hasPrefix("comment: ") { return .ignored }
        if !indented, lowered.hasPrefix("validchecksum ") || lowered.hasPrefix("validchecksum: ") {
            return .validChecksum(rest.dropFirst(lowered.hasPrefix("validchecksum ") ? 14 : 15))
        }
        if lowered.hasPrefix("precondition") {
            throw refusal(path, number, "Liquibase checks this precondition when it runs the changeset, and runs, skips or marks it by the answer; MigrationKit applies each migration once, in order, with no such check: remove the precondition (or the changeset, where every database is past it)")
        }
        if lowered.hasPrefix("property") {
            throw refusal(path, number, "This property's value replaces `${…}` in the changesets as Liquibase reads them; MigrationKit runs the SQL as written: write the value in place (Liquibase's checksum is of the SQL with it, so it stays the same)")
        }
        if !indented, lowered.hasPrefix("ignorelines:") {
            throw refusal(path, number, "Liquibase leaves these lines out of the changelog, and MigrationKit does not read `--ignoreLines`: remove the lines, or move them out of the migrations folder")
        }
        return .sql
    }

    /// A `--changeset author:id attributes…` line's parts (`rest` follows `changeset`).
    private static func header(_ rest: Substring, line: Substring, path: String, number: Int) throws -> Header {
        var words = Words(rest)
        guard words.skipBlanks() else {
            throw refusal(path, number, "Liquibase reads a `--changeset` line as `--changeset author:id`, and refuses this one; write it so")
        }
        guard let author = words.quotedOrUpTo(":"), words.take(":") else {
            throw refusal(path, number, "Liquibase reads a `--changeset` line as `--changeset author:id`, and refuses this one; write it so")
        }
        words.skipBlanks()
        guard var id = words.quotedOrUpToBlank(), !id.isEmpty, !author.isEmpty else {
            throw refusal(path, number, "Liquibase reads a `--changeset` line as `--changeset author:id`, and refuses this one; write it so")
        }
        if id.count >= 2, id.hasPrefix("\""), id.hasSuffix("\"") { id = String(id.dropFirst().dropLast()) }
        let values = attributes(of: line)
        func isTrue(_ key: String) -> Bool { values[key]?.lowercased() == "true" }
        func isSet(_ key: String) -> Bool { !(values[key]?.isEmpty ?? true) }
        if isTrue("runonchange") || isTrue("runalways") {
            throw refusal(path, number, "Liquibase runs this changeset again \(isTrue("runalways") ? "at every update" : "whenever it changes") (`\(isTrue("runalways") ? "runAlways" : "runOnChange"):true`), and MigrationKit applies each migration once, in order: make it a changeset that runs once, or run it outside the migrations")
        }
        if isSet("context") || isSet("contextfilter") || isSet("labels") {
            throw refusal(path, number, "Liquibase runs this changeset only when its update is given a matching `--contexts` or `--labels`, which MigrationKit cannot know; remove the \(isSet("labels") ? "labels" : "context"), or move the changeset to a changelog of its own")
        }
        if let dbms = values["dbms"], !dbms.isEmpty {
            let names = dbms.lowercased().split(separator: ",").map { $0.trimmingBlanks() }
            guard names.contains(where: { $0 == "sqlite" || $0 == "all" }), !names.contains("!sqlite") else {
                throw refusal(path, number, "This changeset is for `dbms:\(dbms)`, which Liquibase does not run on SQLite; move it to a changelog of that database's")
            }
        }
        if isTrue("ignore") {
            throw refusal(path, number, "Liquibase passes over this changeset (`ignore:true`); remove it from the migrations folder")
        }
        if isSet("runwith") || values["failonerror"]?.lowercased() == "false" {
            throw refusal(path, number, "Liquibase runs this changeset \(isSet("runwith") ? "with another program (`runWith`)" : "and goes on when it fails (`failOnError:false`)"), which MigrationKit does not; remove the attribute")
        }
        return Header(author: author, id: id, logicalFile: values["logicalfilepath"].flatMap { $0.isEmpty ? nil : $0 },
                      runsOutsideTransaction: values["runintransaction"]?.lowercased() == "false")
    }

    /// A line's `name:value` attributes, by lowercased name, their values without the
    /// quotes around them.
    private static func attributes(of line: Substring) -> [String: String] {
        var values: [String: String] = [:]
        var words = Words(line)
        while words.skipBlanks() || !words.rest.isEmpty {
            guard let token = words.quotedOrUpToBlank() else { break }
            guard let colon = token.firstIndex(of: ":") else { continue }
            let name = token[..<colon].lowercased()
            var value = token[token.index(after: colon)...]
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            if values[name] == nil { values[name] = String(value) }
        }
        return values
    }

    /// Where `*/` starts in a line that ends with it (blanks after it aside), as
    /// Liquibase ends a rollback block; nil for another line.
    private static func commentEnd(in line: Substring) -> Substring.Index? {
        let trimmed = line.prefix(line.count - line.reversed().prefix { $0 == " " || $0 == "\t" || $0 == "\r" }.count)
        guard trimmed.hasSuffix("*/") else { return nil }
        return trimmed.index(trimmed.endIndex, offsetBy: -2)
    }

    private static func refusal(_ path: String, _ line: Int, _ what: String) -> SQLMigrationFileError {
        SQLMigrationFileError(code: .unsupportedFeature, path: path, line: line, message: what + ".")
    }

    /// Lines `first` through `last` (1-based) as one text, as they are in the file.
    private static func section(_ lines: [Substring], from first: Int, through last: Int, path: String) -> SQLSection {
        SQLSection(sql: String(lines[first - 1].base[lines[first - 1].startIndex..<lines[last - 1].endIndex]), path: path, startLine: first)
    }

    /// A cursor over a line's characters.
    private struct Words {
        var rest: Substring

        init(_ text: Substring) { rest = text }

        /// Skips blanks; whether there were any.
        @discardableResult mutating func skipBlanks() -> Bool {
            let blanks = rest.prefix { $0 == " " || $0 == "\t" || $0 == "\r" }
            rest = rest.dropFirst(blanks.count)
            return !blanks.isEmpty
        }

        mutating func take(_ text: String) -> Bool {
            guard rest.hasPrefix(text) else { return false }
            rest = rest.dropFirst(text.count)
            return true
        }

        mutating func takeWord(caseInsensitive word: String) -> Bool {
            guard rest.prefix(word.count).lowercased() == word else { return false }
            rest = rest.dropFirst(word.count)
            return true
        }

        /// A `"quoted"` value (without its quotes), or the characters up to `stop`.
        mutating func quotedOrUpTo(_ stop: Character) -> String? {
            if rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") {
                let value = rest[rest.index(after: rest.startIndex)..<end]
                rest = rest[rest.index(after: end)...]
                return String(value)
            }
            let value = rest.prefix { $0 != stop }
            guard !value.isEmpty, value.endIndex < rest.endIndex else { return nil }
            rest = rest[value.endIndex...]
            return String(value)
        }

        /// A `"quoted"` value (with its quotes), or the characters up to a blank.
        mutating func quotedOrUpToBlank() -> String? {
            guard !rest.isEmpty else { return nil }
            var inQuotes = false
            let value = rest.prefix { character in
                if character == "\"" { inQuotes.toggle() }
                return inQuotes || !(character == " " || character == "\t" || character == "\r")
            }
            rest = rest[value.endIndex...]
            return String(value)
        }
    }
}

extension StringProtocol {
    /// The text without blanks (spaces, tabs, line breaks) at either end.
    fileprivate func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
