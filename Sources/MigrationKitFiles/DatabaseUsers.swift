import Foundation
import MigrationKit
#if canImport(Glibc)
import Glibc
#endif

/// The other processes that have a database open, asked by a command about to put a new
/// file in its place (`cipher-upgrade`, `encrypt --in-place`) or to take it out of WAL
/// mode (`rekey`). A process that has the old file open goes on using it after the
/// rename: it reads and writes a file no longer under the database's name, its changes
/// are lost, and after `encrypt` it goes on in plaintext. SQLite's locks cannot tell: in
/// rollback-journal mode an idle connection holds none.
///
/// Two sources, because neither sees everything: the descriptors under `/proc/PID/fd`
/// (an idle connection included; this user's own processes, every process as root) and
/// `/proc/locks` (any user's locks, but only while held, as a WAL connection's always
/// are). A MigrationKit command waiting for the change lock (`DatabaseFileLock`) also
/// holds a descriptor, opened non-blocking as SQLite never opens a database; it is not
/// counted, because it locks whatever file has the name once the lock is free.
package enum DatabaseUsers {
    /// The other processes with the database at `path` (or its `-wal`, `-shm`) open, in
    /// increasing order.
    static func others(of path: String) -> [Int32] {
        let files = Set([path, path + "-wal", path + "-shm"].compactMap(FileIdentity.init(path:)))
        guard !files.isEmpty else { return [] }
        let byLock = [path, path + "-shm"].flatMap { LockHolder.of($0) }.map(\.pid)
        return Set(byLock + openers(of: files)).sorted()
    }

    /// Waits up to `timeout` for every other process to close the database at `path`.
    ///
    /// - Parameter consequence: what would go wrong if the command went on, after
    ///   "…(process 4242 (python3), started …), which", for the refusal.
    /// - Throws: `FileOperationError` of kind `.inUse`, naming the processes, when some
    ///   still have it open at the deadline; `.interrupted` when stopped.
    package static func waitUntilAlone(_ path: String, timeout: Duration, consequence: String) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let users = others(of: path)
            if users.isEmpty { return }
            guard clock.now < deadline else {
                let named = users.map { LockHolder(pid: $0, kind: .sqlite, exclusive: false).processDescription }.joined(separator: "; ")
                throw FileOperationError(
                    kind: .inUse, resultCode: .SQLITE_BUSY,
                    advice: Advice(situation: "Nothing was changed: the database is open in another process (\(named)), which \(consequence)",
                                   otherwise: "stop that process (the app that uses the database), then run the command again",
                                   remedy: .waitLonger),
                    path: path)
            }
            try Interruption.check()
            usleep(50_000)
        }
    }

    /// Processes (not this one) with a descriptor on one of `files`, other than a
    /// change-lock waiter's.
    private static func openers(of files: Set<FileIdentity>) -> [Int32] {
        let me = getpid()
        var found: [Int32] = []
        forEachEntry(of: "/proc") { name in
            guard let pid = Int32(name), pid > 0, pid != me else { return }
            let folder = "/proc/\(name)/fd"
            // Another user's process: its folder is not readable (and /proc/locks is asked).
            forEachEntry(of: folder) { descriptor in
                var status = stat()
                guard stat("\(folder)/\(descriptor)", &status) == 0,
                      files.contains(FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))),
                      !isChangeLockWaiter(pid: name, descriptor: descriptor)
                else { return }
                if found.last != pid { found.append(pid) }
            }
        }
        return found
    }

    /// A descriptor opened with `O_NONBLOCK`, as only `DatabaseFileLock` opens one.
    private static func isChangeLockWaiter(pid: String, descriptor: String) -> Bool {
        guard let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(descriptor)", encoding: .utf8),
              let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
              let flags = Int32(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return false }
        return flags & O_NONBLOCK != 0
    }

    /// Calls `body` with each name in the folder at `path` but `.` and `..`; nothing
    /// when it cannot be read.
    private static func forEachEntry(of path: String, _ body: (String) -> Void) {
        guard let folder = opendir(path) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != ".", name != ".." { body(name) }
        }
    }
}
