import Foundation
import MigrationKitTestSupport
@testable import MigrationKitKeys
@testable import MigrationKitSQLCipher
import Testing

// What the key tests need beyond the shared test support: the probe executable, a
// real pseudo-terminal, and the private keyring's switches.

typealias ProgramResult = ChildProcessResult

extension ChildProcessResult {
    /// The probe's `error CODE` line, if any.
    var errorCode: String? {
        stdout.split(separator: "\n").first { $0.hasPrefix("error ") }.map { String($0.dropFirst(6)) }
    }

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Whether `secret` appears anywhere in what the program printed.
    func mentions(_ secret: String) -> Bool {
        stdout.contains(secret) || stderr.contains(secret)
    }
}

/// Runs a program with a time limit, feeding `stdin` and collecting both outputs.
func runProgram(
    _ executable: String, _ arguments: [String], stdin: Data? = nil,
    environment: [String: String]? = nil, timeout: TimeInterval = 60
) throws -> ProgramResult {
    try ChildProcess.run([executable] + arguments, stdin: stdin, environment: environment, timeout: timeout)
}

enum Paths {
    /// The repository root (this file is Tests/MigrationKitKeysTests/Support.swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The build directory the test bundle runs from, where `KeyStoreProbe` is built too.
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    static let probe = buildDirectory.appendingPathComponent("KeyStoreProbe").path

    static let withTestKeyring = repository.appendingPathComponent("scripts/with-test-keyring.sh").path

    /// A program on PATH (or in the usual system directories), nil when absent.
    static func program(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The system Python (not a pyenv shim), for the pseudo-terminal driver.
    static let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : program("python3")
}

/// A minimal environment for child processes: no session bus, no display, a private HOME.
func isolatedEnvironment(home: String, extra: [String: String] = [:]) -> [String: String] {
    var environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"]
    environment.merge(extra) { $1 }
    return environment
}

/// The environment the tests run in, for children that need the private keyring's bus.
func inheritedEnvironment(extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment.merge(extra) { $1 }
    return environment
}

/// Runs `KeyStoreProbe` with arguments.
func runProbe(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil, timeout: TimeInterval = 60) throws -> ProgramResult {
    try runProgram(Paths.probe, arguments, stdin: stdin, environment: environment, timeout: timeout)
}

/// The private Secret Service of scripts/with-test-keyring.sh.
enum TestKeyring {
    static var isAvailable: Bool { ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" }
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Keyring tests run when the private keyring is there, and also under CI=true so
    /// that its absence fails them (`require()`) instead of skipping them. Elsewhere they
    /// are reported as disabled, never as passed.
    static let trait = ConditionTrait.enabled(
        if: isAvailable || isCI,
        "No private Secret Service: run the tests through scripts/with-test-keyring.sh (as scripts/test.sh does).")

    /// Records an issue and returns false when the keyring is not available.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard isAvailable else {
            Issue.record("The Secret Service is unavailable: MIGRATIONKIT_TEST_KEYRING is not 1, so this keyring test cannot run (CI=true makes that a failure). Run it through scripts/with-test-keyring.sh.", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// A service name no other test (or earlier run) uses.
    static func uniqueService(_ purpose: String) -> String {
        "org.migrationkit.tests.\(purpose).\(UUID().uuidString)"
    }

    /// Stores with `secret-tool store --label=L ATTR VALUE…`, the secret on standard input.
    static func secretToolStore(secret: String, attributes: [String]) throws {
        let result = try runProgram(Paths.program("secret-tool") ?? "/usr/bin/secret-tool",
                                    ["store", "--label=MigrationKit test item"] + attributes,
                                    stdin: Data(secret.utf8), timeout: 30)
        #expect(result.status == 0, "secret-tool store failed: \(result.stderr)")
    }

    /// `secret-tool clear ATTR VALUE…`, ignoring "nothing to clear".
    static func secretToolClear(_ attributes: [String]) {
        _ = try? runProgram(Paths.program("secret-tool") ?? "/usr/bin/secret-tool", ["clear"] + attributes, timeout: 30)
    }

    /// How many items `secret-tool search --all` lists for the attributes.
    static func secretToolCount(_ attributes: [String]) throws -> Int {
        let result = try runProgram(Paths.program("secret-tool") ?? "/usr/bin/secret-tool", ["search", "--all"] + attributes, timeout: 30)
        // One "[/path]" line per item on standard output (attributes go to standard error).
        return result.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.count
    }
}

/// Expects `body` to throw a `KeyError` with this code, and returns it for more checks.
@discardableResult
func expectKeyError(_ code: KeyError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> KeyError? {
    do {
        try body()
        Issue.record("expected KeyError \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as KeyError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected KeyError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Resolves `source`, collecting its warnings.
func resolveCollecting(_ source: KeySource) throws -> (key: DatabaseKey, warnings: [KeyWarning]) {
    var warnings: [KeyWarning] = []
    let key = try source.resolve { warnings.append($0) }
    return (key, warnings)
}

/// The raw key's text form for tests: x' + 64 hex digits + '.
func rawKeyText(_ bytes: [UInt8]) -> String {
    "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
}

/// Creates an encrypted database holding one row that `KeyStoreProbe resolve … --database`
/// reads back ("database value probe-value").
func createProbeDatabase(at path: String, key: DatabaseKey) throws {
    let writer = try SQLCipherWriter(path: path, key: key)
    try writer.write { db in
        try db.execute(sql: "CREATE TABLE probe (value TEXT); INSERT INTO probe VALUES ('probe-value')")
    }
}

/// Opens the database with `key` and reads the probe row; false on a wrong key.
func databaseOpens(at path: String, with key: DatabaseKey) -> Bool {
    var configuration = SQLCipherConfiguration()
    configuration.createIfMissing = false
    guard let writer = try? SQLCipherWriter(path: path, key: key, configuration: configuration) else { return false }
    return (try? writer.read { try $0.fetchString(sql: "SELECT value FROM probe") }) == "probe-value"
}
