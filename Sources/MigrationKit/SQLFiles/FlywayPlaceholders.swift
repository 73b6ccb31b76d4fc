import Foundation

/// Flyway's placeholders, replaced as Flyway replaces them before it runs a migration:
/// every `${name}` (on one line) whose name, compared without case, is one given
/// (`flyway.placeholders.name`, here `--placeholder NAME=VALUE` or the project file's
/// `[placeholders]`) or one of Flyway's own (`${flyway:defaultSchema}`, `${flyway:user}`,
/// `${flyway:database}`, `${flyway:timestamp}`, `${flyway:filename}`,
/// `${flyway:workingDirectory}`, `${flyway:table}`, `${flyway:environment}`), in the SQL
/// and its comments alike. A `${…}` with no value is refused, as Flyway refuses it ("No
/// value provided for placeholder"). What a migration's checksum is of, Flyway's and
/// MigrationKit's alike, is the file as written: a value that changes (the time a file is
/// read, for `${flyway:timestamp}`) edits no migration.
public struct FlywayPlaceholders: Hashable, Sendable {
    /// The values given, by name without case.
    let values: [String: String]

    /// Placeholders with the values given by name (`NAME` of `${NAME}`, compared
    /// without case, as Flyway compares them).
    public init(_ values: [String: String] = [:]) {
        self.values = Dictionary(values.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Flyway's own placeholders' values for a SQLite database and the script `fileName`,
    /// read at `time`: SQLite's one schema and database, `main`; no user; Flyway's
    /// default history table and environment.
    static func flywayDefaults(fileName: String, time: Date) -> [String: String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return [
            "flyway:defaultschema": "main", "flyway:user": "", "flyway:database": "main",
            "flyway:timestamp": formatter.string(from: time), "flyway:filename": fileName,
            "flyway:workingdirectory": FileManager.default.currentDirectoryPath,
            "flyway:table": "flyway_schema_history", "flyway:environment": "default",
        ]
    }

    /// A placeholder in a file's text: its name as written and its line.
    struct Use {
        let name: String
        let line: Int
    }

    /// Every `${…}` of `text`, as Flyway finds them: `${`, then the shortest run of
    /// characters on that line up to `}`.
    static func uses(in text: String) -> [Use] {
        var found: [Use] = []
        for (index, line) in SQLMigrationFileParser.splitLines(text).enumerated() {
            var rest = line[...]
            while let start = rest.range(of: "${") {
                guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
                found.append(Use(name: String(rest[start.upperBound..<end]), line: index + 1))
                rest = rest[rest.index(after: end)...]
            }
        }
        return found
    }

    /// `text` with every placeholder replaced, for the script `fileName` read at `time`;
    /// nil when it holds none. Throws, naming each, when some have no value.
    func substitute(_ text: String, path: String, time: Date) throws -> String? {
        let uses = Self.uses(in: text)
        guard !uses.isEmpty else { return nil }
        let fileName = String(path.split(separator: "/").last ?? Substring(path))
        let all = Self.flywayDefaults(fileName: fileName, time: time).merging(values) { _, given in given }
        let missing = uses.filter { all[$0.name.lowercased()] == nil }
        if let first = missing.first {
            let names = Array(Set(missing.map(\.name))).sorted()
            throw SQLMigrationFileError(code: .unsupportedFeature, path: path, line: first.line, advice: Advice(
                situation: "Flyway replaces `${\(names.joined(separator: "}`, `${"))}` before it runs this file, and no value is given for \(names.count == 1 ? "it" : "them") (Flyway refuses it so too)",
                remedy: .givePlaceholderValues(names)))
        }
        var result = ""
        var rest = text[...]
        while let start = rest.range(of: "${"), let end = rest[start.upperBound...].firstIndex(where: { $0 == "}" || $0 == "\n" }), rest[end] == "}" {
            result += rest[..<start.lowerBound]
            result += all[String(rest[start.upperBound..<end]).lowercased()] ?? String(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
