import Foundation

/// Drizzle's `meta/_journal.json`: the list of a folder's migrations in the order Drizzle
/// applies them, each entry's `tag` naming its file (`TAG.sql`) and its `when` (the time
/// it was generated, in milliseconds) being what Drizzle records for it and what it
/// compares to tell applied from pending. The one place that reads it.
enum DrizzleJournal {
    /// One entry.
    struct Entry {
        let tag: String
        let when: Int64
    }

    /// The journal's entries, in its order; nil (with a problem appended) when the
    /// journal cannot be read or is not Drizzle's.
    static func entries(at path: String, readFile: (String) throws -> String?, problems: inout [SQLMigrationFileError]) -> [Entry]? {
        func refusal(_ what: String) -> SQLMigrationFileError {
            SQLMigrationFileError(code: .nameOutsideLayout, path: path,
                                  message: "\(what), and Drizzle applies the migrations it lists, in its order; restore it as `drizzle-kit generate` writes it.")
        }
        let text: String?
        do {
            text = try readFile(path)
        } catch let error as SQLMigrationFileError {
            problems.append(error)
            return nil
        } catch {
            text = nil
        }
        guard let text else {
            problems.append(refusal("There is no Drizzle journal here"))
            return nil
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let list = object["entries"] as? [[String: Any]] else {
            problems.append(refusal("This is not Drizzle's journal (a JSON object with an `entries` list)"))
            return nil
        }
        var entries: [Entry] = []
        for (index, item) in list.enumerated() {
            guard let tag = item["tag"] as? String, !tag.isEmpty, let when = wholeNumber(item["when"]) else {
                problems.append(refusal("Entry \(index) of this journal has no `tag` or no `when`"))
                return nil
            }
            entries.append(Entry(tag: tag, when: when))
        }
        return entries
    }

    /// The folder's `TAG.sql` files (`named`) in the journal's order, each with its
    /// entry's `when` as its version; a file the journal does not list, an entry with no
    /// file, and an entry whose `when` is not after the one before (Drizzle would pass
    /// over it on a database that recorded the later one) are problems.
    static func ordered(_ named: [(candidate: MigrationFolderLayout.Candidate, name: MigrationFileName)], inFolder folder: String,
                        readFile: (String) throws -> String?, problems: inout [SQLMigrationFileError]) -> [(candidate: MigrationFolderLayout.Candidate, name: MigrationFileName)] {
        let journalPath = join(folder, "meta/_journal.json")
        guard let entries = entries(at: journalPath, readFile: readFile, problems: &problems) else { return [] }
        var result: [(candidate: MigrationFolderLayout.Candidate, name: MigrationFileName)] = []
        var previous: Entry?
        for entry in entries {
            guard let file = named.first(where: { $0.name.identifier == entry.tag }) else {
                problems.append(SQLMigrationFileError(code: .nameOutsideLayout, path: journalPath,
                                                      message: "The journal lists \(entry.tag), and there is no \(entry.tag).sql beside it, which Drizzle refuses; restore the file, or the journal as `drizzle-kit` left it."))
                continue
            }
            if let previous, entry.when <= previous.when {
                problems.append(SQLMigrationFileError(code: .misnumbered, path: file.candidate.path,
                                                      message: "The journal lists this migration after \(previous.tag), with a `when` (\(entry.when)) that is not later than that one's (\(previous.when)), so Drizzle passes over it on every database that recorded \(previous.tag); give it a later `when` in meta/_journal.json (and a database that needs it, the migration itself)."))
            }
            previous = entry
            result.append((file.candidate, MigrationFileName(identifier: entry.tag, role: .upOnly, version: MigrationVersion(text: "\(entry.when)"))))
        }
        let listed = Set(entries.map(\.tag))
        for file in named where !listed.contains(file.name.identifier) {
            problems.append(SQLMigrationFileError(code: .nameOutsideLayout, path: file.candidate.path,
                                                  message: "meta/_journal.json does not list this file, so Drizzle does not run it; add it to the journal (`drizzle-kit generate` does), or move it out of the migrations folder."))
        }
        return result
    }

    /// A JSON number that is a whole number (`when`), or nil.
    private static func wholeNumber(_ value: Any?) -> Int64? {
        if let number = value as? Int { return Int64(number) }
        if let number = value as? Int64 { return number }
        if let number = value as? Double, number == number.rounded(), abs(number) < 9e18 { return Int64(number) }
        if let number = value as? NSNumber { return number.int64Value }
        return nil
    }
}
