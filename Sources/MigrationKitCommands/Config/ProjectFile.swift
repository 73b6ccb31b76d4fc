import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys
import SystemPackage
import TOMLKit

/// `migrationkit.toml`: the settings of a project, so that a deploy script or a systemd
/// unit can say `migrationkit migrate` and nothing else.
///
/// Settings are named like the long options (`db-path = "db/app.db"`); top-level ones
/// apply to every database, and a `[databases.NAME]` table holds one database's own
/// (chosen with `--database NAME`; see `settings(database:)` for the one without), and a
/// top-level `[lint]` table the rules lint leaves unsaid (`lint`). Relative paths are taken from the file's folder, so
/// the file works from any folder below it. A key never belongs in it: the file is
/// usually committed. Every problem is one sentence naming the file and line, a usage
/// error (exit 64), so a deploy stops before it touches a database.
struct ProjectFile {
    static let fileName = "migrationkit.toml"

    /// One setting as the file gives it: the value (paths already made absolute) and
    /// the line it is on (nil when it cannot be told, e.g. a dotted key).
    struct Entry: Equatable {
        let value: String
        let line: Int?
    }

    package let path: String
    /// Top-level settings, shared by every database.
    let shared: [ProjectSetting: Entry]
    /// Each `[databases.NAME]` table's settings, by name.
    let databases: [String: [ProjectSetting: Entry]]
    /// The `[lint]` table: rules silenced in every file (`disable = ["RULE", …]`) and in
    /// the files a pattern matches (`[lint.files]`, `"0003_*.sql" = ["RULE", …]`), for
    /// every database's migrations. A rule name no rule has is lint's to report
    /// (`bad-suppression`), not a refusal here: a file written for a newer MigrationKit
    /// still works.
    package let lint: [LintSuppression]
    /// The `[placeholders]` table: Flyway's placeholders' values (`NAME = "value"`), for
    /// a Flyway folder's files, as `--placeholder NAME=VALUE` gives them.
    var placeholders: [String: String] = [:]

    /// The file to read: `explicit` (from --config or MIGRATIONKIT_CONFIG) when given,
    /// else the first `migrationkit.toml` in `directory` or one of its parents, else nil.
    ///
    /// - Parameter directory: the current folder, absolute. Anything else is a folder
    ///   the process can no longer name (removed after the shell entered it: `getcwd`
    ///   fails, and Foundation answers ""), where no search can start: refused, since
    ///   running without the project's settings would mean other settings.
    static func locate(explicit: String?, from directory: String) throws -> String? {
        if let explicit { return explicit }
        guard directory.hasPrefix("/") else {
            throw CLIError(.unusableFile, "The current folder no longer exists (it was removed after this shell entered it), so \(fileName) cannot be looked for there; cd to a folder that exists, or name the file with --config.")
        }
        var folder = URL(fileURLWithPath: directory).standardizedFileURL.path
        while true {
            let candidate = (folder == "/" ? "" : folder) + "/" + fileName
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            if folder == "/" { return nil }
            folder = DirectoryLock.parent(of: folder)
        }
    }

    /// Reads and checks the file; see the type's discussion for what is refused.
    /// - Parameter named: the user named the file (--config, MIGRATIONKIT_CONFIG), so
    ///   whose it is does not matter; a file found by walking up must be theirs (or root's).
    static func load(path: String, named: Bool, commandName: String) throws -> ProjectFile {
        let text = try readText(path, named: named, commandName: commandName)
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw CLIError(.badSetting, "\(path):\(error.source.begin.line): not valid TOML (\(error.description)); fix the file, or point --config at another one.")
        }
        let lines = TOMLLineIndex(text: text)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path

