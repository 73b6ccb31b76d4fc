/// Where in a statement SQLite stopped when preparing it failed: the line a failing
/// statement of a migration file is reported at, decided once for both connections.
package enum SQLErrorPosition {
    /// SQLite's words for text it cannot parse, as opposed to names it cannot find:
    /// `near "…": syntax error`, `incomplete input`, `unrecognized token: "…"`.
    package static func isSyntaxError(_ message: String) -> Bool {
        (message.hasPrefix("near \"") && message.hasSuffix("\": syntax error"))
            || message == "incomplete input" || message.hasPrefix("unrecognized token: ")
    }

    /// The UTF-8 offset in `sql` (one statement and what follows it) of the token where
    /// preparing it failed with `message`. SQLite 3.38+ says where (`reported`, from
    /// `sqlite3_error_offset`; nil or negative when it does not). Older ones only name
    /// the token ("near "FROM""), so for a syntax error the statement is prepared again,
    /// cut after a token: a cut before the token where SQLite stopped parses (or is
    /// incomplete), a cut after it fails as the whole did, so a binary search over the
    /// tokens finds it in a few prepares. This happens only on the way to reporting a
    /// failure.
    ///
    /// - Parameter failsAsTheWholeDid: whether preparing the given prefix of `sql` fails
    ///   with `message`.
    package static func offset(in sql: String, message: String, reported: Int?,
                               failsAsTheWholeDid: (String) -> Bool) -> Int? {
        if let reported, reported >= 0 { return reported < sql.utf8.count ? reported : nil }
        guard isSyntaxError(message) else { return nil }
        let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
        guard !message.contains("incomplete input") else { return tokens.last?.offset }
        let bytes = Array(sql.utf8)
        func fails(cutAfter index: Int) -> Bool {
            let token = tokens[index]
            return failsAsTheWholeDid(String(decoding: bytes[..<(token.offset + token.text.utf8.count)], as: UTF8.self))
        }
        var low = 0
        var high = tokens.count
        while low < high {
            let middle = (low + high) / 2
            if fails(cutAfter: middle) { high = middle } else { low = middle + 1 }
        }
        if low < tokens.count { return tokens[low].offset }
        // No cut fails that way: SQLite stopped after the last token, at the end of the
        // text ("near "\n"": a trigger without its END), so point there.
        return message.hasPrefix("near \"") && message.dropFirst(6).first?.isWhitespace == true ? tokens.last?.offset : nil
    }
}
