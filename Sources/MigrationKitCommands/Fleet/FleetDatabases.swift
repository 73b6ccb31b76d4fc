import Foundation
import MigrationKitFiles
import MigrationKitKeys

#if canImport(Glibc)
import Glibc
#endif

/// The databases one `migrate` works on: every `--db-path`, then every file each
/// `--db-glob` matches (a pattern's matches sorted by name), then every line of
/// `--db-list`, in that order, each file once however many times it was named.
struct FleetDatabases {
    let paths: [String]
    /// The folder `{path}` is taken under, for each database a pattern matched: the
    /// pattern's own folder, up to its first wildcard (`DatabaseNames`). The others'
    /// is the current folder.
    let roots: [String: String]

    /// - Parameter list: the lines of `--db-list` (`FleetDatabases.readList`).
    /// - Throws: a usage error for a pattern that matches no database file, so a typo
    ///   never reads as "nothing to migrate".
    init(paths given: [String], globs: [String], list: [String] = []) throws {
        var paths: [String] = []
        var roots: [String: String] = [:]
        var seen = Set<FileIdentity>()
        func add(_ named: String, root: String? = nil) {
            // A symbolic link (an alias such as `current.db`, which a pattern may list
            // first) stands for the real file: listed under that file's own name, so
            // the table and `{name}` name the tenant it is.
            let path = Self.isSymbolicLink(named) ? DurableFile.resolvingSymlinks(named) : named
            // The same file named twice (a path and a pattern, or through a symbolic
            // link) is migrated once; a missing file stays, to fail with its own message.
            if let identity = FileIdentity(path: path) {
                guard seen.insert(identity).inserted else { return }
            } else if paths.contains(path) {
                return
            }
            paths.append(path)
            if let root { roots[path] = root }
        }
        given.forEach { add($0) }
        for pattern in globs {
            let matches = try Self.expand(pattern).filter(Self.isDatabaseCandidate)
            if matches.isEmpty {
                throw CLIError(.badOptionValue, "--db-glob \(pattern) matches no database file; check the pattern (quote it, so the shell does not expand it first).")
            }
            let root = Self.folder(of: pattern)
            matches.forEach { add($0, root: root) }
        }
        list.forEach { add($0) }
        self.paths = paths
        self.roots = roots
    }

    /// A pattern's folder: its path up to the component with the first wildcard
    /// (`tenants/*/main.db` is `tenants`, `*.db` the current folder).
    static func folder(of pattern: String) -> String {
        let components = pattern.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let fixed = components.prefix { !$0.contains(where: "*?[".contains) }
        let folder = fixed.count == components.count ? Array(fixed.dropLast()) : Array(fixed)
        let joined = folder.joined(separator: "/")
        return joined.isEmpty ? (pattern.hasPrefix("/") ? "/" : ".") : joined
    }

    /// The paths `--db-list FILE` names, one a line (`-`: standard input, as
    /// `find … | migrationkit migrate --db-list -` or a scheduler gives them); blank
    /// lines and `#` comments are skipped, and a relative path is taken from the current
    /// folder. A file that is not there stays in the list, to fail with its own message.
    /// `-` reads `standardInput`, the command's.
    static func readList(_ source: String, standardInput: StandardInput) throws -> [String] {
        let data: Data?
        if source == "-" {
            data = try? FileHandle(fileDescriptor: standardInput.descriptor, closeOnDealloc: false).readToEnd() ?? Data()
        } else {
            data = FileManager.default.contents(atPath: source)
        }
        guard let data, let text = String(data: data, encoding: .utf8) else {
            throw CLIError(.unusableFile, "--db-list \(source) cannot be read as UTF-8 text (one database path a line); check the file.")
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Files a pattern such as `tenants/*` also matches but that are never databases to
    /// migrate: SQLite's journals and MigrationKit's own backups and markers.
    static func isDatabaseCandidate(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if ["-journal", "-wal", "-shm"].contains(where: name.hasSuffix) { return false }
        if DurableFile.isMigrationKitFile(named: name) { return false }
        return FileProbe(path: path).kind == .regularFile
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        FileProbe(path: path, followingSymlinks: false).isSymbolicLink
    }

    /// The pattern's matches, sorted, through the C library's `glob` (the shell's
    /// rules: `*`, `?`, `[…]`; a leading dot is matched only by a leading dot).
    private static func expand(_ pattern: String) throws -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        let status = glob(pattern, 0, nil, &result)
        switch status {
        case 0:
            return (0..<Int(result.gl_pathc)).compactMap { index in
                result.gl_pathv[index].map { String(cString: $0) }
            }
        case GLOB_NOMATCH:
            return []
        default:
            throw CLIError(.unusableFile, "--db-glob \(pattern) could not be read (a folder it walks is unreadable, or memory ran out); check the folder's permissions.")
        }
    }
}
