import Foundation

/// A migrations folder's files made into migrations in its layout: named by the layout's
/// naming (`MigrationFileName`), paired (by name in MigrationKit's own layout, by version
/// in the others), parsed, and put in the layout's order (`MigrationFileOrder`). Every
/// problem is collected, not thrown, so that one run names them all.
struct MigrationFolderReading {
    /// Something the folder lists: a file (a `.sql` file with its text, when it could be
    /// read) or a folder.
    typealias Candidate = MigrationFolderLayout.Candidate

    let layout: MigrationFolderLayout
    /// The migrations folder's path.
    var folder = ""
    /// Flyway's placeholders, for a Flyway folder's files.
    var placeholders = FlywayPlaceholders()
    /// When the files are read: Flyway's `${flyway:timestamp}`.
    let time = Date()
    /// Reads a file of a migration's folder (diesel's, Prisma's) or of the folder's own
    /// (Drizzle's journal); nil when there is no such file.
    var readFolderFile: (String) throws -> String? = { _ in nil }
    /// Reads a file's bytes as they are (`SQLMigrationDirectory.readBytes`), for a sum of them.
    var readFolderBytes: (String) throws -> [UInt8] = { _ in [] }

    /// The folder's migrations in the order they apply, every problem appended to
    /// `problems` (a migration with one is left out).
    func migrations(in candidates: [Candidate], problems: inout [SQLMigrationFileError]) -> [SQLMigrationFile] {
        let order = MigrationFileOrder.of(layout)
        var files: [SQLMigrationFile] = []
        // `make` gives nil for a file whose problem reading it found is collected already.
        func parse(_ make: () throws -> SQLMigrationFile?) {
            do {
                if let file = try make() { files.append(file) }
            } catch let error as SQLMigrationFileError {
                problems.append(error)
            } catch {
                // The parsers throw `SQLMigrationFileError` only.
            }
        }

        if layout == .liquibase || layout == .yoyo {
            files = layout == .liquibase ? LiquibaseChangelog.migrations(in: candidates, problems: &problems)
                : YoyoMigrations.migrations(in: candidates, problems: &problems)
            problems += Self.duplicates(files, order: order, layout: layout)
            if files.isEmpty, problems.isEmpty, let unread = UnreadFolderContents.refusal(candidates, layout: layout) { problems.append(unread) }
            return files
        }

        // Every candidate named in the layout; what it does not name, a problem, or one
        // of the tool's code migrations (counted, for one sentence), or nothing.
        var named: [(candidate: Candidate, name: MigrationFileName)] = []
        var code: [Candidate] = []
        for candidate in candidates {
            if let name = MigrationFileName(candidate.name, isFolder: candidate.isFolder, layout: layout) {
                named.append((candidate, name))
            } else if CodeMigrationFiles.isCodeMigration(candidate, of: layout) {
                code.append(candidate)
            } else if let problem = outsideLayout(candidate) {
                problems.append(problem)
            }
        }
        if let codeProblem = CodeMigrationFiles.refusal(code, layout: layout) { problems.append(codeProblem) }
        if layout == .drizzle {
            named = DrizzleJournal.ordered(named, inFolder: folder, readFile: readFolderFile, problems: &problems)
        }

        if layout == .migrationKit {
            // By name: NAME.up.sql with NAME.down.sql, and NAME.sql.
            let downs = Dictionary(named.filter { $0.name.role == .down }.map { ($0.name.identifier, $0.candidate) }, uniquingKeysWith: { first, _ in first })
            let ups = Set(named.filter { $0.name.role == .up }.map(\.name.identifier))
            for (identifier, down) in downs where !ups.contains(identifier) {
                problems.append(SQLMigrationFileError(code: .downWithoutUp, path: down.path,
                                                      message: "There is no \(identifier).up.sql for this down file; add the up file, or put this down SQL beside the up SQL it undoes."))
            }
            let keys = named.filter { $0.name.role != .down }.map { MigrationFileOrder.Key(identifier: $0.name.identifier, version: nil) }
            if let misnumbered = order.misnumbered(keys) {
                problems.append(Self.refusal(misnumbered, paths: { identifier in
                    named.first { $0.name.identifier == identifier && $0.name.role != .down }?.candidate.path ?? identifier
                }))
            }
            for (candidate, name) in named {
                guard let text = candidate.text else { continue }
                switch name.role {
                case .sections:
                    parse { try SQLMigrationFileParser.parseSections(text, identifier: name.identifier, path: candidate.path, version: name.version) }
                case .up:
                    let down = downs[name.identifier]
                    if let down, down.text == nil { continue }
                    parse {
                        try SQLMigrationFileParser.parseUpDown(upText: text, upPath: candidate.path, downText: down?.text, downPath: down?.path,
                                                               identifier: name.identifier, layout: layout, version: name.version)
                    }
                default:
                    break
                }
            }
        } else {
            // By version: each up (or whole) file with the down file of its version.
            var downs: [(candidate: Candidate, name: MigrationFileName)] = []
            for down in named where down.name.role == .down {
                let key = down.name.key
                if let other = downs.first(where: { order.takeOnePlace($0.name.key, key) }) {
                    problems.append(duplicate(down.candidate.path, other.candidate.path, of: down.name))
                } else {
                    downs.append(down)
                }
            }
            var paired = Set<String>()
            for (candidate, name) in named where name.role != .down {
                if name.role == .repeatable {
                    problems.append(SQLMigrationFileError(code: .unsupportedFeature, path: candidate.path,
                                                          message: "Flyway runs a repeatable migration (R__) again whenever it changes, after the versioned ones, and MigrationKit applies each migration once, in order, so it does not run this file; make it a versioned migration (V<version>__<description>.sql) that creates the objects, or run it outside the migrations."))
                    continue
                }
                let down = name.role == .up ? downs.first { order.takeOnePlace($0.name.key, name.key) } : nil
                if let down { paired.insert(down.candidate.path) }
                parse { try make(candidate, name, down: down?.candidate) }
            }
            for down in downs where !paired.contains(down.candidate.path) {
                problems.append(SQLMigrationFileError(code: .downWithoutUp, path: down.candidate.path,
                                                      message: "This down file's version, \(down.name.version?.text ?? down.name.identifier), has no up file in \(layout.possessive) layout (\(layout.namingInWords)); add the up file of that version, or correct this file's version."))
            }
            if let misnumbered = order.misnumbered(files.map(\.key)) {
                problems.append(Self.refusal(misnumbered, paths: { identifier in files.first { $0.identifier == identifier }?.path ?? identifier }))
            }
        }

        files.sort { lhs, rhs in
            lhs.identifier == rhs.identifier ? lhs.form == .sections && rhs.form != .sections : order.precedes(lhs.key, rhs.key)
        }
        problems += Self.duplicates(files, order: order, layout: layout)
        if layout == .atlas { problems += atlasSumProblems(candidates) + AtlasDirectory.duplicateVersions(files) }
        // Nothing unknown is nothing: a folder whose files are migrations of a kind no
        // layout here reads is refused naming them, never read as "nothing to do".
        if files.isEmpty, problems.isEmpty, let unread = UnreadFolderContents.refusal(candidates, layout: layout) { problems.append(unread) }
        return files
    }

