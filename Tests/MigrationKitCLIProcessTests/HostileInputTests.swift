import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Hostile and broken input, through the real binary: every refusal leaves the database
// and the migrations folder byte for byte as they were (the whole workspace is
// snapshotted before and after), prints one line saying what is wrong, exits with the
// documented code, and finishes in time.

/// A workspace whose encrypted database has the sample migrations (0001, 0002) applied,
/// with a third migration pending, so commands that change the database have work.
func migratedWorkspace(pending: Bool = true) throws -> Workspace {
    let workspace = try Workspace()
    try workspace.writeSampleMigrations()
    let migrate = try Guarded.run(["migrate", "--no-backup"] + workspace.options(), directory: workspace.root)
    #expect(migrate.status == 0, "\(migrate)")
    if pending {
        try workspace.migration("0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (name TEXT);\n-- migrate:down\nDROP TABLE genres;\n")
    }
    return workspace
}

/// Random bytes (not cryptographic): content for broken files.
func noise(_ count: Int) -> Data {
    Data((0..<count).map { _ in UInt8.random(in: 0...255) })
}

@Suite struct HostileDatabaseTests {
    enum BrokenDatabase: String, CaseIterable, CustomTestStringConvertible {
        case wrongKey, emptyFile, truncatedInHalf, truncatedMidPage, randomBytes, randomBytesOddSize
        case plaintextGivenAKey, encryptedWithoutKey, directory, fifo

        var testDescription: String { rawValue }

        /// Exit code and words the refusal must have, for commands that take the key
        /// options as the database's key.
        var expected: (code: CLIExitCodeValue, mentions: [String]) {
            switch self {
            case .wrongKey: return (.wrongKeyOrNotADatabase, ["Wrong key"])
            case .emptyFile: return (.wrongKeyOrNotADatabase, ["empty"])
            case .truncatedInHalf: return (.damaged, ["damaged", "restore it from a backup"])
            case .truncatedMidPage: return (.damaged, ["damaged", "cut short"])
            case .randomBytes: return (.wrongKeyOrNotADatabase, ["Wrong key, or not a SQLCipher database"])
            case .randomBytesOddSize: return (.wrongKeyOrNotADatabase, ["not a database", "whole number"])
            case .plaintextGivenAKey: return (.wrongKeyOrNotADatabase, ["not encrypted", "--plaintext"])
            case .encryptedWithoutKey: return (.wrongKeyOrNotADatabase, ["encrypted", "no key was given"])
            case .directory: return (.fileError, ["directory"])
            case .fifo: return (.fileError, ["not a regular file"])
            }
        }

        /// About half of a database of `size` bytes, cut where a page ends (the format's
        /// default page size: 4096 bytes, or 1024 on SQLCipher 3), whatever the number
        /// of pages: what a copy cut short leaves.
        static func halfAtAPageBoundary(_ size: Int) -> Int {
            let page = (SQLCipherLibrary.cipherVersion?.major ?? 4) >= 4 ? 4096 : 1024
            return max(1, size / 2 / page) * page
        }

        /// Breaks the workspace's database and returns the key options to use.
        func prepare(_ workspace: Workspace) throws -> [String] {
            let database = workspace.database
            let good = try #require(workspace.bytes(database))
            #expect(good.count % 1024 == 0 && good.count >= 4096, "a real database of several pages: \(good.count)")
            let keyFile = ["--password-file", workspace.keyFile]
            switch self {
            case .wrongKey:
                try workspace.write("wrong-key", "not the right key\n", mode: 0o600)
                return ["--password-file", workspace.path("wrong-key")]
            case .emptyFile:
                try Data().write(to: URL(fileURLWithPath: database))
            case .truncatedInHalf:
                try good.prefix(Self.halfAtAPageBoundary(good.count)).write(to: URL(fileURLWithPath: database))
            case .truncatedMidPage:
                try good.prefix(good.count / 2 + 333).write(to: URL(fileURLWithPath: database))
            case .randomBytes:
                try noise(8192).write(to: URL(fileURLWithPath: database))
            case .randomBytesOddSize:
                try noise(3001).write(to: URL(fileURLWithPath: database))
            case .plaintextGivenAKey:
                try FileManager.default.removeItem(atPath: database)
                let plain = try Guarded.run(["migrate", "--plaintext", "--no-backup", "--db-path", database, "--migrations", workspace.migrations])
                #expect(plain.status == 0, "\(plain)")
            case .encryptedWithoutKey:
                return ["--plaintext"]
            case .directory:
                try FileManager.default.removeItem(atPath: database)
                try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
            case .fifo:
                try FileManager.default.removeItem(atPath: database)
                #expect(mkfifo(database, 0o600) == 0)
            }
            return keyFile
        }
    }

    /// Every command that opens --db-path, with what it needs besides the key (rekey's
    /// new key is the workspace's `new-key` file).
    static func commands(_ workspace: Workspace) -> [(name: String, arguments: [String], needsKey: Bool)] {
        let base = ["--db-path", workspace.database, "--migrations", workspace.migrations]
        return [
            ("migrate", ["migrate"] + base, false),
            ("migrate --atomic", ["migrate", "--atomic"] + base, false),
            ("status", ["status"] + base, false),
            ("verify", ["verify"] + base, false),
            ("rollback", ["rollback"] + base, false),
            ("schema-dump", ["schema-dump"] + base, false),
            ("baseline", ["baseline", "--to", "0001_authors"] + base, false),
            ("lint --db-path", ["lint"] + base, false),
            ("decrypt", ["decrypt", "--output", workspace.path("exported.db")] + base, true),
            ("rekey", ["rekey", "--new-password-file", workspace.path("new-key")] + base, true),
            ("cipher-upgrade", ["cipher-upgrade"] + base, true),
        ]
    }

