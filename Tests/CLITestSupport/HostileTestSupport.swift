import Foundation
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Helpers for the hostile-input and secrets-hygiene tests: child processes with a time
// limit (a hang fails the test instead of hanging the suite), as another user or with
// another umask; snapshots that prove a folder was left byte for byte as it was; and
// the checks every refusal must pass (one line, a documented exit code, no trap).

/// What a guarded run of a child process produced.
public typealias GuardedResult = ChildProcessResult

extension ChildProcessResult: CustomStringConvertible {
    /// The `migrationkit: error: …` lines.
    public var errorLines: [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { $0.contains(": error: ") }
    }

    /// Standard error lines that are none of what the tool prints there: its error
    /// line, `warning:` lines, lint findings before a migrate and their `fix:` lines.
    /// A message broken over two lines (a newline in a file name or in SQLite's text)
    /// shows up here.
    public var strayErrorOutput: [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            !(line.contains(": error: ") || line.hasPrefix("warning: ") || line.hasPrefix("  fix: ")
                || line.range(of: #":[0-9]+: (warning|error)\["#, options: .regularExpression) != nil)
        }
    }

    public var description: String {
        "\(signaled ? "signal" : "exit") \(status)\(timedOut ? " (timed out)" : "") after \(String(format: "%.2f", seconds)) s\nstdout: \(stdout)\nstderr: \(stderr)"
    }
}

/// Who a child runs as.
public enum RunAs: Sendable {
    /// This process's user.
    case current
    /// `nobody`: when the tests run as root (which reads and writes whatever the file
    /// modes say), the child is started through `setpriv` so permissions apply to it.
    case unprivileged
}

public enum Guarded {
    /// `nobody` and `nogroup` on Debian.
    public static let unprivilegedID: UInt32 = 65534

    public static var isRoot: Bool { getuid() == 0 }

    public static let setpriv: String? = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `executable` with `arguments` and kills it (SIGKILL) at `timeout` seconds.
    ///
    /// - Parameters:
    ///   - umask: when given, the child runs under `sh -c 'umask …; exec …'`.
    ///   - user: `.unprivileged` runs it as nobody through setpriv when this process is
    ///     root; as anyone else the child already is unprivileged.
    public static func run(
        _ arguments: [String],
        executable: String = Binary.migrationkit,
        stdin: Data? = nil,
        environment: [String: String] = Binary.environment(),
        directory: String? = nil,
        timeout: TimeInterval = 30,
        umask: mode_t? = nil,
        user: RunAs = .current
    ) throws -> GuardedResult {
        var command = [executable] + arguments
        if let umask {
            command = ["/bin/sh", "-c", "umask \(String(umask, radix: 8)); exec \"$0\" \"$@\""] + command
        }
        command = try asUser(user, command)
        return try ChildProcess.run(command, stdin: stdin, environment: environment, directory: directory, timeout: timeout)
    }

    /// Starts `command` and returns at once, its output discarded: a process to look at
    /// or to kill. `.unprivileged` runs it as nobody when root, as `run` does.
    public static func launch(_ command: [String], directory: String, user: RunAs = .current) throws -> ChildProcess {
        try ChildProcess(try asUser(user, command), environment: Binary.environment(), directory: directory)
    }

    /// `command` prefixed with setpriv to drop to nobody, when `.unprivileged` and root.
    private static func asUser(_ user: RunAs, _ command: [String]) throws -> [String] {
        guard user == .unprivileged, isRoot else { return command }
        guard let setpriv else { throw CapabilityMissing("running as root, and setpriv (util-linux) is missing to drop to nobody") }
        return [setpriv, "--reuid=\(unprivilegedID)", "--regid=\(unprivilegedID)", "--clear-groups"] + command
    }