    /// One migration of a layout other than MigrationKit's own, from its files.
    /// - Returns: nil for a file that could not be read, whose problem is collected already.
    private func make(_ candidate: Candidate, _ name: MigrationFileName, down: Candidate?) throws -> SQLMigrationFile? {
        switch name.role {
        case .sections:
            guard let text = candidate.text else { return nil }
            if layout == .sqlMigrate {
                return try SQLMigrationFileParser.parseSQLMigrate(text, identifier: name.identifier, path: candidate.path, version: name.version)
            }
            return try SQLMigrationFileParser.parseGoose(text, identifier: name.identifier, path: candidate.path, version: name.version)
        case .folder:
            return layout == .prisma ? try prismaMigration(candidate, name) : try dieselMigration(candidate, name)
        default:
            if layout == .atlas { return try atlasMigration(candidate, name) }
            guard let text = candidate.text else { return nil }
            if let down, down.text == nil { return nil }
            let file = try SQLMigrationFileParser.parseUpDown(upText: text, upPath: candidate.path, downText: down?.text, downPath: down?.path,
                                                              identifier: name.identifier, layout: layout, version: name.version,
                                                              placeholders: placeholders, time: time)
            if layout == .sqlDelight, let refusal = SQLDelightSyntax.refusal(in: file.up) { throw refusal }
            return file
        }
    }

