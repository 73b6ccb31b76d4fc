import Foundation
@testable import MigrationKitCLI
@testable import MigrationKitCommands
@testable import MigrationKitSQLCipher
@testable import MigrationKitSecrets
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The result of one run of a built binary.
public typealias CommandResult = ChildProcessResult

/// Runs the built `migrationkit` (or another product) the way a user would: a real
/// process, its own arguments, environment and standard input.
public enum Binary {
    /// The build's products folder: where the test bundle itself lives.
    public static let productsDirectory: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // Swift Testing may run from inside an .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("migrationkit").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }()

    public static var migrationkit: String { productsDirectory.appendingPathComponent("migrationkit").path }

    /// An environment without any key source a test did not ask for, and never the
    /// person's own keyring unless the harness set up a private one.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "MIGRATIONKIT_PASSWORD")
        // The settings variables of the person running the tests (MIGRATIONKIT_DB_PATH,
        // …) must not reach the commands under test.
        for name in Binary.settingsVariables { environment.removeValue(forKey: name) }
        if environment["MIGRATIONKIT_TEST_KEYRING"] != "1" {
            environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        }
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    /// Every variable `migrationkit` reads settings from (docs/configuration.md), and
    /// every one the documentation's tables name (a new key source's, from its row in
    /// docs/security-model.md).
    public static let settingsVariables = Array(Set([
        "db-path", "migrations", "migrations-layout", "password-file", "keychain-service", "keychain-account", "plaintext",
        "cipher-compatibility", "kdf-iter", "cipher-page-size", "cipher-kdf-algorithm", "cipher-hmac-algorithm",
        "cipher-plaintext-header-size", "cipher-salt", "lock-timeout", "backup-dir", "memory-security", "load-extension", "config", "database",
    ].map { "MIGRATIONKIT_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") } + documentedTableVariables)).sorted()

    /// The articles whose tables name the settings variables: the settings table and the
    /// key sources' table.
    public static let settingsArticles = ["docs/configuration.md", "docs/security-model.md"]

    /// The `MIGRATIONKIT_*` names in those articles' table rows.
    public static var documentedTableVariables: [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = settingsArticles.compactMap { try? String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        return text.split(separator: "\n").filter { $0.hasPrefix("|") }.flatMap { row in
            row.split(whereSeparator: { !($0.isUppercase || $0 == "_") }).map(String.init).filter { $0.hasPrefix("MIGRATIONKIT_") && $0.count > 13 }
        }
    }

    @discardableResult
    public static func run(
        _ arguments: [String],
        executable: String = migrationkit,
        stdin: String? = nil,
        environment: [String: String] = Binary.environment(),
        directory: String? = nil
    ) throws -> CommandResult {
        try ChildProcess.run([executable] + arguments, stdin: stdin.map { Data($0.utf8) },
                             environment: environment, directory: directory)
    }
}

/// Runs the `migrationkit` command tree in this process, as an app that embeds the
/// commands runs it (`MigrationCLI.run`), each run with its own environment, standard
/// input, output and working folder (`CommandSurroundings`), so hundreds run at once
/// without starting a process each. What only a process has — signals, exit by signal,
/// a terminal, the umask, another user, resource limits, what C libraries print on
/// descriptor 2 — is tested through the binary (`Binary.run`), in
/// MigrationKitCLIProcessTests; CONTRIBUTING.md's table lists those tests. A run without
/// `directory` works in a new empty folder, never in the folder the tests run from.
public enum Tool {
    /// The tool's own host, but for what belongs to the process: the test process is not
    /// hardened, keeps its signals, and never turns on SQLCipher's process-wide memory
    /// security (which would slow every later test down).
    public static let host = MigrationCLIHost(hardensProcess: false, cipherMemorySecurity: false, stopsGracefully: false)

