import Foundation

/// Python programs as other clients of the same files and keyring: PyPI's
/// `sqlcipher3-binary` (its own SQLCipher, 4.12) and Python's `keyring`, from the
/// virtual environment `scripts/python-tools.sh` makes and `scripts/test.sh` names in
/// `MIGRATIONKIT_TEST_PYTHON`.
///
/// A test that needs them is enabled when they are there or in CI, and in CI requires
/// them (`requireInCI`): a missing client fails the run instead of passing for a skip.
public enum PythonClients {
    /// The virtual environment's python, or nil when the run did not make one.
    public static var python: String? {
        guard let path = ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_PYTHON"],
              FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return path
    }

    /// Whether a test that needs them runs: they are there, or CI must have them.
    public static var enabled: Bool { python != nil || TestPlatform.isCI }

    /// The python to run, or a thrown failure naming what is missing.
    public static func requirePython() throws -> String {
        guard let python else {
            throw MissingClient(description: "MIGRATIONKIT_TEST_PYTHON names no python with sqlcipher3-binary and keyring: run the tests through scripts/test.sh (make check), which makes it with scripts/python-tools.sh")
        }
        return python
    }

    /// Runs `script` with the environment's python; `arguments` are its `sys.argv[1:]`.
    @discardableResult
    public static func run(_ script: String, arguments: [String] = [], stdin: Data? = nil,
                           environment: [String: String]? = nil, timeout: TimeInterval = 60) throws -> ChildProcessResult {
        try ChildProcess.run([try requirePython(), "-c", script] + arguments, stdin: stdin, environment: environment, timeout: timeout)
    }

    /// The SQLCipher version `sqlcipher3-binary` bundles ("4.12.0 community").
    public static func sqlcipher3Version() throws -> String {
        let result = try run("import sqlcipher3; print(sqlcipher3.connect(':memory:').execute('PRAGMA cipher_version').fetchone()[0])")
        guard result.status == 0 else { throw MissingClient(description: "sqlcipher3-binary does not load: \(result.output)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public struct MissingClient: Error, CustomStringConvertible {
        public let description: String
    }
}
