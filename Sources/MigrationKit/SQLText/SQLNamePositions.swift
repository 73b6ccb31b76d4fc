/// Where a name may stand in one schema statement, token by token: what the canonical
/// text (`SQLCanonicalText`) needs to write a name bare or quoted as SQLite needs it
/// there (`SQLKeywords.needsQuotes`), a keyword in upper case, and a type's arguments
/// against its name (`VARCHAR(255)`).
///
/// Not a parser: it follows the places a `CREATE TABLE`, `INDEX`, `VIEW` or `TRIGGER`
/// statement (and the `SELECT`, `INSERT`, `UPDATE` and `DELETE` of a view's or a
/// trigger's body) puts a name, by the tokens before it, and calls every other place
/// `.other`, where a name keeps the quotes it was written with. Misreading a name's
/// place as `.other` only leaves its two spellings apart; misreading a keyword's place
/// as a name's would change the statement, so a place is `.name`, `.objectName` or
/// `.expression` only where SQLite's grammar reads a name there.
struct SQLNamePositions {
    /// What stands at a token's place.
    enum Position: Hashable, Sendable {
        /// The name a `CREATE` statement gives its table, index, view or trigger.
        case objectName
        /// A name and nothing else: a column being defined, after `.`, a constraint's
        /// name, a table after `ON`, `REFERENCES`, `FROM`, `JOIN`, `INTO`, `UPDATE`, an
        /// alias after `AS`, a column list (`FOREIGN KEY (…)`, `INSERT INTO t (…)`).
        case name
        /// Where an expression may begin: a name there is a column (or a function's).
        case expression
        /// Anything else: a keyword, a type, a literal, an operator.
        case other
    }

    /// Where the statement's first token stands: a whole statement, or one item of a
    /// `CREATE TABLE` statement's column list (`TableDefinition.Item`).
    enum Start: Sendable {
        case statement
        case tableItem
    }

    /// The place of each token given, in order.
    private(set) var positions: [Position]
    /// The indexes of the string literals SQLite reads as names: `'x'` where a name
    /// stands, and a lone `'x'` in an index's or a key's column list.
    private(set) var stringNames: Set<Int> = []
    /// The indexes of the `(` that open a type's arguments (`VARCHAR(255)`,
    /// `DECIMAL(10, 2)`), which SQLite's own spelling writes against the type's name.
    private(set) var typeArguments: Set<Int> = []

    private enum Kind { case table, virtualTable, index, view, trigger, other }

    private enum Role {
        /// The statement itself, a subquery or an expression in parentheses.
        case statement
        /// A `CREATE TABLE` statement's column definitions and constraints.
        case columns
        /// An index's or a key's columns (`ON t (…)`, `PRIMARY KEY (…)`, `UNIQUE (…)`):
        /// expressions, and SQLite reads a lone string there as a column's name.
        case indexedColumns
        /// A list of names (`FOREIGN KEY (…)`, `REFERENCES t (…)`, a view's columns,
        /// `INSERT INTO t (…)`, `USING (…)`).
        case names
        /// Where no name is looked for: a type's arguments, `RAISE (…)`, a window.
        case opaque
    }

    /// How far a column definition (or `CAST`'s type) has gone: its type is the words
    /// after its name, up to a constraint's keyword.
    private enum ItemState { case start, afterName, inType, rest }

    private struct Frame {
        var role: Role
        /// The latest clause keyword met in this frame (`FROM`, `SET`, `OF`, …), which
        /// tells what follows a comma.
        var clause: String?
        var item: ItemState = .rest
        var isCast = false
    }

