import Foundation
import MigrationKit
import MigrationKitFiles

/// The next migration file of a folder, numbered the way the folder already numbers its
/// files and shaped as its files are, in its layout (`MigrationFolderLayout`): one
/// dbmate-style file or an `.up.sql` and `.down.sql` pair (MigrationKit's own, as the
/// folder already has them), sqlx's up-only file or pair, golang-migrate's pair, goose's
/// file with `-- +goose Up` and `Down`, Flyway's `V` file (and `U` file, where the folder
/// has undo files), diesel's folder with `up.sql` and `down.sql`, SQLDelight's next
/// `N.sqm`: what `new` creates
/// empty and `diff --write` creates filled.
package enum NextMigrationFile {
    /// The identifier given and the files created (the up file first).
    package struct Created {
        package let identifier: String
        package let files: [String]
    }

    /// Creates the folder if needed (mode 0755: source code, readable by the team, never
    /// world-writable whatever the umask) and the next file, never replacing one.
    ///
    /// - Parameter layout: the layout named for the folder; nil: the one its files are in.
    package static func write(named name: String, in directory: String, layout named: MigrationFolderLayout? = nil,
                              up: String, down: String) throws -> Created {
        try Folders.create(directory, purpose: "migrations folder", mode: 0o755)
        // Names (and what tells the layout) only: the folder may hold a file still being
        // written (an empty up section is an error for migrate, not for adding the next file).
        let folder = try SQLMigrationDirectory(path: directory, layout: named).layoutAndIdentifiers()
        let layout = folder.layout
        let slug = MigrationNumbering.slug(name)
        let identifier: String
        if layout == .drizzle {
            throw CLIError(.notAvailableHere, "\(directory) is in Drizzle's layout, whose journal (meta/_journal.json) lists each migration with its time; write the next one with `drizzle-kit generate` (or `drizzle-kit generate --custom`), which adds it to the journal.")
        }
        if layout == .yoyo {
            throw CLIError(.notAvailableHere, "\(directory) is in yoyo's layout, whose migrations name the ones they depend on; write the next one with `yoyo new --sql`, which writes its `-- depends:` line.")
        }
        if layout == .atlas {
            throw CLIError(.notAvailableHere, "\(directory) is in Atlas's layout, whose atlas.sum sums every file; write the next one with `atlas migrate new` (or `atlas migrate diff`), which writes atlas.sum again.")
        }
        if layout == .liquibase {
            throw CLIError(.notAvailableHere, "\(directory) is in Liquibase's layout, whose migrations are the changesets of its changelogs; write the next one as a `--changeset author:id` section at the end of the last changelog, or in a new formatted SQL file (starting `--liquibase formatted sql`) whose name sorts after the others.")
        }
        do {
            switch layout {
            case .flyway:
                identifier = try MigrationNumbering.nextFlyway(after: folder.identifiers, slug: slug, in: directory)
            case .refinery:
                // A `U` migration's version is one of the versions too.
                identifier = try MigrationNumbering.nextFlyway(after: folder.identifiers.map { "V" + $0.dropFirst() }, slug: slug, in: directory)
            case .diesel:
                identifier = try MigrationNumbering.nextDiesel(after: folder.identifiers, slug: slug, now: utcTimestamp(), in: directory)
            case .sqlDelight:
                // SQLDelight names a file by the version it upgrades from: the last one's plus one.
                identifier = try MigrationNumbering.nextSQLDelight(after: folder.names, in: directory)
            default:
                identifier = try MigrationNumbering.next(after: folder.identifiers, slug: slug, now: utcTimestamp(), order: MigrationFileOrder.of(layout), in: directory)
            }
        } catch let refusal as SQLMigrationFileError where refusal.code == .noNextName {
            throw CLIError(.unusableFile, "\(directory): \(refusal.message)")
        }
        let base = directory.hasSuffix("/") ? directory + identifier : directory + "/" + identifier
        func write(_ files: [(path: String, text: String)]) throws -> Created {
            for file in files { try DurableFile.writePrivate(Array(file.text.utf8), to: file.path, replacing: false) }
            return Created(identifier: identifier, files: files.map(\.path))
        }
        let pairs = folder.names.contains { $0.hasSuffix(".up.sql") }
        switch layout {
        case .golangMigrate, .sqlx where pairs, .migrationKit where usesUpDownFiles(folder.names):
            // A pair of files, as the folder already has.
            return try write([(base + ".up.sql", up + "\n"), (base + ".down.sql", down + "\n")])
        case .sqlx:
            // sqlx's up-only file: the layout has no down SQL for it.
            return try write([(base + ".sql", up + "\n")])
        case .goose:
            return try write([(base + ".sql", "-- +goose Up\n\(up)\n\n-- +goose Down\n\(down)\n")])
        case .flyway:
            let undo = folder.names.contains { $0.hasPrefix("U") && $0.hasSuffix(".sql") }
            let undoPath = directory.hasSuffix("/") ? directory + "U" + identifier.dropFirst() : directory + "/U" + identifier.dropFirst()
            return try write([(base + ".sql", up + "\n")] + (undo ? [(undoPath + ".sql", down + "\n")] : []))
        case .refinery:
            // refinery has no down SQL.
            return try write([(base + ".sql", up + "\n")])
        case .sqlDelight:
            // SQLDelight's .sqm file has no down SQL.
            return try write([(base + ".sqm", up + "\n")])
        case .prisma:
            // Prisma's migration.sql, and the down.sql its documentation has a team write.
            try Folders.create(base, purpose: "migration folder", mode: 0o755)
            return try write([(base + "/migration.sql", up + "\n"), (base + "/down.sql", down + "\n")])
        case .diesel:
            try Folders.create(base, purpose: "migration folder", mode: 0o755)
            // An empty up.sql until the SQL is written: diesel runs a comment-only one as a
            // step that changes nothing, and refuses (as migrate does) one with no bytes.
            return try write([(base + "/up.sql", up.isEmpty ? "" : up + "\n"), (base + "/down.sql", down + "\n")])
        default:
            return try write([(base + ".sql", "-- migrate:up\n\(up)\n\n-- migrate:down\n\(down)\n\n")])
        }
    }

    /// Whether the folder's migrations are `.up.sql`/`.down.sql` pairs and none is a
    /// dbmate-style single file.
    static func usesUpDownFiles(_ names: [String]) -> Bool {
        let pairs = names.contains { $0.hasSuffix(".up.sql") }
        let singles = names.contains { $0.hasSuffix(".sql") && !$0.hasSuffix(".up.sql") && !$0.hasSuffix(".down.sql") }
        return pairs && !singles
    }

    /// Now, in UTC, as `YYYYMMDDHHMMSS`: the number a timestamp-numbered folder's next file gets.
    static func utcTimestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date())
    }
}
