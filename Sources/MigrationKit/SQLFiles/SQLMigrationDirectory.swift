import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads every migration in a folder, in the order they apply, before any database is
/// opened.
///
/// The folder is read in its layout (`MigrationFolderLayout`): the one named, or the one
/// its files are written in (`MigrationFolderLayout.detect`). In MigrationKit's own,
/// files ending in `.up.sql`/`.down.sql` pair up by name, and other `.sql` files are
/// dbmate-style; everything else (README.md, notes.txt, hidden files, folders) is
/// ignored. A file that cannot be used stops the load with an error naming it, so a
/// broken folder never half-migrates a database; every such file is named, in one error
/// (`SQLMigrationFileError.furtherProblems`), so that one run shows what to fix. Both
/// forms of one identifier (`0003_x.sql` and `0003_x.up.sql`) are refused as a duplicate.
public struct SQLMigrationDirectory: Sendable {
    /// Migration files larger than this are refused: bigger data belongs in an import,
    /// not in SQL text held in memory twice (as a string and by SQLite's parser).
    static let maximumFileSize = 32 * 1024 * 1024

    /// The folder's path.
    public let path: String
    /// The layout the folder is read in, or nil to read it in the one its files are
    /// written in (`MigrationFolderLayout.detect`).
    public let layout: MigrationFolderLayout?
    /// The values of Flyway's placeholders, replaced in a Flyway folder's files as Flyway
    /// replaces them when they are read (`FlywayPlaceholders`).
    public let placeholders: FlywayPlaceholders

    /// The folder at `path`, read in `layout` (nil: the layout its files are written in),
    /// with Flyway's `placeholders`; nothing is read until `load()`.
    public init(path: String, layout: MigrationFolderLayout? = nil, placeholders: FlywayPlaceholders = FlywayPlaceholders()) {
        self.path = path
        self.layout = layout
        self.placeholders = placeholders
    }

    /// The migrations, in the order they apply: byte-wise by identifier in MigrationKit's
    /// own layout (as `ls` and SQLite sort), by version in the others
    /// (`MigrationFileOrder`).
    ///
    /// - Throws: `SQLMigrationFileError`, naming the file, with the folder's other
    ///   problems in `furtherProblems`; `.misnumbered` for a folder whose files would
    ///   apply in another order than they are numbered in (`V10__b` before `V9__a` in a
    ///   layout that orders by name), which no database may run or record.
    public func load() throws -> [SQLMigrationFile] {
        var problems: [SQLMigrationFileError] = []
        let candidates = try readCandidates(problems: &problems)
        let layout: MigrationFolderLayout
        if let named = self.layout {
            layout = named
        } else {
            switch MigrationFolderLayout.detect(candidates) {
            case .success(let detected):
                layout = detected
            case .failure(let mixed):
                throw SQLMigrationFileError.combining(problems + [mixed])!
            }
        }
        let files = MigrationFolderReading(layout: layout, folder: path, placeholders: placeholders, readFolderFile: readMigrationFolderFile, readFolderBytes: readBytes).migrations(in: candidates, problems: &problems)
        if let error = SQLMigrationFileError.combining(problems) { throw error }
        return files
    }

    /// The layout `load()` reads the folder in, and the identifiers its names give,
    /// reading the files only as far as telling their layout takes: for `new`, which
    /// adds a file to a folder that may hold one still being written.
    package func layoutAndIdentifiers() throws -> (layout: MigrationFolderLayout, identifiers: [String], names: [String]) {
        var problems: [SQLMigrationFileError] = []
        let candidates = try readCandidates(problems: &problems)
        let layout = try self.layout ?? MigrationFolderLayout.detect(candidates).get()
        let names = candidates.compactMap { candidate -> MigrationFileName? in
            MigrationFileName(candidate.name, isFolder: candidate.isFolder, layout: layout)
        }
        let identifiers = Set(names.filter { $0.role != .down && $0.role != .repeatable }.map(\.identifier))
        let order = MigrationFileOrder.of(layout)
        let versions = Dictionary(names.map { ($0.identifier, $0.version) }, uniquingKeysWith: { first, _ in first })
        let sorted = identifiers.map { MigrationFileOrder.Key(identifier: $0, version: versions[$0] ?? nil) }.sorted(by: order.precedes)
        return (layout, sorted.map(\.identifier), candidates.map(\.name))
    }

