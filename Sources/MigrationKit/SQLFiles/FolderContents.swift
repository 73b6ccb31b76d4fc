/// A migrations folder's tool's own code migrations (goose's Go, Flyway's Java and
/// Kotlin, refinery's Rust, yoyo's Python), which that tool runs among the SQL ones and MigrationKit
/// cannot: left out, each would be missing from every database MigrationKit migrates, and
/// the SQL after it may depend on what it did. Named in one sentence, however many.
enum CodeMigrationFiles {
    /// Whether `candidate` is a code migration of the tool whose layout `layout` is.
    static func isCodeMigration(_ candidate: MigrationFolderLayout.Candidate, of layout: MigrationFolderLayout) -> Bool {
        guard !candidate.isFolder else { return false }
        let name = candidate.name
        switch layout {
        case .goose:
            return candidate.isGooseGoMigration
        case .flyway:
            guard let stem = MigrationFileName.strip(name, ".java") ?? MigrationFileName.strip(name, ".kt") else { return false }
            return MigrationFileName(stem + ".sql", isFolder: false, layout: .flyway) != nil
        case .refinery:
            guard let stem = MigrationFileName.strip(name, ".rs") else { return false }
            return MigrationFileName(stem + ".sql", isFolder: false, layout: .refinery) != nil
        case .yoyo:
            return name.hasSuffix(".py")
        default:
            return false
        }
    }

    /// The one refusal for every code migration of the folder, or nil when it has none.
    static func refusal(_ files: [MigrationFolderLayout.Candidate], layout: MigrationFolderLayout) -> SQLMigrationFileError? {
        guard let first = files.first else { return nil }
        let (kind, tool, naming): (String, String, String)
        switch layout {
        case .goose: (kind, tool, naming) = ("Go", "goose", "VERSION_NAME.sql with `-- +goose Up`")
        case .flyway: (kind, tool, naming) = ("Java or Kotlin", "Flyway", "V<version>__<description>.sql")
        case .yoyo: (kind, tool, naming) = ("Python", "yoyo", "ID.sql of the same id, with its `-- depends:` line")
        default: (kind, tool, naming) = ("Rust", "refinery", "V<version>__<name>.sql")
        }
        let one = files.count == 1
        let more = one ? "" : " and \(files.count - 1) more like it (\(listing(files.dropFirst().map(\.name))))"
        return SQLMigrationFileError(
            code: .codeMigrations, path: first.path,
            message: "\(tool) runs this \(kind) migration\(more), and MigrationKit runs SQL migrations only, so \(one ? "it" : "they") would be left out of every database; "
                + "write each as SQL of its version (\(naming)), so that every database gets what it does; or, where every database is already past \(one ? "it" : "them"), "
                + "move \(one ? "it" : "them") out of the migrations folder and record what each database has with `baseline --to`.")
    }
}

/// A migrations folder that holds things, none of them a migration in the layout it is
/// read in: migrations of a kind no layout here reads (Python, Java, Kotlin, Rust,
/// JavaScript migrations, a changelog, folders), named by
/// kind and counted, with the way through. A folder with nothing of the kind (empty, or a
/// README alone) has no migration, and says so as it always did.
enum UnreadFolderContents {
    /// What a file's suffix says it is, and what to do with such files.
    private struct Kind {
        let suffixes: [String]
        let what: String
        let way: String
    }

    private static let kinds = [
        Kind(suffixes: [".py"], what: "Python migrations (yoyo's, Alembic's)", way: "write each as SQL in a layout MigrationKit reads (docs/migration-layouts.md)"),
        Kind(suffixes: [".java", ".kt"], what: "Java or Kotlin migrations (Flyway's)", way: "write each as SQL (V<version>__<description>.sql)"),
        Kind(suffixes: [".rs"], what: "Rust migrations (refinery's)", way: "write each as SQL (V<version>__<name>.sql)"),
        Kind(suffixes: [".go"], what: "Go files", way: "write goose's Go migrations as SQL (VERSION_NAME.sql with `-- +goose Up`)"),
        Kind(suffixes: [".js", ".ts", ".mjs", ".cjs"], what: "JavaScript or TypeScript migrations", way: "write each as SQL in a layout MigrationKit reads (docs/migration-layouts.md)"),
        Kind(suffixes: [".xml", ".yaml", ".yml"], what: "changelogs (Liquibase's)", way: "write their changesets as formatted SQL changelogs (`--liquibase formatted sql`, a `--changeset author:id` line each), which MigrationKit reads as Liquibase does"),
    ]

    /// A folder of Drizzle's v1 layout (drizzle-kit 1.0: a folder per migration holding
    /// `migration.sql` and `snapshot.json`, no journal), which no layout here reads: read
    /// as Prisma's (a folder holding `migration.sql`), it would run in an order and be
    /// recorded under names Drizzle's ledger does not have. Nil for another folder.
    static func drizzleV1Refusal(_ candidates: [MigrationFolderLayout.Candidate]) -> SQLMigrationFileError? {
        let folders = candidates.filter(\.isDrizzleV1Migration)
        guard let first = folders.first else { return nil }
        let folder = String(first.path.dropLast(first.name.count + 1))
        return SQLMigrationFileError(code: .noReadableMigration, path: folder, advice: Advice(
            situation: "This folder is in Drizzle's v1 layout (\(folders.count) folder\(folders.count == 1 ? "" : "s") holding migration.sql and snapshot.json: \(listing(folders.map(\.name)))), which MigrationKit does not read",
            otherwise: "write each folder's migration.sql as a migration of a layout MigrationKit reads, in the folders' order (`FOLDER.sql` with `-- migrate:up`), and record what each database has with `baseline --to`, which proves the schema first",
            remedy: .nameMigrationsLayout))
    }

    /// The refusal, or nil when the folder holds nothing that looks like a migration.
    static func refusal(_ candidates: [MigrationFolderLayout.Candidate], layout: MigrationFolderLayout) -> SQLMigrationFileError? {
        var found: [String] = []
        var ways: [String] = []
        var firstPath: String?
        for kind in kinds {
            let files = candidates.filter { candidate in !candidate.isFolder && kind.suffixes.contains { candidate.name.hasSuffix($0) } }
            guard !files.isEmpty else { continue }
            found.append("\(files.count) \(kind.what) (\(listing(files.map(\.name))))")
            ways.append("for the \(kind.suffixes[0]) files, \(kind.way)")
            firstPath = firstPath ?? files[0].path
        }
        let folders = candidates.filter { $0.isFolder && !($0.name == "meta" && layout == .drizzle) }
        if !folders.isEmpty {
            found.append("\(folders.count) folder\(folders.count == 1 ? "" : "s") (\(listing(folders.map(\.name)))) holding no up.sql or migration.sql")
            firstPath = firstPath ?? folders[0].path
        }
        guard let path = firstPath else { return nil }
        let folder = String(path.dropLast(path.split(separator: "/").last.map { $0.count + 1 } ?? 0))
        return SQLMigrationFileError(code: .noReadableMigration, path: folder, advice: Advice(
            situation: "This folder holds \(found.joined(separator: ", ")), and no migration in a layout MigrationKit reads, so nothing here would run",
            otherwise: "\(ways.joined(separator: "; ")) (each layout MigrationKit reads: docs/migration-layouts.md)", remedy: .chooseMigrationsFolder))
    }
}

/// Up to three of `items`, and how many more.
func listing(_ items: [String]) -> String {
    items.count <= 3 ? items.joined(separator: ", ") : items.prefix(3).joined(separator: ", ") + " and \(items.count - 3) more"
}