    /// Hands a tree to nobody (when root), so a child run `.unprivileged` owns its files
    /// and the modes the test sets are what decide.
    public static func giveToUnprivileged(_ path: String) throws {
        guard isRoot else { return }
        let result = try run(["-R", "\(unprivilegedID):\(unprivilegedID)", path], executable: "/bin/chown", timeout: 30)
        guard result.status == 0 else { throw CapabilityMissing("chown to nobody failed: \(result.stderr)") }
    }
}

/// A system capability a test needs and does not have (root's setpriv, a mount).
public struct CapabilityMissing: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `body`; when it reports a missing capability, the test is cancelled (reported
/// as skipped, with the reason) or, under CI=true, fails: CI must test what we claim.
public func requiringCapability(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let missing as CapabilityMissing {
        if isCI {
            Issue.record("CI=true, but this case cannot run: \(missing.description)", sourceLocation: sourceLocation)
            return
        }
        try Test.cancel("Not run here: \(missing.description). (Under CI=true this fails instead.)", sourceLocation: sourceLocation)
    }
}

/// Every entry under a folder, with its type, mode and content (see `digest`; a
/// symbolic link's target; a FIFO is never opened). Two equal snapshots mean nothing
/// was added, removed or changed.
public struct TreeSnapshot: Equatable {
    public struct Entry: Equatable, CustomStringConvertible {
        public let kind: String
        public let mode: mode_t
        public let size: Int64
        public let content: Data

        public var description: String { "\(kind) mode \(String(mode, radix: 8)) size \(size)" }
    }

    public let root: String
    public let entries: [String: Entry]

    public init(_ root: String) throws {
        self.root = root
        var entries: [String: Entry] = [:]
        try Self.walk(root, relative: "", into: &entries)
        self.entries = entries
    }

    private static func walk(_ path: String, relative: String, into entries: inout [String: Entry]) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let mode = info.st_mode & 0o7777
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            entries[relative.isEmpty ? "." : relative] = Entry(kind: "dir", mode: mode, size: 0, content: Data())
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["<unlistable>"]
            for name in names.sorted() {
                try walk(path + "/" + name, relative: relative.isEmpty ? name : relative + "/" + name, into: &entries)
            }
        case S_IFREG:
            entries[relative] = Entry(kind: "file", mode: mode, size: Int64(info.st_size), content: try digest(path, info))
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
            entries[relative] = Entry(kind: "link", mode: 0, size: 0, content: Data(target.utf8))
        default:
            entries[relative] = Entry(kind: "special", mode: mode, size: 0, content: Data())
        }
    }

    /// Small files by their bytes, medium ones by SHA-256; huge (sparse) test files by
    /// what any write changes: size, allocated blocks, modification and change times.
    private static func digest(_ path: String, _ info: stat) throws -> Data {
        let size = Int64(info.st_size)
        if size <= 1 << 20 {
            return FileManager.default.contents(atPath: path) ?? Data("<unreadable>".utf8)
        }
        if size <= 16 << 20 {
            let result = try Guarded.run([path], executable: "/usr/bin/sha256sum", timeout: 60)
            return Data(result.stdout.prefix(64).utf8)
        }
        return Data("size \(size) blocks \(info.st_blocks) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) ctime \(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)".utf8)
    }

    /// What differs, one line per path, for a failure message.
    public func differences(to other: TreeSnapshot) -> [String] {
        var lines: [String] = []
        for path in Set(entries.keys).union(other.entries.keys).sorted() {
            switch (entries[path], other.entries[path]) {
            case (nil, let added?): lines.append("added \(path) (\(added))")
            case (let removed?, nil): lines.append("removed \(path) (\(removed))")
            case (let before?, let after?) where before != after:
                lines.append("changed \(path): \(before) -> \(after)\(before.content != after.content ? ", content differs" : "")")
            default: break
            }
        }
        return lines
    }
}

/// Expects `root` to hold exactly what `before` recorded.
public func expectUnchanged(_ before: TreeSnapshot, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
    let after = try TreeSnapshot(before.root)
    let differences = before.differences(to: after)
    #expect(differences.isEmpty, "\(context): the folder changed:\n\(differences.joined(separator: "\n"))", sourceLocation: sourceLocation)
}

// MARK: - What every refusal must look like

/// Texts that must never be printed anywhere: Swift traps, stack traces, Foundation's
/// error dumps, and the query MigrationKit proves a key with.
public let forbiddenOutput = [
    "Fatal error", "Unexpected failure", "Stack dump", "Current stack trace", "Illegal instruction",
    "Segmentation fault", "Trace/breakpoint", "Error Domain=", "NSCocoaErrorDomain", "sqlite_master",
]

/// SQLite's own messages (lowercase, as SQLite words them), which must never stand in
/// for a MigrationKit sentence: forbidden right after a `: `, where an error that
/// escaped unexplained would show them.
public let rawSQLiteMessages = [
    "file is encrypted or is not a database", "file is not a database", "database disk image is malformed",
    "unable to open database file", "database or disk is full", "disk I/O error",
    "attempt to write a readonly database", "not an error",
]