    @Test(arguments: BrokenDatabase.allCases)
    func aBrokenDatabaseIsRefusedByEveryCommandAndLeftAlone(_ broken: BrokenDatabase) throws {
        let workspace = try migratedWorkspace()
        let keyOptions = try broken.prepare(workspace)
        try workspace.write("new-key", "a brand new key\n", mode: 0o600)
        let commands = Self.commands(workspace)
        let before = try TreeSnapshot(workspace.root)
        for command in commands {
            let result = try Guarded.run(command.arguments + keyOptions, directory: workspace.root, timeout: 20)
            var (code, mentions) = broken.expected
            if broken == .encryptedWithoutKey, command.needsKey {
                // decrypt and rekey need the current key: asking without one is a usage error.
                (code, mentions) = (.usage, ["key"])
            }
            if command.name == "cipher-upgrade", broken != .encryptedWithoutKey {
                if (SQLCipherLibrary.cipherVersion?.major ?? 0) < 4 {
                    // SQLCipher 3 cannot write the 4 format: refused before anything is opened.
                    (code, mentions) = (.usage, [SQLCipherLibrary.cipherVersionString ?? "?"])
                } else if broken == .plaintextGivenAKey {
                    // Like rekey on a plaintext database: the wrong kind of file (exit 4).
                    (code, mentions) = (.wrongKeyOrNotADatabase, ["not encrypted", "`encrypt`"])
                }
            }
            if code == .usage, command.name == "rekey" || command.name == "cipher-upgrade" && broken == .encryptedWithoutKey {
                // ArgumentParser's own validation message, not an error line.
                #expect(result.status == code.rawValue, "\(command.name): \(result)")
                #expect(result.stderr.contains(command.name == "rekey" ? "not encrypted" : "`encrypt`"), "\(command.name): \(result)")
            } else {
                expectCleanFailure(result, code, mentions: mentions, "\(broken) / \(command.name)")
            }
            try expectUnchanged(before, "\(broken) / \(command.name)")
        }
        let json = try Guarded.run(commands[0].arguments + keyOptions + ["--json"], directory: workspace.root, timeout: 20)
        try expectJSONError(json, broken.expected.code, "\(broken) / migrate --json")
        try expectUnchanged(before, "\(broken) / migrate --json")
    }

    /// A backup that is broken in any of these ways is refused before it replaces
    /// anything: the database in place stays as it was.
    @Test func restoreRefusesABrokenBackupAndKeepsTheDatabase() throws {
        let workspace = try migratedWorkspace()
        let good = try #require(workspace.bytes(workspace.database))
        try workspace.write("empty.backup", "")
        try good.prefix(BrokenDatabase.halfAtAPageBoundary(good.count)).write(to: URL(fileURLWithPath: workspace.path("half.backup")))
        try noise(8192).write(to: URL(fileURLWithPath: workspace.path("random.backup")))
        try FileManager.default.createDirectory(atPath: workspace.path("folder.backup"), withIntermediateDirectories: false)
        #expect(mkfifo(workspace.path("fifo.backup"), 0o600) == 0)
        let cases: [(String, CLIExitCodeValue, String)] = [
            ("empty.backup", .wrongKeyOrNotADatabase, "empty"), ("half.backup", .damaged, "damaged"),
            ("random.backup", .wrongKeyOrNotADatabase, "Wrong key"), ("folder.backup", .fileError, "directory"),
            ("fifo.backup", .fileError, "not a regular file"), ("missing.backup", .fileError, "No database exists"),
        ]
        let before = try TreeSnapshot(workspace.root)
        for (name, code, mention) in cases {
            let result = try Guarded.run(["restore", "--from", workspace.path(name)] + workspace.options(), directory: workspace.root, timeout: 20)
            expectCleanFailure(result, code, mentions: [mention], "restore --from \(name)")
            // The safety copy of the current database is written before the backup is
            // proven; it is the only thing a refused restore may leave.
            let added = try TreeSnapshot(workspace.root).entries.keys.filter { before.entries[$0] == nil }
            #expect(added.allSatisfy { $0.hasPrefix("app.db.backup-") }, "restore --from \(name) left \(added)")
            for path in added { try FileManager.default.removeItem(atPath: workspace.path(path)) }
            try expectUnchanged(before, "restore --from \(name)")
        }
    }

    @Test func aFlippedByteInADataPageIsReportedByVerifyAndNothingChanges() throws {
        let workspace = try migratedWorkspace(pending: false)
        // Enough rows for the authors table to fill pages of its own.
        let rows = (1...300).map { "(\($0), 'author number \($0) with a longer name')" }.joined(separator: ", ")
        let insert = try Guarded.run(["-batch", workspace.database], executable: SQLCipherShell.path,
                                     stdin: Data("PRAGMA key = \(workspace.key.pragma);\nINSERT INTO authors VALUES \(rows);\n".utf8))
        #expect(insert.status == 0, "\(insert)")
        var bytes = try #require(workspace.bytes(workspace.database))
        // In the middle of the last page: table data, not the header.
        let offset = bytes.count - 1024 + 300
        bytes[offset] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: workspace.database))
        let before = try TreeSnapshot(workspace.root)

        let verify = try Guarded.run(["verify"] + workspace.options(), directory: workspace.root, timeout: 20)
        #expect(verify.status == CLIExitCodeValue.verificationFailed.rawValue, "\(verify)")
        #expect(verify.stdout.contains("FAILED quick_check"), "\(verify)")
        if SQLCipherLibrary.hasCipherIntegrityCheck {
            // SQLCipher 4.2+ names the page whose HMAC no longer matches.
            #expect(verify.stdout.contains("FAILED cipher_integrity_check") && verify.stdout.contains("HMAC verification failed for page"), "\(verify)")
            #expect(verify.stdout.contains("Verification failed: 2 problems."), "\(verify)")
        } else {
            #expect(verify.stdout.contains("Verification failed: 1 problem."), "\(verify)")
        }
        #expect(!verify.timedOut && verify.stderr.isEmpty, "\(verify)")
        let json = try Guarded.run(["verify", "--json"] + workspace.options(), directory: workspace.root, timeout: 20)
        #expect(json.exitCode == .verificationFailed)
        #expect(try decodeJSON(json.stdout)["passed"] as? Bool == false)
        let quiet = try Guarded.run(["verify", "--quiet"] + workspace.options(), directory: workspace.root, timeout: 20)
        #expect(quiet.exitCode == .verificationFailed && quiet.stdout.isEmpty && quiet.stderr.hasPrefix("verify: "), "\(quiet)")
        for text in forbiddenOutput where (verify.output + json.output + quiet.output).contains(text) {
            Issue.record("verify printed \"\(text)\"")
        }
        try expectUnchanged(before, "verify")

        // Migrating all-or-nothing with the whole file verified finds the damage before
        // anything is kept.
        try workspace.migration("0003_genres.sql", "-- migrate:up\nCREATE TABLE genres (name TEXT);\n")
        let migrationsBefore = try TreeSnapshot(workspace.root)
        let atomic = try Guarded.run(["migrate", "--atomic", "--verify", "full", "--no-backup"] + workspace.options(), directory: workspace.root, timeout: 20)
        expectCleanFailure(atomic, .verificationFailed, mentions: ["integrity check", "restore it from a backup"], "migrate --atomic --verify full")
        try expectUnchanged(migrationsBefore, "migrate --atomic --verify full")
        // By default migrate verifies what it changed. SQLite 3.33+ checks the changed
        // table alone, never reading the damaged page, and says so; older SQLite can only
        // quick_check the whole file, which finds it.
        let changedOnly = try Guarded.run(["migrate", "--atomic", "--no-backup"] + workspace.options(), directory: workspace.root, timeout: 20)
        if SQLCipherLibrary.hasTableQuickCheck {
            #expect(changedOnly.status == 0, "\(changedOnly)")
            #expect(changedOnly.stdout.contains("verification passed (quick_check of 1 changed table"), "\(changedOnly)")
            #expect(!changedOnly.stdout.contains("cipher_integrity_check"), "\(changedOnly)")
        } else {
            expectCleanFailure(changedOnly, .verificationFailed, mentions: ["integrity check"], "migrate --atomic")
            try expectUnchanged(migrationsBefore, "migrate --atomic")
        }
        let verifyAgain = try Guarded.run(["verify"] + workspace.options(), directory: workspace.root, timeout: 20)
        #expect(verifyAgain.status == CLIExitCodeValue.verificationFailed.rawValue, "\(verifyAgain)")
    }
}