    /// Variables read from the process itself, not through the command's environment:
    /// GLib's session bus and folders, Foundation's temporary folder. A test that
    /// changes them needs the binary.
    public static let processOnlyVariables = ["DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "TMPDIR"]

    /// The environment a command run here sees, as `Binary.environment` gives a child:
    /// nothing of the person's key or settings variables.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = Binary.environment(extra)
        // The bus is the process's in any case: only say so when a test changes it.
        for name in processOnlyVariables where extra[name] == nil {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
        return environment
    }

    @discardableResult
    public static func run(
        _ arguments: [String],
        stdin: String? = nil,
        environment: [String: String] = Tool.environment(),
        directory: String? = nil,
        host: MigrationCLIHost = Tool.host,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CommandResult {
        for name in processOnlyVariables where environment[name] != ProcessInfo.processInfo.environment[name] {
            Issue.record("\(name) differs from this process's, which a command run in-process cannot see: run the binary (Binary.run) for this case.", sourceLocation: sourceLocation)
        }
        let input = try StandardInputPipe(Data((stdin ?? "").utf8))
        defer { input.close() }
        // Kept until the command ends (and removed then): ARC may end a value's life at
        // its last use otherwise.
        let scratch = directory == nil ? try TemporaryDirectory() : nil
        defer { withExtendedLifetime(scratch) {} }
        let console = ConsoleCapture()
        let started = ContinuousClock.now
        let status = try MigrationCLI.run(host: host, arguments: arguments, in: CommandSurroundings(
            environment: environment, standardInput: input.readEnd, console: console,
            workingDirectory: directory ?? scratch!.url.path))
        let elapsed = ContinuousClock.now - started
        return CommandResult(status: status, stdout: console.standardOutput, stderr: console.standardError,
                             seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

/// What a command run in-process reads as its standard input: a pipe, fed from another
/// thread (a key of a megabyte does not fit a pipe's buffer) and closed after, as a
/// shell's `<` or `|` would give it.
private final class StandardInputPipe: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32
    private let writer = DispatchGroup()

    init(_ data: Data) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw CocoaError(.fileWriteUnknown) }
        readEnd = ends[0]
        writeEnd = ends[1]
        let writeEnd = self.writeEnd
        DispatchQueue.global().async(group: writer) {
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { break }  // the command stopped reading
                    offset += written
                }
            }
            Glibc.close(writeEnd)
        }
    }

    func close() {
        // Unblocks a writer the command never read from (EPIPE, as in a shell).
        Glibc.close(readEnd)
        writer.wait()
    }
}

/// A scratch folder with a database path, a key file and a migrations folder.
public final class Workspace: @unchecked Sendable {
    public let root: String
    /// The key its key file holds.
    public let key: TestKey

    /// - Parameter key: the key file's key; by default a new random raw key (see
    ///   `TestKey`), so a database from another workspace does not open by accident.
    public init(key: TestKey = .raw()) throws {
        self.key = key
        root = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/Migrations", withIntermediateDirectories: true)
        try write("key", key.text + "\n", mode: 0o600)
    }

    /// A workspace whose key file holds a passphrase, for tests of key derivation.
    public convenience init(passphrase: String) throws {
        try self.init(key: .passphrase(passphrase))
    }

    /// The key as the library takes it, to open the workspace's databases directly.
    public var databaseKey: DatabaseKey { key.databaseKey }

    public var database: String { root + "/app.db" }
    public var keyFile: String { root + "/key" }
    public var migrations: String { root + "/Migrations" }

    public func path(_ name: String) -> String { root + "/" + name }

