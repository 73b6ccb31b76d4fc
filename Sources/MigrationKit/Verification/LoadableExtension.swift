import Foundation

/// A SQLite extension a command loads into every connection it opens
/// (`--load-extension PATH[:ENTRY]`, `load-extension` in `migrationkit.toml`,
/// `MIGRATIONKIT_LOAD_EXTENSION`): the app's own library that registers what the
/// database's schema needs and only the app has — its full-text tokenizer, the functions
/// its triggers and views call, its collations (`AppExtensionNeed`).
///
/// It is loaded through SQLite's C API, with extension loading turned on for that one
/// call and off again (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`), so SQL's own
/// `load_extension()` stays refused: a database's triggers can never load a library.
/// The library runs as part of the command, with the command's rights and its key in
/// memory: it is code you trust as you trust the tool (docs/security-model.md).
package struct LoadableExtension: Hashable, Sendable, CustomStringConvertible {
    /// The library's path, or a name the system's library search finds (`mod_spatialite`),
    /// as SQLite takes it: it also tries the name with `.so` added.
    package let path: String
    /// The entry point to call; nil for the one SQLite derives from the file's name
    /// (`sqlite3_<name>_init`, then `sqlite3_extension_init`).
    package let entryPoint: String?

    package init(path: String, entryPoint: String? = nil) {
        self.path = path
        self.entryPoint = entryPoint
    }

    /// `PATH` or `PATH:ENTRY`, the entry point being what follows the last colon when
    /// that is a C name (letters, digits and underscores, not starting with a digit); a
    /// colon anywhere else is part of the path. Nil for an empty path.
    package init?(argument: String) {
        if let colon = argument.lastIndex(of: ":") {
            let entry = argument[argument.index(after: colon)...]
            let isCName = !entry.isEmpty && entry.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                && !(entry.first?.isNumber ?? true)
            if isCName {
                let path = String(argument[..<colon])
                guard !path.isEmpty else { return nil }
                self.init(path: path, entryPoint: String(entry))
                return
            }
        }
        guard !argument.isEmpty else { return nil }
        self.init(path: argument)
    }

    /// As it is given: `PATH` or `PATH:ENTRY`.
    package var description: String { entryPoint.map { "\(path):\($0)" } ?? path }

    /// Several given in one `MIGRATIONKIT_LOAD_EXTENSION`, separated by `;` (a colon
    /// separates the entry point).
    package static func list(_ text: String) -> [String] {
        text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