        var databases: [String: [ProjectSetting: Entry]] = [:]
        var sharedPairs: [(String, TOMLValueConvertible)] = []
        var lint: [LintSuppression] = []
        var placeholders: [String: String] = [:]
        for key in table.keys.sorted() {
            guard let value = table[key] else { continue }
            if key == "lint" {
                lint = try lintSuppressions(value, path: path, lines: lines)
            } else if key == "placeholders" {
                guard let values = value.table else {
                    throw CLIError(.badSetting, "\(location(path, lines.line(of: key, in: []))): `placeholders` must be a table of Flyway placeholders' values: [placeholders], then NAME = \"value\".")
                }
                for name in values.keys.sorted() {
                    guard let text = values[name]?.string else {
                        throw CLIError(.badSetting, "\(location(path, lines.line(of: name, in: ["placeholders"]))): `placeholders.\(name)` must be text in quotes, the value Flyway would put in place of ${\(name)}.")
                    }
                    placeholders[name] = text
                }
            } else if key == "databases" {
                guard let tables = value.table else {
                    throw CLIError(.badSetting, "\(location(path, lines.line(of: key, in: []))): `databases` must be tables, one per database: [databases.NAME].")
                }
                for name in tables.keys.sorted() {
                    guard let settings = tables[name]?.table else {
                        throw CLIError(.badSetting, "\(location(path, lines.line(of: name, in: ["databases"]))): `databases.\(name)` must be a table of settings: [databases.\(name)].")
                    }
                    if settings.contains(key: "lint") {
                        throw CLIError(.badSetting, "\(location(path, lines.line(of: "lint", in: ["databases", name]))): [lint] is a top-level table, for every database's migrations; move it out of [databases.\(name)].")
                    }
                    let pairs = settings.keys.sorted().compactMap { key in settings[key].map { (key, $0) } }
                    databases[name] = try entries(of: pairs, table: ["databases", name], path: path, folder: folder, lines: lines)
                }
            } else {
                sharedPairs.append((key, value))
            }
        }
        let shared = try entries(of: sharedPairs, table: [], path: path, folder: folder, lines: lines)
        return ProjectFile(path: path, shared: shared, databases: databases, lint: lint, placeholders: placeholders)
    }

    /// The settings for `database`: the shared ones, overridden by the database's own.
    ///
    /// Without `--database`, one rule that never picks a database the user did not
    /// mean: a top-level `db-path` is a database of its own, the default (the tables
    /// are then chosen by name only); with no top-level `db-path`, the file's only
    /// `[databases.NAME]` table is the database; with several, the command refuses and
    /// lists their names.
    func settings(database: String?) throws -> (name: String?, entries: [ProjectSetting: Entry]) {
        guard let database else {
            if shared[.dbPath] != nil || databases.isEmpty { return (nil, shared) }
            guard databases.count == 1, let (name, own) = databases.first else {
                throw CLIError(.missingOption, "\(path) names several databases (\(databases.keys.sorted().joined(separator: ", "))) and no top-level db-path; choose one with --database NAME.")
            }
            return (name, shared.merging(own) { $1 })
        }
        guard let own = databases[database] else {
            let known = databases.isEmpty ? "it has no [databases.NAME] table" : "it names \(databases.keys.sorted().joined(separator: ", "))"
            throw CLIError(.badOptionValue, "--database \(database) is not in \(path) (\(known)); check the name.")
        }
        return (database, shared.merging(own) { $1 })
    }

    // MARK: - Reading

    private static func readText(_ path: String, named: Bool, commandName: String) throws -> String {
        let probe = FileProbe(path: path)
        // The C struct, and the errno stat(2) failed with: the sentences below read them.
        guard let status = probe.status?.rawValue else {
            let failure = probe.failure ?? .ioError
            let reason = failure == .noSuchFileOrDirectory || failure == .notDirectory ? "does not exist" : "cannot be read (\(failure))"
            throw CLIError(.badSetting, "Config file \(path) \(reason); check --config, or run `\(commandName) init` to write one.")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw CLIError(.badSetting, "Config file \(path) is not a regular file; give the path of a migrationkit.toml.")
        }
        // Found by walking up the folders, a file in a shared place (/tmp, a parent
        // folder) could be anyone's, and it names the SQL to run and the database to run
        // it on: only the user's own, or root's, is trusted unless named explicitly.
        if !named && status.st_uid != geteuid() && status.st_uid != 0 {
            throw CLIError(.badSetting, "Config file \(path) belongs to another user (uid \(status.st_uid)), so its settings are not trusted when found by looking up from the current folder; if you mean to use it, name it with --config \(path).")
        }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw CLIError(.badSetting, "Config file \(path) is writable by \(status.st_mode & S_IWOTH != 0 ? "others" : "its group"), so someone else could point migrationkit at another database or key; make it private with `chmod go-w \(path)`.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(.badSetting, "Config file \(path) cannot be read (permission denied); run as the user it belongs to, or make it readable with `chmod u+r \(path)`.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError(.badSetting, "Config file \(path) is not UTF-8 text; save it as UTF-8.")
        }
        return text
    }

    /// `[lint]`: `disable = ["RULE", …]`, and `[lint.files]` of `"PATTERN" = ["RULE", …]`.
    private static func lintSuppressions(_ value: TOMLValueConvertible, path: String, lines: TOMLLineIndex) throws -> [LintSuppression] {
        guard let table = value.table else {
            throw CLIError(.badSetting, "\(location(path, lines.line(of: "lint", in: []))): `lint` must be a table: [lint], holding `disable = [\"RULE\", …]` and a [lint.files] table.")
        }
        var suppressions: [LintSuppression] = []
        for key in table.keys.sorted() {
            let line = lines.line(of: key, in: ["lint"])
            let here = location(path, line)
            switch key {
            case "disable":
                suppressions.append(LintSuppression(rules: try ruleNames(table[key], named: "lint.disable", at: here), path: path, line: line))
            case "files":
                guard let files = table[key]?.table else {
                    throw CLIError(.badSetting, "\(here): `lint.files` must be a table of file patterns: [lint.files], then a line such as \"0003_*.sql\" = [\"RULE\"].")
                }
                for pattern in files.keys.sorted() {
                    let patternLine = lines.line(of: pattern, in: ["lint", "files"])
                    guard !pattern.isEmpty else {
                        throw CLIError(.badSetting, "\(location(path, patternLine)): an empty file pattern in [lint.files] matches no file; give one such as \"0003_*.sql\".")
                    }
                    let rules = try ruleNames(files[pattern], named: "lint.files.\"\(pattern)\"", at: location(path, patternLine))
                    suppressions.append(LintSuppression(rules: rules, files: pattern, path: path, line: patternLine))
                }
            default:
                let suggestion = Suggestion.closest(to: key, among: ["disable", "files"]).map { " Did you mean `\($0)`?" } ?? ""
                throw CLIError(.badSetting, "\(here): unknown key `\(key)` in [lint].\(suggestion) It takes `disable` (rules silenced in every file) and a [lint.files] table (rules silenced in the files a pattern matches).")
            }
        }
        return suppressions
    }

    /// A list of rule names, or a sentence saying it must be one.
    private static func ruleNames(_ value: TOMLValueConvertible?, named name: String, at here: String) throws -> [String] {
        let names = value?.array.map { array in array.compactMap(\.string) }
        guard let names, names.count == value?.array?.count, names.allSatisfy({ !$0.isEmpty }) else {
            throw CLIError(.badSetting, "\(here): `\(name)` must be a list of rule names in quotes, such as [\"drop-table-with-data\"]; `lint` shows each finding's rule in brackets.")
        }
        return names
    }

    private static func entries(of pairs: [(String, TOMLValueConvertible)], table path: [String], path file: String, folder: String, lines: TOMLLineIndex) throws -> [ProjectSetting: Entry] {
        var entries: [ProjectSetting: Entry] = [:]
        for (key, value) in pairs {
            let line = lines.line(of: key, in: path)
            let here = location(file, line)
            if ProjectSetting.keyNames.contains(key.lowercased()) {
                throw CLIError(.badSetting, "\(here): a key never goes in \(fileName), which is usually committed; name where it is instead: \(KeySources.settingsSentence), or set \(KeySource.passwordEnvironmentVariable).")
            }
            guard let setting = ProjectSetting(rawValue: key) else {
                let names = ProjectSetting.allCases.map(\.rawValue)
                let tables = path.isEmpty ? " (and [databases.NAME] tables)" : ""
                let suggestion = Suggestion.closest(to: key, among: names + (path.isEmpty ? ["databases"] : []))
                    .map { " Did you mean `\($0)`?" } ?? ""
                throw CLIError(.badSetting, "\(here): unknown setting `\(key)`.\(suggestion) Settings are named like the long options: \(names.joined(separator: ", "))\(tables).")
            }
            entries[setting] = Entry(value: try text(of: value, for: setting, at: here, folder: folder), line: line)
        }
        return entries
    }

    /// The value as the option would take it, or a sentence saying what type it needs.
    private static func text(of value: TOMLValueConvertible, for setting: ProjectSetting, at here: String, folder: String) throws -> String {
        func wrongType(_ wanted: String) -> CLIError {
            CLIError(.badSetting, "\(here): `\(setting.rawValue)` must be \(wanted), not \(describe(value.type)).")
        }
        switch setting.kind {
        case .path:
            guard let path = value.string else { throw wrongType("a path in quotes") }
            guard !path.isEmpty else { throw CLIError(.badSetting, "\(here): `\(setting.rawValue)` is empty; give a path, or remove the line.") }
            if path.hasPrefix("/") || (setting.dashIsStandardInput && path == "-") { return path }
            return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
        case .text:
            guard let text = value.string else { throw wrongType("text in quotes") }
            guard !text.isEmpty else { throw CLIError(.badSetting, "\(here): `\(setting.rawValue)` is empty; give a value, or remove the line.") }
            return text
        case .wholeNumber:
            guard value.type == .int, let number = value.int else { throw wrongType("a whole number") }
            return String(number)
        case .seconds:
            if value.type == .int, let number = value.int { return String(number) }
            if value.type == .double, let number = value.double { return String(number) }
            throw wrongType("a number of seconds")
        case .flag:
            guard value.type == .bool, let flag = value.bool else { throw wrongType("true or false") }
            return String(flag)
        case .pathList:
            let items = value.string.map { [$0] } ?? value.array.map { array in array.compactMap(\.string) }
            guard let items, items.count == (value.array?.count ?? 1) else { throw wrongType("a path in quotes, or a list of them") }
            guard !items.isEmpty, items.allSatisfy({ !$0.isEmpty }) else {
                throw CLIError(.badSetting, "\(here): `\(setting.rawValue)` holds an empty path; give a path, or remove the line.")
            }
            if let separated = items.first(where: { $0.contains(";") }) {
                throw CLIError(.badSetting, "\(here): `\(setting.rawValue)` \"\(separated)\" holds a `;`, which separates several in MIGRATIONKIT_\(setting.rawValue.uppercased().replacingOccurrences(of: "-", with: "_")); give each path as an item of a list.")
            }
            return items.map { item in
                // A path with a folder in it is the file's neighbour; a bare name is for
                // the system's library search, as SQLite takes it.
                guard item.contains("/"), !item.hasPrefix("/"), let library = LoadableExtension(argument: item) else { return item }
                let path = URL(fileURLWithPath: library.path, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
                return LoadableExtension(path: path, entryPoint: library.entryPoint).description
            }.joined(separator: "; ")
        }
    }

    private static func describe(_ type: TOMLType) -> String {
        switch type {
        case .string: return "text"
        case .int: return "a whole number"
        case .double: return "a number"
        case .bool: return "true or false"
        case .table: return "a table"
        case .array: return "a list"
        default: return "a date or time"
        }
    }

    private static func location(_ path: String, _ line: Int?) -> String {
        line.map { "\(path):\($0)" } ?? path
    }
}

