import Foundation

/// Atlas's migration directory, read as Atlas's `sql/migrate` reads it: every `.sql` file of
/// the folder, in byte-wise order of the names, each `VERSION_DESCRIPTION.sql` (the version
/// the name up to its first `_`), checked against `atlas.sum` before anything else, as
/// Atlas refuses a folder whose files that file does not sum. The one place that reads
/// Atlas's folder.
enum AtlasDirectory {
    /// The folder's integrity file.
    static let sumFileName = "atlas.sum"

    /// A file's version as Atlas reads it: the name without `.sql`, up to its first `_`.
    static func version(ofStem stem: String) -> String {
        String(stem.prefix { $0 != "_" })
    }

    // MARK: - atlas.sum

    /// `atlas.sum` as Atlas computes it for `files` (name and bytes, in byte-wise order of
    /// the names): for each file the base64 of the SHA-256 of every name and every file's
    /// bytes so far, its own included (a file whose first line holds `atlas:sum ignore`
    /// adds its name and is not listed), and first the base64 of the SHA-256 of every
    /// listed name and hash.
    static func sum(of files: [(name: String, bytes: [UInt8])]) -> (total: String, entries: [(name: String, hash: String)]) {
        let chain = SHA256Chain()
        var entries: [(name: String, hash: String)] = []
        for file in files {
            chain.add(Array(file.name.utf8))
            if ignoresSum(String(decoding: file.bytes.prefix { $0 != 0x0A }, as: UTF8.self)) { continue }
            chain.add(file.bytes)
            entries.append((file.name, Data(chain.digestSoFar).base64EncodedString()))
        }
        return (total(of: entries), entries)
    }

    private static func total(of entries: [(name: String, hash: String)]) -> String {
        let digest = SHA256Chain()
        for entry in entries {
            digest.add(Array(entry.name.utf8))
            digest.add(Array(entry.hash.utf8))
        }
        return Data(digest.digestSoFar).base64EncodedString()
    }

    /// Whether a file's first line is Atlas's `atlas:sum ignore`.
    static func ignoresSum(_ firstLine: String) -> Bool {
        directive(in: firstLine).map { $0.name == "sum" && $0.argument.split(separator: " ").first == "ignore" } ?? false
    }

    /// What is wrong with the folder's `atlas.sum` (`sumText`, nil when there is none)
    /// against its `.sql` files (`files`, in byte-wise order of their names), as Atlas's
    /// `migrate.Validate` finds it: nothing, or one problem naming the first file that
    /// does not match and how (edited, added, removed), or the file itself.
    static func sumProblem(_ sumText: String?, files: [(name: String, path: String, bytes: [UInt8])], folder: String) -> SQLMigrationFileError? {
        let sumPath = join(folder, sumFileName)
        guard let sumText else {
            guard let first = files.first else { return nil }
            return SQLMigrationFileError(code: .sumMismatch, path: first.path,
                                         message: "This folder has no atlas.sum, which Atlas refuses for a folder with migration files; run `atlas migrate hash` to write it.")
        }
        var lines = sumText.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        if lines.last?.isEmpty == true { lines.removeLast() }
        let recordedTotal = lines.first.map { $0.hasPrefix("h1:") ? String($0.dropFirst(3)) : String($0) } ?? ""
        var recorded: [(name: String, hash: String)] = []
        for line in lines.dropFirst() {
            guard let marker = line.firstRange(of: "h1:") else {
                return SQLMigrationFileError(code: .sumMismatch, path: sumPath,
                                             message: "This atlas.sum is not in Atlas's format (a line `NAME h1:HASH` per file after the first), which Atlas refuses; write it again with `atlas migrate hash`.")
            }
            recorded.append((line[..<marker.lowerBound].trimmingCharacters(in: .whitespaces), String(line[marker.upperBound...])))
        }
        guard total(of: recorded) == recordedTotal else {
            return SQLMigrationFileError(code: .sumMismatch, path: sumPath,
                                         message: "This atlas.sum's first line is not the sum of its other lines (it was edited by hand), which Atlas refuses; restore it, or write it again with `atlas migrate hash`.")
        }
        let computed = sum(of: files.map { ($0.name, $0.bytes) })
        guard computed.total != recordedTotal else { return nil }
        // The first entry that differs, and why, as Atlas says it.
        for (index, entry) in recorded.enumerated() where index >= computed.entries.count || computed.entries[index] != entry {
            let path = files.first { $0.name == entry.name }?.path
            if let place = computed.entries.firstIndex(where: { $0.name == entry.name }), let path {
                let what = place == index
                    ? "This file is not what atlas.sum records for it: it was edited after atlas.sum was written (or a file before it was)"
                    : "This file is not where atlas.sum records it: a file was added before it"
                return SQLMigrationFileError(code: .sumMismatch, path: path,
                                             message: "\(what), which Atlas refuses; restore the files as atlas.sum records them, or, where the change is meant and no database has run it, write atlas.sum again with `atlas migrate hash`.")
            }
            return SQLMigrationFileError(code: .sumMismatch, path: sumPath,
                                         message: "This atlas.sum lists \(entry.name), which is not in the folder, and Atlas refuses the folder; restore the file, or write atlas.sum again with `atlas migrate hash`.")
        }
        let added = computed.entries.dropFirst(recorded.count).first
        let path = added.flatMap { added in files.first { $0.name == added.name }?.path } ?? sumPath
        return SQLMigrationFileError(code: .sumMismatch, path: path,
                                     message: "atlas.sum does not list this file, and Atlas refuses the folder; where the file is meant to be there, write atlas.sum again with `atlas migrate hash`, or remove it.")
    }

