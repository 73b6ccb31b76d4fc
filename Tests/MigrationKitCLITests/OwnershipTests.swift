import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Run as root on a service's database (owned by nobody:nogroup, mode 0640), every
/// command that replaces or rewrites the database file leaves it with that owner,
/// group and mode: otherwise the service could no longer open it. The one exception is
/// docs/how-a-migration-runs.md's (Backups): an encrypted database replacing a
/// plaintext one keeps the owner and group and becomes 0600.
@Suite struct OwnershipTests {
    private func attributes(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_uid, info.st_gid, info.st_mode & 0o7777)
    }

    private func giveToService(_ path: String) {
        #expect(chown(path, 65534, 65534) == 0 && chmod(path, 0o640) == 0)
    }

    @Test func everyInPlaceCommandKeepsOwnerGroupAndMode() throws {
        try requiringCapability {
            guard geteuid() == 0 else { throw CapabilityMissing("only root can make a database belong to another user") }
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
            try workspace.write("new-key", "the new key\n", mode: 0o600)
            let plain = workspace.path("plain.db")
            #expect(try workspace.run("decrypt", ["--output", plain]).status == 0)
            giveToService(workspace.database)
            giveToService(plain)
            func latestBackup() throws -> String {
                let names = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }
                return workspace.path(try #require(names.sorted().last))
            }
            let newKey = ["--db-path", workspace.database, "--password-file", workspace.path("new-key"), "--migrations", workspace.migrations]
            let runs: [(String, () throws -> [String], String, mode_t)] = [
                ("migrate", { ["migrate"] + workspace.options() }, workspace.database, 0o640),
                ("rollback", { ["rollback"] + workspace.options() }, workspace.database, 0o640),
                ("restore", { ["restore", "--from", try latestBackup()] + workspace.options() }, workspace.database, 0o640),
                ("rekey", { ["rekey", "--new-password-file", workspace.path("new-key")] + workspace.options() }, workspace.database, 0o640),
                ("migrate after rekey", { ["migrate"] + newKey }, workspace.database, 0o640),
                ("encrypt --in-place", { ["encrypt", "--in-place", "--db-path", plain, "--password-file", workspace.keyFile] }, plain, 0o600),
            ]
            for (name, arguments, path, mode) in runs {
                let result = try Tool.run(try arguments(), directory: workspace.root)
                #expect(result.status == 0, "\(name): \(result.output)")
                let after = attributes(path)
                #expect(after.uid == 65534 && after.gid == 65534 && after.mode == mode,
                        "\(name) left \(path) as uid \(after.uid), gid \(after.gid), mode \(String(after.mode, radix: 8))")
            }
        }
    }

    /// Root rotating a service's key: the generated key file belongs to whoever owned the
    /// old one (the service still reads it), mode 0600, and the database keeps its owner.
    @Test func aGeneratedKeyFileBelongsToTheOldKeysOwner() throws {
        try requiringCapability {
            guard geteuid() == 0 else { throw CapabilityMissing("only root can make a key file belong to another user") }
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
            giveToService(workspace.database)
            #expect(chown(workspace.keyFile, 65534, 65534) == 0)
            let rotate = try workspace.run("rekey", ["--new-password-file", workspace.path("next.key"), "--new-key", "generate",
                                                     "--old-key", "delete", "--no-backup"])
            #expect(rotate.status == 0, "\(rotate.output)")
            let key = attributes(workspace.path("next.key"))
            #expect(key.uid == 65534 && key.gid == 65534 && key.mode == 0o600, "next.key is uid \(key.uid), gid \(key.gid), mode \(String(key.mode, radix: 8))")
            let database = attributes(workspace.database)
            #expect(database.uid == 65534 && database.mode == 0o640)
            #expect(!FileManager.default.fileExists(atPath: workspace.keyFile))
            let status = try Tool.run(["status", "--db-path", workspace.database, "--password-file", workspace.path("next.key"), "--migrations", workspace.migrations])
            #expect(status.status == 0, "\(status.output)")
        }
    }
}
