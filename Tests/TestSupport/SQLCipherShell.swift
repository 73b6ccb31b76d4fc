import Foundation

/// The `sqlcipher` shell of the configuration under test, as a second, independent
/// client: the system's (SQLCipher 4) by default, or the one `scripts/test.sh` names
/// in `MIGRATIONKIT_SQLCIPHER_SHELL` (SQLCipher 3.4.1's, unpacked by
/// `scripts/sqlcipher3.sh`).
public enum SQLCipherShell {
    public static var path: String {
        ProcessInfo.processInfo.environment["MIGRATIONKIT_SQLCIPHER_SHELL"] ?? "/usr/bin/sqlcipher"
    }

    /// Runs `sql` against `database` with `-batch -bail`, after `PRAGMA key = <keyPragma>`
    /// when given. SQLCipher 4.3+ answers `PRAGMA key` with a row `ok`; that row is sent
    /// to /dev/null, so the output holds only what `sql` prints, on every version.
    @discardableResult
    public static func run(_ database: String, keyPragma: String?, _ sql: String, timeout: TimeInterval = 60) throws -> ChildProcessResult {
        var script = ""
        if let keyPragma { script += ".output /dev/null\nPRAGMA key = \(keyPragma);\n.output\n" }
        script += sql + "\n"
        return try ChildProcess.run([path, "-batch", "-bail", database], stdin: Data(script.utf8), timeout: timeout)
    }

    /// `run` with a test's key, raw or a passphrase.
    @discardableResult
    public static func run(_ database: String, key: TestKey, _ sql: String, timeout: TimeInterval = 60) throws -> ChildProcessResult {
        try run(database, keyPragma: key.pragma, sql, timeout: timeout)
    }

    /// `run` with a passphrase, quoted as an SQL string literal.
    @discardableResult
    public static func run(_ database: String, passphrase: String, _ sql: String, timeout: TimeInterval = 60) throws -> ChildProcessResult {
        try run(database, keyPragma: "'" + passphrase.replacingOccurrences(of: "'", with: "''") + "'", sql, timeout: timeout)
    }
}

/// Which SQLCipher this test run is meant to be on, from `scripts/test.sh`
/// (`MIGRATIONKIT_EXPECTED_SQLCIPHER` = 4 or 3). Tests that depend on the version
/// branch on the linked library itself; this is for the tests that prove the run is
/// on the configuration it claims to be.
public enum TestPlatform {
    /// The expected major version, or nil when the run did not say (a bare `swift test`).
    public static var expectedSQLCipherMajor: Int? {
        ProcessInfo.processInfo.environment["MIGRATIONKIT_EXPECTED_SQLCIPHER"].flatMap { Int($0) }
    }

    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
}
