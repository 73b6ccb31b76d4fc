/// How much a finding matters.
public enum LintSeverity: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The migration will fail, or break the runner's guarantees: fix it before running.
    case error
    /// The migration runs, but may lose data or surprise: look before running.
    case warning
    /// The migration runs as the runner runs every migration, which is not what the
    /// file asked of another tool (its own transaction): nothing to fix.
    case note

    public var description: String { rawValue }
}

/// One problem the linter found in a migration file, with where it is and what to do.
public struct LintFinding: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Stable kebab-case rule identifier, e.g. `unsupported-sql`, for filters and tools.
    public let rule: String
    /// How much the finding matters: an error to fix, or a warning to look at.
    public let severity: LintSeverity
    /// The migration file.
    public let path: String
    /// 1-based line in the file (not in the section).
    public let line: Int
    /// What is wrong.
    public let message: String
    /// What to do about it.
    public let fix: String

    /// A finding of `rule` at `line` of `path`.
    public init(rule: String, severity: LintSeverity, path: String, line: Int, message: String, fix: String) {
        self.rule = rule
        self.severity = severity
        self.path = path
        self.line = line
        self.message = message
        self.fix = fix
    }

    /// `path:line: severity[rule]: message Fix: fix`, the shape compilers use, so
    /// editors and CI logs can jump to the line.
    public var description: String {
        "\(path):\(line): \(severity)[\(rule)]: \(message) Fix: \(fix)"
    }
}
