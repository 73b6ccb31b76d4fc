import Foundation
import MigrationKitTestSupport
import Testing

// The helpers of a suite whose tests are split between the two CLI test targets
// (MigrationKitCLITests in the test process, MigrationKitCLIProcessTests through the
// binary): each half of the suite conforms, and calls them as its own.

/// `FleetMigrateTests`'s.
public protocol FleetMigrateHelpers {}

extension FleetMigrateHelpers {
    /// A workspace with the sample migrations and `count` databases in `tenants/`, made
    /// by the sqlcipher shell (a second client) with the workspace's key.
    public func fleet(_ count: Int, key: (String) -> String? = { _ in nil }) throws -> (Workspace, [String]) {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try FileManager.default.createDirectory(atPath: workspace.path("tenants"), withIntermediateDirectories: true)
        let paths = (0..<count).map { workspace.path("tenants/tenant\($0).db") }
        for path in paths {
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            let made = try SQLCipherShell.run(path, key: key(name).map(TestKey.passphrase) ?? workspace.key, "CREATE TABLE seed (x); INSERT INTO seed VALUES (1);")
            try #require(made.status == 0, "\(made.output)")
        }
        return (workspace, paths)
    }

    /// `migrate` in the workspace's folder, with its key file and migrations; the
    /// tenants' `seed` table is the app's own, made before its first migration
    /// (`--accept-existing-tables`).
    public func migrate(_ workspace: Workspace, _ arguments: [String], environment: [String: String] = Binary.environment()) throws -> CommandResult {
        try Tool.run(["migrate", "--accept-existing-tables", "--password-file", workspace.keyFile, "--migrations", workspace.migrations] + arguments,
                       environment: environment, directory: workspace.root)
    }

    /// The migrations the database at `path` records as applied, read by the shell.
    public func ledger(_ path: String, key: TestKey) throws -> String {
        let result = try SQLCipherShell.run(path, key: key, "SELECT group_concat(identifier, ',') FROM (SELECT identifier FROM grdb_migrations ORDER BY identifier);")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `ReadOnlyMediaTests`'s.
public protocol ReadOnlyMediaHelpers {}

extension ReadOnlyMediaHelpers {
    /// The journal modes of the databases each test reads.
    public static var journalModes: [String] { ["delete", "wal"] }

    /// An app's database at `path` in `journalMode`, with three rows, closed cleanly.
    public func appDatabase(_ path: String, key: TestKey, journalMode: String) throws {
        let made = try SQLCipherShell.run(path, key: key, """
            PRAGMA journal_mode = \(journalMode.uppercased());
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            INSERT INTO notes (body) VALUES ('one'), ('two'), ('three');
            PRAGMA user_version = 12;
            """)
        try #require(made.status == 0, "\(made.output)")
    }

    /// What a plaintext copy holds: its rows, user_version and journal mode, as the
    /// shell reads them.
    public func plaintext(_ path: String) throws -> String {
        try SQLCipherShell.run(path, keyPragma: nil, "SELECT group_concat(body) FROM notes; PRAGMA user_version; PRAGMA journal_mode;").stdout
    }
}

/// `SystemdCredentialTests`'s.
public protocol SystemdCredentialHelpers {}

extension SystemdCredentialHelpers {
    /// The environment of a service that loaded credentials into `folder`.
    public func service(_ folder: String?, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = Binary.environment(extra)
        environment.removeValue(forKey: "CREDENTIALS_DIRECTORY")
        if let folder { environment["CREDENTIALS_DIRECTORY"] = folder }
        return environment
    }
}