/// Expects a clean refusal: finished in time, the documented exit code, exactly one
/// one-line `migrationkit: error:` on standard error mentioning each of `mentions`,
/// nothing forbidden anywhere.
public func expectCleanFailure(
    _ result: GuardedResult, _ code: CLIExitCodeValue, mentions: [String] = [], _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(!result.timedOut, "\(context): did not finish: \(result)", sourceLocation: sourceLocation)
    #expect(!result.signaled, "\(context): ended on a signal: \(result)", sourceLocation: sourceLocation)
    #expect(result.status == code.rawValue, "\(context): expected exit \(code.rawValue) (\(code)), got \(result)", sourceLocation: sourceLocation)
    let errors = result.errorLines
    #expect(errors.count == 1, "\(context): expected one error line: \(result)", sourceLocation: sourceLocation)
    #expect(result.strayErrorOutput.isEmpty, "\(context): stray lines on standard error: \(result.strayErrorOutput)", sourceLocation: sourceLocation)
    if let line = errors.first {
        #expect(line.hasPrefix("migrationkit: error: "), "\(context): \(line)", sourceLocation: sourceLocation)
        for text in mentions {
            #expect(line.localizedCaseInsensitiveContains(text), "\(context): the error does not mention \"\(text)\": \(line)", sourceLocation: sourceLocation)
        }
    }
    for text in forbiddenOutput where result.output.contains(text) {
        Issue.record("\(context): printed \"\(text)\": \(result)", sourceLocation: sourceLocation)
    }
    for text in rawSQLiteMessages where result.output.contains(": " + text) {
        Issue.record("\(context): SQLite's raw \"\(text)\" stands in for an explanation: \(result)", sourceLocation: sourceLocation)
    }
}

/// The documented exit codes (`CLIExitCode` in Sources/MigrationKitCLI/CLIExitCode.swift),
/// written out here on purpose rather than imported: a change to the numbers in the
/// source must fail these tests. (Printed by case name.)
public enum CLIExitCodeValue: Int32 {
    case success = 0, failure = 1, migrationFailed = 2, verificationFailed = 3, wrongKeyOrNotADatabase = 4
    case keyUnavailable = 5, pendingMigrations = 6, refused = 7, locked = 8, fileError = 9, damaged = 10, usage = 64
    case hungUp = 129, interrupted = 130, terminated = 143
}

extension ChildProcessResult {
    /// The exit status as a documented code: nil for an undocumented number, and for
    /// a process that ended on a signal (whose number must never pass for a code).
    public var exitCode: CLIExitCodeValue? { signaled ? nil : CLIExitCodeValue(rawValue: status) }
}

extension PseudoTerminal.Result {
    /// The exit status as a documented code: nil for an undocumented number, and for
    /// a program a signal ended.
    public var exitCode: CLIExitCodeValue? { status.flatMap(CLIExitCodeValue.init(rawValue:)) }
}

/// With `--json`, a refusal prints `{"error": {kind, message, exitCode}}` on standard
/// output whose exit code and message match what standard error said.
public func expectJSONError(_ result: GuardedResult, _ code: CLIExitCodeValue, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(result.status == code.rawValue, "\(context): \(result)", sourceLocation: sourceLocation)
    let document = try decodeJSON(result.stdout, sourceLocation: sourceLocation)
    let error = try #require(document["error"] as? [String: Any], "\(context): \(result.stdout)", sourceLocation: sourceLocation)
    #expect(error["exitCode"] as? Int == Int(code.rawValue), "\(context): \(result.stdout)", sourceLocation: sourceLocation)
    let message = try #require(error["message"] as? String, sourceLocation: sourceLocation)
    #expect(!message.contains("\n"), "\(context): \(message)", sourceLocation: sourceLocation)
    #expect(result.errorLines.first?.hasSuffix(message) == true, "\(context): stderr and JSON disagree: \(result)", sourceLocation: sourceLocation)
}

// MARK: - A small file system of its own

/// A tiny tmpfs (or, where tmpfs cannot be mounted, a loop-mounted ext2 image) to fill
/// up: the only honest way to see what a full disk does. Needs root (CAP_SYS_ADMIN).
public final class SmallDisk {
    public let path: String
    /// "tmpfs" or "loop".
    public private(set) var kind = "tmpfs"
    private var image: String?

