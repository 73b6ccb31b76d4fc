import Foundation
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `migrationkit cipher-upgrade`, read back by the `sqlcipher` shell with its default
/// settings. Each test asserts on both platforms: on SQLCipher 4 the upgrade, run in this
/// process (`Tool`); on SQLCipher 3 (which cannot write the 4 format) the refusal, with the
/// folder left exactly as it was, through the built binary (`Guarded`), as are the other
/// refusals: one line on standard error and a documented code, whatever the library
/// prints on descriptor 2, is what only a process shows.
@Suite struct CipherUpgradeCommandTests {
    private var isFour: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// A SQLCipher 3-format database made by `migrate --cipher-compatibility 3`: the
    /// ledger and history tables, rows, both header fields.
    private func sqlcipher3Workspace(wal: Bool = false, key: TestKey = .raw()) throws -> Workspace {
        let workspace = try Workspace(key: key)
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--cipher-compatibility", "3", "--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(compatibility: 3)
        let writer = try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey, configuration: configuration)
        if wal { try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") } }
        try writer.write { db in
            try db.execute(sql: "INSERT INTO authors (name) VALUES ('Ann'), ('Bo'), ('Cy')")
            try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (1, 'X'), (2, 'Y')")
            try db.execute(sql: "PRAGMA user_version = 9")
            try db.execute(sql: "PRAGMA application_id = 4242")
        }
        return workspace
    }

    /// On SQLCipher 3: exit 64, one sentence naming the linked version, nothing written.
    private func expectRefusedOnSQLCipher3(_ workspace: Workspace, _ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try TreeSnapshot(workspace.root)
        let result = try Guarded.run(["cipher-upgrade"] + workspace.options(extra), directory: workspace.root)
        expectCleanFailure(result, .usage, mentions: [SQLCipherLibrary.cipherVersionString ?? "?", "SQLCipher 4", "Nothing was changed"],
                           "cipher-upgrade on SQLCipher 3", sourceLocation: sourceLocation)
        try expectUnchanged(before, "cipher-upgrade on SQLCipher 3", sourceLocation: sourceLocation)
    }

