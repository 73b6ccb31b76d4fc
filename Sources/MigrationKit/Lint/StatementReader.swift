/// A name as a statement wrote it, with the token that holds it (for the line).
struct NameReference: Hashable {
    /// Unquoted, schema prefix dropped: `main."Users"` → `Users`.
    let name: String
    let tokenIndex: Int

    /// The key names compare by: SQLite matches identifiers ASCII-case-insensitively.
    var key: String { NameReference.key(name) }

    static func key(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

/// The statements whose shape lint rules and batch tracking care about; everything
/// else is `.other`.
enum StatementShape: Hashable {
    enum AlterAction: Hashable {
        case renameTable(to: NameReference)
        /// `RENAME [COLUMN] a TO b`; the index is the `RENAME` token.
        case renameColumn(at: Int)
        /// `ADD [COLUMN] definition`: the column definition's token range.
        case addColumn(definition: Range<Int>)
        /// `DROP [COLUMN] c`; the index is the `DROP` token.
        case dropColumn(column: NameReference?, at: Int)
        /// `ALTER [COLUMN] c SET|DROP NOT NULL`, `ADD [CONSTRAINT n] CHECK (…)` or
        /// `DROP CONSTRAINT n` (SQLite 3.53); the index is the action's first token.
        case changeConstraint(at: Int)
        case unknown
    }

    /// `CREATE [TEMP] [VIRTUAL] TABLE`. `columnList` is the range inside the column
    /// list's parentheses, nil for `AS SELECT` and virtual tables.
    case createTable(NameReference, columnList: Range<Int>?, isAsSelect: Bool, ifNotExists: Bool)
    case alterTable(NameReference, AlterAction)
    case dropTable(NameReference)
    /// `CREATE VIEW … AS select`; `body` is the select's token range.
    case createView(NameReference, body: Range<Int>)
    case dropView(NameReference)
    /// `INSERT … INTO t` or `REPLACE INTO t`.
    case insert(into: NameReference)
    /// `PRAGMA [schema.]name …`.
    case pragma(NameReference)
    case other
}

/// Read-only navigation over one statement's tokens, computed once and shared by
/// every rule: bounds-safe lookups, parenthesis depths, the statement's shape, and
/// its parts (a trigger's header and each statement of its body).
struct StatementReader {
    let statement: SQLStatement
    let tokens: [SQLToken]
    /// Parenthesis depth of each token; `(` and `)` carry the depth outside them.
    /// Unbalanced `)` never take it below zero.
    let depths: [Int]
    /// For each `(`, the index of its matching `)`; `tokens.count` when unclosed.
    private let closingParenthesis: [Int: Int]
    /// Each word's lowercased text (nil for other tokens), computed once so rules
    /// comparing names do not lowercase the same word again and again.
    private let wordKeys: [String?]
    /// Every word of the statement, lowercased: whether it can use a keyword or a
    /// function at all is then one set lookup, not a walk over its tokens.
    let words: Set<String>
    private(set) var shape = StatementShape.other
    /// Token ranges that are statements of their own: the whole statement, or for
    /// `CREATE TRIGGER` its header (through `BEGIN`) and each statement of its body.
    private(set) var parts: [Range<Int>] = []

    init(_ statement: SQLStatement) {
        self.statement = statement
        tokens = statement.tokens
        var depths: [Int] = []
        depths.reserveCapacity(tokens.count)
        var closing: [Int: Int] = [:]
        var open: [Int] = []
        for (index, token) in tokens.enumerated() {
            if token.isSymbol("(") {
                depths.append(open.count)
                open.append(index)
            } else if token.isSymbol(")") {
                if let opener = open.popLast() { closing[opener] = index }
                depths.append(open.count)
            } else {
                depths.append(open.count)
            }
        }
        for opener in open { closing[opener] = tokens.count }
        self.depths = depths
        closingParenthesis = closing
        wordKeys = tokens.map { $0.kind == .word ? NameReference.key($0.text) : nil }
        words = Set(wordKeys.compactMap { $0 })
        shape = parseShape()
        parts = parseParts()
    }

    // MARK: - Lookups

    func token(_ index: Int) -> SQLToken? {
        index >= 0 && index < tokens.count ? tokens[index] : nil
    }

    func isWord(_ index: Int, _ keyword: String) -> Bool {
        token(index)?.isWord(keyword) ?? false
    }

    func isSymbol(_ index: Int, _ symbol: String) -> Bool {
        token(index)?.isSymbol(symbol) ?? false
    }

    /// The lowercased text of the word at `index`; nil if it is not a word.
    func wordKey(_ index: Int) -> String? {
        index >= 0 && index < wordKeys.count ? wordKeys[index] : nil
    }

    func depth(_ index: Int) -> Int {
        index >= 0 && index < depths.count ? depths[index] : 0
    }

    /// Index of the `(` whose parentheses hold the token at `index`, if any.
    func enclosingParenthesis(of index: Int) -> Int? {
        let level = depth(index)
        guard level > 0 else { return nil }
        return stride(from: index - 1, through: 0, by: -1).first { isSymbol($0, "(") && depth($0) == level - 1 && closing($0) > index }
    }

    /// Index of the `)` closing the `(` at `index` (`tokens.count` if never closed).
    func closing(_ index: Int) -> Int {
        closingParenthesis[index] ?? tokens.count
    }

    /// Index just past `IF NOT EXISTS` / `IF EXISTS` at `index`, or `index`.
    func skippingIfExists(_ index: Int) -> (next: Int, present: Bool) {
        if isWord(index, "IF"), isWord(index + 1, "NOT"), isWord(index + 2, "EXISTS") { return (index + 3, true) }
        if isWord(index, "IF"), isWord(index + 1, "EXISTS") { return (index + 2, true) }
        return (index, false)
    }

    /// `name` or `schema.name` at `index`: the name (without schema) and the index
    /// just past it.
    func qualifiedName(at index: Int) -> (reference: NameReference, next: Int)? {
        guard let first = token(index), let firstName = first.nameValue else { return nil }
        if isSymbol(index + 1, "."), let second = token(index + 2), let secondName = second.nameValue {
            return (NameReference(name: secondName, tokenIndex: index + 2), index + 3)
        }
        return (NameReference(name: firstName, tokenIndex: index), index + 1)
    }

    /// The statement verb of a part: its first word, or after `WITH …` the first
    /// top-level SELECT/INSERT/UPDATE/DELETE/REPLACE/VALUES. Upper-cased, with its index.
    func verb(of part: Range<Int>) -> (verb: String, index: Int)? {
        guard let first = token(part.lowerBound), first.kind == .word else { return nil }
        guard first.isWord("WITH") else { return (first.text.uppercased(), part.lowerBound) }
        let baseDepth = depth(part.lowerBound)
        for index in part where depth(index) == baseDepth {
            for verb in ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "VALUES"] where isWord(index, verb) {
                return (verb, index)
            }
        }
        return nil
    }

    // MARK: - Shape

    private func parseShape() -> StatementShape {
        if isWord(0, "CREATE") {
            var index = 1
            if isWord(index, "TEMP") || isWord(index, "TEMPORARY") { index += 1 }
            if isWord(index, "VIRTUAL"), isWord(index + 1, "TABLE") {
                let (start, ifNotExists) = skippingIfExists(index + 2)
                guard let (name, _) = qualifiedName(at: start) else { return .other }
                return .createTable(name, columnList: nil, isAsSelect: false, ifNotExists: ifNotExists)
            }
            if isWord(index, "TABLE") {
                let (start, ifNotExists) = skippingIfExists(index + 1)
                guard let (name, next) = qualifiedName(at: start) else { return .other }
                if isSymbol(next, "(") {
                    return .createTable(name, columnList: (next + 1)..<closing(next), isAsSelect: false, ifNotExists: ifNotExists)
                }
                return .createTable(name, columnList: nil, isAsSelect: isWord(next, "AS"), ifNotExists: ifNotExists)
            }
            if isWord(index, "VIEW") {
                let (start, _) = skippingIfExists(index + 1)
                guard let (name, next) = qualifiedName(at: start) else { return .other }
                let asIndex = isSymbol(next, "(") ? closing(next) + 1 : next
                guard isWord(asIndex, "AS") else { return .other }
                return .createView(name, body: min(asIndex + 1, tokens.count)..<tokens.count)
            }
            return .other
        }
        if isWord(0, "DROP"), isWord(1, "TABLE") || isWord(1, "VIEW") {
            guard let (name, _) = qualifiedName(at: skippingIfExists(2).next) else { return .other }
            return isWord(1, "TABLE") ? .dropTable(name) : .dropView(name)
        }
        if isWord(0, "ALTER"), isWord(1, "TABLE"), let (name, next) = qualifiedName(at: 2) {
            return .alterTable(name, alterAction(at: next))
        }
        if isWord(0, "INSERT") || isWord(0, "REPLACE") {
            guard let into = (1..<max(1, min(4, tokens.count))).first(where: { isWord($0, "INTO") }),
                  let (name, _) = qualifiedName(at: into + 1) else { return .other }
            return .insert(into: name)
        }
        if isWord(0, "PRAGMA"), let (name, _) = qualifiedName(at: 1) {
            return .pragma(name)
        }
        return .other
    }

    private func alterAction(at index: Int) -> StatementShape.AlterAction {
        if isWord(index, "RENAME") {
            if isWord(index + 1, "TO") {
                guard let (newName, _) = qualifiedName(at: index + 2) else { return .unknown }
                return .renameTable(to: newName)
            }
            return .renameColumn(at: index)
        }
        // CONSTRAINT and CHECK are keywords no bare column name can be.
        if isWord(index, "ALTER") || (isWord(index, "ADD") && (isWord(index + 1, "CONSTRAINT") || isWord(index + 1, "CHECK")))
            || (isWord(index, "DROP") && isWord(index + 1, "CONSTRAINT")) {
            return .changeConstraint(at: index)
        }
        if isWord(index, "ADD") {
            // `ADD COLUMN x …`, or `ADD x …` (COLUMN is optional; a column may even be
            // named "column", in which case a name follows it).
            let skipsKeyword = isWord(index + 1, "COLUMN") && token(index + 2)?.nameValue != nil
            let start = min(index + (skipsKeyword ? 2 : 1), tokens.count)
            return .addColumn(definition: start..<tokens.count)
        }
        if isWord(index, "DROP") {
            let skipsKeyword = isWord(index + 1, "COLUMN") && token(index + 2)?.nameValue != nil
            let column = qualifiedName(at: index + (skipsKeyword ? 2 : 1))?.reference
            return .dropColumn(column: column, at: index)
        }
        return .unknown
    }

    // MARK: - Parts

    private func parseParts() -> [Range<Int>] {
        var cursor = 0
        if isWord(cursor, "EXPLAIN") { cursor += 1 }
        guard isWord(cursor, "CREATE") else { return [0..<tokens.count] }
        cursor += 1
        if isWord(cursor, "TEMP") || isWord(cursor, "TEMPORARY") { cursor += 1 }
        guard isWord(cursor, "TRIGGER"),
              let begin = ((cursor + 1)..<tokens.count).first(where: { isWord($0, "BEGIN") && depth($0) == 0 })
        else { return [0..<tokens.count] }
        var parts = [0..<(begin + 1)]
        let bodyEnd = isWord(tokens.count - 1, "END") ? tokens.count - 1 : tokens.count
        var start = begin + 1
        for index in start..<max(start, bodyEnd) where isSymbol(index, ";") && depth(index) == 0 {
            if start < index { parts.append(start..<index) }
            start = index + 1
        }
        if start < bodyEnd { parts.append(start..<bodyEnd) }
        return parts
    }
}
