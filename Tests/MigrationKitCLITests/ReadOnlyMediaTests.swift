import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `decrypt` only reads the database, so it works wherever the database can be read: on
/// a read-only file system (media, a snapshot), from a read-only file, in a read-only
/// folder, over a fleet of them; and it leaves everything there as it found it, making,
/// applying and removing nothing beside the file. Looks (`status`) do the same on the
/// same files. Each in both journal modes: SQLite reads a WAL database only with a `-wal`
/// and `-shm` beside it, which such a place cannot take or a reader could not remove.
/// The databases are made by the configuration's `sqlcipher` shell.
@Suite struct ReadOnlyMediaTests: ReadOnlyMediaHelpers {
    @Test func decryptReadsADatabaseOnAReadOnlyFileSystem() throws {
        try requiringCapability {
            let workspace = try Workspace()
            let disk = try SmallDisk(at: workspace.path("media"), kilobytes: 1024)
            defer { disk.unmount() }
            for mode in Self.journalModes { try appDatabase(disk.path + "/\(mode).db", key: workspace.key, journalMode: mode) }
            // A snapshot of an app's folder taken while it ran: frames in its -wal.
            try KilledShell.writer(disk.path + "/running.db", key: workspace.key, table: "notes")
            try disk.remountReadOnly()
            let before = try TreeSnapshot(disk.path)
            for mode in Self.journalModes {
                let database = disk.path + "/\(mode).db"
                let output = workspace.path("plain-\(mode).db")
                let decrypt = try Tool.run(["decrypt", "--db-path", database, "--password-file", workspace.keyFile, "--output", output],
                                           directory: workspace.root)
                #expect(decrypt.status == 0, "\(mode): \(decrypt.output)")
                #expect(try plaintext(output) == "one,two,three\n12\n\(mode)\n", "\(mode)")
                let status = try Tool.run(["status", "--db-path", database, "--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                          directory: workspace.root)
                #expect(status.status == 0, "\(mode): \(status.output)")
                try expectUnchanged(before, "read-only file system / \(mode)")
            }
            let snapshot = workspace.path("plain-running.db")
            let running = try Tool.run(["decrypt", "--db-path", disk.path + "/running.db", "--password-file", workspace.keyFile, "--output", snapshot],
                                       directory: workspace.root)
            #expect(running.status == 0, "\(running.output)")
            let rows = try SQLCipherShell.run(snapshot, keyPragma: nil, "SELECT count(*) FROM notes; SELECT DISTINCT v FROM base;")
            #expect(rows.stdout == "8\nchanged\n", "the copy misses the -wal's rows: \(rows.output)")
            try expectUnchanged(before, "read-only file system / a running app's snapshot")

            // Over a fleet: each copy named by {name}.
            let fleet = try Tool.run(["decrypt", "--db-glob", disk.path + "/*.db", "--password-file", workspace.keyFile,
                                      "--output", workspace.path("fleet-{name}.db")], directory: workspace.root)
            #expect(fleet.status == 0, "\(fleet.output)")
            for mode in Self.journalModes { #expect(try plaintext(workspace.path("fleet-\(mode).db")) == "one,two,three\n12\n\(mode)\n", "fleet / \(mode)") }
            try expectUnchanged(before, "read-only file system / fleet")
        }
    }

    /// Every failure of `decrypt` names the file it is about: the database for what
    /// reading it found (a wrong key, a damaged page met while copying), the copy for
    /// what writing it met.
    @Test func decryptsErrorsNameTheirFile() throws {
        let workspace = try Workspace()
        try appDatabase(workspace.database, key: workspace.key, journalMode: "wal")
        let before = KilledShell.files(workspace.database)
        try workspace.write("wrong.key", TestKey.raw().text + "\n", mode: 0o600)
        let wrongKey = try Tool.run(["decrypt", "--db-path", workspace.database, "--password-file", workspace.path("wrong.key"),
                                     "--output", workspace.path("plain.db")], directory: workspace.root)
        #expect(wrongKey.status == 4 && wrongKey.stderr.contains("error: \(workspace.database): "), "\(wrongKey.output)")
        let missingFolder = try workspace.run("decrypt", ["--output", workspace.path("missing/plain.db")])
        #expect(missingFolder.status == 9 && missingFolder.stderr.contains("error: \(workspace.path("missing/plain.db")): "), "\(missingFolder.output)")
        #expect(KilledShell.files(workspace.database) == before)

        // A page of a table, not the schema's, damaged: the key opens the file, and the
        // copy meets the page.
        let damaged = workspace.path("damaged.db")
        let made = try SQLCipherShell.run(damaged, key: workspace.key, """
            CREATE TABLE blobs (b BLOB);
            INSERT INTO blobs WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200) SELECT randomblob(100) FROM c;
            """)
        try #require(made.status == 0, "\(made.output)")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: damaged))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 600)
        try handle.write(contentsOf: Data(repeating: 0x5a, count: 32))
        try handle.close()
        let unreadable = try Tool.run(["decrypt", "--db-path", damaged, "--password-file", workspace.keyFile, "--output", workspace.path("damaged-plain.db")],
                                      directory: workspace.root)
        #expect(unreadable.status != 0 && unreadable.stderr.contains("error: \(damaged): "), "\(unreadable.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("damaged-plain.db")))
    }

    /// A database file with an attribute that holds even for root: immutable (`chattr
    /// +i`, as backups and golden images are kept) or append-only (`chattr +a`). Looks
    /// read it; a change is refused in one sentence that names the attribute and the
    /// `chattr` that removes it (never a `chmod`, which cannot help), with every file as
    /// it was. Setting the attribute needs root and a file system that keeps it (ext4,
    /// XFS, Btrfs, tmpfs from Linux 6.0): without them the case does not run, and under
    /// CI=true that fails.
    @Test(arguments: [("+i", "immutable (chattr +i)", "`chattr -i "), ("+a", "append-only (chattr +a)", "`chattr -a ")])
    func aFileAttributeThatHoldsForRootIsNamedWithItsRemedy(_ attribute: String, _ named: String, _ remedy: String) throws {
        try requiringCapability {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            try workspace.run("migrate", ["--no-backup", "--to", "0001_authors"])
            try workspace.write("Migrations/0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (id INTEGER PRIMARY KEY);\n")
            let chattr = "/usr/bin/chattr"
            guard FileManager.default.isExecutableFile(atPath: chattr) else { throw CapabilityMissing("chattr (e2fsprogs) is not installed") }
            let set = try ChildProcess.run([chattr, attribute, workspace.database], timeout: 30)
            guard set.status == 0 else { throw CapabilityMissing("chattr \(attribute) failed here (root and a file system with file attributes are needed): \(set.output)") }
            defer { _ = try? ChildProcess.run([chattr, "-" + attribute.dropFirst(), workspace.database], timeout: 30) }
            let before = try TreeSnapshot(workspace.root)

            let status = try workspace.run("status")
            #expect(status.status == 0, "\(status.output)")
            #expect(status.stdout.contains("applied  0001_authors"), "\(status.output)")
            let migrate = try workspace.run("migrate", ["--no-backup"])
            #expect(migrate.exitCode == .fileError, "\(migrate.output)")
            let errors = migrate.stderr.split(separator: "\n").filter { $0.hasPrefix("migrationkit: error: ") }
            #expect(errors.count == 1 && errors.first?.contains("The database file cannot be changed: it is \(named)") == true
                        && errors.first?.contains(remedy + workspace.database + "` (as root)") == true && errors.first?.contains("chmod") == false,
                    "\(migrate.stderr)")
            try expectUnchanged(before, "chattr \(attribute)")
        }
    }
}