    // MARK: - Directives

    /// A directive: `-- atlas:NAME ARGUMENT`.
    struct Directive {
        let name: String
        let argument: String
        let line: Int
    }

    /// Atlas's reading of a directive line (`^([ -~]*)atlas:(\w+)(?: +(.+))*`).
    private static func directive(in line: String) -> (name: String, argument: String)? {
        guard let range = line.range(of: "atlas:", options: .backwards), line[..<range.lowerBound].unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else { return nil }
        let rest = line[range.upperBound...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty else { return nil }
        return (String(name), rest.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
    }

    /// The file's directives, as Atlas reads them: in the comment lines (`--` or `#`) that
    /// start the file, when a blank line parts them from what follows.
    static func directives(of text: String) -> [Directive] {
        var found: [Directive] = []
        var rest = Substring(text)
        var number = 0
        while rest.hasPrefix("--") || rest.hasPrefix("#") {
            number += 1
            guard let end = rest.firstIndex(of: "\n") else {
                // A file of comments alone: they are the file's.
                return found + (directive(in: String(rest).trimmingCharacters(in: .whitespaces)).map { [Directive(name: $0.name, argument: $0.argument, line: number)] } ?? [])
            }
            if let parsed = directive(in: rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines)) {
                found.append(Directive(name: parsed.name, argument: parsed.argument, line: number))
            }
            rest = rest[rest.index(after: end)...]
        }
        let blankAfter = rest.drop { $0 == " " || $0 == "\t" }.hasPrefix("\n") || rest.drop { $0 == " " || $0 == "\t" }.hasPrefix("\r\n")
        return blankAfter || rest.isEmpty ? found : []
    }

    /// What a file's directives ask: refused, where MigrationKit would not do what Atlas
    /// does (a checkpoint, which Atlas runs only on a new database; a delimiter other than
    /// `;`, which SQLite does not read; a file Atlas leaves out of atlas.sum, which it
    /// cannot apply); `txmode none`, a request to run outside a transaction.
    static func noTransactionRequest(in text: String, path: String) throws -> SQLFileLine? {
        var request: SQLFileLine?
        if let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first, ignoresSum(String(first)) {
            throw SQLMigrationFileError(code: .unsupportedFeature, path: path, line: 1,
                                        message: "Atlas leaves this file out of atlas.sum (`atlas:sum ignore`) and does not apply it; remove the line and write atlas.sum again with `atlas migrate hash`, or move the file out of the migrations folder.")
        }
        for directive in directives(of: text) {
            switch directive.name {
            case "checkpoint":
                throw SQLMigrationFileError(code: .unsupportedFeature, path: path, line: directive.line,
                                            message: "This is an Atlas checkpoint, which Atlas runs instead of the files before it on a new database and never on another, and MigrationKit applies each migration once, in order; move it out of the migrations folder (a new database then runs the files it stands for).")
            case "delimiter":
                throw SQLMigrationFileError(code: .unsupportedFeature, path: path, line: directive.line,
                                            message: "Atlas cuts this file's statements at `\(directive.argument)` (`atlas:delimiter`), which SQLite does not read; end its statements with `;` (SQLite reads a trigger's body whole) and remove the line, then write atlas.sum again with `atlas migrate hash`.")
            case "txmode" where directive.argument.lowercased() == "none":
                request = request ?? SQLFileLine(path: path, line: directive.line)
            default:
                break
            }
        }
        return request
    }

    /// Two files of one version, which Atlas records as one revision: the second named,
    /// with the first.
    static func duplicateVersions(_ files: [SQLMigrationFile]) -> [SQLMigrationFileError] {
        var owners: [String: String] = [:]
        var problems: [SQLMigrationFileError] = []
        for file in files {
            let version = file.version?.text ?? file.identifier
            if let other = owners[version] {
                problems.append(SQLMigrationFileError(code: .duplicateVersion, path: file.path,
                                                      message: "This file and \(other) are both version \(version), and Atlas records one revision per version; give one of them another version (and write atlas.sum again with `atlas migrate hash`)."))
            }
            owners[version] = owners[version] ?? file.path
        }
        return problems
    }
}
