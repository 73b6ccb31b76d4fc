import Foundation
import MigrationKit
import MigrationKitFiles

/// The next migration file of a folder, numbered the way the folder already numbers its
/// files and shaped as its files are (one dbmate-style file, or an `.up.sql` and
/// `.down.sql` pair): what `new` creates empty and `diff --write` creates filled.
package enum NextMigrationFile {
    /// The identifier given and the files created (the up file first).
    package struct Created {
        package let identifier: String
        package let files: [String]
    }

    /// Creates the folder if needed (mode 0755: source code, readable by the team, never
    /// world-writable whatever the umask) and the next file, never replacing one.
    package static func write(named name: String, in directory: String, up: String, down: String) throws -> Created {
        try Folders.create(directory, purpose: "migrations folder", mode: 0o755)
        // Names only: the folder may hold a file still being written (an empty up
        // section is an error for migrate, not for adding the next file).
        let existing = try SQLMigrationDirectory(path: directory).identifiers()
        let identifier: String
        do {
            identifier = try MigrationNumbering.next(after: existing, slug: MigrationNumbering.slug(name), now: utcTimestamp())
        } catch let refusal as MigrationNumbering.Refusal {
            throw CLIError(.unusableFile, "\(directory): \(refusal)")
        }
        let base = directory.hasSuffix("/") ? directory + identifier : directory + "/" + identifier
        if usesUpDownFiles(directory) {
            // golang-migrate / sqlx style: a pair of files, as the folder already has.
            try DurableFile.writePrivate(Array((up + "\n").utf8), to: base + ".up.sql", replacing: false)
            try DurableFile.writePrivate(Array((down + "\n").utf8), to: base + ".down.sql", replacing: false)
            return Created(identifier: identifier, files: [base + ".up.sql", base + ".down.sql"])
        }
        let text = "-- migrate:up\n\(up)\n\n-- migrate:down\n\(down)\n\n"
        try DurableFile.writePrivate(Array(text.utf8), to: base + ".sql", replacing: false)
        return Created(identifier: identifier, files: [base + ".sql"])
    }

    /// Whether the folder's migrations are `.up.sql`/`.down.sql` pairs and none is a
    /// dbmate-style single file.
    package static func usesUpDownFiles(_ directory: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let pairs = names.contains { $0.hasSuffix(".up.sql") }
        let singles = names.contains { $0.hasSuffix(".sql") && !$0.hasSuffix(".up.sql") && !$0.hasSuffix(".down.sql") }
        return pairs && !singles
    }

    /// Now, in UTC, as `YYYYMMDDHHMMSS`: the number a timestamp-numbered folder's next file gets.
    package static func utcTimestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date())
    }
}
