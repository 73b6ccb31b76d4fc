import Foundation
@testable import MigrationKitFiles
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Writing and replacing the user's files so that a crash leaves the old file or the new
/// one, whole, and a replacement never changes who may use the file (`DurableFile`).
@Suite struct DurableFileTests {
    /// A key file, a written migration: mode 0600 whatever the umask gives new files,
    /// nothing left beside it, an existing file refused unless replacing, and a replaced
    /// one made private too.
    @Test func writePrivateWritesAWholeFileOnlyItsOwnerReads() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("new.key")
        try DurableFile.writePrivate(Array("the key\n".utf8), to: path, replacing: false)
        #expect(text(path) == "the key\n")
        #expect(try fileMode(path) == 0o600)
        #expect(try names(in: folder) == ["new.key"])

        #expect {
            try DurableFile.writePrivate(Array("another key\n".utf8), to: path, replacing: false)
        } throws: { ($0 as? FileOperationError)?.message.contains("already exists") == true }
        #expect(text(path) == "the key\n")

        #expect(chmod(path, 0o644) == 0)
        try DurableFile.writePrivate(Array("another key\n".utf8), to: path, replacing: true)
        #expect(text(path) == "another key\n")
        #expect(try fileMode(path) == 0o600)
        #expect(try names(in: folder) == ["new.key"])
    }

    /// Through a symbolic link the file it leads to is replaced, and the link stays: a
    /// rename over the link would leave the real file as it was.
    @Test func writePrivateThroughALinkReplacesWhatItLeadsTo() throws {
        let folder = try TemporaryDirectory()
        let real = try folder.write("real.key", "old\n")
        #expect(symlink("real.key", folder.path("app.key")) == 0)
        try DurableFile.writePrivate(Array("new\n".utf8), to: folder.path("app.key"), replacing: true)
        #expect(text(real) == "new\n")
        #expect(FileProbe(path: folder.path("app.key"), followingSymlinks: false).isSymbolicLink)
    }

    /// A database in place of another takes over its mode (an app's group-readable
    /// database stays readable by the app), unless the caller keeps nothing (an output
    /// MigrationKit writes stays 0600). The replacement's name is gone after.
    @Test func aReplacementTakesOverTheModeOfWhatItReplaces() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "old", mode: 0o640)
        let encrypted = try folder.write(".app.db.migrationkit-encrypting", "new", mode: 0o600)
        try DurableFile.replace(database, with: encrypted)
        #expect(text(database) == "new")
        #expect(try fileMode(database) == 0o640)
        #expect(!FileManager.default.fileExists(atPath: encrypted))

        let output = try folder.write("plain.db", "old", mode: 0o644)
        let written = try folder.write(".plain.db.migrationkit-write", "new", mode: 0o600)
        try DurableFile.replace(output, with: written, keeping: [])
        #expect(text(output) == "new")
        #expect(try fileMode(output) == 0o600)
    }

    /// A database that belonged to an app's service user comes back owned by it, not by
    /// whoever ran the command (root can give it; another user is refused, which the CLI
    /// tests run as that user).
    @Test func aReplacementTakesOverTheOwnerAndGroup() throws {
        guard getuid() == 0 else {
            try Test.cancel("Only root can make a file owned by another user here; as another user, the refusal is what `CipherUpgradeCommandTests.aDatabaseWhoseOwnerCannotBeKeptIsRefused` checks.")
        }
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "old", mode: 0o640)
        #expect(chown(database, 65534, 65534) == 0)
        let encrypted = try folder.write(".app.db.migrationkit-encrypting", "new")
        try DurableFile.requireOwnerCanBeKept(of: database)
        try DurableFile.replace(database, with: encrypted)
        let after = try #require(status(database))
        #expect(after.st_uid == 65534 && after.st_gid == 65534 && after.st_mode & 0o7777 == 0o640)
        #expect(try names(in: folder) == ["app.db"], "the owner probe was left behind")
    }

    /// A file with several names is never replaced under one of them: the other names
    /// would keep the old file (plaintext, or the old format) after a run that said it
    /// was done.
    @Test func aFileWithSeveralNamesIsNeverReplaced() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("app.db", "old")
        #expect(link(database, folder.path("alias.db")) == 0)
        let encrypted = try folder.write(".app.db.migrationkit-encrypting", "new")
        #expect {
            try DurableFile.replace(database, with: encrypted)
        } throws: { error in
            guard let error = error as? FileOperationError else { return false }
            return error.path == database && error.message.contains("2 names") && error.message.contains("Nothing was changed")
        }
        #expect(text(database) == "old" && text(folder.path("alias.db")) == "old")
    }

    @Test(arguments: [
        ("app.db", ".app.db.migrationkit-write"), ("./app.db", "./.app.db.migrationkit-write"),
        ("data/app.db", "data/.app.db.migrationkit-write"), ("/srv/data/app.db", "/srv/data/.app.db.migrationkit-write"),
    ])
    func aWorkFileIsHiddenBesideItsFile(_ path: String, _ sibling: String) {
        #expect(DurableFile.siblingPath(of: path, purpose: "write") == sibling)
    }

    /// What a fleet's pattern skips: MigrationKit's backups (exactly that name form) and
    /// hidden work files, never a user's file that merely looks alike.
    @Test(arguments: [
        ("app.db.backup-20261121T235330.385Z", true), (".app.db.migrationkit-write", true),
        (".app.db.migrationkit-backup-4242-17", true), ("team.backup-ops.db", false),
        ("app.db.backup-before-upgrade", false), ("app.db.backup-20261121T235330.385Z.gz", false), ("app.db", false),
    ])
    func migrationKitsOwnFilesAreToldFromTheUsers(_ name: String, _ ours: Bool) {
        #expect(DurableFile.isMigrationKitFile(named: name) == ours)
    }
}
