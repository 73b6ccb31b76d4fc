#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Rules a project silences, as its settings name them (`migrationkit.toml`'s `[lint]`
/// table): everywhere, or in the files whose names match a pattern.
///
/// A folder adopted from another tool holds migrations that are already applied and
/// must stay as they are; its findings are silenced here or by a comment in the file
/// (`-- migrationkit:nolint`), never by editing the SQL.
package struct LintSuppression: Hashable, Sendable {
    /// The rules silenced, by identifier (`LintFinding.rule`), as written: a name no
    /// rule has is itself reported (`bad-suppression`), never silently ignored.
    let rules: [String]
    /// A glob (`*`, `?`, `[…]`) matched against a finding's file name, or, when it holds
    /// `/`, against as many of the path's last parts (`"*/up.sql"`); nil for every file.
    package let files: String?
    /// The file the suppression is written in, for "suppressed by" and for findings
    /// about the suppression itself.
    package let path: String
    /// Its line in `path`, when known.
    package let line: Int?

    /// Silences `rules` in the files matching `files` (every file when nil), as written
    /// at `line` of `path`.
    package init(rules: [String], files: String? = nil, path: String, line: Int?) {
        self.rules = rules
        self.files = files
        self.path = path
        self.line = line
    }

    /// `path:line`, or the path alone when the line is unknown.
    var location: String {
        line.map { "\(path):\($0)" } ?? path
    }

    /// Whether the suppression covers findings in the file at `path`.
    package func applies(toFile path: String) -> Bool {
        guard let files else { return true }
        let depth = files.split(separator: "/", omittingEmptySubsequences: true).count
        let tail = path.split(separator: "/", omittingEmptySubsequences: true).suffix(depth).joined(separator: "/")
        return fnmatch(files, tail, FNM_PATHNAME) == 0
    }
}

/// What lint found in a batch: the findings to act on, and the ones a suppression
/// silenced, kept so that `lint --json` and `--verbose` can show them.
package struct LintReport: Hashable, Sendable {
    /// Findings no suppression covers, sorted by path, then line.
    package let findings: [LintFinding]
    /// Findings a suppression covers, sorted by path, then line.
    package let suppressed: [SuppressedLintFinding]

    /// A report of `findings` to act on and `suppressed` ones.
    package init(findings: [LintFinding], suppressed: [SuppressedLintFinding]) {
        self.findings = findings
        self.suppressed = suppressed
    }
}

/// A finding a suppression silenced, and where that suppression is written.
///
/// Encoded as the finding's own fields and `suppressedBy`.
package struct SuppressedLintFinding: Hashable, Sendable, Codable {
    /// The finding, as it would have been reported.
    package let finding: LintFinding
    /// The suppression that silenced it: `path:line` of the comment or of the
    /// `migrationkit.toml` entry.
    package let suppressedBy: String

    /// `finding`, silenced by the suppression at `suppressedBy`.
    package init(finding: LintFinding, suppressedBy: String) {
        self.finding = finding
        self.suppressedBy = suppressedBy
    }

    private enum CodingKeys: String, CodingKey {
        case suppressedBy
    }

    /// Writes the finding's fields and `suppressedBy` side by side.
    package func encode(to encoder: any Encoder) throws {
        try finding.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(suppressedBy, forKey: .suppressedBy)
    }

    /// Reads what `encode(to:)` writes.
    package init(from decoder: any Decoder) throws {
        finding = try LintFinding(from: decoder)
        suppressedBy = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .suppressedBy)
    }
}
