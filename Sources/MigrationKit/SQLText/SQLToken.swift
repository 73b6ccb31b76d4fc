/// One lexical token of SQL text, cut where SQLite's own tokenizer would cut it.
///
/// Tokens keep their exact source text (quotes and all), so the texts of every token
/// of an input, trivia included, concatenate back to that input. Lint rules look at
/// kinds and words, never at raw substrings, which is what keeps a keyword inside a
/// string literal, a quoted identifier or a comment from being mistaken for code.
package struct SQLToken: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// A keyword or a bare identifier (SQLite decides which only while parsing,
        /// and many keywords double as names), e.g. `CREATE`, `users`, `json_extract`.
        case word
        /// A string literal, `'it''s'`.
        case string
        /// A quoted identifier: `"name"`, `` `name` `` or `[name]`.
        case quotedIdentifier
        /// A blob literal, `x'00ff'`.
        case blob
        /// A numeric literal: `42`, `0x1F`, `1.5e3`, `.5`.
        case number
        /// A bound parameter: `?`, `?3`, `:name`, `@name`, `$name`.
        case parameter
        /// An operator such as `||`, `<=`, `->>` or `-`.
        case `operator`
        /// `(`, `)`, `,`, `;` or `.`.
        case punctuation
        /// `-- …` up to (not including) the end of the line.
        case lineComment
        /// `/* … */`.
        case blockComment
        /// Spaces, tabs, line breaks (and a byte-order mark).
        case whitespace
        /// Text SQLite refuses as "unrecognized token", e.g. a lone `!`, a control
        /// character, `:` without a name, or `12abc`.
        case illegal
    }

    package let kind: Kind
    /// The exact source text of the token.
    package let text: String
    /// UTF-8 offset of the token's first byte in the tokenized text.
    package let offset: Int
    /// 1-based line of the token's first character (lines end at "\n").
    package let line: Int
    /// 1-based column of the token's first character, counted in Unicode scalars.
    package let column: Int
    /// True for a string, blob, quoted identifier or block comment whose closing
    /// delimiter is missing: the token then runs to the end of the input.
    let isUnterminated: Bool

    init(kind: Kind, text: String, offset: Int, line: Int, column: Int, isUnterminated: Bool = false) {
        self.kind = kind
        self.text = text
        self.offset = offset
        self.line = line
        self.column = column
        self.isUnterminated = isUnterminated
    }

    /// Whitespace and comments: what SQLite skips between tokens.
    package var isTrivia: Bool {
        Self.isTrivia(kind)
    }

    /// Whether tokens of `kind` are trivia.
    package static func isTrivia(_ kind: Kind) -> Bool {
        kind == .whitespace || kind == .lineComment || kind == .blockComment
    }

    /// Whether this is the word `keyword`, compared the way SQLite compares keywords
    /// (ASCII letters case-insensitively). `keyword` must be written in upper case.
    package func isWord(_ keyword: String) -> Bool {
        kind == .word && SQLToken.equalsIgnoringASCIICase(text, uppercased: keyword)
    }

    /// Whether this is the punctuation or operator `symbol`.
    package func isSymbol(_ symbol: String) -> Bool {
        (kind == .punctuation || kind == .operator) && text == symbol
    }

    /// The name this token stands for where SQLite expects a name: a word as written,
    /// a quoted identifier without its quotes (doubled quotes undone), or a string
    /// literal's value (SQLite accepts `'name'` there too). Nil for anything else.
    package var nameValue: String? {
        switch kind {
        case .word:
            return text
        case .quotedIdentifier, .string:
            return SQLToken.dequote(text)
        default:
            return nil
        }
    }

    /// `"a""b"` → `a"b`, `[a]` → `a`, `'it''s'` → `it's`; unterminated ones lose
    /// only their opening quote.
    static func dequote(_ text: String) -> String {
        guard let open = text.first else { return text }
        let close: Character
        switch open {
        case "[": close = "]"
        case "\"", "'", "`": close = open
        default: return text
        }
        var body = text.dropFirst()
        if body.last == close { body = body.dropLast() }
        guard open != "[" else { return String(body) }
        var result = ""
        var skipNextQuote = false
        for character in body {
            if character == close, !skipNextQuote {
                skipNextQuote = true
                continue
            }
            skipNextQuote = false
            result.append(character)
        }
        return result
    }

    /// ASCII case-insensitive comparison without allocating, as SQLite's
    /// `sqlite3StrICmp` does (non-ASCII bytes compare exactly).
    static func equalsIgnoringASCIICase(_ text: String, uppercased keyword: String) -> Bool {
        // Most words a caller tests are not the keyword, and most differ in length,
        // which a native string knows without walking its bytes.
        guard text.utf8.count == keyword.utf8.count else { return false }
        var left = text.utf8.makeIterator()
        var right = keyword.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (a?, b?):
                let upper = (a >= UInt8(ascii: "a") && a <= UInt8(ascii: "z")) ? a - 32 : a
                if upper != b { return false }
            default:
                return false
            }
        }
    }
}