    public func write(_ name: String, _ text: String, mode: Int = 0o644) throws {
        let path = root + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    public func migration(_ name: String, _ text: String) throws {
        try write("Migrations/" + name, text)
    }

    /// The standard options: this workspace's database, key file and migrations.
    public func options(_ extra: [String] = []) -> [String] {
        ["--db-path", database, "--password-file", keyFile, "--migrations", migrations] + extra
    }

    /// `migrationkit <command> <standard options> <extra>`, run in this process (`Tool`)
    /// from the workspace's folder.
    @discardableResult
    public func run(_ command: String, _ extra: [String] = [], stdin: String? = nil, environment: [String: String] = Tool.environment(),
             sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        try Tool.run([command] + options(extra), stdin: stdin, environment: environment, directory: root, sourceLocation: sourceLocation)
    }

    /// The same through the built binary, for a test whose subject is the process.
    @discardableResult
    public func runBinary(_ command: String, _ extra: [String] = [], stdin: String? = nil, environment: [String: String] = Binary.environment()) throws -> CommandResult {
        try Binary.run([command] + options(extra), stdin: stdin, environment: environment, directory: root)
    }

    public func bytes(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Writes the bookshelf story's first migrations.
    public func writeSampleMigrations() throws {
        try migration("0001_authors.sql", """
            -- migrate:up
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            -- migrate:down
            DROP TABLE authors;
            """)
        try migration("0002_books.up.sql", """
            CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL);
            CREATE INDEX books_authorId ON books(authorId);
            """)
        try migration("0002_books.down.sql", "DROP TABLE books;\n")
    }

    deinit {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root)
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension TestKey {
    /// The key as the library takes it.
    public var databaseKey: DatabaseKey { DatabaseKey(keyText: SecretBytes(copying: Array(text.utf8))) }
}

/// Decodes a command's JSON output.
public func decodeJSON(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
}

/// Waits until the change note of `database` says `activity` ("applying 0002_slow"):
/// from then on, `process` holds the database's change lock. A fixed sleep instead
/// guessed how long the process takes to start and derive its key, which a loaded
/// machine and SQLCipher 4's costlier derivation can outlast. False if `process`
/// ended or `timeout` passed first.
public func waitForChangeNote(of database: String, saying activity: String, from process: ChildProcess,
                       timeout: Duration = .seconds(60)) -> Bool {
    let deadline = ContinuousClock.now + timeout
    let note = ChangeNote.path(for: database)
    while process.isRunning, ContinuousClock.now < deadline {
        if let text = try? String(contentsOfFile: note, encoding: .utf8), text.contains(activity) { return true }
        usleep(20_000)
    }
    return false
}

/// Waits until process `pid` holds a lock on the file at `path`, as `/proc/locks` shows
/// it: with `sqliteExclusive`, SQLite's exclusive lock (a POSIX write lock over the
/// shared-lock range, from byte 0x40000002), which makes every reader give way at once;
/// otherwise any lock (a WAL reader's on `-shm`). A sleep instead guessed how long a
/// process takes to get there, which a loaded machine can outlast. False if `timeout`
/// passed first.
public func waitForLock(on path: String, heldBy pid: Int32, sqliteExclusive: Bool = false, timeout: Duration = .seconds(60)) -> Bool {
    let sharedFirstByte: UInt64 = 0x4000_0002
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        var status = stat()
        if stat(path, &status) == 0, let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) {
            let device = UInt64(status.st_dev)
            let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
            let minor = (device & 0xff) | ((device >> 12) & ~0xff)
            let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino))
            // "1: POSIX  ADVISORY  WRITE 1234 fe:00:16228464 1073741826 1073742335"
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 8, fields[1] != "->", fields[4] == "\(pid)", fields[5] == file else { continue }
                if !sqliteExclusive { return true }
                let start = UInt64(fields[6]) ?? .max
                let end = fields[7] == "EOF" ? UInt64.max : UInt64(fields[7]) ?? 0
                if fields[1] == "POSIX", fields[3] == "WRITE", start <= sharedFirstByte, sharedFirstByte <= end { return true }
            }
        }
        usleep(10_000)
    }
    return false
}

/// Whether the keyring harness gave this run its own Secret Service.
public var hasTestKeyring: Bool { ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" }
public var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

/// docs/fleets.md, whose recipes the fleet tests run.
public enum FleetsArticle {
    /// Merges shard documents with the article's `jq -s '…'` line, as a reader would.
    public static func merge(_ documents: [String]) throws -> [String: Any] {
        let merged = try runMerge(documents)
        try #require(merged.status == 0, "\(merged.output)")
        return try decodeJSON(merged.stdout)
    }

    /// The article's `jq` line run on `documents`, whatever it ends with.
    public static func runMerge(_ documents: [String]) throws -> ChildProcessResult {
        let article = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/fleets.md"), encoding: .utf8)
        let recipe = try #require(article.split(separator: "\n").first { $0.hasPrefix("jq -s '") }, "docs/fleets.md has no jq -s recipe")
        let filter = String(recipe.dropFirst("jq -s '".count).prefix { $0 != "'" })
        return try ChildProcess.run(["/usr/bin/jq", "-s", filter], stdin: Data(documents.joined().utf8))
    }
}