    /// `MIGRATIONKIT_TEST_SMALL_DISK=loop` forces the loop-device fallback, to test it.
    public init(at path: String, kilobytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let forceLoop = ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_SMALL_DISK"] == "loop"
        guard Guarded.isRoot else { throw CapabilityMissing("mounting a small file system needs root (CAP_SYS_ADMIN)") }
        if !forceLoop {
            let tmpfs = try Guarded.run(["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", path], executable: "/bin/mount", timeout: 30)
            if tmpfs.status == 0 {
                mounted = true
                return
            }
        }
        // The fallback: an ext2 image on a loop device.
        // Outside the folder under test, whose snapshots would see the image change.
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-small-disk-\(UUID().uuidString).img").path
        guard FileManager.default.createFile(atPath: image, contents: Data(count: max(kilobytes, 64) * 1024)),
              FileManager.default.isExecutableFile(atPath: "/sbin/mkfs.ext2")
        else { throw CapabilityMissing("tmpfs cannot be mounted and there is no mkfs.ext2 for a loop device") }
        self.image = image
        kind = "loop"
        let format = try Guarded.run(["-q", "-F", "-m", "0", image], executable: "/sbin/mkfs.ext2", timeout: 30)
        let loop = try Guarded.run(["-o", "loop", image, path], executable: "/bin/mount", timeout: 30)
        guard format.status == 0, loop.status == 0 else {
            try? FileManager.default.removeItem(atPath: image)
            throw CapabilityMissing("neither tmpfs nor a loop device can be mounted here: \(loop.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        mounted = true
        // ext2 makes lost+found; it is not ours to compare.
        try? FileManager.default.removeItem(atPath: path + "/lost+found")
    }

    /// Writes zeros until the disk is full.
    public func fill() throws {
        let filler = path + "/filler"
        guard FileManager.default.createFile(atPath: filler, contents: nil) else { throw CapabilityMissing("cannot create a file on the small disk") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        defer { try? handle.close() }
        var info = statvfs()
        let free = statvfs(path, &info) == 0 ? Int(info.f_bavail) * Int(info.f_frsize) : 0
        // 4 KiB at a time to the reported free space, then 512 bytes at a time for what
        // rounding left; bounded, in case a file system never says it is full.
        for size in [4096, 512] {
            for _ in 0..<(free / size + 64) {
                if (try? handle.write(contentsOf: Data(count: size))) == nil { break }
            }
        }
    }

    /// Makes it a read-only file system, as media, a read-only snapshot or a backup
    /// volume are: even root cannot write there.
    public func remountReadOnly() throws {
        let remount = try Guarded.run(["-o", "remount,ro", path], executable: "/bin/mount", timeout: 30)
        guard remount.status == 0 else {
            throw CapabilityMissing("the small file system cannot be remounted read-only: \(remount.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    private var mounted = false

    /// Unmounts (lazily if something still holds it) and removes the image, once.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        if (try? Guarded.run([path], executable: "/bin/umount", timeout: 30))?.status != 0 {
            _ = try? Guarded.run(["-l", path], executable: "/bin/umount", timeout: 30)
        }
        if let image { try? FileManager.default.removeItem(atPath: image) }
    }

    deinit {
        unmount()
    }
}

/// The `sqlcipher` shell holding a database in a read transaction until `end()`: another
/// connection whose lock a writer must wait for (SQLCipher's rekey then returns OK and
/// changes nothing).
public final class ShellInReadTransaction {
    public let process: ChildProcess
    private var ended = false

    /// Starts the shell on `database`, keyed with `key`, reading `table` in a transaction,
    /// and waits until it holds its lock.
    public init(_ database: String, key: TestKey, reading table: String) throws {
        process = try ChildProcess([SQLCipherShell.path, "-batch", database], input: .pipe)
        try process.input!.write(contentsOf: Data("PRAGMA key = \(key.pragma);\nBEGIN;\nSELECT count(*) FROM \(table);\n".utf8))
        guard waitForLock(on: database, heldBy: process.processIdentifier) else {
            end()
            throw NeverLocked(database: database)
        }
    }

    public struct NeverLocked: Error, CustomStringConvertible {
        public let database: String
        public var description: String { "the shell never took its read lock on \(database)" }
    }

    /// Ends the transaction and the shell.
    public func end() {
        guard !ended else { return }
        ended = true
        try? process.input!.write(contentsOf: Data("COMMIT;\n".utf8))
        try? process.input!.close()
        process.waitUntilExit()
    }

    deinit { end() }
}
