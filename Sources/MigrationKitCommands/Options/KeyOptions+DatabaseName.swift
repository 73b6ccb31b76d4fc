import Foundation
import MigrationKitFiles

/// The names a database goes by where a command names something per database — a key
/// source, `decrypt --output`, `--shard` — so that each database of a fleet has its own:
///
/// - `{name}`: the file's name without its extension (`tenants/acme.db` is `acme`), for
///   one folder of tenants;
/// - `{folder}`: the name of the folder it is in (`tenants/acme/main.db` is `acme`), for
///   one folder per tenant;
/// - `{path}`: its path under the fleet's root, without the extension, for trees whose
///   file names repeat (`tenants/eu/acme.db` under `--db-glob 'tenants/*/*.db'` is
///   `eu/acme`). The root is a pattern's folder (its path up to the first wildcard),
///   else the current folder.
///
/// All three are the real file's: a symbolic link (an alias such as `current.db`) stands
/// for the file it points to, whose key it is. Here rather than beside the key options
/// because that follows links, which the file layer resolves (`DurableFile`).
package struct DatabaseNames: Hashable, Sendable {
    package let name: String
    let folder: String
    /// Nil when the file is not under the root (an absolute path elsewhere, a link
    /// pointing out of it).
    package let path: String?

    /// The names of the database at `path`, under `root` (nil: the current folder).
    package init(of path: String, root: String? = nil) {
        let real = Self.real(path)
        let components = real.split(separator: "/").map(String.init)
        name = Self.withoutExtension(components.last ?? real)
        folder = components.dropLast().last ?? ""
        let base = Self.real(root ?? ".")
        let prefix = base.hasSuffix("/") ? base : base + "/"
        self.path = real.hasPrefix(prefix) ? Self.withoutExtension(String(real.dropFirst(prefix.count))) : nil
    }

    /// What each form stands for, for `KeySourceValues.forDatabase(names:)`.
    package var substitutions: [String: String] {
        var names = ["{name}": name, "{folder}": folder]
        if let path { names["{path}"] = path }
        return names
    }

    /// `text` with every form replaced.
    ///
    /// - Throws: a usage error when `text` uses `{path}` and the database is not under
    ///   the root, so it never names a file that is not what was meant.
    package func substitute(in text: String, database: String, option: String) throws -> String {
        try requireForms(in: [text], database: database, option: option)
        return substitutions.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// Throws when `texts` use a form this database has no value for.
    package func requireForms(in texts: [String], database: String, option: String) throws {
        guard path == nil, texts.contains(where: { $0.contains("{path}") }) else { return }
        throw CLIError(.badOptionValue, "\(option) uses {path}, the path under the fleet's folder, but \(database) is not under it; list it with --db-glob (its folder is the pattern's, up to the first wildcard) or by a path under the current folder.")
    }

    /// The form's value, or nil (`{path}` outside the root).
    func value(of form: String) -> String? { substitutions[form] }

    private static func withoutExtension(_ file: String) -> String {
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    /// The absolute path with its symbolic links followed (as far as it exists: a
    /// database not created yet keeps its name).
    private static func real(_ path: String) -> String {
        // A current folder that was removed has no path (""): the path stays as given.
        let current = FileManager.default.currentDirectoryPath
        let absolute = path.hasPrefix("/") || !current.hasPrefix("/") ? path : current + "/" + path
        let resolved = DurableFile.resolvingSymlinks(absolute)
        if resolved != absolute || FileProbe(path: absolute).kind != .missing { return resolved }
        // Not there: its folder's real path, and its own name.
        let folder = DirectoryLock.parent(of: absolute)
        return DurableFile.resolvingSymlinks(folder) + "/" + (absolute.split(separator: "/").last.map(String.init) ?? "")
    }
}

extension KeyOptions {
    /// These options with each name form (`{name}`, `{folder}`, `{path}`) replaced by the
    /// database's (`DatabaseNames`). Only `KeyOptions.resolve(for:…)` and the commands
    /// that retire or name keys per database call it.
    package func forDatabase(at path: String, in world: CommandWorld) throws -> KeyOptions {
        let names = world.names(of: path)
        try names.requireForms(in: Array(given.byName.values), database: path, option: "The key option")
        var options = self
        options.given = given.forDatabase(names: names.substitutions)
        return options
    }

    /// The name of the file a path names: `{name}` (`DatabaseNames.name`).
    package static func databaseName(_ path: String) -> String {
        DatabaseNames(of: path).name
    }
}

extension CommandWorld {
    /// The names of the database at `path`: under its fleet's root in a fleet, else
    /// under the current folder.
    package func names(of path: String) -> DatabaseNames {
        DatabaseNames(of: path, root: fleet?.root(of: path))
    }
}