@Suite struct HostileMigrationFolderTests {
    enum BrokenMigration: String, CaseIterable, CustomTestStringConvertible {
        case binary, notUTF8, nulByte, huge100MB, fifo, danglingLink, linkLoop, newlineInName
        case unterminatedString, unendedCreateTable, triggerWithoutEnd

        var testDescription: String { rawValue }

        /// Whether the file is refused on loading (every command that loads the folder
        /// refuses it), rather than failing when its SQL runs.
        var refusedOnLoad: Bool {
            switch self {
            case .unterminatedString, .unendedCreateTable, .triggerWithoutEnd: return false
            default: return true
            }
        }

        /// Writes the broken migration into the workspace's folder.
        func write(into workspace: Workspace) throws -> (file: String, mentions: [String]) {
            let folder = workspace.migrations
            switch self {
            case .binary:
                var bytes = noise(4096)
                bytes[100] = 0
                try bytes.write(to: URL(fileURLWithPath: folder + "/0003_binary.sql"))
                return ("0003_binary.sql", ["NUL", "binary"])
            case .notUTF8:
                var bytes = Data("-- migrate:up\nINSERT INTO authors (name) VALUES ('caf".utf8)
                bytes.append(0xE9)  // Latin-1 é
                bytes.append(contentsOf: Data("');\n".utf8))
                try bytes.write(to: URL(fileURLWithPath: folder + "/0003_latin1.sql"))
                return ("0003_latin1.sql", ["0003_latin1.sql:2:", "UTF-8"])
            case .nulByte:
                try workspace.migration("0003_nul.sql", "-- migrate:up\nCREATE TABLE t (a);\nSELECT '\u{0}';\n")
                return ("0003_nul.sql", ["0003_nul.sql:3:", "NUL"])
            case .huge100MB:
                // Sparse: 100 MB of size, no time spent writing it.
                let path = folder + "/0003_huge.sql"
                #expect(FileManager.default.createFile(atPath: path, contents: Data("-- migrate:up\nSELECT 1;\n".utf8)))
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.truncate(atOffset: 100 * 1024 * 1024)
                try handle.close()
                return ("0003_huge.sql", ["100 MiB", "32 MiB limit"])
            case .fifo:
                #expect(mkfifo(folder + "/0003_pipe.sql", 0o644) == 0)
                return ("0003_pipe.sql", ["not a regular file"])
            case .danglingLink:
                try FileManager.default.createSymbolicLink(atPath: folder + "/0003_gone.sql", withDestinationPath: workspace.path("moved-away.sql"))
                return ("0003_gone.sql", ["leads nowhere"])
            case .linkLoop:
                try FileManager.default.createSymbolicLink(atPath: folder + "/0003_loop.sql", withDestinationPath: "0003_loop.sql")
                return ("0003_loop.sql", ["in a loop"])
            case .newlineInName:
                try workspace.migration("0003_a\napplied  0004_forged.sql", "-- migrate:up\nCREATE TABLE t (a);\n")
                return ("0003_a\\napplied  0004_forged.sql", ["control characters"])
            case .unterminatedString:
                try workspace.migration("0003_string.sql", "-- migrate:up\nCREATE TABLE t (a);\nINSERT INTO t VALUES ('never closed);\n")
                return ("0003_string.sql", ["0003_string.sql:3:", "failed and was rolled back", "unrecognized token"])
            case .unendedCreateTable:
                try workspace.migration("0003_unended.sql", "-- migrate:up\nCREATE TABLE t (a")
                // SQLite's own words: "syntax error" up to 3.15, "incomplete input" in 3.46.
                let sqliteSays = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 ? "incomplete input" : "syntax error"
                return ("0003_unended.sql", ["0003_unended.sql:2:", "failed and was rolled back", sqliteSays])
            case .triggerWithoutEnd:
                // SQLite stops at the end of the text, where END is missing.
                try workspace.migration("0003_trigger.sql", "-- migrate:up\nCREATE TRIGGER t AFTER INSERT ON authors BEGIN\n  SELECT 1;\n")
                return ("0003_trigger.sql", ["0003_trigger.sql:3:", "failed and was rolled back"])
            }
        }
    }

