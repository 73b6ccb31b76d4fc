import Foundation
import MigrationKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The files of backups, whichever connection copies the database: the name
/// `<db name>.backup-<UTC time to the millisecond>` (only names of exactly that form
/// count, so a user's own `app.db.backup-before-upgrade` is never touched), a hidden
/// temporary renamed into place when whole, room checked first, older ones pruned, and
/// raw byte copies. The connections (`DatabaseBackup`, the GRDB connection) copy the
/// database's committed state into the temporary.
package enum BackupFiles {
    /// How many backups of one database are kept unless told otherwise.
    package static let defaultKeepCount = 5

    /// The backups of the database named `name` in `folder`, oldest first.
    package static func list(folder: String, name: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { file in BackupName(file: file, database: name).map { (file, $0) } }
            .sorted { $0.1.date < $1.1.date }
            .map { folder == "." ? $0.0 : folder + "/" + $0.0 }
    }


    /// Writes a backup of the database at `path` through `copy` into a hidden file, then
    /// gives it its final name: a process killed mid-copy never leaves something that
    /// looks like a backup.
    package static func write(databaseAt path: String, into directory: String?, keep: Int, sparing: Set<String>, copy: (String) throws -> Void) throws -> String {
        let folder = directory ?? DirectoryLock.parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        removeStaleTemporaries(folder: folder, name: name)
        try requireRoom(forBackupOf: path, in: folder)
        let temporary = (folder == "." ? "" : folder + "/") + ".\(name).migrationkit-backup-\(ProcessIdentity.current)"
        DurableFile.removeIfPresent(temporary)
        do {
            try copy(temporary)
            let destination = try linkUnique(temporary, folder: folder, name: name)
            FileRemoval.remove(temporary)
            try DurableFile.synchronizeDirectory(containing: destination)
            if keep > 0 { prune(folder: folder, name: name, keep: keep, sparing: sparing) }
            return destination
        } catch {
            DurableFile.removeIfPresent(temporary)
            throw error
        }
    }

    /// Puts the proven backup at `backup` in place of the database at `path`: copied
    /// beside the database, `beforeReplacing` run (a safety copy of the current
    /// database), then renamed over it, keeping the database's owner, group and mode, so
    /// a failure at any point leaves the database as it was. The backup itself is kept.
    /// A symbolic link at `path` is followed: its target is restored. Another process
    /// that has the database open is waited for, up to `timeout` (`DatabaseUsers`).
    /// `heldLock` is the database's change lock when the caller holds it (a command).
    package static func putInPlace(_ backup: String, of path: String, timeout: Duration, heldLock: DatabaseFileLock? = nil,
                                   beforeReplacing: () throws -> Void) throws {
        let target = DurableFile.resolvingSymlinks(path)
        try DurableFile.requireSingleName(target, leaving: "the database as it is now")
        let lock = try DatabaseFileLock.exclusive(path: target, timeout: timeout, heldBy: heldLock)
        defer { lock.release() }
        // The same owner, group and mode, so the app's user still opens it; a journal
        // left by the replaced database would be applied to the restored one on next
        // open and corrupt it.
        let replacement = try DatabaseFileReplacement(
            replacing: target, purpose: "restoring",
            options: .init(leaving: "the database as it is now",
                           others: (timeout, "would go on using the old file, its -wal and -shm removed under it, once the backup takes its name"),
                           removesJournals: true))
        do {
            try copyBytes(from: backup, to: replacement.temporary)
            try beforeReplacing()
            try replacement.complete()
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// A backup that fills the disk turns the change it was taken for into a "disk
    /// full" failure, with the backup left behind: so the room is checked first. The
    /// copy needs the database's size (and its WAL's) where it goes, and on the
    /// database's own disk it must leave room for the change's journal: as much as the
    /// database, up to 64 MiB (a change that rewrites more of a large database may still
    /// run out, which SQLite then reports, naming the backup kept). Where the backup
    /// goes elsewhere (`--backup-dir`), only its own disk is its business.
    private static func requireRoom(forBackupOf path: String, in folder: String) throws {
        let size = FileProbe(path: path).size + FileProbe(path: path + "-wal").size
        let sameDisk = FileProbe.device(of: folder) == FileProbe.device(of: DirectoryLock.parent(of: path))
        let journal = sameDisk ? min(size + size / 512 * 8 + 8192, 64 << 20) : 0
        guard let free = FileProbe.freeBytes(in: folder), free < size + journal else { return }
        throw FileOperationError(
            kind: .fileSystem, resultCode: .SQLITE_FULL,
            message: "A backup of this database needs \(FileProbe.megabytes(size)) in \(folder)\(sameDisk ? ", and the change after it \(FileProbe.megabytes(journal)) more for its journal beside the database" : ""), but only \(FileProbe.megabytes(free)) are free there.",
            path: path)
    }

    /// Gives the finished copy the next free name, later than every existing backup of
    /// the database (names sort in time order, which pruning relies on, even if the
    /// clock went back). `link` fails when a name is taken (another process backing up
    /// in the same millisecond), and the next millisecond is tried.
    private static func linkUnique(_ temporary: String, folder: String, name: String) throws -> String {
        let prefix = (folder == "." ? "" : folder + "/") + name + ".backup-"
        let latest = list(folder: folder, name: name).last.flatMap { BackupName(file: ($0 as NSString).lastPathComponent, database: name)?.date }
        var date = max(Date(), latest.map { $0.addingTimeInterval(0.001) } ?? .distantPast)
        for _ in 0..<1000 {
            let candidate = prefix + BackupName.format(date)
            // link(2): swift-system 1.8.1 has none, and only a link fails on a taken name.
            if link(temporary, candidate) == 0 { return candidate }
            guard errno == EEXIST else { throw DurableFile.failure("name", candidate) }
            date = date.addingTimeInterval(0.001)
        }
        throw DurableFile.failure("name", prefix)
    }

    /// Removes hidden copies left by backup processes that were killed.
    /// Removes half-written backups of processes that are gone. A temporary is named
    /// after its process's id and start time: a process id alone is reused (and in a
    /// container every run may be process 1), so "a process with that id exists" does not
    /// mean its writer still runs.
    ///
    /// A backup of a WAL database is written by opening the temporary as a new database,
    /// so a kill can also leave that creation's marker (`NewDatabaseFile.marker(for:)`,
    /// named after the temporary with one more leading dot); it goes with it.
    private static func removeStaleTemporaries(folder: String, name: String) {
        let prefix = ".\(name).migrationkit-backup-"
        let markerPrefix = "." + prefix
        let markerSuffix = ".migrationkit-creating"
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let identity: Substring
            if file.hasPrefix(markerPrefix), file.hasSuffix(markerSuffix) {
                identity = file.dropFirst(markerPrefix.count).dropLast(markerSuffix.count)
            } else if file.hasPrefix(prefix) {
                identity = file.dropFirst(prefix.count)
            } else {
                continue
            }
            let path = (folder == "." ? "" : folder + "/") + file
            guard !ProcessIdentity.isRunning(String(identity), file: path) else { continue }
            DurableFile.removeIfPresent(path)
        }
    }

    /// Copies a file's bytes into a new 0600 file and flushes it.
    package static func copyBytes(from source: String, to destination: String) throws {
        let input: FileDescriptor
        do {
            input = try FileProbe.openFile(source, .readOnly, options: .closeOnExec)
        } catch {
            throw DurableFile.failure("read", source, errno: error)
        }
        defer { try? input.close() }
        let output: FileDescriptor
        do {
            output = try FileProbe.openFile(destination, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                                            permissions: .ownerReadWrite)
        } catch {
            throw DurableFile.failure("create", destination, errno: error)
        }
        var failed: FileOperationError?
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        // read(into:) retries EINTR; writeAll retries it and short writes too.
        while failed == nil {
            // A stop asked meanwhile ends the copy, which is then removed.
            if Interruption.isStopping {
                failed = FileOperationError(kind: .interrupted, resultCode: .SQLITE_INTERRUPT, message: "The copy was stopped.", path: destination)
                break
            }
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
            } catch {
                failed = DurableFile.failure("read", source, thrown: error)
                break
            }
            if count == 0 { break }
            do {
                _ = try output.writeAll(buffer[..<count])
            } catch {
                failed = DurableFile.failure("write", destination, thrown: error)
            }
        }
        if failed == nil { failed = DurableFile.flush(output, of: destination) }
        try? output.close()
        if let failed {
            FileRemoval.remove(destination)
            throw failed
        }
    }


    private static func prune(folder: String, name: String, keep: Int, sparing: Set<String>) {
        let spared = Set(sparing.map(DurableFile.resolvingSymlinks))
        let backups = list(folder: folder, name: name).filter { !spared.contains(DurableFile.resolvingSymlinks($0)) }
        FileRemoval.remove(Array(backups.dropLast(keep)))
    }

}

