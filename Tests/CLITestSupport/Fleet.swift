import Foundation
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// A fleet of `count` tenants in `tenants/`, each with its own raw key in
/// `keys/NAME.key`, migrated to the sample's two migrations.
public struct Fleet {
    public let workspace: Workspace
    public let paths: [String]
    public let keys: [TestKey]

    /// - Parameter sqlcipher3: the tenants are in SQLCipher 3's format (as a SQLCipher 4
    ///   library writes it with `cipher_compatibility = 3`).
    public init(_ count: Int, filler: Int = 0, sqlcipher3: Bool = false) throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        for folder in ["tenants", "keys"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
        }
        self.workspace = workspace
        paths = (0..<count).map { workspace.path("tenants/tenant\($0).db") }
        keys = (0..<count).map { _ in TestKey.raw() }
        for (index, key) in keys.enumerated() {
            try workspace.write("keys/tenant\(index).key", key.text + "\n", mode: 0o600)
            // Made by the shell, a second client; the filler makes a rekey take time.
            let fill = filler == 0 ? "" : "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(filler)) INSERT INTO seed SELECT printf('row %d of filler text', x) FROM n;"
            let made = try SQLCipherShell.run(paths[index], key: key, Self.format(sqlcipher3) + "CREATE TABLE seed (x); INSERT INTO seed VALUES ('first'); \(fill)")
            try #require(made.status == 0, "\(made.output)")
        }
        // The tenants' `seed` table is the app's own, made before its first migration.
        let migrated = try run(["migrate", "--accept-existing-tables", "--db-glob", "tenants/*.db", "--password-file", "keys/{name}.key", "--no-backup"]
            + (sqlcipher3 && Self.isFour ? ["--cipher-compatibility", "3"] : []))
        try #require(migrated.status == 0, "\(migrated.output)")
    }

    /// A command in the workspace's folder, with its migrations.
    public func run(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try Tool.run(arguments + ["--migrations", workspace.migrations], stdin: stdin, directory: workspace.root)
    }

    public static var isFour: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// What the shell runs after the key to read or write SQLCipher 3's format.
    public static func format(_ sqlcipher3: Bool) -> String {
        sqlcipher3 && isFour ? "PRAGMA cipher_compatibility = 3; " : ""
    }

    /// The rows of `seed`, read by the shell with `key` (in SQLCipher 3's format when
    /// asked); nil when the key does not open it so.
    public func rows(_ index: Int, key: TestKey, sqlcipher3: Bool = false) throws -> Int? {
        let result = try SQLCipherShell.run(paths[index], key: key, Self.format(sqlcipher3) + "SELECT count(*) FROM seed;")
        return result.status == 0 ? Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
    }

    /// A fleet whose keys a key command's store keeps as files in `store/` (the folder
    /// made, empty): `--new-key-store-command` writes `store/NAME.key`, and
    /// `readBack(_:)` reads it.
    public static func withStore(_ count: Int) throws -> Fleet {
        let fleet = try Fleet(count)
        try FileManager.default.createDirectory(atPath: fleet.workspace.path("store"), withIntermediateDirectories: false)
        return fleet
    }

    /// A `--new-password-command` that reads `store/{name}.key`, each tenant's calls
    /// counted, doing first what `cases` says for a tenant's call (`sh` case arms on
    /// NAME followed by the call's number: `tenant11) exit 4 ;;`).
    public static func readBack(_ cases: String) -> String {
        "!n=$(($(cat reads-{name} 2>/dev/null || echo 0) + 1)); echo $n > reads-{name}; case {name}$n in \(cases) esac; cat store/{name}.key"
    }

    /// The databases a fleet document lists, by path, with each one's entry.
    public static func entries(_ stdout: String) throws -> [String: [String: Any]] {
        let databases = try #require(try decodeJSON(stdout)["databases"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: databases.map { ($0["database"] as? String ?? "", $0) })
    }
}
