import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The other processes that hold locks on a file, read from `/proc/locks`: which
/// process is changing a database (the change lock, `flock`), or has it open in WAL
/// mode (SQLite's POSIX locks on the file and its `-shm`), so a refusal can name it
/// instead of saying "another process".
///
/// Reading `/proc/locks` opens nothing of the database: opening and closing a
/// descriptor of a file this process has open in SQLite would drop SQLite's own POSIX
/// locks on it. Where `/proc/locks` cannot be read, or names no process (another PID
/// namespace), the answer is empty and the sentence stays general.
package struct LockHolder: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// `flock`: MigrationKit's change lock (`DatabaseFileLock`).
        case changeLock
        /// A POSIX record lock: SQLite's own.
        case sqlite
    }

    package let pid: Int32
    package let kind: Kind
    /// A write lock (exclusive), rather than a shared one.
    package let exclusive: Bool

    init(pid: Int32, kind: Kind, exclusive: Bool) {
        self.pid = pid
        self.kind = kind
        self.exclusive = exclusive
    }

    /// Who holds the database at `path`, in words, for a command that met its lock:
    /// the process holding the change lock, with what its note says it is doing
    /// (`ChangeNote`), else one holding SQLite's write lock (an app writing), else one
    /// holding its read lock (an app in a long read transaction, which a writer's commit
    /// waits for in rollback-journal mode); nil when none can be named.
    package static func describeChange(of path: String) -> String? {
        let holders = of(path)
        if let changer = holders.first(where: { $0.kind == .changeLock }) {
            return changer.processDescription + (ChangeNote.activity(of: changer.pid, on: path).map { ", doing \($0)" } ?? "")
        }
        if let writer = holders.first(where: { $0.exclusive }) { return writer.processDescription }
        return holders.first.map { $0.processDescription + ", reading it in a transaction that has not ended" }
    }

    /// The locks other processes hold on the file at `path`; with `includingThisProcess`,
    /// this one's too (another connection of this process, for a caller that has none).
    package static func of(_ path: String, includingThisProcess: Bool = false) -> [LockHolder] {
        guard let identity = FileIdentity(path: path),
              let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
        let device = identity.device
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let file = String(format: "%02llx:%02llx:%llu", major, minor, identity.inode)
        let me = getpid()
        var holders: [LockHolder] = []
        // "1: FLOCK  ADVISORY  WRITE 1234 fe:00:16228464 0 EOF"; a waiting lock is "-> FLOCK …".
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] != "->", fields[5] == file,
                  let pid = Int32(fields[4]), pid > 0, includingThisProcess || pid != me else { continue }
            let kind: Kind = fields[1] == "FLOCK" ? .changeLock : .sqlite
            holders.append(LockHolder(pid: pid, kind: kind, exclusive: fields[3] == "WRITE"))
        }
        return Array(Set(holders)).sorted { ($0.pid, $0.exclusive ? 0 : 1) < ($1.pid, $1.exclusive ? 0 : 1) }
    }

    /// "process 4242 (migrationkit), started 10:41:02 UTC (35 s ago)".
    package var processDescription: String {
        var text = "process \(pid)"
        if let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) {
            // Another user's process may name itself anything: printable characters only.
            let printable = String(name.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
            text += " (\(printable))"
        }
        if let started = Self.startDate(of: pid) {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "HH:mm:ss"
            text += ", started \(formatter.string(from: started)) UTC (\(Int(max(0, Date().timeIntervalSince(started)))) s ago)"
        }
        return text
    }

    /// When a process started: its start time in clock ticks after boot, plus the boot time.
    private static func startDate(of pid: Int32) -> Date? {
        guard let ticks = ProcessIdentity.startTime(of: pid),
              let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let boot = Double(line.dropFirst("btime ".count)) else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard perSecond > 0 else { return nil }
        return Date(timeIntervalSince1970: boot + Double(ticks) / perSecond)
    }
}
