/// yoyo's SQL migrations, read as yoyo (8 and later) reads them: every `ID.sql` file of the
/// folder a migration of id `ID`, its `ID.rollback.sql` its down SQL (yoyo runs the
/// rollback file's statements in the file's order), its leading comment lines holding
/// `-- depends: ID …` and `-- transactional: false`; applied in yoyo's order: by their
/// dependencies, and among the migrations whose dependencies are applied, the first by
/// name (yoyo's stable topological sort of the files as it lists them). The one place
/// that reads them.
///
/// yoyo's `post-apply` migrations, which it runs after every run, and its Python
/// migrations are refused by name: MigrationKit applies each migration once, in SQL.
enum YoyoMigrations {
    /// Whether a file of the folder marks it as yoyo's: a rollback file, or a leading
    /// `-- depends:` line.
    static func isSign(_ candidate: MigrationFolderLayout.Candidate) -> Bool {
        guard !candidate.isFolder else { return false }
        if candidate.name.hasSuffix(".rollback.sql") { return true }
        return candidate.text.map { directives(of: $0).names.contains("depends") } ?? false
    }

    /// The folder's migrations in yoyo's order, every problem appended to `problems`.
    static func migrations(in candidates: [MigrationFolderLayout.Candidate], problems: inout [SQLMigrationFileError]) -> [SQLMigrationFile] {
        let rollbacks = Dictionary(candidates.filter { !$0.isFolder }.compactMap { candidate in
            MigrationFileName.strip(candidate.name, ".rollback.sql").map { ($0, candidate) }
        }, uniquingKeysWith: { first, _ in first })
        var code: [MigrationFolderLayout.Candidate] = []
        // What yoyo lists: its `.sql` and `.py` files, by name (Python's `sorted`).
        var listed: [(candidate: MigrationFolderLayout.Candidate, id: String)] = []
        for candidate in candidates where !candidate.isFolder {
            if candidate.name.hasSuffix(".py") {
                code.append(candidate)
            } else if !candidate.name.hasSuffix(".rollback.sql"), let id = MigrationFileName.strip(candidate.name, ".sql") {
                listed.append((candidate, id))
            }
        }
        if let refusal = CodeMigrationFiles.refusal(code, layout: .yoyo) { problems.append(refusal) }
        for (id, rollback) in rollbacks where !listed.contains(where: { $0.id == id }) {
            problems.append(SQLMigrationFileError(code: .downWithoutUp, path: rollback.path,
                                                  message: "There is no \(id).sql for this rollback file, so yoyo never runs it; add the migration, or remove the file."))
        }

        var files: [SQLMigrationFile] = []
        var depends: [String: [String]] = [:]
        for (candidate, id) in listed {
            guard let text = candidate.text else { continue }
            if id.hasPrefix("post-apply") {
                problems.append(SQLMigrationFileError(code: .unsupportedFeature, path: candidate.path,
                                                      message: "yoyo runs this post-apply migration again after every run that applies migrations, and MigrationKit applies each migration once, in order; make it a migration of its own, or run it outside the migrations."))
                continue
            }
            let found = directives(of: text)
            depends[id] = found.depends
            var noTransaction: SQLFileLine?
            if let line = found.nonTransactional { noTransaction = SQLFileLine(path: candidate.path, line: line) }
            let rollback = rollbacks[id]
            if let rollback, rollback.text == nil { continue }
            do {
                files.append(try SQLMigrationFileParser.parseUpDown(upText: text, upPath: candidate.path, downText: rollback?.text, downPath: rollback?.path,
                                                                    identifier: id, layout: .yoyo, version: nil, noTransactionRequest: noTransaction))
            } catch let error as SQLMigrationFileError {
                problems.append(error)
            } catch {
                // The parser throws only SQLMigrationFileError.
            }
        }
        let known = Set(listed.map(\.id))
        for file in files {
            let missing = (depends[file.identifier] ?? []).filter { !known.contains($0) }
            guard let first = missing.first else { continue }
            problems.append(SQLMigrationFileError(code: .unresolvedDependency, path: file.path,
                                                  message: "This migration depends on \"\(first)\", which is no migration of this folder, and yoyo refuses it; add that migration, or correct its `-- depends:` line."))
        }
        guard problems.isEmpty else { return files }
        return ordered(files, depends: depends, problems: &problems)
    }

    /// `files` (in the order yoyo lists them) in yoyo's order: repeatedly the first whose
    /// dependencies are all applied. A cycle is a problem.
    private static func ordered(_ files: [SQLMigrationFile], depends: [String: [String]], problems: inout [SQLMigrationFileError]) -> [SQLMigrationFile] {
        var result: [SQLMigrationFile] = []
        var done: Set<String> = []
        var left = files
        while !left.isEmpty {
            guard let next = left.firstIndex(where: { file in (depends[file.identifier] ?? []).allSatisfy(done.contains) }) else {
                problems.append(SQLMigrationFileError(code: .unresolvedDependency, path: left[0].path,
                                                      message: "These migrations' `-- depends:` lines make a loop (\(listing(left.map(\.identifier)))), which yoyo refuses; correct them."))
                return result + left
            }
            done.insert(left[next].identifier)
            result.append(left.remove(at: next))
        }
        return result
    }

    /// yoyo's directives: the leading lines of the file that are blank or comments, those of
    /// the form `-- NAME: VALUE` (any blanks around the parts) for `depends` (a list of ids,
    /// several lines joined) and `transactional`.
    static func directives(of text: String) -> (names: Set<String>, depends: [String], nonTransactional: Int?) {
        var names: Set<String> = []
        var depends: [String] = []
        var nonTransactional: Int?
        for (index, line) in SQLMigrationFileParser.splitLines(text).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            guard trimmed.isEmpty || trimmed.hasPrefix("--") else { break }
            guard trimmed.hasPrefix("--") else { continue }
            let body = trimmed.dropFirst(2).drop { $0 == " " || $0 == "\t" }
            guard let colon = body.firstIndex(of: ":") else { continue }
            let name = body[..<colon].trimmingBlanks()
            guard name == "depends" || name == "transactional" else { continue }
            let value = body[body.index(after: colon)...]
            names.insert(name)
            if name == "depends" {
                depends += value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            } else if value.trimmingBlanks().lowercased() == "false" {
                nonTransactional = index + 1
            }
        }
        return (names, depends, nonTransactional)
    }
}

extension StringProtocol {
    /// The text without spaces, tabs and carriage returns at either end.
    fileprivate func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
