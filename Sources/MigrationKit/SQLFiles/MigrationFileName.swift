/// What a name in a migrations folder is to a layout (`MigrationFolderLayout`): the
/// migration it belongs to, its part of it, and its version. The one place each
/// layout's naming is read.
struct MigrationFileName: Hashable, Sendable {
    /// A file's (or folder's) part of a migration.
    enum Role: Hashable, Sendable {
        /// One file with an up section and an optional down section (`-- migrate:up`,
        /// `-- +goose Up`).
        case sections
        /// The up SQL, whose down SQL (if any) is another file.
        case up
        /// The down SQL of the up file of the same migration (or version).
        case down
        /// sqlx's `VERSION_DESCRIPTION.sql`: up SQL with no down.
        case upOnly
        /// Flyway's `R__description.sql`, which MigrationKit does not run.
        case repeatable
        /// A diesel migration's folder, holding `up.sql` and `down.sql`.
        case folder
    }

    /// The migration's identifier: the name without its suffix (a Flyway undo file's, or
    /// a `.down.sql` file's, pairs up with its up file's by version or by name).
    let identifier: String
    let role: Role
    let version: MigrationVersion?

    /// `name` as `layout` names its migrations, or nil when the layout does not take it
    /// (its tool would not run it). `isFolder`: the name is a folder's.
    init?(_ name: String, isFolder: Bool, layout: MigrationFolderLayout) {
        if layout == .diesel {
            guard isFolder else { return nil }
            // diesel's version: the name before its first `_`, without dashes.
            let text = String(name.prefix { $0 != "_" }.filter { $0 != "-" })
            self.init(identifier: name, role: .folder, version: MigrationVersion(text: text))
            return
        }
        if layout == .prisma {
            // Prisma reads every folder as a migration, named TIMESTAMP_NAME.
            guard isFolder else { return nil }
            self.init(identifier: name, role: .folder, version: MigrationVersion(leadingDigitsOf: name))
            return
        }
        guard !isFolder else { return nil }
        switch layout {
        case .sqlMigrate:
            // Any `.sql` file, its sections marked by `-- +migrate` lines.
            guard let identifier = Self.strip(name, ".sql") else { return nil }
            self.init(identifier: identifier, role: .sections, version: MigrationVersion(leadingDigitsOf: identifier))
        case .sqlDelight:
            // `N.sqm`, up SQL taking the schema from version N to N + 1.
            guard let identifier = Self.strip(name, ".sqm") else { return nil }
            self.init(identifier: identifier, role: .upOnly, version: MigrationVersion(text: Self.sqlDelightVersion(of: name)))
        case .liquibase, .yoyo:
            // Their readers name their migrations (`LiquibaseChangelog`, `YoyoMigrations`).
            return nil
        case .atlas:
            // Atlas's `VERSION_DESCRIPTION.sql`, its version the name up to its first `_`.
            guard let identifier = Self.strip(name, ".sql") else { return nil }
            self.init(identifier: identifier, role: .upOnly, version: MigrationVersion(text: AtlasDirectory.version(ofStem: identifier)))
        case .drizzle:
            // The journal gives each file its place and version (`DrizzleJournal`).
            guard let identifier = Self.strip(name, ".sql") else { return nil }
            self.init(identifier: identifier, role: .upOnly, version: nil)
        case .refinery:
            // refinery's `[UV]<version>__<name>.sql`: both up SQL, the version an i32.
            guard let stem = Self.strip(name, ".sql"), let prefix = stem.first, prefix == "V" || prefix == "U" else { return nil }
            let digits = stem.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, Int32(digits) != nil, stem.dropFirst(1 + digits.count).hasPrefix("__"), stem.count > 3 + digits.count else { return nil }
            self.init(identifier: stem, role: .upOnly, version: MigrationVersion(text: String(digits)))
        case .migrationKit:
            if let identifier = Self.strip(name, ".up.sql") {
                self.init(identifier: identifier, role: .up, version: MigrationVersion(leadingDigitsOf: identifier))
            } else if let identifier = Self.strip(name, ".down.sql") {
                self.init(identifier: identifier, role: .down, version: MigrationVersion(leadingDigitsOf: identifier))
            } else if let identifier = Self.strip(name, ".sql") {
                self.init(identifier: identifier, role: .sections, version: MigrationVersion(leadingDigitsOf: identifier))
            } else {
                return nil
            }
        case .flyway:
            guard let stem = Self.strip(name, ".sql") else { return nil }
            if stem.hasPrefix("R__") {
                self.init(identifier: stem, role: .repeatable, version: nil)
                return
            }
            guard let prefix = stem.first, prefix == "V" || prefix == "U", let separator = stem.range(of: "__") else { return nil }
            let text = stem[stem.index(after: stem.startIndex)..<separator.lowerBound]
            let version = MigrationVersion(text: String(text.map { $0 == "_" ? "." : $0 }), separators: ["."])
            guard !version.parts.isEmpty else { return nil }
            self.init(identifier: stem, role: prefix == "V" ? .up : .down, version: version)
        default:
            // sqlx, golang-migrate, goose: VERSION_… with VERSION all digits.
            guard let version = MigrationVersion(leadingDigitsOf: name), name.utf8.dropFirst(version.text.utf8.count).first == UInt8(ascii: "_") else {
                return nil
            }
            let up = Self.strip(name, ".up.sql"), down = Self.strip(name, ".down.sql")
            switch layout {
            case .goose:
                guard let identifier = Self.strip(name, ".sql") else { return nil }
                self.init(identifier: identifier, role: .sections, version: version)
            case .golangMigrate:
                guard let identifier = up ?? down else { return nil }
                self.init(identifier: identifier, role: up != nil ? .up : .down, version: version)
            default:
                if let identifier = up ?? down {
                    self.init(identifier: identifier, role: up != nil ? .up : .down, version: version)
                } else if let identifier = Self.strip(name, ".sql") {
                    self.init(identifier: identifier, role: .upOnly, version: version)
                } else {
                    return nil
                }
            }
        }
    }

    init(identifier: String, role: Role, version: MigrationVersion?) {
        self.identifier = identifier
        self.role = role
        self.version = version
    }

    /// A `.sqm` file's version as SQLDelight reads it from the whole name: the run that
    /// starts at its first digit and goes on through digits and the separators
    /// `,:.-_T` and space, its digits alone (`1.sqm` 1, `v2_add.sqm` 2, `1-2.sqm` 12); 0 for a
    /// name without a digit or a number beyond a 64-bit integer.
    static func sqlDelightVersion(of name: String) -> String {
        let scalars = name.unicodeScalars
        guard let start = scalars.firstIndex(where: { ("0"..."9").contains($0) }) else { return "0" }
        let run = scalars[start...].prefix { ("0"..."9").contains($0) || ",:.-_T ".unicodeScalars.contains($0) }
        let digits = String(String.UnicodeScalarView(run.filter { ("0"..."9").contains($0) }))
        return Int64(digits).map(String.init) ?? "0"
    }

    /// `name` without `suffix`, or nil when it does not end in it (or is nothing else).
    static func strip(_ name: String, _ suffix: String) -> String? {
        name.hasSuffix(suffix) && name.utf8.count > suffix.utf8.count ? String(name.dropLast(suffix.count)) : nil
    }
}

extension StringProtocol {
    /// The first range of `other` in this text, compared as bytes (no Foundation here).
    fileprivate func range(of other: String) -> Range<Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(other) { return index..<self.index(index, offsetBy: other.count) }
            index = self.index(after: index)
        }
        return nil
    }
}