    @Test(arguments: BrokenMigration.allCases)
    func aBrokenMigrationFileIsRefusedByNameAndNothingChanges(_ broken: BrokenMigration) throws {
        let workspace = try migratedWorkspace(pending: false)
        let (file, mentions) = try broken.write(into: workspace)
        let before = try TreeSnapshot(workspace.root)
        let runs: [(String, [String], CLIExitCodeValue)]
        if broken.refusedOnLoad {
            runs = [
                ("migrate", ["migrate"] + workspace.options(), .fileError),
                ("status", ["status"] + workspace.options(), .fileError),
                ("rollback", ["rollback"] + workspace.options(), .fileError),
                ("lint", ["lint", "--migrations", workspace.migrations], .fileError),
                ("check", ["check", "--migrations", workspace.migrations], .fileError),
            ]
        } else {
            runs = [
                ("migrate --no-lint", ["migrate", "--no-backup", "--no-lint"] + workspace.options(), .migrationFailed),
                ("migrate --atomic --no-lint", ["migrate", "--atomic", "--no-backup", "--no-lint"] + workspace.options(), .migrationFailed),
                ("migrate --dry-run --no-lint", ["migrate", "--dry-run", "--no-lint"] + workspace.options(), .migrationFailed),
            ]
        }
        for (name, arguments, code) in runs {
            let started = Date()
            let result = try Guarded.run(arguments, directory: workspace.root, timeout: 20)
            expectCleanFailure(result, code, mentions: mentions + [file], "\(broken) / \(name)")
            #expect(Date().timeIntervalSince(started) < 15, "\(broken) / \(name) took \(Date().timeIntervalSince(started)) s")
            try expectUnchanged(before, "\(broken) / \(name)")
        }
        if !broken.refusedOnLoad {
            // SQLite cannot parse it, which lint asks before anything runs: migrate
            // stops there, at the same line, and status still shows it pending.
            let linted = try Guarded.run(["migrate"] + workspace.options(), directory: workspace.root, timeout: 20)
            expectCleanFailure(linted, .migrationFailed, mentions: ["Lint found 1 error", mentions[0].dropLast() + " (syntax-error)"], "\(broken) / migrate")
            try expectUnchanged(before, "\(broken) / migrate")
            let status = try Guarded.run(["status"] + workspace.options(), directory: workspace.root, timeout: 20)
            #expect(status.stdout.contains("pending  0003_"), "\(status)")
        }
    }

    @Test func aMigrationsFolderThatIsALoopAFileOrMissingIsRefused() throws {
        let workspace = try migratedWorkspace(pending: false)
        try FileManager.default.createSymbolicLink(atPath: workspace.path("loop-a"), withDestinationPath: workspace.path("loop-b"))
        try FileManager.default.createSymbolicLink(atPath: workspace.path("loop-b"), withDestinationPath: workspace.path("loop-a"))
        let before = try TreeSnapshot(workspace.root)
        let folders: [(String, [String])] = [
            (workspace.path("loop-a"), ["symbolic link", "loop"]),
            (workspace.keyFile, ["not a folder"]),
            ("../no-such-folder", ["No migrations folder"]),  // relative to the current folder
        ]
        for (folder, mentions) in folders {
            // `new` creates a missing folder, as documented; it must refuse the others.
            for command in ["migrate", "status", "lint"] + (folder.hasPrefix("..") ? [] : ["new"]) {
                var arguments = [command, "--migrations", folder]
                if command == "new" { arguments.append("next_step") }
                if command == "migrate" || command == "status" { arguments += ["--db-path", workspace.database, "--password-file", workspace.keyFile] }
                let result = try Guarded.run(arguments, directory: workspace.migrations, timeout: 20)
                expectCleanFailure(result, .fileError, mentions: mentions, "\(command) --migrations \(folder)")
                try expectUnchanged(before, "\(command) --migrations \(folder)")
            }
        }
    }

    /// Names are data: quotes, semicolons, `..`, emoji go through the ledger and the
    /// reports as they are, and `new` cannot be talked into writing outside the folder.
    @Test func oddNamesAndTraversalAttemptsStayInsideTheFolder() throws {
        let workspace = try migratedWorkspace(pending: false)
        let odd = "0003_it's \"quoted\"; DROP TABLE authors; -- ..☕"
        try workspace.migration(odd + ".sql", "-- migrate:up\nCREATE TABLE odd (x);\n-- migrate:down\nDROP TABLE odd;\n")
        try workspace.migration("0004_a..b.up.sql", "CREATE TABLE dots (x);\n")
        try workspace.migration("0004_a..b.down.sql", "DROP TABLE dots;\n")
        try workspace.migration("...sql", "this hidden file is not a migration")
        let migrate = try Guarded.run(["migrate", "--no-backup"] + workspace.options(), directory: workspace.root)
        #expect(migrate.status == 0, "\(migrate)")
        let status = try decodeJSON(try Guarded.run(["status", "--json"] + workspace.options(), directory: workspace.root).stdout)
        let identifiers = (status["migrations"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String }
        #expect(identifiers == ["0001_authors", "0002_books", odd, "0004_a..b"])
        #expect(try Guarded.run(["rollback", "--steps", "2", "--no-backup"] + workspace.options(), directory: workspace.root).status == 0)
        let schema = try Guarded.run(["schema-dump"] + workspace.options(), directory: workspace.root)
        #expect(schema.stdout.contains("CREATE TABLE authors"), "the odd name's SQL-looking text did not run: \(schema)")

        // `new` makes a safe slug of any name; the file lands in the folder, nowhere else.
        let before = try TreeSnapshot(workspace.root)
        for name in ["../../escaped", "/etc/passwd", "a/../../b"] {
            let created = try Guarded.run(["new", name, "--migrations", workspace.migrations, "--json"], directory: workspace.root)
            #expect(created.status == 0, "\(created)")
            let path = try #require(try decodeJSON(created.stdout)["path"] as? String)
            #expect(path.hasPrefix(workspace.migrations + "/") && !path.dropFirst(workspace.migrations.count + 1).contains("/"), "\(path)")
        }
        let after = try TreeSnapshot(workspace.root)
        #expect(before.differences(to: after).allSatisfy { $0.hasPrefix("added ") })
        let added = after.entries.keys.filter { before.entries[$0] == nil }.sorted()
        #expect(added == ["Migrations/0005_escaped.sql", "Migrations/0006_etc_passwd.sql", "Migrations/0007_a_b.sql"], "\(added)")
    }
}

@Suite struct HostileKeySourceTests {
    enum BrokenKey: String, CaseIterable, CustomTestStringConvertible {
        case emptyFile, newlineOnlyFile, hugeFile, sparse10GBFile, fifo, directory, writableByOthers, missingFile
        case emptyStandardInput, hugeStandardInput, emptyEnvironmentVariable

        var testDescription: String { rawValue }