    /// The keywords a column definition's constraints begin with: after one, no type word.
    private static let columnConstraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
    ]
    private static let tableConstraintWords: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
    /// Keywords after which an expression begins.
    private static let expressionIntroducers: Set<String> = [
        "SELECT", "WHERE", "HAVING", "WHEN", "THEN", "ELSE", "AND", "OR", "NOT", "CASE", "BY", "LIMIT", "OFFSET",
        "BETWEEN", "IN", "IS", "LIKE", "GLOB", "MATCH", "REGEXP", "ESCAPE", "DISTINCT", "ALL", "EXISTS",
    ]

    /// - Parameter tokens: one statement's tokens, trivia left out.
    init(_ tokens: [SQLToken], start: Start = .statement) {
        positions = Array(repeating: .other, count: tokens.count)
        var walker = Walker(tokens: tokens, start: start)
        walker.walk(into: &self)
    }

    private struct Walker {
        let tokens: [SQLToken]
        var frames: [Frame]
        var kind = Kind.other
        var next = Position.other
        /// The keyword that made a place a name (`ON`, `REFERENCES`, `INTO`), for the
        /// next token and for the one before this, which tells what a `(` after that
        /// name opens.
        var nextIntroducer: String?
        var introducer: String?
        var previousIntroducer: String?
        var inTriggerHeader = false
        var indexTableSeen = false
        var tableAfterConflict = false

        init(tokens: [SQLToken], start: Start) {
            self.tokens = tokens
            switch start {
            case .statement:
                frames = [Frame(role: .statement)]
            case .tableItem:
                frames = [Frame(role: .columns, item: .start)]
                next = .name
            }
        }

        func word(_ index: Int) -> String? {
            guard index >= 0, index < tokens.count, tokens[index].kind == .word else { return nil }
            return tokens[index].text.uppercased()
        }

        func isSymbol(_ index: Int, _ symbol: String) -> Bool {
            index >= 0 && index < tokens.count && tokens[index].isSymbol(symbol)
        }

        mutating func walk(into result: inout SQLNamePositions) {
            var index = header(into: &result)
            while index < tokens.count {
                result.positions[index] = next
                previousIntroducer = introducer
                introducer = nextIntroducer
                nextIntroducer = nil
                let position = next
                next = .other
                step(index, at: position, into: &result)
                index += 1
            }
        }

        /// `CREATE [TEMP] [UNIQUE] [VIRTUAL] TABLE|INDEX|VIEW|TRIGGER [IF NOT EXISTS]
        /// [schema.]name`: the index of the token after it.
        mutating func header(into result: inout SQLNamePositions) -> Int {
            guard frames.count == 1, frames[0].role == .statement, word(0) == "CREATE" else { return 0 }
            var index = 1
            var isVirtual = false
            while let modifier = word(index), ["TEMP", "TEMPORARY", "UNIQUE", "VIRTUAL"].contains(modifier) {
                if modifier == "VIRTUAL" { isVirtual = true }
                index += 1
            }
            switch word(index) {
            case "TABLE": kind = isVirtual ? .virtualTable : .table
            case "INDEX": kind = .index
            case "VIEW": kind = .view
            case "TRIGGER": kind = .trigger
            default: return 0
            }
            index += 1
            if word(index) == "IF", word(index + 1) == "NOT", word(index + 2) == "EXISTS" { index += 3 }
            guard index < tokens.count else { return index }
            func objectName(_ index: Int) {
                result.positions[index] = .objectName
                if tokens[index].kind == .string { result.stringNames.insert(index) }
            }
            objectName(index)
            index += 1
            if isSymbol(index, "."), index + 1 < tokens.count {
                objectName(index + 1)
                index += 2
            }
            // A virtual table's module and its arguments are the module's: nothing to look for.
            if kind == .virtualTable { return tokens.count }
            inTriggerHeader = kind == .trigger
            // Right after the name: a table's columns, a view's.
            if kind == .table || kind == .view, isSymbol(index, "(") {
                open(index, after: kind == .table ? "TABLE" : "VIEW", into: &result)
                return index + 1
            }
            return index
        }

        mutating func step(_ index: Int, at position: Position, into result: inout SQLNamePositions) {
            let token = tokens[index]
            switch token.kind {
            case .punctuation where token.text == "(":
                open(index, after: previousIntroducer, into: &result)
            case .punctuation where token.text == ")":
                if frames.count > 1 { frames.removeLast() }
                if frames[frames.count - 1].item == .inType { frames[frames.count - 1].item = .rest }
            case .punctuation where token.text == ",":
                comma()
            case .punctuation where token.text == ".":
                next = .name
            case .punctuation:
                // `;` between the statements of a trigger's body.
                frames[frames.count - 1].clause = nil
            case .operator:
                next = .expression
            case .word:
                keyword(index, at: position)
            case .quotedIdentifier, .string:
                // `'t'.a` is a table's name, as after `.`.
                if token.kind == .string, position == .name || position == .objectName || isSymbol(index + 1, ".") {
                    result.stringNames.insert(index)
                }
                // A column of an index or key written as a string: the whole item.
                if token.kind == .string, position == .expression, frames[frames.count - 1].role == .indexedColumns,
                   isSymbol(index - 1, "(") || isSymbol(index - 1, ","), isSymbol(index + 1, ",") || isSymbol(index + 1, ")") || ["COLLATE", "ASC", "DESC"].contains(word(index + 1) ?? "") {
                    result.stringNames.insert(index)
                }
                operand(typeWord: true)
            default:
                operand(typeWord: false)
            }
        }

        /// A name, literal or type word: what follows it is no name, but a type may go on.
        mutating func operand(typeWord: Bool) {
            let top = frames.count - 1
            switch frames[top].item {
            case .start: frames[top].item = .afterName
            case .afterName, .inType: frames[top].item = typeWord ? .inType : .rest
            case .rest: break
            }
            next = .other
        }

        mutating func comma() {
            let top = frames.count - 1
            switch frames[top].role {
            case .columns:
                frames[top].item = .start
                next = .name
            case .names:
                next = .name
            case .indexedColumns:
                next = .expression
            case .opaque:
                next = .other
            case .statement:
                next = ["FROM", "SET", "OF"].contains(frames[top].clause ?? "") ? .name : .expression
            }
        }

        /// - Parameter introducer: the keyword that made the token before a name.
        mutating func open(_ index: Int, after introducer: String?, into result: inout SQLNamePositions) {
            let top = frames.count - 1
            let before = word(index - 1)
            var frame = Frame(role: .statement)
            if frames[top].item == .inType {
                frame.role = .opaque
                result.typeArguments.insert(index)
            } else if introducer == "TABLE" {
                frame = Frame(role: .columns, item: .start)
            } else if introducer == "VIEW" || introducer == "REFERENCES" || introducer == "INTO" {
                frame.role = .names
            } else if introducer == "ON", kind == .index {
                frame.role = .indexedColumns
            } else if before == "KEY", word(index - 2) == "FOREIGN" {
                frame.role = .names
            } else if (before == "KEY" && word(index - 2) == "PRIMARY") || (before == "UNIQUE" && frames[top].role == .columns) {
                frame.role = .indexedColumns
            } else if before == "USING" {
                frame.role = .names
            } else if before == "RAISE" || before == "OVER" || frames[top].clause == "WINDOW" {
                frame.role = .opaque
            } else if before == "CAST" {
                frame.isCast = true
            }
            if frames[top].item != .inType, frames[top].item != .start { frames[top].item = .rest }
            frames.append(frame)
            switch frame.role {
            case .columns, .names: next = .name
            case .statement, .indexedColumns: next = .expression
            case .opaque: next = .other
            }
        }

        /// A word: where a name stands, that name (unless SQLite reserves the word
        /// there); elsewhere a keyword, a type or a function, which may tell what follows.
        mutating func keyword(_ index: Int, at position: Position) {
            let text = word(index) ?? ""
            let top = frames.count - 1
            let isKeyword = SQLKeywords.reserved.contains(text)
                || (position == .expression && SQLKeywords.expressionKeywords.contains(text))
                || (position != .name && position != .objectName && position != .expression)
            // A word where a name stands is that name, unless SQLite reserves it.
            guard isKeyword else {
                operand(typeWord: false)
                return
            }
            if frames[top].role == .columns || frames[top].isCast {
                switch frames[top].item {
                case .start:
                    frames[top].item = SQLNamePositions.tableConstraintWords.contains(text) ? .rest : .afterName
                case .afterName, .inType:
                    let isType = frames[top].isCast ? text != "AS" : !SQLNamePositions.columnConstraintWords.contains(text)
                    frames[top].item = isType ? .inType : .rest
                case .rest:
                    if frames[top].isCast, text == "AS" { frames[top].item = .afterName }
                }
            }
            let previous = word(index - 1)
            switch text {
            case "CONSTRAINT", "REFERENCES", "INTO", "JOIN":
                name(after: text)
            case "FROM":
                if previous == "DISTINCT" {
                    next = .expression
                } else {
                    frames[top].clause = text
                    name(after: text)
                }
            case "ON":
                if kind == .index, !indexTableSeen, frames.count == 1 {
                    indexTableSeen = true
                    name(after: text)
                } else if inTriggerHeader {
                    name(after: text)
                } else if frames[top].role == .columns || word(index + 1) == "CONFLICT" {
                    next = .other
                } else {
                    // A join's condition: a comma after it goes on with the tables.
                    next = .expression
                }
            case "UPDATE":
                if inTriggerHeader || previous == "ON" {
                    next = .other
                } else if word(index + 1) == "OR" {
                    tableAfterConflict = true
                } else {
                    name(after: text)
                }
            case "OF":
                if inTriggerHeader {
                    frames[top].clause = text
                    name(after: text)
                }
            case "OR" where previous == "INSERT" || previous == "UPDATE":
                next = .other
            case "SET":
                if frames[top].role == .columns || previous == "DELETE" || previous == "UPDATE" && word(index - 2) == "ON" {
                    next = .other
                } else {
                    frames[top].clause = text
                    name(after: text)
                }
            case "AS":
                // Not an alias: `CAST`'s type, a window's definition, what a view or a
                // table is made of (before any clause), a common table's `MATERIALIZED`.
                let materialized = word(index + 1) == "NOT" || (word(index + 1) == "MATERIALIZED" && isSymbol(index + 2, "("))
                if frames[top].isCast || frames[top].clause == "WINDOW" || frames[top].clause == nil || materialized {
                    next = .other
                } else {
                    name(after: text)
                }
            case "BEGIN":
                if kind == .trigger { inTriggerHeader = false }
            case "WINDOW":
                frames[top].clause = text
            case "NOT" where ["LIKE", "GLOB", "MATCH", "REGEXP", "INDEXED"].contains(word(index + 1) ?? ""):
                next = .other
            case _ where SQLNamePositions.expressionIntroducers.contains(text):
                if ["SELECT", "WHERE", "HAVING", "BY"].contains(text) { frames[top].clause = text }
                next = .expression
            default:
                if tableAfterConflict, previous == "OR" {
                    tableAfterConflict = false
                    name(after: "UPDATE")
                }
            }
        }

        mutating func name(after keyword: String) {
            next = .name
            nextIntroducer = keyword
        }
    }
}