    /// Every `.sql` (and `.sqm`) file and folder of the folder, each file's text read: a file that
    /// cannot be read is a problem, and a candidate without its text (its name still
    /// tells its layout); one whose name cannot be an identifier is a problem, and no
    /// candidate. A folder that cannot be listed throws.
    private func readCandidates(problems: inout [SQLMigrationFileError]) throws -> [MigrationFolderReading.Candidate] {
        var candidates: [MigrationFolderReading.Candidate] = []
        for entry in try listEntries() {
            let entryPath = join(path, entry.name)
            // What can become an identifier, whose text is read: a `.sql` file, SQLDelight's
            // `.sqm` file, a folder.
            let isMigrationText = entry.name.hasSuffix(".sql") || entry.name.hasSuffix(".sqm")
            do {
                if entry.isFolder || isMigrationText { _ = try validated(entry.name, entryPath) }
            } catch let error as SQLMigrationFileError {
                problems.append(error)
                continue
            }
            if entry.isFolder {
                let holds = MigrationFolderReading.Candidate.markerFiles.filter { FileManager.default.fileExists(atPath: join(entryPath, $0)) }
                candidates.append(.init(name: entry.name, path: entryPath, isFolder: true, folderHolds: Set(holds), text: nil))
                continue
            }
            if !isMigrationText {
                candidates.append(.init(name: entry.name, path: entryPath, isFolder: false, text: nil))
                continue
            }
            do {
                candidates.append(.init(name: entry.name, path: entryPath, isFolder: false, text: try readText(entryPath)))
            } catch let error as SQLMigrationFileError {
                problems.append(error)
                candidates.append(.init(name: entry.name, path: entryPath, isFolder: false, text: nil))
            }
        }
        return candidates
    }

    /// A diesel migration's file (`up.sql`, `down.sql`, `metadata.toml`) read as text,
    /// or nil when the folder has none.
    func readMigrationFolderFile(_ filePath: String) throws -> String? {
        var info = stat()
        guard lstat(filePath, &info) == 0 else { return nil }
        return try readText(filePath)
    }

