extension MigrationFolderLayout {
    /// Something in a migrations folder, as detection sees it: its name, whether it is a
    /// folder (and holds `up.sql` or `down.sql`), and its text when it is a file that
    /// could be read.
    struct Candidate {
        let name: String
        let path: String
        /// A folder holding `up.sql` or `down.sql`: a diesel migration.
        let isMigrationFolder: Bool
        let text: String?

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
    /// - a file named `V<version>__…`, `U<version>__…` or `R__…` (`.sql`, but not `.up.sql`
    ///   or `.down.sql`) is Flyway's;
    /// - an `.up.sql` or `.down.sql` file whose name does not start with a version number
    ///   is MigrationKit's.
    ///
    /// A folder with files of one of those layouts is read in it (its other files are
    /// judged by it); of two, it is refused (`mixedLayouts`), naming a file of each.
    /// With none of them, numbered files (`VERSION_NAME…`) say: up-only `.sql` files make
    /// it sqlx's (with or without `.up.sql`/`.down.sql` pairs), pairs alone
    /// golang-migrate's (sqlx's reversible migrations are the same files, read the same
    /// way). An empty folder, or one with nothing of the kind, is MigrationKit's.
    static func detect(_ candidates: [Candidate]) -> Result<MigrationFolderLayout, SQLMigrationFileError> {
        var signs: [Sign] = []
        var numberedUpOnly = false
        var numberedPairs = false
        for candidate in candidates {
            if let sign = sign(of: candidate) {
                if !signs.contains(where: { $0.layout == sign.layout }) { signs.append(sign) }
                continue
            }
            guard !candidate.isMigrationFolder, let name = MigrationFileName(candidate.name, isFolder: false, layout: .sqlx) else { continue }
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
        if let only = signs.first { return .success(only.layout) }
        if numberedUpOnly { return .success(.sqlx) }
        return .success(numberedPairs ? .golangMigrate : .migrationKit)
    }

    private static func sign(of candidate: Candidate) -> Sign? {
        if candidate.isMigrationFolder {
            return Sign(layout: .diesel, reason: "a folder holding up.sql", path: candidate.path)
        }
        if candidate.isGooseGoMigration {
            return Sign(layout: .goose, reason: "a Go migration", path: candidate.path)
        }
        if let text = candidate.text {
            if SQLMigrationFileParser.holdsSectionDirective(text) {
                return Sign(layout: .migrationKit, reason: "a `-- migrate:up` line", path: candidate.path)
            }
            if SQLMigrationFileParser.holdsGooseAnnotation(text) {
                return Sign(layout: .goose, reason: "a `-- +goose` line", path: candidate.path)
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
