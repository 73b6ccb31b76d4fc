extension MigrationFolderLayout {
    /// Something in a migrations folder, as detection and reading see it: its name,
    /// whether it is a folder and which of the files layouts look for it holds
    /// (`markerFiles`), and its text when it is a `.sql` file that could be read.
    struct Candidate {
        let name: String
        let path: String
        let isFolder: Bool
        /// Which of `markerFiles` the folder holds; empty for a file.
        var folderHolds: Set<String> = []
        let text: String?

        /// The files in a folder that make it a migration of a layout (diesel's `up.sql`
        /// and `down.sql`, Prisma's `migration.sql`, Drizzle v1's `migration.sql` with
        /// `snapshot.json`) or a layout's own (Drizzle's `meta/_journal.json`).
        static let markerFiles = ["up.sql", "down.sql", "migration.sql", "snapshot.json", "_journal.json"]

        /// A folder holding `up.sql`, or `down.sql` without Prisma's `migration.sql`
        /// (whose `down.sql` a team may write beside it): a diesel migration.
        var isMigrationFolder: Bool { folderHolds.contains("up.sql") || (folderHolds.contains("down.sql") && !isPrismaMigration) }

        /// A folder holding `migration.sql` (and no Drizzle snapshot): a Prisma migration.
        var isPrismaMigration: Bool { folderHolds.contains("migration.sql") && !isDrizzleV1Migration }

        /// A folder holding `migration.sql` and `snapshot.json`: a migration of Drizzle's
        /// v1 layout (drizzle-kit 1.0), which no layout here reads.
        var isDrizzleV1Migration: Bool { isFolder && folderHolds.isSuperset(of: ["migration.sql", "snapshot.json"]) }

        /// Drizzle's `meta` folder, holding `_journal.json`.
        var isDrizzleMeta: Bool { isFolder && name == "meta" && folderHolds.contains("_journal.json") }

        /// A goose Go migration: `VERSION_NAME.go`.
        var isGooseGoMigration: Bool {
            name.hasSuffix(".go") && MigrationVersion(leadingDigitsOf: name).map { name.utf8.dropFirst($0.text.utf8.count).first == UInt8(ascii: "_") } == true
        }
    }

    /// What marks a file as one layout's, in words for the sentence that names it.
    private struct Sign {
        let layout: MigrationFolderLayout
        let reason: String
        let path: String
    }

    /// The layout a folder is written in, read from its files:
    ///
    /// - a folder holding `up.sql` (or `down.sql`) is diesel's;
    /// - a file with a `-- migrate:up` or `-- migrate:down` line is MigrationKit's (dbmate's);
    /// - a file with a `-- +goose` line, or a Go migration (`VERSION_NAME.go`), is goose's;
    /// - a file with a `-- +migrate Up` (or `Down`) line is sql-migrate's;
    /// - a folder holding `migration.sql` is Prisma's;
    /// - a `meta` folder holding `_journal.json` is Drizzle's;
    /// - a `.sqm` file is SQLDelight's;
    /// - an `atlas.sum` file is Atlas's;
    /// - a `.rollback.sql` file, or a file starting with a `-- depends:` line, is yoyo's;
    /// - a `.sql` file whose first line that is not blank is `--liquibase formatted sql` is
    ///   Liquibase's;
    /// - a file named `V<version>__…`, `U<version>__…` or `R__…` (`.sql`, but not `.up.sql`
    ///   or `.down.sql`) is Flyway's, or refinery's when a `U` file's version has no `V`
    ///   file (refinery's `U` is a migration of its own, Flyway's the undo of a `V`);
    /// - an `.up.sql` or `.down.sql` file whose name does not start with a version number
    ///   is MigrationKit's.
    ///
    /// A folder of Drizzle's v1 layout (a folder per migration holding `migration.sql` and
    /// `snapshot.json`) is refused naming it.
    ///
    /// A folder with files of one of those layouts is read in it (its other files are
    /// judged by it); of two, it is refused (`mixedLayouts`), naming a file of each.
    /// With none of them, numbered files (`VERSION_NAME…`) say: up-only `.sql` files make
    /// it sqlx's (with or without `.up.sql`/`.down.sql` pairs), pairs alone
    /// golang-migrate's (sqlx's reversible migrations are the same files, read the same
    /// way). An empty folder, or one with nothing of the kind, is MigrationKit's.
    static func detect(_ candidates: [Candidate]) -> Result<MigrationFolderLayout, SQLMigrationFileError> {
        if let drizzle = UnreadFolderContents.drizzleV1Refusal(candidates) { return .failure(drizzle) }
        var signs: [Sign] = []
        var numberedUpOnly = false
        var numberedPairs = false
        for candidate in candidates {
            if let sign = sign(of: candidate) {
                if !signs.contains(where: { $0.layout == sign.layout }) { signs.append(sign) }
                continue
            }
            guard !candidate.isFolder, let name = MigrationFileName(candidate.name, isFolder: false, layout: .sqlx) else { continue }
            if name.role == .upOnly { numberedUpOnly = true } else { numberedPairs = true }
        }
        if signs.count > 1 {
            let first = signs[0], second = signs[1]
            return .failure(SQLMigrationFileError(code: .mixedLayouts, path: first.path, advice: Advice(
                situation: "This folder mixes migration layouts: this is \(first.layout.possessive) (\(first.reason)), "
                    + "and \(second.path) is \(second.layout.possessive) (\(second.reason))",
                otherwise: "keep one layout in a migrations folder (move the other files to a folder of their own)",
                remedy: .nameMigrationsLayout)))
        }
        if let only = signs.first {
            return .success(only.layout == .flyway && holdsRefineryUnversioned(candidates) ? .refinery : only.layout)
        }
        if numberedUpOnly { return .success(.sqlx) }
        return .success(numberedPairs ? .golangMigrate : .migrationKit)
    }

    /// Whether a folder of `V`/`U` files is refinery's: a `U` file whose version no `V`
    /// file has is refinery's unversioned migration, where Flyway's `U` file is the undo
    /// of a `V` file of its version; unless a file is one refinery does not read (Flyway's
    /// `R__` repeatable, a dotted version), which makes it a Flyway folder with an undo
    /// missing its migration. (A folder of `V` files alone reads the same in both.)
    private static func holdsRefineryUnversioned(_ candidates: [Candidate]) -> Bool {
        let files = candidates.filter { !$0.isFolder && $0.name.hasSuffix(".sql") }
        let flywayOnly = files.contains { MigrationFileName($0.name, isFolder: false, layout: .flyway) != nil && MigrationFileName($0.name, isFolder: false, layout: .refinery) == nil }
        guard !flywayOnly else { return false }
        let names = files.compactMap { MigrationFileName($0.name, isFolder: false, layout: .refinery) }
        let versioned = Set(names.filter { $0.identifier.hasPrefix("V") }.compactMap { $0.version?.parts })
        return names.contains { $0.identifier.hasPrefix("U") && $0.version.map { !versioned.contains($0.parts) } == true }
    }

    private static func sign(of candidate: Candidate) -> Sign? {
        if candidate.isMigrationFolder {
            return Sign(layout: .diesel, reason: "a folder holding up.sql", path: candidate.path)
        }
        if candidate.isPrismaMigration {
            return Sign(layout: .prisma, reason: "a folder holding migration.sql", path: candidate.path)
        }
        if candidate.isDrizzleMeta {
            return Sign(layout: .drizzle, reason: "a meta/_journal.json", path: candidate.path)
        }
        if candidate.isGooseGoMigration {
            return Sign(layout: .goose, reason: "a Go migration", path: candidate.path)
        }
        guard !candidate.isFolder else { return nil }
        if candidate.name == AtlasDirectory.sumFileName {
            return Sign(layout: .atlas, reason: "an atlas.sum", path: candidate.path)
        }
        if YoyoMigrations.isSign(candidate) {
            return Sign(layout: .yoyo, reason: candidate.name.hasSuffix(".rollback.sql") ? "a rollback file" : "a `-- depends:` line", path: candidate.path)
        }
        if candidate.name.hasSuffix(".sqm") {
            return Sign(layout: .sqlDelight, reason: "a .sqm file", path: candidate.path)
        }
        if let text = candidate.text {
            if LiquibaseChangelog.isFormatted(text) {
                return Sign(layout: .liquibase, reason: "a `--liquibase formatted sql` changelog", path: candidate.path)
            }
            if SQLMigrationFileParser.holdsSectionDirective(text) {
                return Sign(layout: .migrationKit, reason: "a `-- migrate:up` line", path: candidate.path)
            }
            if SQLMigrationFileParser.holdsGooseAnnotation(text) {
                return Sign(layout: .goose, reason: "a `-- +goose` line", path: candidate.path)
            }
            if SQLMigrationFileParser.holdsSQLMigrateAnnotation(text) {
                return Sign(layout: .sqlMigrate, reason: "a `-- +migrate` line", path: candidate.path)
            }
        }
        if MigrationFileName(candidate.name, isFolder: false, layout: .flyway) != nil,
           !candidate.name.hasSuffix(".up.sql"), !candidate.name.hasSuffix(".down.sql") {
            return Sign(layout: .flyway, reason: "named V<version>__<description>.sql", path: candidate.path)
        }
        if let name = MigrationFileName(candidate.name, isFolder: false, layout: .migrationKit), name.role == .up || name.role == .down,
           MigrationFileName(candidate.name, isFolder: false, layout: .sqlx) == nil {
            return Sign(layout: .migrationKit, reason: "an .up.sql or .down.sql file whose name starts with no version number", path: candidate.path)
        }
        return nil
    }
}