    /// Files that look like migrations but are not read as ones, each with a sentence
    /// saying why: a suffix in another case (`0002_b.SQL`) is easy to miss, and a
    /// migration silently skipped is worse than one refused.
    package func ignoredLookalikes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted(by: MigrationIdentifierOrder.precedes).compactMap { name in
            guard !name.hasPrefix("."), !name.hasSuffix(".sql"), name.lowercased().hasSuffix(".sql") else { return nil }
            let fixed = String(name.dropLast(4)) + ".sql"
            return "\(join(path, name)) ends in \(name.suffix(4)), not .sql, so it is not read as a migration; rename it to \(fixed) if it is one."
        }
    }

    /// The identifiers the folder's file names give, without reading the files.
    public func identifiers() throws -> [String] {
        let suffixes = [".up.sql", ".down.sql", ".sql"]
        let names = try listFileNames().compactMap { name in
            suffixes.lazy.compactMap { self.strip(name, suffix: $0) }.first
        }
        return Array(Set(names)).sorted(by: MigrationIdentifierOrder.precedes)
    }

    /// Names of the `.sql` entries directly inside the folder that are not folders
    /// (symlinks count, followed), without hidden files. A link that leads nowhere is
    /// listed too, so that reading it fails with its name instead of the migration
    /// silently going missing; so is a FIFO or device, which reading then refuses.
    private func listFileNames() throws -> [String] {
        try listEntries().filter { !$0.isFolder && $0.name.hasSuffix(".sql") }.map(\.name)
    }

    /// Every file and folder directly inside the folder, without hidden ones, by name:
    /// the `.sql` files (as `listFileNames`), the folders (a diesel or Prisma migration
    /// each, in those layouts), and every other file, which the layout reads as a code
    /// migration of its tool (goose's `.go`), names as what it found in a folder of no
    /// migration, or leaves alone (a README).
    private func listEntries() throws -> [(name: String, isFolder: Bool)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
                throw SQLMigrationFileError(code: .folderUnreadable, path: path,
                                            advice: Advice(situation: "This migrations folder is a symbolic link that leads nowhere (or in a loop)", remedy: .chooseMigrationsFolder))
            }
            throw SQLMigrationFileError(code: .folderMissing, path: path,
                                        advice: Advice(situation: "No migrations folder here", remedy: .createMigrationsFolder))
        }
        guard isDirectory.boolValue else {
            throw SQLMigrationFileError(code: .folderUnreadable, path: path,
                                        advice: Advice(situation: "This is a file, not a folder", remedy: .chooseMigrationsFolder))
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw SQLMigrationFileError(code: .folderUnreadable, path: path,
                                        message: "The migrations folder cannot be listed (check its permissions).")
        }
        return names.compactMap { name -> (name: String, isFolder: Bool)? in
            guard !name.hasPrefix(".") else { return nil }
            var info = stat()
            let isFolder = stat(join(path, name), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            return (name, isFolder)
        }
        .sorted { MigrationIdentifierOrder.precedes($0.name, $1.name) }
    }

    /// Identifiers end up in the ledger and in every report; control characters (a
    /// newline in a file name) would forge lines there.
    private func validated(_ identifier: String, _ filePath: String) throws -> String {
        // Printable ASCII has no control characters; anything else is asked of Unicode.
        let printableASCII = identifier.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        guard !identifier.isEmpty, printableASCII || !identifier.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SQLMigrationFileError(code: .invalidName, path: filePath,
                                        message: "This file name cannot be a migration identifier (it is empty or holds control characters such as a newline); rename the file.")
        }
        return identifier
    }

    /// Reads a file as strict UTF-8 text (a leading byte-order mark is dropped).
    func readText(_ filePath: String) throws -> String {
        var bytes = try readBytes(filePath)
        if let nul = bytes.firstIndex(of: 0) {
            let line = bytes[..<nul].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw SQLMigrationFileError(code: .containsNUL, path: filePath, line: line,
                                        message: "The file holds a NUL byte, so it is binary, not SQL text; check that this is the right file.")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let line = Self.firstInvalidUTF8Line(bytes)
            throw SQLMigrationFileError(code: .notUTF8, path: filePath, line: line,
                                        message: "The file is not valid UTF-8; save it as UTF-8.")
        }
        return text
    }

    /// A regular file's bytes as they are, within the size limit, never waiting on a FIFO.
    func readBytes(_ filePath: String) throws -> [UInt8] {
        // Look before opening: opening a FIFO for reading waits for a writer, forever.
        var info = stat()
        guard stat(filePath, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ELOOP {
                throw SQLMigrationFileError(code: .fileUnreadable, path: filePath,
                                            message: "This migration file cannot be opened: a symbolic link that leads nowhere (or in a loop), or a name that is not valid UTF-8; fix or rename it.")
            }
            throw SQLMigrationFileError(code: .fileUnreadable, path: filePath,
                                        message: "The file cannot be read (\(String(cString: strerror(code)))).")
        }
        try Self.requireRegularFile(info, filePath)
        if info.st_size > Self.maximumFileSize {
            throw SQLMigrationFileError(code: .fileTooLarge, path: filePath,
                                        message: "The file is \(info.st_size / (1024 * 1024)) MiB, over the \(Self.maximumFileSize / (1024 * 1024)) MiB limit for a migration; load bulk data another way (for example an ATTACHed database).")
        }
        // O_NONBLOCK in case the path became a FIFO since: never wait on one.
        let descriptor = open(filePath, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SQLMigrationFileError(code: .fileUnreadable, path: filePath,
                                        message: "The file cannot be read (check its permissions).")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else {
            throw SQLMigrationFileError(code: .fileUnreadable, path: filePath, message: "The file cannot be read (\(String(cString: strerror(errno)))).")
        }
        try Self.requireRegularFile(info, filePath)
        let bytes = try Self.readAll(descriptor, of: filePath, expecting: Int(info.st_size), limit: Self.maximumFileSize + 1)
        if bytes.count > Self.maximumFileSize {
            throw SQLMigrationFileError(code: .fileTooLarge, path: filePath,
                                        message: "The file is over the \(Self.maximumFileSize / (1024 * 1024)) MiB limit for a migration; load bulk data another way.")
        }
        return bytes
    }

    /// Every byte of an open file, up to `limit`, in a buffer the size `stat` gave (the
    /// file may still grow or shrink meanwhile). Foundation's `FileHandle.read(upToCount:)`
    /// allocated `limit` bytes for each file: most of the cost of loading a folder of
    /// small migrations.
    private static func readAll(_ descriptor: Int32, of filePath: String, expecting size: Int, limit: Int) throws(SQLMigrationFileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: min(max(size, 0), limit) + 1)
        var count = 0
        while count < limit {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit - count))) }
            let got = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw SQLMigrationFileError(code: .fileUnreadable, path: filePath, message: "The file cannot be read (\(String(cString: strerror(errno)))).")
            }
            if got == 0 { break }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    private static func requireRegularFile(_ info: stat, _ filePath: String) throws {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SQLMigrationFileError(code: .fileUnreadable, path: filePath,
                                        message: "This is not a regular file (a FIFO, socket or device), so it cannot be a migration; remove it or rename it so it does not end in .sql.")
        }
    }

    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int {
        var line = 1
        var lineStart = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            if String(validating: bytes[lineStart..<index], as: UTF8.self) == nil { return line }
            line += 1
            lineStart = index + 1
        }
        return line
    }

    private func strip(_ name: String, suffix: String) -> String? {
        name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
    }
}

/// Joins a folder and a file name without doubling the slash.
func join(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
}