    /// An Atlas migration: its file, whose directives (`-- atlas:…` lines heading it)
    /// Atlas obeys as it runs it (`AtlasDirectory`).
    private func atlasMigration(_ candidate: Candidate, _ name: MigrationFileName) throws -> SQLMigrationFile? {
        guard let text = candidate.text else { return nil }
        return try SQLMigrationFileParser.parseUpDown(upText: text, upPath: candidate.path, downText: nil, downPath: nil,
                                                      identifier: name.identifier, layout: .atlas, version: name.version,
                                                      noTransactionRequest: try AtlasDirectory.noTransactionRequest(in: text, path: candidate.path))
    }

    /// A diesel migration: its folder's `up.sql`, `down.sql` (optional, as diesel has
    /// it), and `metadata.toml`'s `run_in_transaction = false`, which the runner does not
    /// honour (recorded for lint).
    private func dieselMigration(_ candidate: Candidate, _ name: MigrationFileName) throws -> SQLMigrationFile {
        let upPath = join(candidate.path, "up.sql"), downPath = join(candidate.path, "down.sql")
        guard let up = try readFolderFile(upPath) else {
            throw SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path,
                                        message: "This folder has \(candidate.isMigrationFolder ? "a down.sql but " : "")no up.sql, and diesel reads every folder of a migrations folder as a migration; add its up.sql, or move the folder out of the migrations folder.")
        }
        if up.isEmpty {
            throw SQLMigrationFileError(code: .upSectionEmpty, path: upPath,
                                        message: "This up.sql is empty, which diesel refuses; write the migration's statements (a comment alone makes a migration that changes nothing, as diesel runs it).")
        }
        var noTransaction: SQLFileLine?
        let metadataPath = join(candidate.path, "metadata.toml")
        if let metadata = try readFolderFile(metadataPath) {
            for (index, line) in SQLMigrationFileParser.splitLines(metadata).enumerated() {
                let words = line.split { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "=" }
                if words.count == 2, words[0] == "run_in_transaction", words[1] == "false" {
                    noTransaction = SQLFileLine(path: metadataPath, line: index + 1)
                }
            }
        }
        return try SQLMigrationFileParser.parseUpDown(upText: up, upPath: upPath, downText: try readFolderFile(downPath), downPath: downPath,
                                                      identifier: name.identifier, layout: .diesel, version: name.version,
                                                      noTransactionRequest: noTransaction)
    }

    /// A Prisma migration: its folder's `migration.sql`, which Prisma requires, and the
    /// `down.sql` Prisma's documentation has a team write beside it, when there is one.
    private func prismaMigration(_ candidate: Candidate, _ name: MigrationFileName) throws -> SQLMigrationFile {
        let upPath = join(candidate.path, "migration.sql"), downPath = join(candidate.path, "down.sql")
        guard let up = try readFolderFile(upPath) else {
            throw SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path,
                                        message: "This folder has no migration.sql, and Prisma reads every folder of a migrations folder as a migration (and refuses one without it); add its migration.sql, or move the folder out of the migrations folder.")
        }
        return try SQLMigrationFileParser.parseUpDown(upText: up, upPath: upPath, downText: try readFolderFile(downPath), downPath: downPath,
                                                      identifier: name.identifier, layout: .prisma, version: name.version)
    }

    /// `atlas.sum` against the folder's `.sql` files, their bytes as they are, as Atlas
    /// checks it before it runs anything.
    private func atlasSumProblems(_ candidates: [Candidate]) -> [SQLMigrationFileError] {
        let sqlFiles = candidates.filter { !$0.isFolder && $0.name.hasSuffix(".sql") }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        // A file that could not be read is a problem collected already; a sum without it
        // would only add a second, wrong one.
        guard sqlFiles.allSatisfy({ $0.text != nil }) else { return [] }
        let files: [(name: String, path: String, bytes: [UInt8])]
        do {
            files = try sqlFiles.map { ($0.name, $0.path, try readFolderBytes($0.path)) }
        } catch let error as SQLMigrationFileError {
            return [error]
        } catch {
            return []
        }
        let sum: String?
        do {
            sum = try readFolderFile(join(folder, AtlasDirectory.sumFileName))
        } catch let error as SQLMigrationFileError {
            return [error]
        } catch {
            sum = nil
        }
        return AtlasDirectory.sumProblem(sum, files: files, folder: folder).map { [$0] } ?? []
    }

    /// What a `.sql` file the layout does not name is: a problem (its tool would not run
    /// it, and a migration silently skipped is worse than one refused). A folder outside
    /// diesel's or Prisma's layout, and a file of another kind (a README, a `.go` file
    /// outside goose's layout), is nothing, as it always was; the tool's own code
    /// migrations are `CodeMigrationFiles`'.
    private func outsideLayout(_ candidate: Candidate) -> SQLMigrationFileError? {
        guard !candidate.isFolder, candidate.name.hasSuffix(".sql") else { return nil }
        // Drizzle's journal names its files; one it does not list is its problem.
        guard layout != .drizzle else { return nil }
        return SQLMigrationFileError(code: .nameOutsideLayout, path: candidate.path, advice: Advice(
            situation: "This file is not named as \(layout.possessive) layout names migrations (\(layout.namingInWords)), so that tool would not run it",
            otherwise: "rename it to the layout's naming, or move it out of the migrations folder", remedy: .nameMigrationsLayout))
    }

    /// Two files of one version.
    private func duplicate(_ path: String, _ other: String, of name: MigrationFileName) -> SQLMigrationFileError {
        Self.duplicateVersion(path, other, version: name.version?.text ?? name.identifier, layout: layout)
    }

    /// Two files of one version in a layout that applies one migration per version: a
    /// mistake in that layout, or a folder of another (MigrationKit's own takes `1_a`
    /// beside `01_b`) read in it.
    private static func duplicateVersion(_ path: String, _ other: String, version: String, layout: MigrationFolderLayout) -> SQLMigrationFileError {
        SQLMigrationFileError(code: .duplicateVersion, path: path, advice: Advice(
            situation: "This file and \(other) are both version \(version) of \(layout.possessive) layout, which applies one migration per version",
            otherwise: "give one of them the next free version", remedy: .nameMigrationsLayout))
    }

    /// A folder whose files would apply in another order than their numbers say, named
    /// by the two files that show it, with the renaming that fixes it.
    static func refusal(_ misnumbered: MigrationFileOrder.Misnumbered, paths: (String) -> String) -> SQLMigrationFileError {
        let second = paths(misnumbered.second)
        let renamed = MigrationFileOrder.padded(misnumbered.second, toTheWidthOf: misnumbered.first)
        // The file's name is its identifier and a suffix (.sql, .up.sql).
        let renamedFile = renamed + (second.split(separator: "/").last ?? Substring(second)).dropFirst(misnumbered.second.count)
        return SQLMigrationFileError(
            code: .misnumbered, path: paths(misnumbered.first),
            message: "This file applies before \(second) (migrations apply in byte-wise order of their names) though its number is "
                + "larger, so databases would run them out of their numbered order; give the numbers one width (\(renamedFile), "
                + "and the others alike), starting a renamed file with `-- migrate:merging \(misnumbered.second)` where databases "
                + "applied it under its old name.")
    }

    /// Two files that give one identifier, or one place in the order (one version),
    /// named both: both forms of a migration, or a migration still there beside the file
    /// that merges it.
    private static func duplicates(_ files: [SQLMigrationFile], order: MigrationFileOrder, layout: MigrationFolderLayout) -> [SQLMigrationFileError] {
        var problems: [SQLMigrationFileError] = []
        var owners: [String: String] = [:]
        for (index, file) in files.enumerated() {
            if let other = owners[file.identifier] {
                problems.append(SQLMigrationFileError(code: .duplicateIdentifier, path: file.path,
                                                      message: "This file and \(other) are both migration \"\(file.identifier)\"; keep one of them (either one file with -- migrate:up/-- migrate:down sections, or .up.sql and .down.sql files)."))
            } else if index > 0, order.takeOnePlace(files[index - 1].key, file.key) {
                problems.append(duplicateVersion(file.path, files[index - 1].path, version: file.version?.text ?? file.identifier, layout: layout))
            }
            owners[file.identifier] = file.path
        }
        for file in files {
            for merged in file.merging {
                if let other = owners[merged] {
                    problems.append(SQLMigrationFileError(code: .duplicateIdentifier, path: file.path,
                                                          message: "This file merges \"\(merged)\", which \(other) also defines or merges; remove it from one of them (a merged file replaces the files it merges)."))
                }
                owners[merged] = file.path
            }
        }
        return problems
    }
}

extension MigrationFileName {
    /// The name as the order sees it.
    var key: MigrationFileOrder.Key { MigrationFileOrder.Key(identifier: identifier, version: version) }
}

extension SQLMigrationFile {
    /// The migration as the order sees it.
    var key: MigrationFileOrder.Key { MigrationFileOrder.Key(identifier: identifier, version: version) }
}
