/// "Did you mean …?" for a misspelled name (a subcommand, a project-file setting): the
/// one candidate the word is a prefix of, or else the nearest by edit distance, when it
/// is near enough to be a typo rather than another word.
enum Suggestion {
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = candidates.map { ($0, distance(typed, Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        // One edit in three characters, at least one and at most three: `migrat`,
        // `stauts`, `db_path` are typos; `ls` is not `lint`.
        let allowed = min(3, max(1, typed.count / 3))
        return best.1 <= allowed && scored.filter({ $0.1 == best.1 }).count == 1 ? best.0 : nil
    }

    /// Damerau-Levenshtein distance (with transpositions, `stauts` → `status` is one).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