        /// Key options, standard input and environment for the case; `secret` is written
        /// into whatever holds the key, so a leak would show.
        func prepare(_ workspace: Workspace, secret: String) throws -> (options: [String], stdin: Data?, environment: [String: String], mentions: [String]) {
            let path = workspace.path("broken-key")
            let file = ["--password-file", path]
            let none = Binary.environment()
            switch self {
            case .emptyFile:
                try workspace.write("broken-key", "", mode: 0o600)
                return (file, nil, none, [path, "empty"])
            case .newlineOnlyFile:
                try workspace.write("broken-key", "\n", mode: 0o600)
                return (file, nil, none, [path, "empty"])
            case .hugeFile:
                try workspace.write("broken-key", secret + String(repeating: "k", count: 10 << 20), mode: 0o600)
                return (file, nil, none, [path, "larger than 4096 bytes"])
            case .sparse10GBFile:
                try workspace.write("broken-key", secret, mode: 0o600)
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.truncate(atOffset: 10 << 30)
                try handle.close()
                return (file, nil, none, [path, "larger than 4096 bytes"])
            case .fifo:
                #expect(mkfifo(path, 0o600) == 0)
                return (file, nil, none, [path, "not a regular file"])
            case .directory:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                return (file, nil, none, [path, "directory"])
            case .writableByOthers:
                try workspace.write("broken-key", secret + "\n", mode: 0o666)
                return (file, nil, none, [path, "writable", "chmod 600"])
            case .missingFile:
                return (file, nil, none, [path, "does not exist"])
            case .emptyStandardInput:
                return (["--password-file", "-"], Data(), none, ["Standard input", "empty"])
            case .hugeStandardInput:
                return (["--password-file", "-"], Data((secret + String(repeating: "k", count: 1 << 20)).utf8), none, ["Standard input", "4096"])
            case .emptyEnvironmentVariable:
                return ([], nil, Binary.environment(["MIGRATIONKIT_PASSWORD": ""]), ["No key given", "MIGRATIONKIT_PASSWORD is set but empty"])
            }
        }
    }

    @Test(arguments: BrokenKey.allCases)
    func anUnusableKeySourceIsRefusedQuicklyWithoutCreatingOrTouchingAnything(_ broken: BrokenKey) throws {
        let workspace = try migratedWorkspace()
        let secret = "hostile-key-\(UUID().uuidString)"
        let (options, stdin, environment, mentions) = try broken.prepare(workspace, secret: secret)
        let before = try TreeSnapshot(workspace.root)
        let base = ["--migrations", workspace.migrations]
        let runs: [(String, [String])] = [
            ("migrate", ["migrate", "--db-path", workspace.database] + base),
            ("migrate a new database", ["migrate", "--db-path", workspace.path("new.db")] + base),
            ("status", ["status", "--db-path", workspace.database] + base),
            ("rekey (new key)", ["rekey", "--db-path", workspace.database, "--password-file", workspace.keyFile, "--no-backup"]
                + (options.first == "--password-file" ? ["--new-password-file", options[1]] : [])),
        ]
        for (name, arguments) in runs {
            if name.hasPrefix("rekey"), options.first != "--password-file" { continue }
            let result = try Guarded.run(arguments + (name.hasPrefix("rekey") ? [] : options), stdin: stdin,
                                         environment: environment, directory: workspace.root, timeout: 10)
            expectCleanFailure(result, .keyUnavailable, mentions: mentions, "\(broken) / \(name)")
            #expect(result.seconds < 8, "\(broken) / \(name) took \(result.seconds) s")
            #expect(!result.output.contains(secret), "\(broken) / \(name) printed the key file's content")
            try expectUnchanged(before, "\(broken) / \(name)")
        }
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func anAbsentSecretServiceItemIsRefusedAndNothingIsCreated() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let workspace = try migratedWorkspace()
        let before = try TreeSnapshot(workspace.root)
        let service = "migrationkit-hostile-absent-\(UUID().uuidString)"
        let keychain = ["--keychain-service", service, "--keychain-account", "nobody"]
        for (name, arguments) in [
            ("migrate", ["migrate", "--db-path", workspace.database, "--migrations", workspace.migrations] + keychain),
            ("migrate a new database", ["migrate", "--db-path", workspace.path("new.db"), "--migrations", workspace.migrations] + keychain),
        ] {
            let result = try Guarded.run(arguments, directory: workspace.root, timeout: 30)
            expectCleanFailure(result, .keyUnavailable, mentions: [service], "absent item / \(name)")
            try expectUnchanged(before, "absent item / \(name)")
        }
    }

    /// Locks the login collection of a keyring of its own (a nested
    /// scripts/with-test-keyring.sh, as the Keys tests do), so the keyring the other
    /// tests share is never locked under them, then asks the CLI for keys in it.
    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func aLockedKeyringIsRefusedAsLockedAndNothingChanges() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let workspace = try migratedWorkspace()
        let before = try TreeSnapshot(workspace.root)
        let script = """
            set -u
            mk="$1"; db="$2"; migrations="$3"; out="$4"
            printf '%s' "$5" | "$mk" key store --keychain-service locked-svc --keychain-account db >/dev/null || exit 10
            # Unlocked, the stored key opens the database.
            "$mk" status --db-path "$db" --migrations "$migrations" --keychain-service locked-svc --keychain-account db >/dev/null || exit 11
            gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/collection/login']" >/dev/null || exit 12
            # Each command gets a key on standard input, for those that read one.
            run() { name="$1"; shift; printf 'typed-%s' "$name" | "$mk" "$@" >"$out/$name.out" 2>"$out/$name.err"; echo "$name $?"; }
            run status status --db-path "$db" --migrations "$migrations" --keychain-service locked-svc --keychain-account db
            run migrate migrate --db-path "$db" --migrations "$migrations" --keychain-service locked-svc --keychain-account db
            run store key store --keychain-service other-svc --keychain-account db
            run delete key delete --keychain-service locked-svc --keychain-account db
            run generate key generate --keychain-service third-svc --keychain-account db
            """
        let output = workspace.root + "-locked-output"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: output) }
        var environment = ProcessInfo.processInfo.environment
        // A fresh private session, not the one these tests run in.
        for name in ["MIGRATIONKIT_INSIDE_TEST_KEYRING", "DBUS_SESSION_BUS_ADDRESS", "MIGRATIONKIT_TEST_KEYRING", "MIGRATIONKIT_PASSWORD"] {
            environment.removeValue(forKey: name)
        }
        environment["CI"] = "true"  // fail rather than run without a keyring
        let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/with-test-keyring.sh").path
        let result = try Guarded.run(["/bin/sh", "-c", script, "sh", Binary.migrationkit, workspace.database, workspace.migrations, output, workspace.key.text],
                                     executable: harness, environment: environment, timeout: 120)
        #expect(result.status == 0 && !result.timedOut, "\(result)")
        let statuses = Dictionary(uniqueKeysWithValues: result.stdout.split(separator: "\n").compactMap { line -> (String, Int32)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let code = Int32(parts[1]) else { return nil }
            return (String(parts[0]), code)
        })
        #expect(statuses.count == 5, "\(result)")
        for (name, code) in statuses.sorted(by: { $0.key < $1.key }) {
            let stderr = (try? String(contentsOfFile: "\(output)/\(name).err", encoding: .utf8)) ?? ""
            let stdout = (try? String(contentsOfFile: "\(output)/\(name).out", encoding: .utf8)) ?? ""
            let run = GuardedResult(status: code, stdout: stdout, stderr: stderr, timedOut: false, seconds: 0)
            expectCleanFailure(run, .keyUnavailable, mentions: ["locked"], "locked keyring / \(name)")
            #expect(!run.output.contains(workspace.key.secret), "locked keyring / \(name) printed the key")
        }
        try expectUnchanged(before, "locked keyring")
    }
}

