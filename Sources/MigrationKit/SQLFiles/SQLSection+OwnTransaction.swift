extension SQLSection {
    /// A section's own transaction, which the runner's takes the place of: a file
    /// written for a runner that wraps nothing (golang-migrate's `x-no-tx-wrap`, a shell
    /// script piping files to `sqlite3`) wraps its statements itself,
    ///
    ///     PRAGMA foreign_keys = OFF;
    ///     BEGIN TRANSACTION;
    ///     …
    ///     COMMIT;
    ///     PRAGMA foreign_keys = ON;
    ///
    /// The runner already runs every step in its own transaction, with foreign keys off
    /// around it and `PRAGMA foreign_key_check` before it commits, so these statements
    /// are left out where they stand (the first and last statements), as blanks that keep
    /// every other line where it is; lint says so as a note. A `BEGIN`, `COMMIT` or
    /// `PRAGMA foreign_keys` anywhere else stays in, for lint to report.
    package struct OwnTransaction: Hashable, Sendable {
        /// The file lines of the statements left out, in order: the `BEGIN`, the `COMMIT`
        /// (or `END`), and any `PRAGMA foreign_keys` beside them.
        package let lines: [Int]
        /// The file line of the `BEGIN`.
        let beginLine: Int
    }

    /// This section with its own transaction left out (`OwnTransaction`), or as it is
    /// when it has none: a `BEGIN` among its first statements and a `COMMIT` or `END`
    /// among its last, with at most a `PRAGMA foreign_keys` that switches foreign keys
    /// off before or just after the `BEGIN`, and one that switches them on just before
    /// or after the `COMMIT`.
    func leavingOutOwnTransaction() -> SQLSection {
        guard ownTransaction == nil else { return self }
        let statements = SQLStatementSplitter.split(sql)
        guard statements.count >= 2 else { return self }
        let shapes = statements.map(Self.wrapShape)
        // [fk off] BEGIN [fk off] … [fk on] COMMIT [fk on]
        var leading = 0
        if shapes[leading] == .foreignKeysOff { leading += 1 }
        guard leading < shapes.count, shapes[leading] == .begin else { return self }
        leading += 1
        if leading < shapes.count, shapes[leading] == .foreignKeysOff { leading += 1 }
        var trailing = statements.count - 1
        if trailing >= leading, shapes[trailing] == .foreignKeysOn { trailing -= 1 }
        guard trailing >= leading, shapes[trailing] == .commit else { return self }
        if trailing - 1 >= leading, shapes[trailing - 1] == .foreignKeysOn { trailing -= 1 }
        let left = Array(statements[..<leading]) + Array(statements[trailing...])

        // Each left-out statement, from its first token through the `;` after its last.
        var bytes = Array(sql.utf8)
        let code = SQLTokenizer(sql).filter { !$0.isTrivia }
        var positions: [Int: Int] = [:]
        for (index, token) in code.enumerated() { positions[token.offset] = index }
        for statement in left {
            guard let first = statement.tokens.first, let last = statement.tokens.last, let index = positions[last.offset] else { return self }
            var end = last.offset + last.text.utf8.count
            if index + 1 < code.count, code[index + 1].isSymbol(";") { end = code[index + 1].offset + 1 }
            for position in first.offset..<min(end, bytes.count) where bytes[position] != UInt8(ascii: "\n") {
                bytes[position] = UInt8(ascii: " ")
            }
        }
        let lines = left.map { fileLine(forSectionLine: $0.startLine) }
        let beginLine = fileLine(forSectionLine: statements[shapes.firstIndex(of: .begin) ?? 0].startLine)
        return SQLSection(sql: String(decoding: bytes, as: UTF8.self), path: path, startLine: startLine,
                          ownTransaction: OwnTransaction(lines: lines, beginLine: beginLine))
    }

    /// What a statement is to a wrapping transaction.
    private enum WrapShape: Equatable {
        case begin, commit, foreignKeysOff, foreignKeysOn, other
    }

    private static func wrapShape(_ statement: SQLStatement) -> WrapShape {
        let tokens = statement.tokens
        guard let first = tokens.first else { return .other }
        let rest = tokens.dropFirst()
        if first.isWord("BEGIN") {
            var words = rest[...]
            if let mode = words.first, mode.isWord("DEFERRED") || mode.isWord("IMMEDIATE") || mode.isWord("EXCLUSIVE") { words = words.dropFirst() }
            if let word = words.first, word.isWord("TRANSACTION") { words = words.dropFirst() }
            return words.isEmpty ? .begin : .other
        }
        if first.isWord("COMMIT") || first.isWord("END") {
            return rest.isEmpty || (rest.count == 1 && rest.first!.isWord("TRANSACTION")) ? .commit : .other
        }
        guard first.isWord("PRAGMA") else { return .other }
        // PRAGMA [main.]foreign_keys = value, or PRAGMA [main.]foreign_keys(value)
        var words = Array(rest)
        if words.count > 2, words[1].isSymbol("."), words[0].isWord("MAIN") { words.removeFirst(2) }
        guard words.first?.isWord("FOREIGN_KEYS") == true else { return .other }
        let value: SQLToken
        if words.count == 3, words[1].isSymbol("=") {
            value = words[2]
        } else if words.count == 4, words[1].isSymbol("("), words[3].isSymbol(")") {
            value = words[2]
        } else {
            return .other
        }
        let text = (value.kind == .string ? String(value.text.dropFirst().dropLast()) : value.text).uppercased()
        switch text {
        case "OFF", "0", "FALSE", "NO": return .foreignKeysOff
        case "ON", "1", "TRUE", "YES": return .foreignKeysOn
        default: return .other
        }
    }
}