/// The line of each `key = …` in a TOML text, by the table it sits in. TOMLKit reports
/// positions for parse errors only, not for values, so this finds them for messages and
/// for `migrationkit config`; a key it cannot place (a dotted key, an inline table)
/// simply has no line.
struct TOMLLineIndex {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var table: [String] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("["), !line.hasPrefix("[["), let close = line.lastIndex(of: "]") {
                let inside = line[line.index(after: line.startIndex)..<close]
                table = inside.split(separator: ".").map { Self.unquoted($0.trimmingCharacters(in: .whitespaces)) }
                // A table's own line, for messages about the table as a whole.
                let id = table.joined(separator: "\u{1}")
                if lines[id] == nil { lines[id] = offset + 1 }
                continue
            }
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            let key = Self.unquoted(line[..<equals].trimmingCharacters(in: .whitespaces))
            let id = (table + [key]).joined(separator: "\u{1}")
            if lines[id] == nil { lines[id] = offset + 1 }
        }
    }

    package func line(of key: String, in table: [String]) -> Int? {
        lines[(table + [key]).joined(separator: "\u{1}")]
    }

    private static func unquoted(_ text: String) -> String {
        if text.count >= 2, let first = text.first, first == text.last, first == "\"" || first == "'" {
            return String(text.dropFirst().dropLast())
        }
        return text
    }
}

/// The key source `init` writes into `migrationkit.toml`: only sources whose values are
/// settings (never `--password`: a key never goes into the file).
enum ProjectFileKeyRole: KeyRole {
    package static let text = KeyRoleText(prefix: "", theKey: "the key", environmentVariable: KeySource.passwordEnvironmentVariable,
                                  settingsFile: ProjectFile.fileName)
}