@Suite struct HostilePermissionTests {
    /// Root writes read-only files and folders anyway; these cases run the binary as
    /// nobody when the tests run as root (setpriv), and as the user themselves otherwise.
    @Test func aReadOnlyDatabaseIsRefusedByMigrateButStillReadable() throws {
        try requiringCapability {
            let workspace = try migratedWorkspace()
            try workspace.write("new-key", "a new key\n", mode: 0o600)
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chmod(workspace.database, 0o444) == 0)
            let before = try TreeSnapshot(workspace.root)
            for command in ["migrate", "rollback", "baseline", "rekey"] {
                var arguments = [command] + workspace.options()
                if command == "baseline" { arguments += ["--to", "0003_genres"] }
                if command == "rekey" { arguments += ["--new-password-file", workspace.path("new-key")] }
                let result = try Guarded.run(arguments, directory: workspace.root, timeout: 20, user: .unprivileged)
                expectCleanFailure(result, .fileError, mentions: ["mode 0444", "chmod u+w"], "0444 database / \(command)")
                try expectUnchanged(before, "0444 database / \(command)")
            }
            // Inspecting a read-only copy is what read-only is for.
            let status = try Guarded.run(["status"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            #expect(status.status == 0 && status.stdout.contains("pending  0003_genres"), "\(status)")
            let verify = try Guarded.run(["verify"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            #expect(verify.status == 0, "\(verify)")
            try expectUnchanged(before, "0444 database / status, verify")
        }
    }

    /// A database that belongs to root, mode 0644, run as another user: chmod cannot
    /// help that user, so the sentence names the owner and what would.
    @Test func aDatabaseOfAnotherUserNamesItsOwner() throws {
        try requiringCapability {
            guard Guarded.isRoot else { throw CapabilityMissing("only root can give a database to root and run as another user") }
            let workspace = try migratedWorkspace()
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chown(workspace.database, 0, 0) == 0 && chmod(workspace.database, 0o644) == 0)
            let before = try TreeSnapshot(workspace.root)
            let result = try Guarded.run(["migrate", "--no-backup"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(result, .fileError, mentions: ["belongs to root (uid 0)", "mode 0644", "as root"], "root's 0644 database")
            #expect(!result.stderr.contains("chmod"), "\(result)")
            try expectUnchanged(before, "root's 0644 database")
        }
    }

    /// The same database at mode 0600, which that user cannot even read: the same kind
    /// of sentence (whose it is, who may), not SQLite's "unable to open database file".
    @Test func aDatabaseOfAnotherUserThatCannotBeReadNamesItsOwner() throws {
        try requiringCapability {
            guard Guarded.isRoot else { throw CapabilityMissing("only root can give a database to root and run as another user") }
            let workspace = try migratedWorkspace()
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chown(workspace.database, 0, 0) == 0 && chmod(workspace.database, 0o600) == 0)
            let before = try TreeSnapshot(workspace.root)
            for command in [["migrate", "--no-backup"], ["status"], ["verify"], ["decrypt", "--output", workspace.path("plain.db")]] {
                let result = try Guarded.run(command + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
                expectCleanFailure(result, .fileError, mentions: ["cannot be read by this user", "belongs to root (uid 0)", "mode 0600", "as root"],
                                   "root's 0600 database / \(command[0])")
                #expect(!result.stderr.contains("unable to open database file") && !result.stderr.contains("chmod"), "\(result)")
                try expectUnchanged(before, "root's 0600 database / \(command[0])")
            }
        }
    }

    @Test func aReadOnlyFolderIsRefusedByMigrateWithNothingLeftBehind() throws {
        try requiringCapability {
            let workspace = try migratedWorkspace()
            try workspace.write("new-key", "a new key\n", mode: 0o600)
            try Guarded.giveToUnprivileged(workspace.root)
            #expect(chmod(workspace.root, 0o555) == 0)
            let before = try TreeSnapshot(workspace.root)
            // The backup is the first thing written beside the database.
            let withBackup = try Guarded.run(["migrate"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(withBackup, .fileError, mentions: ["backup could not be written", "Permission denied", "--no-backup"], "0555 folder / migrate")
            try expectUnchanged(before, "0555 folder / migrate")
            // Without one, the journal SQLite needs beside the database is.
            let withoutBackup = try Guarded.run(["migrate", "--no-backup"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(withoutBackup, .fileError, mentions: ["0003_genres.sql:2:", "journal", "writable"], "0555 folder / migrate --no-backup")
            try expectUnchanged(before, "0555 folder / migrate --no-backup")
            let rekey = try Guarded.run(["rekey", "--no-backup", "--new-password-file", workspace.path("new-key")] + workspace.options(),
                                        directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(rekey, .fileError, mentions: ["journal", "not writable", "Nothing was changed"], "0555 folder / rekey")
            try expectUnchanged(before, "0555 folder / rekey")
            let create = try Guarded.run(["migrate", "--db-path", workspace.path("new.db"), "--password-file", workspace.keyFile, "--migrations", workspace.migrations],
                                         directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(create, .fileError, mentions: ["cannot be created", "Permission denied"], "0555 folder / new database")
            try expectUnchanged(before, "0555 folder / new database")
        }
    }

    @Test func unreadableMigrationsKeysAndFoldersAreRefusedByName() throws {
        try requiringCapability {
            let workspace = try migratedWorkspace()
            try workspace.write("locked-key", workspace.key.text + "\n", mode: 0o600)
            try Guarded.giveToUnprivileged(workspace.root)
            let folderMode = try #require(try FileManager.default.attributesOfItem(atPath: workspace.migrations)[.posixPermissions] as? NSNumber).uint16Value
            #expect(chmod(workspace.path("locked-key"), 0o000) == 0)
            #expect(chmod(workspace.migrations + "/0003_genres.sql", 0o000) == 0)
            let before = try TreeSnapshot(workspace.root)
            let key = try Guarded.run(["verify", "--db-path", workspace.database, "--password-file", workspace.path("locked-key")],
                                      directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(key, .keyUnavailable, mentions: ["locked-key", "permission denied"], "unreadable key file")
            let file = try Guarded.run(["migrate"] + workspace.options(), directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(file, .fileError, mentions: ["0003_genres.sql", "cannot be read"], "unreadable migration")
            #expect(chmod(workspace.migrations, 0o000) == 0)
            let folder = try Guarded.run(["lint", "--migrations", workspace.migrations], directory: workspace.root, timeout: 20, user: .unprivileged)
            expectCleanFailure(folder, .fileError, mentions: ["cannot be listed"], "unlistable folder")
            #expect(chmod(workspace.migrations, mode_t(folderMode)) == 0)
            try expectUnchanged(before, "unreadable files")
        }
    }
}

@Suite struct FullDiskTests {
    /// A tmpfs of 512 KiB holding the database: a migration that needs more, a backup,
    /// an export, a new file, a rekey, each on a disk that is full.
    @Test func aFullDiskFailsCleanlyAndTheDatabaseKeepsItsContent() throws {
        try requiringCapability {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            let disk = try SmallDisk(at: workspace.path("disk"), kilobytes: 512)
            defer { disk.unmount() }
            if ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_SMALL_DISK"] == "loop" { #expect(disk.kind == "loop") }
            let database = disk.path + "/app.db"
            let options = ["--db-path", database, "--password-file", workspace.keyFile, "--migrations", workspace.migrations]
            let first = try Guarded.run(["migrate"] + options, directory: workspace.root)
            #expect(first.status == 0, "\(first)")
            try workspace.migration("0003_big.sql", """
                -- migrate:up
                CREATE TABLE big (x BLOB);
                INSERT INTO big WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) SELECT randomblob(1000) FROM c;
                """)
            let original = try #require(FileManager.default.contents(atPath: database))
            let content = try dump(database, workspace.key)
            let migrationsBefore = try TreeSnapshot(workspace.migrations)

            // 1. The step fills the disk: rolled back, no journal left, the file back to
            // its size and content. (Its bytes may differ: SQLCipher re-encrypts the
            // restored pages with fresh IVs.) The backup taken first is the original.
            let full = try Guarded.run(["migrate"] + options, directory: workspace.root, timeout: 60)
            // The sentence names what the run left: the backup it wrote first.
            expectCleanFailure(full, .fileError, mentions: ["0003_big.sql:3:", "disk is full", "rolled back", "The backup written before the change is kept: " + disk.path + "/app.db.backup-"], "migrate onto a full disk")
            let names = try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted()
            #expect(names.count == 2 && names[0] == "app.db" && names[1].hasPrefix("app.db.backup-"), "\(names)")
            #expect(FileManager.default.contents(atPath: database)?.count == original.count)
            #expect(try dump(database, workspace.key) == content)
            #expect(FileManager.default.contents(atPath: disk.path + "/" + names[1]) == original)
            try FileManager.default.removeItem(atPath: disk.path + "/" + names[1])
            try expectUnchanged(migrationsBefore, "migrate onto a full disk")
            let json = try Guarded.run(["migrate", "--json", "--no-backup"] + options, directory: workspace.root, timeout: 60)
            try expectJSONError(json, .fileError, "migrate --json onto a full disk")

            // 2. Nothing left at all: every writer refuses, and leaves the disk as it was.
            let plaintext = disk.path + "/unencrypted.db"
            #expect(try SQLCipherShell.run(plaintext, keyPragma: nil, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept');").status == 0)
            try disk.fill()
            try workspace.write("new-key", "another key\n", mode: 0o600)
            let before = try TreeSnapshot(workspace.root)
            let cases: [(String, [String], [String])] = [
                ("migrate (backup first)", ["migrate"] + options, ["backup could not be written", "are free there", "--no-backup"]),
                ("a new database", ["migrate", "--db-path", disk.path + "/new.db", "--password-file", workspace.keyFile, "--migrations", workspace.migrations], ["new.db"]),
                ("decrypt", ["decrypt", "--output", disk.path + "/plain.db"] + options, [disk.path + "/plain.db: ", "disk is full"]),
                ("schema-dump --output", ["schema-dump", "--output", disk.path + "/schema.sql"] + options, ["schema.sql", "No space left"]),
                ("rekey", ["rekey", "--no-backup", "--new-password-file", workspace.path("new-key")] + options, ["journal", "bytes are free", "Nothing was changed"]),
                ("new", ["new", "step", "--migrations", disk.path], ["No space left"]),
                ("encrypt --in-place", ["encrypt", "--in-place", "--no-backup", "--db-path", plaintext, "--password-file", workspace.keyFile],
                 [plaintext + ": Encrypting in place writes an encrypted copy", "bytes are free", "Nothing was changed"]),
            ]
            for (name, arguments, mentions) in cases {
                let result = try Guarded.run(arguments, directory: workspace.root, timeout: 60)
                expectCleanFailure(result, .fileError, mentions: mentions, "full disk / \(name)")
                try expectUnchanged(before, "full disk / \(name)")
            }
            // A new page size makes cipher-upgrade copy the database: the copy fills the disk.
            let upgrade = try Guarded.run(["cipher-upgrade", "--no-backup", "--to-page-size", "8192"] + options, directory: workspace.root, timeout: 60)
            if (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 {
                expectCleanFailure(upgrade, .fileError, mentions: [database + ": The upgrade writes a copy in the new format", "bytes are free", "Nothing was changed"],
                                   "full disk / cipher-upgrade")
            } else {
                expectCleanFailure(upgrade, .usage, mentions: [SQLCipherLibrary.cipherVersionString ?? "?"], "full disk / cipher-upgrade")
            }
            try expectUnchanged(before, "full disk / cipher-upgrade")
            // The old key still opens it after the failed rekey.
            let status = try Guarded.run(["status"] + options, directory: workspace.root)
            #expect(status.status == 0 && status.stdout.contains("pending  0003_big"), "\(status)")
        }
    }

    /// On a nearly full disk the backup would fit, and leave no room for the change:
    /// refused before anything is written, saying what is needed and what to do.
    @Test func aBackupThatWouldLeaveNoRoomIsNotWritten() throws {
        try requiringCapability {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            let disk = try SmallDisk(at: workspace.path("disk"), kilobytes: 1024)
            defer { disk.unmount() }
            let database = disk.path + "/app.db"
            let options = ["--db-path", database, "--password-file", workspace.keyFile, "--migrations", workspace.migrations]
            #expect(try Guarded.run(["migrate", "--to", "0001_authors"] + options, directory: workspace.root).status == 0)
            #expect(try SQLCipherShell.run(database, key: workspace.key,
                                           "INSERT INTO authors (name) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 900) SELECT hex(randomblob(200)) FROM c;").status == 0)
            // What is left: more than the database, less than it twice over.
            let size = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
            var info = statvfs()
            #expect(statvfs(disk.path, &info) == 0)
            let free = Int(info.f_bavail) * Int(info.f_frsize)
            try Data(count: max(0, free - size * 3 / 2)).write(to: URL(fileURLWithPath: disk.path + "/ballast"))
            let before = try TreeSnapshot(disk.path)
            let result = try Guarded.run(["migrate"] + options, directory: workspace.root, timeout: 60)
            expectCleanFailure(result, .fileError, mentions: ["A backup of this database needs", "for its journal", "nothing was changed", "--backup-dir", "--no-backup"], "nearly full disk")
            try expectUnchanged(before, "nearly full disk")
            // Elsewhere, with room, the same migrate runs.
            let elsewhere = try Guarded.run(["migrate", "--backup-dir", workspace.path("backups")] + options, directory: workspace.root, timeout: 60)
            #expect(elsewhere.status == 0, "\(elsewhere)")
        }
    }

    /// A copy can be much larger than its database: rows of half a 4 KB page, which
    /// SQLCipher 3's 1024-byte pages chained with little waste, take a page each in
    /// SQLCipher 4's format. On a disk with room for the database's size and more, but
    /// not for that copy, cipher-upgrade is refused before it writes anything, saying
    /// what the copy needs; with room for it, it runs.
    @Test(.enabled(if: (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4, "cipher-upgrade writes SQLCipher 4's format"))
    func aCopyLargerThanItsDatabaseIsRefusedBeforeItFillsTheDisk() throws {
        try requiringCapability {
            let workspace = try Workspace()
            let made = workspace.path("made.db")
            let sql = "PRAGMA cipher_compatibility = 3; CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB); "
                + "INSERT INTO blobs (b) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) SELECT randomblob(2100) FROM c;"
            #expect(try SQLCipherShell.run(made, key: workspace.key, sql).status == 0)
            let size = (try FileManager.default.attributesOfItem(atPath: made)[.size] as? Int) ?? 0
            for (kilobytes, fits) in [(size / 1024 + size / 1024 / 2, false), (size / 1024 * 3 + 256, true)] {
                let disk = try SmallDisk(at: workspace.path("disk-\(kilobytes)"), kilobytes: kilobytes)
                defer { disk.unmount() }
                let database = disk.path + "/app.db"
                try FileManager.default.copyItem(atPath: made, toPath: database)
                let before = try TreeSnapshot(disk.path)
                let options = ["--db-path", database, "--password-file", workspace.keyFile, "--no-backup"]
                let result = try Guarded.run(["cipher-upgrade"] + options, directory: workspace.root, timeout: 60)
                if fits {
                    #expect(result.status == 0, "\(result)")
                } else {
                    expectCleanFailure(result, .fileError, mentions: [database + ": The upgrade writes a copy in the new format beside the database, which needs about",
                                                                     "bytes are free", "Nothing was changed"], "a copy larger than its database")
                    #expect(!result.stderr.contains("disk is full"), "\(result)")
                    try expectUnchanged(before, "a copy larger than its database")
                }
            }
        }
    }

    /// The database's rows and schema as text, through the sqlcipher shell.
    private func dump(_ database: String, _ key: TestKey) throws -> String {
        let result = try Guarded.run(["-batch", database], executable: SQLCipherShell.path,
                                     stdin: Data("PRAGMA key = \(key.pragma);\n.dump\n".utf8), timeout: 30)
        #expect(result.status == 0 && result.stdout.contains("CREATE TABLE authors"), "\(result)")
        return result.stdout
    }
}

/// A misspelled command gets the nearest name, as a misspelled option does, and the
/// blame lands on the word that is wrong, not on an option after it.
@Suite struct MisspelledCommandTests {
    @Test(arguments: [
        (["migrat"], "`migrat` is not a migrationkit command. Did you mean `migrate`?"),
        (["stat", "--json"], "`stat` is not a migrationkit command. Did you mean `status`?"),
        (["stauts", "--db-path", "x.db"], "Did you mean `status`?"),
        (["key", "genrate"], "`genrate` is not a migrationkit key command. Did you mean `generate`?"),
        (["frobnicate"], "`frobnicate` is not a migrationkit command. (`migrationkit --help` lists them.)"),
    ])
    func theNearestCommandIsSuggested(_ arguments: [String], _ sentence: String) throws {
        let workspace = try Workspace()
        let before = try TreeSnapshot(workspace.root)
        let result = try Guarded.run(arguments, directory: workspace.root)
        #expect(result.status == CLIExitCodeValue.usage.rawValue, "\(result)")
        if arguments.contains("--json") {
            let error = try decodeJSON(result.stdout)["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.hasPrefix(sentence) == true, "\(result)")
        } else {
            #expect(result.errorLines.count == 1 && result.errorLines[0].hasPrefix("migrationkit: error: "), "\(result)")
            #expect(result.stderr.contains(sentence) && !result.stderr.contains("--json"), "\(result)")
        }
        try expectUnchanged(before, arguments.joined(separator: " "))
    }
}
