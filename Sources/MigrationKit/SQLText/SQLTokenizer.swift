/// Cuts SQL text into tokens the way SQLite's tokenizer (`tokenize.c`) does, trivia
/// included, so lint rules see code exactly where SQLite would.
///
/// It never fails: text SQLite would refuse becomes an `.illegal` token, and a
/// string, quoted identifier, blob or block comment that never closes becomes one
/// token flagged `isUnterminated` that runs to the end. Every step consumes at least
/// one byte and no byte is looked at more than a constant number of times, so any
/// input, however hostile, is tokenized in linear time.
///
///     for token in SQLTokenizer("SELECT 'a;b' -- c") where !token.isTrivia { … }
package struct SQLTokenizer: Sequence, IteratorProtocol {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var column = 1

    package init(_ sql: String) {
        bytes = Array(sql.utf8)
    }

    /// Every token of `sql`, trivia included, in order.
    static func tokenize(_ sql: String) -> [SQLToken] {
        Array(SQLTokenizer(sql))
    }

    package mutating func next() -> SQLToken? {
        guard let (scanned, range) = nextSpan() else { return nil }
        let token = SQLToken(kind: scanned.kind,
                             text: String(decoding: bytes[range], as: UTF8.self),
                             offset: range.lowerBound, line: line, column: column,
                             isUnterminated: scanned.isUnterminated)
        advanceLineAndColumn(over: range)
        return token
    }

    /// The kind and bytes of every token of `sql` that is not trivia, in order, with no
    /// text, line or column made for it: for work that only copies or compares bytes,
    /// such as a checksum's canonical bytes (making each token's `String` cost most of
    /// checksumming a small migration file).
    static func forEachCodeToken(in sql: String, _ body: (SQLToken.Kind, ArraySlice<UInt8>) -> Void) {
        var tokenizer = SQLTokenizer(sql)
        while let (scanned, range) = tokenizer.nextSpan() {
            if !SQLToken.isTrivia(scanned.kind) { body(scanned.kind, tokenizer.bytes[range]) }
        }
    }

    /// The next token's scan and bytes, the position moved past it.
    private mutating func nextSpan() -> (Scanned, Range<Int>)? {
        guard position < bytes.count else { return nil }
        let start = position
        let scanned = scan(from: start)
        // Always make progress, whatever a scanner returned.
        let end = Swift.min(Swift.max(scanned.end, start + 1), bytes.count)
        position = end
        return (scanned, start..<end)
    }

    // MARK: - Scanning

    private struct Scanned {
        var kind: SQLToken.Kind
        var end: Int
        var isUnterminated = false
    }

    /// The byte at `index`, or 0 past the end (SQLite's strings end in NUL too, and no
    /// scanner below treats 0 as part of a token).
    private func byte(_ index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    private func scan(from start: Int) -> Scanned {
        let first = bytes[start]
        switch first {
        case _ where SQLCharacter.isSpace(first):
            var end = start + 1
            while end < bytes.count, SQLCharacter.isSpace(bytes[end]) { end += 1 }
            return Scanned(kind: .whitespace, end: end)
        case UInt8(ascii: "-"):
            if byte(start + 1) == UInt8(ascii: "-") { return lineComment(from: start) }
            if byte(start + 1) == UInt8(ascii: ">") {
                return Scanned(kind: .operator, end: start + (byte(start + 2) == UInt8(ascii: ">") ? 3 : 2))
            }
            return Scanned(kind: .operator, end: start + 1)
        case UInt8(ascii: "/"):
            if byte(start + 1) == UInt8(ascii: "*") { return blockComment(from: start) }
            return Scanned(kind: .operator, end: start + 1)
        case UInt8(ascii: "'"):
            return quoted(from: start, closing: first, kind: .string)
        case UInt8(ascii: "\""), UInt8(ascii: "`"):
            return quoted(from: start, closing: first, kind: .quotedIdentifier)
        case UInt8(ascii: "["):
            return bracketed(from: start)
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: ";"):
            return Scanned(kind: .punctuation, end: start + 1)
        case UInt8(ascii: "."):
            if SQLCharacter.isDigit(byte(start + 1)) { return number(from: start) }
            return Scanned(kind: .punctuation, end: start + 1)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return number(from: start)
        case UInt8(ascii: "?"):
            var end = start + 1
            while SQLCharacter.isDigit(byte(end)) { end += 1 }
            return Scanned(kind: .parameter, end: end)
        case UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$"), UInt8(ascii: "#"):
            return namedParameter(from: start)
        case UInt8(ascii: "|"):
            return Scanned(kind: .operator, end: start + (byte(start + 1) == UInt8(ascii: "|") ? 2 : 1))
        case UInt8(ascii: "<"):
            let second = byte(start + 1)
            let isPair = second == UInt8(ascii: "=") || second == UInt8(ascii: ">") || second == UInt8(ascii: "<")
            return Scanned(kind: .operator, end: start + (isPair ? 2 : 1))
        case UInt8(ascii: ">"):
            let second = byte(start + 1)
            let isPair = second == UInt8(ascii: "=") || second == UInt8(ascii: ">")
            return Scanned(kind: .operator, end: start + (isPair ? 2 : 1))
        case UInt8(ascii: "="):
            return Scanned(kind: .operator, end: start + (byte(start + 1) == UInt8(ascii: "=") ? 2 : 1))
        case UInt8(ascii: "!"):
            if byte(start + 1) == UInt8(ascii: "=") { return Scanned(kind: .operator, end: start + 2) }
            return Scanned(kind: .illegal, end: start + 1)
        case UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "~"):
            return Scanned(kind: .operator, end: start + 1)
        case UInt8(ascii: "x"), UInt8(ascii: "X"):
            if byte(start + 1) == UInt8(ascii: "'") { return blob(from: start) }
            return word(from: start)
        case 0xEF where byte(start + 1) == 0xBB && byte(start + 2) == 0xBF:
            // A byte-order mark between tokens is skipped like a space (SQLite 3.36+).
            return Scanned(kind: .whitespace, end: start + 3)
        case _ where SQLCharacter.isIdentifier(first):
            return word(from: start)
        default:
            // Control characters, NUL, and the ASCII punctuation SQLite has no use for.
            return Scanned(kind: .illegal, end: start + 1)
        }
    }

    /// `-- …` up to, not including, the line feed (which becomes whitespace).
    private func lineComment(from start: Int) -> Scanned {
        var end = start + 2
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        return Scanned(kind: .lineComment, end: end)
    }

    /// `/* … */`; without `*/` it runs to the end of the input.
    private func blockComment(from start: Int) -> Scanned {
        var end = start + 2
        while end + 1 < bytes.count {
            if bytes[end] == UInt8(ascii: "*"), bytes[end + 1] == UInt8(ascii: "/") {
                return Scanned(kind: .blockComment, end: end + 2)
            }
            end += 1
        }
        return Scanned(kind: .blockComment, end: bytes.count, isUnterminated: true)
    }

    /// `'…'`, `"…"` or `` `…` ``, where a doubled delimiter stands for itself.
    private func quoted(from start: Int, closing delimiter: UInt8, kind: SQLToken.Kind) -> Scanned {
        var end = start + 1
        while end < bytes.count {
            if bytes[end] == delimiter {
                if byte(end + 1) == delimiter {
                    end += 2
                    continue
                }
                return Scanned(kind: kind, end: end + 1)
            }
            end += 1
        }
        return Scanned(kind: kind, end: bytes.count, isUnterminated: true)
    }

    /// `[…]`, SQL Server style: no escapes, ends at the first `]`.
    private func bracketed(from start: Int) -> Scanned {
        var end = start + 1
        while end < bytes.count {
            if bytes[end] == UInt8(ascii: "]") { return Scanned(kind: .quotedIdentifier, end: end + 1) }
            end += 1
        }
        return Scanned(kind: .quotedIdentifier, end: bytes.count, isUnterminated: true)
    }

    /// `x'…'`, up to the next quote whatever lies between (SQLite then refuses
    /// non-hex content, but the extent is the same).
    private func blob(from start: Int) -> Scanned {
        var end = start + 2
        while end < bytes.count {
            if bytes[end] == UInt8(ascii: "'") { return Scanned(kind: .blob, end: end + 1) }
            end += 1
        }
        return Scanned(kind: .blob, end: bytes.count, isUnterminated: true)
    }

    /// `42`, `0x1F`, `3.14`, `.5`, `1e-3`. Identifier characters glued to the end
    /// (`12abc`) make the whole run one illegal token, as in SQLite.
    private func number(from start: Int) -> Scanned {
        var end = start
        if byte(start) == UInt8(ascii: "0"),
           byte(start + 1) == UInt8(ascii: "x") || byte(start + 1) == UInt8(ascii: "X"),
           SQLCharacter.isHexDigit(byte(start + 2)) {
            end = start + 3
            while SQLCharacter.isHexDigit(byte(end)) { end += 1 }
        } else {
            while SQLCharacter.isDigit(byte(end)) { end += 1 }
            if byte(end) == UInt8(ascii: ".") {
                end += 1
                while SQLCharacter.isDigit(byte(end)) { end += 1 }
            }
            if byte(end) == UInt8(ascii: "e") || byte(end) == UInt8(ascii: "E") {
                let sign = byte(end + 1) == UInt8(ascii: "+") || byte(end + 1) == UInt8(ascii: "-")
                if SQLCharacter.isDigit(byte(end + (sign ? 2 : 1))) {
                    end += sign ? 2 : 1
                    while SQLCharacter.isDigit(byte(end)) { end += 1 }
                }
            }
        }
        var kind = SQLToken.Kind.number
        while end < bytes.count, SQLCharacter.isIdentifier(bytes[end]) {
            kind = .illegal
            end += 1
        }
        return Scanned(kind: kind, end: end)
    }

    /// `:name`, `@name`, `$name`, `#name`, including SQLite's Tcl forms `$a::b` and
    /// `$a(index)`. Without a name it is an illegal token.
    private func namedParameter(from start: Int) -> Scanned {
        var end = start + 1
        var nameLength = 0
        var kind = SQLToken.Kind.parameter
        scanning: while end < bytes.count {
            let current = bytes[end]
            if SQLCharacter.isIdentifier(current) {
                nameLength += 1
                end += 1
            } else if current == UInt8(ascii: "("), nameLength > 0 {
                end += 1
                while end < bytes.count, !SQLCharacter.isSpace(bytes[end]), bytes[end] != UInt8(ascii: ")") { end += 1 }
                if byte(end) == UInt8(ascii: ")") {
                    end += 1
                } else {
                    kind = .illegal
                }
                break scanning
            } else if current == UInt8(ascii: ":"), byte(end + 1) == UInt8(ascii: ":") {
                end += 2
            } else {
                break scanning
            }
        }
        return Scanned(kind: nameLength == 0 ? .illegal : kind, end: end)
    }

    /// Keywords and bare identifiers: letters, digits, `_`, `$` and any non-ASCII byte.
    private func word(from start: Int) -> Scanned {
        var end = start + 1
        while end < bytes.count, SQLCharacter.isIdentifier(bytes[end]) { end += 1 }
        return Scanned(kind: .word, end: end)
    }

    // MARK: - Position

    private mutating func advanceLineAndColumn(over range: Range<Int>) {
        for index in range {
            let current = bytes[index]
            if current == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if current & 0xC0 != 0x80 {
                // Count scalars: skip UTF-8 continuation bytes.
                column += 1
            }
        }
    }
}

/// SQLite's character classes (`sqlite3CtypeMap`), for bytes of UTF-8 text.
enum SQLCharacter {
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }

    /// SQLite's `IdChar`: may appear in a bare identifier. Every byte of a non-ASCII
    /// character qualifies, which keeps multi-byte characters whole inside words.
    static func isIdentifier(_ byte: UInt8) -> Bool {
        byte >= 0x80
            || isDigit(byte)
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }
}
