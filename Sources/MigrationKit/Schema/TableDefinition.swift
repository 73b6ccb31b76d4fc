/// A `CREATE TABLE` statement cut into the parts a migration writer reasons about: its
/// name, the items between its parentheses (column definitions and table constraints,
/// each with its source text), and the options after them (`WITHOUT ROWID`, `STRICT`).
///
/// Cut with the tokenizer, never with substrings, so a comma in a string literal, a
/// `CHECK` expression or a quoted name never splits an item.
package struct TableDefinition: Sendable {
    /// One item between the parentheses.
    struct Item: Sendable {
        /// Its source text, from its first token to its last (comments inside kept).
        package let text: String
        /// Its canonical text, for comparing two spellings of the same item.
        let canonical: String
        /// The column's name, or nil for a table constraint (`PRIMARY KEY (…)`, …).
        let columnName: String?
        /// Its tokens, trivia left out.
        package let tokens: [SQLToken]
        /// The column's earlier name, declared by a `-- @renamed from=OLD` comment after
        /// its definition (sqldef's convention), or nil.
        fileprivate(set) var renamedFrom: String?

        /// Whether any of its tokens is one of `keywords` (upper case).
        func has(anyOf keywords: [String]) -> Bool {
            tokens.contains { token in keywords.contains { token.isWord($0) } }
        }

        /// Whether it names `name` (a column or table) anywhere, as SQLite compares names.
        func mentions(_ name: String) -> Bool {
            tokens.contains { $0.nameValue.map { $0.lowercased() == name.lowercased() } ?? false }
        }
    }

    /// `CREATE VIRTUAL TABLE … USING module(…)`: its arguments are the module's, not
    /// columns, so nothing here is cut.
    package let isVirtual: Bool
    /// A virtual table's module, lower-cased (`fts5`, `rtree`, …); nil for any other table.
    let module: String?
    /// A virtual table's `name=value` arguments (`content='notes'`), by lower-cased name,
    /// each value unquoted; empty for any other table.
    let moduleOptions: [String: String]
    /// A full-text index that keeps no copy of the text it indexes (`content=''`): it
    /// has nothing to compare its index with, so FTS3 and FTS4 cannot check it.
    var isContentless: Bool { moduleOptions["content"]?.isEmpty == true }
    /// The column definitions and table constraints, in order; empty for a virtual
    /// table or `CREATE TABLE … AS SELECT`.
    let items: [Item]
    /// The canonical text after the closing parenthesis (`WITHOUT ROWID`, `STRICT`).
    let options: String
    /// Whether the table is `STRICT` (its options name it).
    var isStrict: Bool {
        SQLTokenizer.tokenize(options).contains { $0.isWord("STRICT") }
    }
    /// Whether its rows have a rowid: a table that is neither virtual nor `WITHOUT ROWID`.
    var hasRowid: Bool {
        !isVirtual && !SQLTokenizer.tokenize(options).contains { $0.isWord("WITHOUT") }
    }
    /// Whether a column is an `INTEGER PRIMARY KEY`, which is the rowid itself (declared
    /// on the column, or as the table's one-column `PRIMARY KEY (…)`; the type spelled
    /// `INTEGER`, as SQLite requires).
    var hasIntegerPrimaryKey: Bool {
        func isInteger(_ column: String) -> Bool {
            items.first { $0.columnName?.lowercased() == column.lowercased() }?.tokens.dropFirst().first?.isWord("INTEGER") == true
        }
        for item in items where item.has(anyOf: ["PRIMARY"]) {
            if let column = item.columnName { return isInteger(column) }
            let names = item.tokens.drop { !$0.isSymbol("(") }.dropFirst().prefix { !$0.isSymbol(")") }.filter { !$0.isSymbol(",") }
            return names.count == 1 && names.first?.nameValue.map(isInteger) == true
        }
        return false
    }
    /// The name that reads a row's rowid: the first of SQLite's three (`rowid`, `_rowid_`,
    /// `oid`) that no column takes, as a column of that name hides the rowid under it.
    /// Nil when the table has no rowid or its columns take all three names (its rowids
    /// then cannot be read, nor kept by a copy). Anki's `graves` has a column `oid`, so
    /// its rows are read as `rowid`.
    var rowidName: String? {
        guard hasRowid else { return nil }
        let columns = Set(items.compactMap { $0.columnName?.lowercased() })
        return ["rowid", "_rowid_", "oid"].first { !columns.contains($0) }
    }
    /// The table's earlier name, declared by a `-- @renamed from=OLD` comment before its
    /// first column (sqldef's convention), or nil. Never set for a virtual table.
    let renamedFrom: String?

    private let tokens: [SQLToken]
    private let nameTokens: Range<Int>

    /// The table's name (without its schema).
    package var name: String {
        tokens[nameTokens].last { !$0.isTrivia }?.nameValue ?? ""
    }

    /// Nil when `sql` is not a `CREATE [TEMP] [VIRTUAL] TABLE` statement.
    package init?(sql: String) {
        let tokens = SQLTokenizer.tokenize(sql)
        let code = tokens.indices.filter { !tokens[$0].isTrivia }
        var position = 0
        func at(_ offset: Int) -> SQLToken? { position + offset < code.count ? tokens[code[position + offset]] : nil }
        guard at(0)?.isWord("CREATE") == true else { return nil }
        position += 1
        if at(0)?.isWord("TEMP") == true || at(0)?.isWord("TEMPORARY") == true { position += 1 }
        var isVirtual = false
        if at(0)?.isWord("VIRTUAL") == true {
            isVirtual = true
            position += 1
        }
        guard at(0)?.isWord("TABLE") == true else { return nil }
        position += 1
        if at(0)?.isWord("IF") == true, at(1)?.isWord("NOT") == true, at(2)?.isWord("EXISTS") == true { position += 3 }
        guard position < code.count else { return nil }
        let nameStart = code[position]
        if at(1)?.isSymbol(".") == true, position + 2 < code.count { position += 2 }
        let nameEnd = code[position] + 1
        position += 1
        self.tokens = tokens
        self.nameTokens = nameStart..<nameEnd
        self.isVirtual = isVirtual
        module = isVirtual && at(0)?.isWord("USING") == true ? at(1)?.nameValue?.lowercased() : nil
        moduleOptions = module == nil ? [:] : Self.moduleOptions(code[min(position + 2, code.count)...].map { tokens[$0] })
        guard !isVirtual, at(0)?.isSymbol("(") == true else {
            items = []
            options = ""
            renamedFrom = nil
            return
        }
        var items: [Item] = []
        var itemStarts: [Int] = []
        var depth = 0
        var itemStart = position + 1
        var close = code.count
        for index in (position + 1)..<code.count {
            let token = tokens[code[index]]
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") {
                if depth == 0 {
                    close = index
                    items.append(Self.item(tokens, code[itemStart..<index]))
                    itemStarts.append(itemStart < index ? code[itemStart] : code[index])
                    break
                }
                depth -= 1
            }
            if depth == 0, token.isSymbol(",") {
                items.append(Self.item(tokens, code[itemStart..<index]))
                itemStarts.append(code[itemStart])
                itemStart = index + 1
            }
        }
        // A rename comment before the first column is the table's; one after a column's
        // first token (on its line, after its comma) and before the next item's is the
        // column's.
        var tableRenamedFrom: String?
        let end = close < code.count ? code[close] : tokens.count
        for index in tokens.indices where index < end {
            guard let earlier = Self.renamedFrom(tokens[index]) else { continue }
            if let item = itemStarts.lastIndex(where: { $0 <= index }) {
                if items[item].columnName != nil { items[item].renamedFrom = earlier }
            } else {
                tableRenamedFrom = earlier
            }
        }
        self.items = items
        renamedFrom = tableRenamedFrom
        let rest = close + 1 < code.count ? tokens[code[close + 1]...].map(\.text).joined() : ""
        options = SQLCanonicalText.canonical(rest)
    }

    /// The statement with its table's name replaced by `name` (quoted): the first step
    /// of a rebuild creates the wanted table under a temporary name.
    func renamed(to name: String) -> String {
        (tokens[..<nameTokens.lowerBound].map(\.text) + [quoteIdentifier(name)] + tokens[nameTokens.upperBound...].map(\.text)).joined()
    }

    /// The statement with its columns' names replaced as `ALTER TABLE … RENAME COLUMN`
    /// replaces them: `renames` maps a lower-cased old name to the new one, and every
    /// mention between the parentheses (a constraint's too) is renamed.
    func renamingColumns(_ renames: [String: String]) -> String {
        tokens.enumerated().map { index, token in
            guard index >= nameTokens.upperBound, let name = token.nameValue, token.kind != .string,
                  let renamed = renames[name.lowercased()] else { return token.text }
            return quoteIdentifier(renamed)
        }.joined()
    }

    /// The OLD of a `@renamed from=OLD` comment (a bare or quoted name), or nil for any
    /// other token.
    private static func renamedFrom(_ token: SQLToken) -> String? {
        guard token.kind == .lineComment || token.kind == .blockComment,
              let marker = token.text.range(of: "@renamed from=") else { return nil }
        let rest = token.text[marker.upperBound...]
        guard let name = SQLTokenizer.tokenize(String(rest)).first(where: { !$0.isTrivia }),
              name.kind == .word || name.kind == .quotedIdentifier else { return nil }
        return name.nameValue
    }

    /// The `name=value` arguments among a module's, from `code` (trivia left out) that
    /// starts at the parenthesis after the module's name.
    private static func moduleOptions(_ code: [SQLToken]) -> [String: String] {
        guard code.first?.isSymbol("(") == true else { return [:] }
        var options: [String: String] = [:]
        var depth = 0
        var argument: [SQLToken] = []
        for token in code.dropFirst() {
            if depth == 0, token.isSymbol(",") || token.isSymbol(")") {
                if argument.count == 3, argument[1].isSymbol("="), let name = argument[0].nameValue, let value = argument[2].nameValue {
                    options[name.lowercased()] = value
                }
                argument = []
                if token.isSymbol(")") { break }
                continue
            }
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            argument.append(token)
        }
        return options
    }

    private static let constraintWords = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]

    private static func item(_ tokens: [SQLToken], _ indices: ArraySlice<Int>) -> Item {
        guard let first = indices.first, let last = indices.last else {
            return Item(text: "", canonical: "", columnName: nil, tokens: [])
        }
        let text = tokens[first...last].map(\.text).joined()
        let code = indices.map { tokens[$0] }
        let head = code[0]
        let isConstraint = head.kind == .word && constraintWords.contains { head.isWord($0) }
        return Item(text: text, canonical: SQLCanonicalText.canonical(tableItem: text), columnName: isConstraint ? nil : head.nameValue, tokens: code)
    }
}
