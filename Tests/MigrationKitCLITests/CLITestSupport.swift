import Foundation
import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// The result of one run of a built binary.
typealias CommandResult = ChildProcessResult

/// Runs the built `migrationkit` (or another product) the way a user would: a real
/// process, its own arguments, environment and standard input.
enum Binary {
    /// The build's products folder: where the test bundle itself lives.
    static let productsDirectory: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // Swift Testing may run from inside an .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("migrationkit").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }()

    static var migrationkit: String { productsDirectory.appendingPathComponent("migrationkit").path }

    /// An environment without any key source a test did not ask for, and never the
    /// person's own keyring unless the harness set up a private one.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
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
    static let settingsVariables = Array(Set([
        "db-path", "migrations", "password-file", "keychain-service", "keychain-account", "plaintext",
        "cipher-compatibility", "kdf-iter", "cipher-page-size", "cipher-kdf-algorithm", "cipher-hmac-algorithm",
        "cipher-plaintext-header-size", "cipher-salt", "lock-timeout", "backup-dir", "memory-security", "config", "database",
    ].map { "MIGRATIONKIT_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") } + documentedTableVariables)).sorted()

    /// The articles whose tables name the settings variables: the settings table and the
    /// key sources' table.
    static let settingsArticles = ["docs/configuration.md", "docs/security-model.md"]

    /// The `MIGRATIONKIT_*` names in those articles' table rows.
    static var documentedTableVariables: [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = settingsArticles.compactMap { try? String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        return text.split(separator: "\n").filter { $0.hasPrefix("|") }.flatMap { row in
            row.split(whereSeparator: { !($0.isUppercase || $0 == "_") }).map(String.init).filter { $0.hasPrefix("MIGRATIONKIT_") && $0.count > 13 }
        }
    }

    @discardableResult
    static func run(
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

/// A scratch folder with a database path, a key file and a migrations folder.
final class Workspace: @unchecked Sendable {
    let root: String
    let passphrase: String

    /// - Parameter passphrase: the key file's passphrase; by default a new random one,
    ///   so a database from another workspace does not open by accident.
    init(passphrase: String? = nil) throws {
        self.passphrase = passphrase ?? "workspace passphrase \(UUID().uuidString.prefix(8))"
        root = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/Migrations", withIntermediateDirectories: true)
        try write("key", self.passphrase + "\n", mode: 0o600)
    }

    var database: String { root + "/app.db" }
    var keyFile: String { root + "/key" }
    var migrations: String { root + "/Migrations" }

    func path(_ name: String) -> String { root + "/" + name }

    func write(_ name: String, _ text: String, mode: Int = 0o644) throws {
        let path = root + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func migration(_ name: String, _ text: String) throws {
        try write("Migrations/" + name, text)
    }

    /// The standard options: this workspace's database, key file and migrations.
    func options(_ extra: [String] = []) -> [String] {
        ["--db-path", database, "--password-file", keyFile, "--migrations", migrations] + extra
    }

    /// `migrationkit <command> <standard options> <extra>`.
    @discardableResult
    func run(_ command: String, _ extra: [String] = [], stdin: String? = nil, environment: [String: String] = Binary.environment()) throws -> CommandResult {
        try Binary.run([command] + options(extra), stdin: stdin, environment: environment, directory: root)
    }

    func bytes(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Writes the bookshelf story's first migrations.
    func writeSampleMigrations() throws {
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

/// Decodes a command's JSON output.
func decodeJSON(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
}

/// Waits until the change note of `database` says `activity` ("applying 0002_slow"):
/// from then on, `process` holds the database's change lock. A fixed sleep instead
/// guessed how long the process takes to start and derive its key, which a loaded
/// machine and SQLCipher 4's costlier derivation can outlast. False if `process`
/// ended or `timeout` passed first.
func waitForChangeNote(of database: String, saying activity: String, from process: Process,
                       timeout: Duration = .seconds(60)) -> Bool {
    let deadline = ContinuousClock.now + timeout
    let note = ChangeNote.path(for: database)
    while process.isRunning, ContinuousClock.now < deadline {
        if let text = try? String(contentsOfFile: note, encoding: .utf8), text.contains(activity) { return true }
        usleep(20_000)
    }
    return false
}

/// Whether the keyring harness gave this run its own Secret Service.
var hasTestKeyring: Bool { ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" }
var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