/// A backup's file name, `<database>.backup-YYYYMMDDTHHMMSS.mmmZ`, and its time.
struct BackupName {
    let date: Date

    /// Nil unless `file` is exactly a backup name of `database`.
    init?(file: String, database: String) {
        let prefix = database + ".backup-"
        guard file.hasPrefix(prefix), let date = Self.parse(String(file.dropFirst(prefix.count))) else { return nil }
        self.date = date
    }

    /// A new formatter per use: `DateFormatter` is not safe to share between threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter
    }

    package static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// Parses only the exact 20-character form (a round trip must give the same text).
    static func parse(_ text: String) -> Date? {
        guard text.utf8.count == 20, let date = formatter().date(from: text), format(date) == text else { return nil }
        return date
    }
}

/// A process as "PID-STARTTIME": unlike the id alone, never the same for two processes
/// (the start time is in clock ticks since boot, from /proc/PID/stat).
enum ProcessIdentity {
    package static let current = "\(getpid())-\(startTime(of: getpid()) ?? 0)"

    /// Whether the process an identity names may still be writing `file`. An identity
    /// in the old form (a bare id, from before start times were recorded) counts as
    /// running only while a process has that id and the file changed in the last minute:
    /// a backup being written changes continuously.
    static func isRunning(_ identity: String, file: String) -> Bool {
        let parts = identity.split(separator: "-")
        guard let first = parts.first, let pid = Int32(first) else { return false }
        if parts.count == 1 {
            let modified = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date) ?? .distantPast
            return pid != getpid() && (kill(pid, 0) == 0 || errno == EPERM) && Date().timeIntervalSince(modified) < 60
        }
        guard parts.count == 2, let started = UInt64(parts[1]) else { return false }
        return startTime(of: pid) == started && identity != current
    }

    /// Field 22 of /proc/PID/stat, nil when there is no such process.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command name (which may hold spaces), fields start at 3 (state).
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
