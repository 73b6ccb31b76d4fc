import Foundation

/// One spelling for every way of writing the same SQL statement, so that equal schemas
/// give byte-identical text: what `schema-dump` prints and what `check` compares.
///
/// SQLite keeps each object's SQL as it was written, and the same table can be written
/// many ways: `CREATE TABLE t` by hand, `CREATE TABLE "t"` after a 12-step rename,
/// another case, other spacing, comments, `"query"`, `[query]`, `` `query` `` or
/// `'query'` for the column SQLite reads bare as `query`. The canonical form drops
/// comments, puts one space between tokens (none inside parentheses, before commas, or
/// between a type and its arguments: `VARCHAR(255)`, as SQLite's own spelling and the
/// tools that read declared types have it), writes SQL keywords in upper case, and
/// writes a name bare unless SQLite needs it quoted where it stands
/// (`SQLKeywords.needsQuotes`, at the places `SQLNamePositions` finds: a reserved
/// keyword, `CAST` where an expression may begin, characters a bare name cannot
/// hold), then always with double quotes. Names keep their spelling, case included:
/// SQLite resolves them without regard to ASCII case, quoted or not, but `PRAGMA
/// table_info` and every row an app reads name a column as its `CREATE` statement
/// spells it, so `userId` and `userid` are different schemas to an app; case is never
/// a reason to quote. String literals, blobs and numbers are kept exactly, and so are
/// a virtual table's module arguments (`USING fts4(content="notes")`): the module
/// parses them itself, by rules of its own.
enum SQLCanonicalText {
    static func canonical(_ sql: String) -> String {
        canonical(sql, start: .statement)
    }

    /// The canonical text of one item of a `CREATE TABLE` statement's column list (a
    /// column's definition or a table constraint), as it reads within the statement.
    static func canonical(tableItem sql: String) -> String {
        canonical(sql, start: .tableItem)
    }

    private static func canonical(_ sql: String, start: SQLNamePositions.Start) -> String {
        var result = ""
        var previous: SQLToken?
        let all = SQLTokenizer.tokenize(sql)
        let code = all.indices.filter { !all[$0].isTrivia }
        // The `;` that ends the statement goes (the dump adds its own); those inside a
        // trigger's body stay, or the dump would not be SQL the sqlite3 shell can run.
        let end = code.lastIndex { !all[$0].isSymbol(";") }.map { $0 + 1 } ?? 0
        let arguments = moduleArguments(all, code[..<end])
        let places = SQLNamePositions(code[..<end].map { all[$0] }, start: start)
        for position in code[..<end].indices {
            let token = all[code[position]]
            if let arguments, arguments.positions.contains(position) {
                if position == arguments.positions.lowerBound { result += arguments.text }
                continue
            }
            if token.isSymbol(";"), previous?.isSymbol(";") ?? true { continue }
            let text = spelling(of: token, at: position, in: places)
            if let previous, needsSpace(between: previous, and: token), !places.typeArguments.contains(position) { result += " " }
            result += text
            previous = token
        }
        return result
    }

    /// For `CREATE VIRTUAL TABLE … USING module(…)`: the positions (in `code`) of the
    /// tokens between the parentheses, and their text as written, trimmed; nil for any
    /// other statement, or a module without arguments.
    private static func moduleArguments(_ all: [SQLToken], _ code: ArraySlice<Int>) -> (positions: Range<Int>, text: String)? {
        let start = code.startIndex
        guard code.count > 4, all[code[start]].isWord("CREATE"), all[code[start + 1]].isWord("VIRTUAL"),
              let using = code.firstIndex(where: { all[$0].isWord("USING") }),
              using + 2 < code.endIndex, all[code[using + 2]].isSymbol("("),
              let close = code.lastIndex(where: { all[$0].isSymbol(")") }), close > using + 3 else { return nil }
        let text = all[(code[using + 2] + 1)..<code[close]].map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
        return ((using + 3)..<close, text)
    }

    /// A keyword in upper case; a name bare, or quoted where SQLite needs it
    /// (`SQLKeywords.needsQuotes`), whichever way it was written; anything else as written.
    private static func spelling(of token: SQLToken, at index: Int, in places: SQLNamePositions) -> String {
        let place = places.positions[index]
        switch token.kind {
        case .word:
            let upper = token.text.uppercased()
            switch place {
            case .other:
                return SQLKeywords.all.contains(upper) || SQLKeywords.typeWords.contains(upper) ? upper : token.text
            case .objectName, .name, .expression:
                // Where a name stands, a word is that name unless SQLite reserves it there.
                if SQLKeywords.reserved.contains(upper) || (place == .expression && SQLKeywords.expressionKeywords.contains(upper)) {
                    return upper
                }
                return SQLKeywords.needsQuotes(token.text, in: place) ? quoteIdentifier(token.text) : token.text
            }
        case .quotedIdentifier:
            return spelling(ofName: token.nameValue ?? token.text, at: place)
        case .string where places.stringNames.contains(index):
            return spelling(ofName: token.nameValue ?? token.text, at: place)
        default:
            return token.text
        }
    }

    private static func spelling(ofName name: String, at place: SQLNamePositions.Position) -> String {
        SQLKeywords.needsQuotes(name, in: place) ? quoteIdentifier(name) : name
    }

    private static func needsSpace(between left: SQLToken, and right: SQLToken) -> Bool {
        if left.isSymbol("(") || left.isSymbol(".") { return false }
        if right.isSymbol(")") || right.isSymbol(",") || right.isSymbol(".") || right.isSymbol(";") { return false }
        return true
    }
}
