/// The lint comments of one section of a migration file, and what is wrong with them.
///
/// Two comments silence rules, each naming them (`lint` shows a finding's rule in
/// brackets; a comment never silences every rule):
///
///     -- migrationkit:nolint drop-table-with-data -- the rows moved to archive in 0007
///     DROP TABLE orders;
///
/// - `-- migrationkit:nolint RULE …` the statement after it (or the statement it sits
///   in; after code on its own line, the statement that code belongs to);
/// - `-- migrationkit:nolint-file RULE …` the whole file it is written in, anywhere in it
///   (the header above `-- migrate:up` too).
///
/// Rules are separated by spaces or commas; a word starting with `--` ends the list and
/// begins the reason. `migrationkit:`, not `migrate:`, so a lint comment is never read as
/// a section directive. Comments do not count in a migration's checksum, so one can be
/// added to a migration that is already applied without making it `modified`. A comment
/// that silences nothing — an unknown directive, no rule named, a rule that does not
/// exist, no statement to apply to — is itself reported, as `bad-suppression`.
struct LintDirectives {
    /// The rule of findings about the lint comments (and settings) themselves.
    static let ruleID = "bad-suppression"
    static let statementDirective = "nolint"
    static let fileDirective = "nolint-file"
    private static let prefix = "migrationkit:"

    /// One `-- migrationkit:nolint…` comment that names at least one rule.
    struct Directive {
        let isFileWide: Bool
        /// The rules it names that exist (the others are reported).
        let rules: Set<String>
        /// Its line in the file.
        let line: Int
        /// `path:line`, for "suppressed by".
        let location: String
        /// Where it starts in the section's text (UTF-8).
        let offset: Int
        /// The code before it on its line, if any (UTF-8 offset in the section's text).
        let codeBefore: Int?
    }

    private(set) var directives: [Directive] = []
    /// `bad-suppression` findings.
    private(set) var problems: [LintFinding] = []
    /// The section's file, and whether it is down SQL, for the problems found later.
    private let path: String
    private let isDown: Bool

    /// Reads `section`'s line comments; `knownRules` are the rules a comment may name.
    init(_ section: SQLSection, isDown: Bool, knownRules: Set<String>) {
        path = section.path
        self.isDown = isDown
        // Most sections hold no lint comment: look before tokenizing.
        guard section.sql.contains(Self.prefix) else { return }
        var lastCode: SQLToken?
        for token in SQLTokenizer(section.sql) {
            guard token.kind == .lineComment else {
                if !token.isTrivia { lastCode = token }
                continue
            }
            let body = token.text.dropFirst(2).drop { $0 == " " || $0 == "\t" }
            guard body.hasPrefix(Self.prefix) else { continue }
            let words = body.dropFirst(Self.prefix.count)
                .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "," }).map(String.init)
            let line = section.fileLine(forSectionLine: token.line)
            func problem(_ message: String, _ fix: String) {
                problems.append(LintFinding(rule: Self.ruleID, severity: .warning, path: section.path, line: line,
                                            message: message, fix: fix, inDownSection: isDown))
            }
            let name = words.first ?? ""
            guard name == Self.statementDirective || name == Self.fileDirective else {
                problem("`-- \(Self.prefix)\(name)` is no lint comment, so it silences nothing.",
                        "Write `-- \(Self.prefix)\(Self.statementDirective) RULE` above a statement, or `-- \(Self.prefix)\(Self.fileDirective) RULE` anywhere in the file.")
                continue
            }
            let named = words.dropFirst().prefix { !$0.hasPrefix("--") }
            let spelled = "`-- \(Self.prefix)\(name)`"
            guard !named.isEmpty else {
                problem("\(spelled) names no rule, so it silences nothing (a comment never silences every rule).",
                        "Name the rules it is for, as `lint` shows them in brackets: `-- \(Self.prefix)\(name) drop-table-with-data`.")
                continue
            }
            for unknown in named where !knownRules.contains(unknown) {
                problem("\(spelled) names \"\(unknown)\", which is no lint rule, so it silences nothing.",
                        "Correct the name; the rules are \(knownRules.sorted().joined(separator: ", ")).")
            }
            let rules = Set(named).intersection(knownRules)
            guard !rules.isEmpty else { continue }
            let codeBefore = lastCode.flatMap { $0.line == token.line ? $0.offset : nil }
            directives.append(Directive(isFileWide: name == Self.fileDirective, rules: rules, line: line, location: "\(section.path):\(line)",
                                        offset: token.offset, codeBefore: codeBefore))
        }
    }

    /// The directives that silence rules for the whole file.
    var fileWide: [Directive] {
        directives.filter(\.isFileWide)
    }

    /// For each of `statements` (the section's, in order; none for a section that runs
    /// nothing), the statement directives that apply to it; a statement directive with
    /// no statement to apply to becomes a problem.
    mutating func bind(to statements: [SQLStatement]) -> [[Directive]] {
        var bound = Array(repeating: [Directive](), count: statements.count)
        for directive in directives where !directive.isFileWide {
            let index: Int?
            if let code = directive.codeBefore {
                // After code on its line: the statement that code belongs to.
                index = statements.lastIndex { ($0.tokens.first?.offset ?? 0) <= code }
            } else {
                // On a line of its own: the statement it sits in, or the next one.
                index = statements.firstIndex { statement in
                    guard let last = statement.tokens.last else { return false }
                    return last.offset + last.text.utf8.count > directive.offset
                }
            }
            if let index {
                bound[index].append(directive)
            } else {
                problems.append(LintFinding(
                    rule: Self.ruleID, severity: .warning, path: path, line: directive.line,
                    message: "`-- \(Self.prefix)\(Self.statementDirective)` has no statement after it in its section, so it silences nothing.",
                    fix: "Put it on the line above the statement whose finding it silences, or write `-- \(Self.prefix)\(Self.fileDirective)` to silence the rule in the whole file.",
                    inDownSection: isDown))
            }
        }
        return bound
    }

    /// The comment that silences `rule` for one statement, or for the whole file when
    /// its findings are about the file (`missing-down`); nil for `bad-suppression`,
    /// whose findings are fixed, not silenced.
    static func comment(silencing rule: String, fileWide: Bool) -> String? {
        guard rule != ruleID else { return nil }
        return "-- \(prefix)\(fileWide ? fileDirective : statementDirective) \(rule)"
    }
}