    private func owner(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_uid, info.st_gid, info.st_mode & 0o7777)
    }

    private func files(_ workspace: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.root).sorted()
    }

    /// With a passphrase, whose derivation the upgrade changes (PBKDF2-HMAC-SHA1 ×
    /// 64,000 to SHA512 × 256,000).
    @Test(.tags(.passphrase)) func aSQLCipher3DatabaseIsUpgradedAndReadByTheShellWithDefaultSettings() throws {
        let workspace = try sqlcipher3Workspace(wal: true, key: .randomPassphrase())
        #expect(chmod(workspace.database, 0o640) == 0)
        // As root, the database belongs to a service user, as an app's would.
        if geteuid() == 0 { #expect(chown(workspace.database, 65534, 65534) == 0) }
        let before = owner(workspace.database)
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace) }

        let result = try workspace.run("cipher-upgrade")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("Upgraded \(workspace.database)"), "\(result.output)")
        #expect(result.stdout.contains("from: SQLCipher 3 defaults") && result.stdout.contains("to:   SQLCipher 4 defaults"), "\(result.stdout)")
        #expect(result.stdout.contains("WAL mode kept"))
        #expect(result.stdout.contains("changed: page size 1024 → 4096, KDF iterations 64000 → 256000")
                && result.stdout.contains("It opens with no cipher settings from now on"), "\(result.stdout)")
        #expect(!result.output.contains(workspace.key.secret))
        let after = owner(workspace.database)
        #expect(after.uid == before.uid && after.gid == before.gid && after.mode == 0o640)

        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            SELECT count(*) FROM authors; SELECT count(*) FROM books; SELECT count(*) FROM grdb_migrations;
            SELECT count(*) FROM grdb_migrationkit_history; PRAGMA user_version; PRAGMA application_id; PRAGMA journal_mode;
            """)
        #expect(shell.status == 0 && shell.stdout == "3\n2\n2\n2\n9\n4242\nwal\n", "\(shell.output)")
        let status = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        #expect(status["format"] as? String == "sqlcipher4")
        #expect(status["appliedCount"] as? Int == 2)

        // The backup is the database as it was: the old format, the same key.
        let backups = try files(workspace).filter { $0.hasPrefix("app.db.backup-") }
        #expect(backups.count == 1)
        if let backup = backups.first {
            let old = try Tool.run(["status", "--json", "--db-path", workspace.path(backup), "--password-file", workspace.keyFile, "--migrations", workspace.migrations])
            #expect(try decodeJSON(old.stdout)["format"] as? String == "sqlcipher3", "\(old.output)")
        }
        #expect(try files(workspace) == ["Migrations", "app.db"] + backups + ["key"])

        let again = try workspace.run("cipher-upgrade")
        #expect(again.status == 0 && again.stdout.contains("already in the target format"), "\(again.output)")
    }

    @Test(.tags(.passphrase)) func theCommittedFixtureIsUpgradedWithJSONOutput() throws {
        let workspace = try Workspace(passphrase: "sqlcipher 4 fixture")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../MigrationKitSQLCipherTests/Fixtures/sqlcipher4-compat3.db").standardized
        try FileManager.default.copyItem(atPath: fixture.path, toPath: workspace.database)
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace, ["--json"]) }

        let result = try workspace.run("cipher-upgrade", ["--json"])
        #expect(result.status == 0, "\(result.output)")
        let json = try decodeJSON(result.stdout)
        #expect(json["database"] as? String == workspace.database)
        #expect((json["from"] as? [String: Any])?["format"] as? String == "sqlcipher3")
        #expect((json["from"] as? [String: Any])?["pageSize"] as? Int == 1024)
        let to = try #require(json["to"] as? [String: Any])
        #expect(to["format"] as? String == "sqlcipher4" && to["pageSize"] as? Int == 4096 && to["kdfIterations"] as? Int == 256_000)
        #expect(json["dryRun"] as? Bool == false && json["changed"] as? Bool == true)
        #expect((json["backup"] as? String)?.contains("app.db.backup-") == true)
        #expect(json["durationMs"] is Int)
        let shell = try SQLCipherShell.run(workspace.database, passphrase: "sqlcipher 4 fixture", "SELECT sum(a) FROM t;")
        #expect(shell.stdout == "6\n", "\(shell.output)")
        #expect(try decodeJSON(try workspace.run("status", ["--json"]).stdout)["format"] as? String == "sqlcipher4")
    }

    @Test(.tags(.passphrase)) func theTargetPageSizeAndKDFIterationsAreHonoured() throws {
        let workspace = try sqlcipher3Workspace(key: .randomPassphrase())
        // Impossible values are usage errors on either platform.
        for bad in [["--to-page-size", "1000"], ["--to-page-size", "131072"], ["--to-kdf-iter", "0"]] {
            let result = try workspace.run("cipher-upgrade", bad)
            #expect(result.exitCode == .usage, "\(bad): \(result.output)")
            #expect(result.stderr.contains(bad[0]))
        }
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace, ["--to-page-size", "8192", "--to-kdf-iter", "20000"]) }

        let result = try workspace.run("cipher-upgrade", ["--to-page-size", "8192", "--to-kdf-iter", "20000", "--no-backup"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("8192-byte pages") && result.stdout.contains("× 20000"), "\(result.stdout)")
        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                           "PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 20000; SELECT count(*) FROM authors;")
        #expect(shell.stdout.hasSuffix("3\n"), "\(shell.output)")
        let status = try workspace.run("status", ["--json", "--cipher-page-size", "8192", "--kdf-iter", "20000"])
        let cipher = try #require(try decodeJSON(status.stdout)["cipher"] as? [String: Any])
        #expect(cipher["pageSize"] as? Int == 8192 && cipher["kdfIterations"] as? Int == 20000)
        #expect(try files(workspace) == ["Migrations", "app.db", "key"])
    }

    /// docs/encryption-recipes.md: what the app chose survives. A SQLCipher 4 file with
    /// 16384-byte pages, or with a plaintext header and its salt, made by the shell and
    /// given with its settings, is already in the format: nothing is written. Asked for
    /// another page size, the header and salt stay. A SQLCipher 3 file whose app chose
    /// 100,000 KDF iterations keeps them, and only the format's own settings (page size,
    /// algorithms) move; each change is listed with what opens the file afterwards.
    @Test(.tags(.passphrase)) func theAppsOwnSettingsSurviveAndEveryChangeIsNamed() throws {
        let workspace = try Workspace(key: .randomPassphrase())
        let salt = "000102030405060708090a0b0c0d0e0f"
        let app = ["--cipher-plaintext-header-size", "32", "--cipher-salt", salt]
        let headerPragmas = "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";"
        let made3 = try SQLCipherShell.run(workspace.database, key: workspace.key, (isFour ? "PRAGMA cipher_compatibility = 3; " : "")
                                           + "PRAGMA kdf_iter = 100000; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');")
        #expect(made3.status == 0, "\(made3.output)")
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace, ["--kdf-iter", "100000"]) }

        let upgraded = try workspace.run("cipher-upgrade", ["--kdf-iter", "100000", "--cipher-compatibility", "3", "--no-backup"])
        #expect(upgraded.status == 0, "\(upgraded.output)")
        #expect(upgraded.stdout.contains("changed: page size 1024 → 4096, KDF algorithm PBKDF2_HMAC_SHA1 → PBKDF2_HMAC_SHA512, HMAC algorithm HMAC_SHA1 → HMAC_SHA512")
                && !upgraded.stdout.contains("KDF iterations"), "\(upgraded.stdout)")
        #expect(upgraded.stdout.contains("give later commands --kdf-iter 100000") && upgraded.stdout.contains("PRAGMA kdf_iter = 100000."), "\(upgraded.stdout)")
        let read3 = try SQLCipherShell.run(workspace.database, key: workspace.key, "PRAGMA kdf_iter = 100000; SELECT body FROM notes;")
        #expect(read3.status == 0 && read3.stdout.hasSuffix("kept\n"), "\(read3.output)")

        let large = workspace.path("large.db")
        #expect(try SQLCipherShell.run(large, key: workspace.key, "PRAGMA cipher_page_size = 16384; CREATE TABLE notes (body TEXT);").status == 0)
        let headed = workspace.path("headed.db")
        #expect(try SQLCipherShell.run(headed, key: workspace.key, headerPragmas + " CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');").status == 0)
        // Pages without HMACs are the app's choice in SQLCipher 4's format: kept (found by detection).
        let unauthenticated = workspace.path("no-hmac.db")
        #expect(try SQLCipherShell.run(unauthenticated, key: workspace.key, "PRAGMA cipher_use_hmac = OFF; CREATE TABLE notes (body TEXT);").status == 0)
        for (path, settings) in [(large, ["--cipher-page-size", "16384"]), (headed, app), (unauthenticated, [])] {
            let before = try #require(workspace.bytes(path))
            let result = try Tool.run(["cipher-upgrade", "--db-path", path, "--password-file", workspace.keyFile, "--no-backup"] + settings)
            #expect(result.status == 0 && result.stdout.contains("already in the target format"), "\(path): \(result.output)")
            #expect(workspace.bytes(path) == before, "\(path) was rewritten")
        }

        let moved = try Tool.run(["cipher-upgrade", "--db-path", headed, "--password-file", workspace.keyFile, "--to-page-size", "8192", "--no-backup"] + app)
        #expect(moved.status == 0, "\(moved.output)")
        #expect(moved.stdout.contains("changed: page size 4096 → 8192\n"), "\(moved.stdout)")
        #expect(moved.stdout.contains("--cipher-page-size 8192 --cipher-plaintext-header-size 32 --cipher-salt \(salt)"), "\(moved.stdout)")
        #expect(workspace.bytes(headed)?.prefix(16) == Data("SQLite format 3\0".utf8), "the plaintext header is gone")
        let readHeaded = try SQLCipherShell.run(headed, key: workspace.key, "PRAGMA cipher_page_size = 8192; " + headerPragmas + " SELECT body FROM notes;")
        #expect(readHeaded.status == 0 && readHeaded.stdout.hasSuffix("kept\n"), "\(readHeaded.output)")

        let movedUnauthenticated = try Tool.run(["cipher-upgrade", "--db-path", unauthenticated, "--password-file", workspace.keyFile, "--to-page-size", "8192", "--no-backup"])
        #expect(movedUnauthenticated.status == 0 && movedUnauthenticated.stdout.contains("changed: page size 4096 → 8192\n"), "\(movedUnauthenticated.output)")
        #expect(movedUnauthenticated.stdout.contains("give later commands --cipher-page-size 8192 --cipher-use-hmac off")
                && movedUnauthenticated.stdout.contains("PRAGMA cipher_use_hmac = OFF"), "\(movedUnauthenticated.stdout)")
        let readUnauthenticated = try SQLCipherShell.run(unauthenticated, key: workspace.key, "PRAGMA cipher_page_size = 8192; PRAGMA cipher_use_hmac = OFF; SELECT count(*) FROM notes;")
        #expect(readUnauthenticated.status == 0 && readUnauthenticated.stdout.hasSuffix("0\n"), "\(readUnauthenticated.output)")
    }

    @Test func aWrongKeyADryRunAndAnUpToDateDatabaseWriteNothing() throws {
        let workspace = try sqlcipher3Workspace()
        try workspace.write("wrong", "not the key\n", mode: 0o600)
        let before = try TreeSnapshot(workspace.root)
        let wrong = try Guarded.run(["cipher-upgrade", "--db-path", workspace.database, "--password-file", workspace.path("wrong")], directory: workspace.root)
        if isFour {
            expectCleanFailure(wrong, .wrongKeyOrNotADatabase, mentions: ["wrong key"], "wrong key")
        } else {
            expectCleanFailure(wrong, .usage, mentions: [SQLCipherLibrary.cipherVersionString ?? "?"], "wrong key on SQLCipher 3")
        }
        try expectUnchanged(before, "wrong key")
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace, ["--dry-run"]) }

        let dryRun = try workspace.run("cipher-upgrade", ["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.output)")
        #expect(dryRun.stdout.contains("Dry run: would upgrade"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("from: SQLCipher 3 defaults") && dryRun.stdout.contains("to:   SQLCipher 4 defaults"))
        #expect(dryRun.stdout.contains("Nothing was written."))
        try expectUnchanged(before, "dry run")
        let json = try decodeJSON(try workspace.run("cipher-upgrade", ["--dry-run", "--json"]).stdout)
        #expect(json["dryRun"] as? Bool == true && json["changed"] as? Bool == false)
        #expect(json["backup"] is NSNull && json["sizeAfter"] is NSNull)
        try expectUnchanged(before, "dry run --json")

        // A database already in SQLCipher 4's format: one sentence, exit 0, no backup.
        let current = try Workspace()
        try current.writeSampleMigrations()
        #expect(try current.run("migrate", ["--no-backup"]).status == 0)
        let currentBefore = try TreeSnapshot(current.root)
        let noOp = try current.run("cipher-upgrade")
        #expect(noOp.status == 0, "\(noOp.output)")
        #expect(noOp.stdout.contains("already in the target format"), "\(noOp.stdout)")
        try expectUnchanged(currentBefore, "already SQLCipher 4")
    }

    /// A database whose rows already break its foreign keys is not upgraded: the proven
    /// copy would keep them. Exit 3, as `verify` reports them, naming the count and
    /// `verify`; nothing written.
    @Test func aDatabaseThatFailsItsForeignKeyCheckIsRefusedAsVerifyWouldFailIt() throws {
        let workspace = try sqlcipher3Workspace()
        var configuration = SQLCipherConfiguration()
        configuration.cipher = CipherSettings(compatibility: 3)
        try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey, configuration: configuration).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "INSERT INTO books (authorId, title) VALUES (404, 'An orphan')")
        }
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace) }
        let before = try TreeSnapshot(workspace.root)
        let refused = try Guarded.run(["cipher-upgrade"] + workspace.options(), directory: workspace.root)
        expectCleanFailure(refused, .verificationFailed, mentions: ["1 foreign key violation", "`verify`", "Nothing was changed"], "orphan")
        // A dry run says what the real run would do, this refusal included.
        let dryRun = try Guarded.run(["cipher-upgrade", "--dry-run"] + workspace.options(), directory: workspace.root)
        expectCleanFailure(dryRun, .verificationFailed, mentions: ["1 foreign key violation"], "orphan, dry run")
        try expectUnchanged(before, "orphan")
    }

    @Test func aPlaintextDatabaseIsReferredToEncrypt() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try Tool.run(["migrate", "--plaintext", "--db-path", workspace.database, "--migrations", workspace.migrations]).status == 0)
        let before = try TreeSnapshot(workspace.root)
        let flagged = try Tool.run(["cipher-upgrade", "--plaintext", "--db-path", workspace.database])
        #expect(flagged.exitCode == .usage && flagged.stderr.contains("`encrypt`"), "\(flagged.output)")
        let keyed = try Guarded.run(["cipher-upgrade"] + workspace.options(), directory: workspace.root)
        if isFour {
            expectCleanFailure(keyed, .wrongKeyOrNotADatabase, mentions: ["not encrypted", "`encrypt`"], "plaintext database")
        } else {
            expectCleanFailure(keyed, .usage, mentions: [SQLCipherLibrary.cipherVersionString ?? "?"], "plaintext database on SQLCipher 3")
        }
        try expectUnchanged(before, "plaintext database")
    }

    @Test func aSymbolicLinkIsFollowedToTheRealFile() throws {
        let workspace = try sqlcipher3Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path("data"), withIntermediateDirectories: true)
        let real = workspace.path("data/real.db")
        try FileManager.default.moveItem(atPath: workspace.database, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: workspace.database, withDestinationPath: real)
        guard isFour else { return try expectRefusedOnSQLCipher3(workspace) }
        let result = try workspace.run("cipher-upgrade", ["--no-backup"])
        #expect(result.status == 0, "\(result.output)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: workspace.database)) == real)
        #expect(try decodeJSON(try workspace.run("status", ["--json"]).stdout)["format"] as? String == "sqlcipher4")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("data")) == ["real.db"])
    }

    /// A database the running user cannot give to its owner (chown is not permitted) is
    /// refused before anything is written: run as nobody on a database owned by root.
    @Test func aDatabaseWhoseOwnerCannotBeKeptIsRefused() throws {
        try requiringCapability {
            let workspace = try sqlcipher3Workspace()
            guard Guarded.isRoot else { throw CapabilityMissing("only root can give the database another owner than the user running the command") }
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chown(workspace.database, 0, 0) == 0 && chmod(workspace.database, 0o666) == 0)
            let before = try TreeSnapshot(workspace.root)
            let result = try Guarded.run(["cipher-upgrade"] + workspace.options(), directory: workspace.root, user: .unprivileged)
            if isFour {
                expectCleanFailure(result, .fileError, mentions: ["root", "not permitted", "chown", "Nothing was changed"], "owner cannot be kept")
            } else {
                expectCleanFailure(result, .usage, mentions: [SQLCipherLibrary.cipherVersionString ?? "?"], "owner cannot be kept, SQLCipher 3")
            }
            try expectUnchanged(before, "owner cannot be kept")
        }
    }
}
