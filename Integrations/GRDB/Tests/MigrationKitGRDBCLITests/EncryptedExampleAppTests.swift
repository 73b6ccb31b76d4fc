import Foundation
import GRDBTestSupport
import MigrationKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
#if GRDBSQLCipher
@testable import MigrationKitKeys
#endif

/// The commands take the key options exactly when GRDB is built on SQLCipher: the
/// `GRDBSQLCipher` trait, which `scripts/test.sh` turns on with the grdb-sqlcipher
/// configuration. Checked on the built example, so a run that forgot the trait fails
/// rather than skipping the encrypted tests below.
@Suite struct GRDBKeyOptionsFlavourTests {
    @Test func theExampleTakesKeyOptionsOnlyOnSQLCipher() throws {
        let help = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--help"])
        #expect(help.status == 0, "\(help.output)")
        let asked = ProcessInfo.processInfo.environment["MIGRATIONKIT_GRDB_FLAVOUR"]
        #if GRDBSQLCipher
        let built = "sqlcipher"
        #else
        let built = "sqlite"
        #endif
        if asked != nil || TestPlatform.isCI {
            #expect(asked == built, "the commands were built with\(built == "sqlite" ? "out" : "") the GRDBSQLCipher trait")
        }
        for option in ["--password-file", "--keychain-service", "--plaintext", "--cipher-compatibility", "--memory-security"] {
            #expect(help.stdout.contains(option) == (built == "sqlcipher"), "\(option) in grdb-notes migrate --help: \(help.stdout)")
        }
        // A database's own cipher settings are the app's code's to give: never shown.
        for option in ["--kdf-iter", "--cipher-page-size", "--cipher-kdf-algorithm", "--cipher-hmac-algorithm",
                       "--cipher-plaintext-header-size", "--cipher-salt"] {
            #expect(!help.stdout.contains(option), "\(option) in grdb-notes migrate --help: \(help.stdout)")
        }
    }

    /// Every option the commands show, they apply; one they do not show is refused with
    /// one sentence (exit 64), and nothing is created.
    @Test func anOptionTheAppDoesNotApplyIsRefused() throws {
        let scratch = try ScratchDatabase()
        #if GRDBSQLCipher
        let refusals: [([String], String)] = [
            (["--kdf-iter", "1000"], "--kdf-iter is not an option of grdb-notes"),
            (["--cipher-page-size", "8192"], "--cipher-page-size is not an option of grdb-notes"),
            (["--cipher-compatibility", "2"], "--cipher-compatibility must be 3 or 4 for grdb-notes"),
        ]
        #else
        let refusals: [([String], String)] = [
            (["--kdf-iter", "1000"], "--kdf-iter applies to encrypted databases"),
            (["--memory-security"], "--memory-security applies to encrypted databases"),
            (["--cipher-compatibility", "4"], "--cipher-compatibility applies to encrypted databases"),
        ]
        #endif
        for (options, sentence) in refusals {
            let refused = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--db-path", scratch.path] + options)
            #expect(refused.status == 64 && refused.stderr.contains(sentence), "\(options): \(refused.output)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path))
        }
    }

    #if !GRDBSQLCipher
    /// On a GRDB over the system's SQLite, a key given anyway (a flag, or the project
    /// file) is refused with one sentence, and nothing is created: never a plaintext file
    /// its user believes encrypted.
    @Test func aKeyOnPlainSQLiteIsRefusedAndCreatesNothing() throws {
        let scratch = try ScratchDatabase()
        let key = scratch.folder.appendingPathComponent("notes.key").path
        try Data("a key".utf8).write(to: URL(fileURLWithPath: key))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let refused = try ChildProcess.run([GRDBExampleAppTests.binary, "migrate", "--db-path", scratch.path, "--password-file", key])
        #expect(refused.status == 64 && refused.stderr.contains("cannot encrypt") && refused.stderr.contains("drop the key options"),
                "\(refused.output)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }
    #endif
}

#if GRDBSQLCipher
/// `Examples/GRDBNotes` as an encrypted app: the built `grdb-notes` binary, keyed by the
/// tool's key options, on real files; the `sqlcipher` shell and the `migrationkit` binary
/// as the other clients.
@Suite struct EncryptedExampleAppTests {
    static let identifiers = ["0001_create_notes", "0002_index_notes_by_date", "0003_add_word_count"]

    func notes(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> ChildProcessResult {
        try ChildProcess.run([GRDBExampleAppTests.binary] + arguments, stdin: stdin, environment: environment)
    }

    func keyFile(_ text: String, in scratch: ScratchDatabase, named name: String = "notes.key") throws -> String {
        let path = scratch.folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    /// A process's core file limits, soft and hard, as /proc/PID/limits shows them
    /// ("0", "unlimited"); `process` is a pid or `self`.
    static func coreFileLimits(of process: String) -> [Substring]? {
        let limits = try? String(contentsOfFile: "/proc/\(process)/limits", encoding: .utf8)
        return limits?.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
            .map { Array($0.split(separator: " ").suffix(3).prefix(2)) }
    }

    func header(_ path: String) throws -> Data {
        try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 16) ?? Data()
    }

    /// The README's sentence: `grdb-notes migrate --db-path notes.db --password-file
    /// notes.key` creates an encrypted file the `sqlcipher` shell opens with that key.
    @Test func migrateWithAKeyFileCreatesAFileTheShellOpensWithThatKey() throws {
        let scratch = try ScratchDatabase()
        let passphrase = "grdb notes passphrase"
        let key = try keyFile(passphrase, in: scratch)
        let migrate = try notes(["migrate", "--db-path", scratch.path, "--password-file", key])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try header(scratch.path) != Data("SQLite format 3\0".utf8), "the file's header is plaintext")
        #expect(try FileManager.default.attributesOfItem(atPath: scratch.path)[.posixPermissions] as? Int == 0o600)
        #expect(!migrate.output.contains(passphrase))

        let shell = try SQLCipherShell.run(scratch.path, passphrase: passphrase,
                                           "SELECT identifier FROM grdb_migrations ORDER BY rowid;\nSELECT count(*) FROM note;")
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == Self.identifiers.joined(separator: "\n") + "\n0\n")

        let status = try notes(["status", "--db-path", scratch.path, "--password-file", key])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("  format:  sqlcipher4\n") && status.stdout.contains("3 applied, 0 pending."), "\(status.stdout)")
        #expect(status.stdout.contains("  cipher:  SQLCipher 4 defaults, keyed through GRDB\n"), "\(status.stdout)")
        let document = try JSONSerialization.jsonObject(with: Data(try notes(["status", "--db-path", scratch.path, "--password-file", key, "--json"]).stdout.utf8)) as? [String: Any]
        #expect(document?["format"] as? String == "sqlcipher4" && document?["cipher"] is NSNull, "\(String(describing: document))")
        let verify = try notes(["verify", "--db-path", scratch.path, "--password-file", key])
        #expect(verify.status == 0 && verify.stdout.contains("cipher_integrity_check: ok"), "\(verify.output)")
    }

    /// Six processes of the app migrate one database that does not exist yet, at once,
    /// three times: one creates it (under the folder's lock, its first page and salt
    /// written before anyone else keys it), every step is applied exactly once, and every
    /// process ends with exit 0, the database applied or up to date; the `sqlcipher`
    /// shell opens the result with the key. As `docs/concurrency-and-crashes.md` says of
    /// the tool's own `migrate`.
    @Test func sixAppProcessesCreatingOneDatabaseApplyEachStepOnce() throws {
        for round in 0..<3 {
            let scratch = try ScratchDatabase()
            let passphrase = "grdb notes race \(round)"
            let key = try keyFile(passphrase, in: scratch)
            let results = ResultBox()
            let group = DispatchGroup()
            for _ in 0..<6 {
                group.enter()
                DispatchQueue.global().async {
                    defer { group.leave() }
                    results.append(Result { try notes(["migrate", "--db-path", scratch.path, "--password-file", key]) })
                }
            }
            #expect(group.wait(timeout: .now() + 120) == .success, "round \(round): a migrate did not finish in 120 s")
            #expect(results.all.count == 6)
            for result in results.all {
                let outcome = try result.get()
                #expect(outcome.status == 0, "round \(round): \(outcome.output)")
            }
            let shell = try SQLCipherShell.run(scratch.path, passphrase: passphrase, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
            #expect(shell.status == 0, "round \(round): \(shell.stderr)")
            #expect(shell.stdout == Self.identifiers.joined(separator: "\n") + "\n", "round \(round)")
            #expect(!FileManager.default.fileExists(atPath: scratch.folder.appendingPathComponent(".app.sqlite.migrationkit-creating").path))
        }
    }

    /// What the concurrent runs above returned, gathered from their threads.
    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<ChildProcessResult, any Error>] = []
        func append(_ result: Result<ChildProcessResult, any Error>) { lock.withLock { results.append(result) } }
        var all: [Result<ChildProcessResult, any Error>] { lock.withLock { results } }
    }

    /// The issue's proof: the key from the Secret Service (a private keyring), the file
    /// read by the `sqlcipher` shell and by `migrationkit status`, with the same ledger.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" || TestPlatform.isCI,
                   "No private Secret Service: run the tests through scripts/with-test-keyring.sh (as scripts/test.sh does)."))
    func aKeyFromTheSecretServiceGivesAFileTheShellAndTheToolRead() throws {
        guard ProcessInfo.processInfo.environment["MIGRATIONKIT_TEST_KEYRING"] == "1" else {
            Issue.record("The Secret Service is unavailable: MIGRATIONKIT_TEST_KEYRING is not 1 (run through scripts/with-test-keyring.sh).")
            return
        }
        let scratch = try ScratchDatabase()
        let service = "org.migrationkit.tests.grdb-notes.\(UUID().uuidString)"
        let passphrase = "grdb-notes-keyring-passphrase"
        let store = SecretServiceKeyStore()
        try store.store(service: service, account: "db", key: .passphrase(passphrase))
        defer { _ = try? store.delete(service: service, account: "db") }

        let keychain = ["--keychain-service", service, "--keychain-account", "db"]
        let migrate = try notes(["migrate", "--db-path", scratch.path] + keychain)
        #expect(migrate.status == 0, "\(migrate.output)")
        let shell = try SQLCipherShell.run(scratch.path, passphrase: passphrase, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
        #expect(shell.stdout == Self.identifiers.joined(separator: "\n") + "\n", "\(shell.output)")

        guard let migrationkit = ProcessInfo.processInfo.environment["MIGRATIONKIT_BINARY"] else {
            if TestPlatform.isCI { Issue.record("MIGRATIONKIT_BINARY is not set: scripts/test.sh builds migrationkit for this test.") }
            return
        }
        // The app's steps are Swift, so the tool knows them as applied steps it has no file for.
        let empty = scratch.folder.appendingPathComponent("Migrations").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let status = try ChildProcess.run([migrationkit, "status", "--db-path", scratch.path, "--migrations", empty, "--json"] + keychain)
        #expect(status.status == 0, "\(status.output)")
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect((document?["unknownApplied"] as? [String])?.sorted() == Self.identifiers, "\(status.stdout)")
        #expect(!(migrate.output + status.output).contains(passphrase))
        // And it says whose they are: the app's Swift steps, not a newer version's files.
        let words = try ChildProcess.run([migrationkit, "status", "--db-path", scratch.path, "--migrations", empty] + keychain)
        for identifier in Self.identifiers {
            #expect(words.stdout.contains("unknown  \(identifier) (applied by an app's own Swift step, which is not among these migrations"), "\(words.output)")
        }
        #expect(!words.stdout.contains("newer version"), "\(words.output)")
    }

    /// `--memory-security` turns SQLCipher's memory security on in the app's process,
    /// for the connections its `openWriter` opens, as it does in the tool's.
    @Test func memorySecurityIsAppliedWhereItIsShown() throws {
        let scratch = try ScratchDatabase()
        let key = try keyFile(TestKey.raw().text, in: scratch)
        let plain = try notes(["migrate", "--db-path", scratch.path, "--password-file", key, "--verbose"])
        #expect(plain.status == 0 && plain.stderr.contains("cipher_memory_security is off"), "\(plain.output)")
        let secured = try notes(["status", "--db-path", scratch.path, "--password-file", key, "--memory-security", "--verbose"])
        #expect(secured.status == 0 && secured.stderr.contains("cipher_memory_security is on (--memory-security)"), "\(secured.output)")
    }

    /// A wrong key, a missing one, or a key for a plaintext file: the tool's exit code and
    /// one sentence, no SQLCipher log line, the file unchanged and no file created.
    @Test func aWrongOrMissingKeyChangesNothing() throws {
        let scratch = try ScratchDatabase()
        let right = try keyFile("the right key", in: scratch)
        let wrong = try keyFile("not the key", in: scratch, named: "wrong.key")
        #expect(try notes(["migrate", "--db-path", scratch.path, "--password-file", right]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))

        let refused = try notes(["migrate", "--db-path", scratch.path, "--password-file", wrong])
        #expect(refused.status == 4, "\(refused.output)")
        #expect(refused.stderr.hasPrefix("grdb-notes: error: \(scratch.path): Wrong key") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!refused.output.contains("ERROR CORE") && !refused.output.contains("not the key"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)

        let asPlaintext = try notes(["status", "--db-path", scratch.path, "--plaintext"])
        #expect(asPlaintext.status == 4 && asPlaintext.stderr.contains("no key was given; pass its key"), "\(asPlaintext.output)")

        // Standard input is a pipe: no prompt, and no database created without a key.
        let fresh = scratch.folder.appendingPathComponent("fresh.db").path
        var environment = ProcessInfo.processInfo.environment
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let noKey = try notes(["migrate", "--db-path", fresh], stdin: Data(), environment: environment)
        #expect(noKey.status == 5 && noKey.stderr.contains("No key given") && noKey.stderr.contains("--plaintext"), "\(noKey.output)")
        #expect(!FileManager.default.fileExists(atPath: fresh))

        let plain = scratch.folder.appendingPathComponent("plain.db").path
        #expect(try notes(["migrate", "--db-path", plain, "--plaintext"]).status == 0)
        #expect(try header(plain) == Data("SQLite format 3\0".utf8))
        let keyedPlain = try notes(["status", "--db-path", plain, "--password-file", right])
        #expect(keyedPlain.status == 4 && keyedPlain.stderr.contains("not encrypted") && keyedPlain.stderr.contains("--plaintext"), "\(keyedPlain.output)")
    }

    /// Before it reads the key, the example turns core files off, as the tool does: seen
    /// in its /proc limits while it waits for the key on standard input, started from a
    /// shell that allows them.
    @Test func coreFilesAreOffBeforeTheKeyIsRead() throws {
        // The control needs a shell that may allow core files: this test process must
        // not have been hardened by a command run in it (only a key read hardens).
        let own = Self.coreFileLimits(of: "self")
        try #require(own?.last != "0", "this test process's hard core limit is 0: a command run in process hardened it (\(own ?? []))")
        let scratch = try ScratchDatabase()
        let errors = scratch.folder.appendingPathComponent("stderr").path
        let process = try ChildProcess(["/bin/sh", "-c", "ulimit -c unlimited && exec \"$0\" migrate --db-path \"$1\" --password-file -",
                                        GRDBExampleAppTests.binary, scratch.path], input: .pipe, errors: .file(errors))
        defer { if process.isRunning { process.terminate() } }
        func coreLimit() -> [Substring]? { Self.coreFileLimits(of: "\(process.processIdentifier)") }
        func name() -> String? {
            let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
            return status?.split(separator: "\n").first { $0.hasPrefix("Name:") }?.dropFirst(5).trimmingCharacters(in: .whitespaces)
        }
        // Until the exec, the process is the shell, whose limit this run may have at 0
        // already: wait for grdb-notes itself, which starts with the shell's "unlimited".
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, name() != "grdb-notes", ContinuousClock.now < deadline { usleep(5_000) }
        while process.isRunning, coreLimit() != ["0", "0"], ContinuousClock.now < deadline { usleep(20_000) }
        #expect(coreLimit() == ["0", "0"], "core files are not off while grdb-notes waits for its key: \(coreLimit() ?? []) (running: \(process.isRunning), name: \(name() ?? "none"), stderr: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""))")
        try process.input!.write(contentsOf: Data("hardened key\n".utf8))
        try process.input!.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try header(scratch.path) != Data("SQLite format 3\0".utf8))
    }

    /// A fleet with a key per tenant (`{name}`) reads each key on a worker thread of its
    /// own; the app's policy (harden before the first key is read) goes with the command
    /// to those threads. Seen in the process's /proc limits while its second tenant waits
    /// for a change lock this test holds, after the first tenant's key was read.
    @Test func aFleetReadingAKeyPerTenantHardensTheAppsProcessFirst() throws {
        let own = Self.coreFileLimits(of: "self")
        try #require(own?.last != "0", "this test process's hard core limit is 0: a command run in process hardened it (\(own ?? []))")
        let scratch = try ScratchDatabase()
        let tenants = scratch.folder.appendingPathComponent("tenants").path
        try FileManager.default.createDirectory(atPath: tenants, withIntermediateDirectories: true)
        for tenant in ["a", "b"] {
            let key = try keyFile(TestKey.raw().text, in: scratch, named: "tenants/\(tenant).key")
            let made = try notes(["migrate", "--db-path", "\(tenants)/\(tenant).db", "--password-file", key, "--to", "0002_index_notes_by_date", "--no-backup"])
            #expect(made.status == 0, "\(made.output)")
        }
        // Another process's change of tenant b: its change lock (a flock on the file).
        let held = open("\(tenants)/b.db", O_RDONLY | O_CLOEXEC)
        try #require(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        var released = false
        defer { if !released { close(held) } }

        let output = scratch.folder.appendingPathComponent("output").path
        let process = try ChildProcess(["/bin/sh", "-c", "ulimit -c unlimited && exec \"$0\" migrate --db-glob \"$1/*.db\" --password-file \"$1/{name}.key\" --jobs 1 --lock-timeout 60 --no-backup",
                                        GRDBExampleAppTests.binary, tenants], output: .file(output), errors: .sameAsOutput)
        defer { if process.isRunning { process.terminate() } }
        func coreLimit() -> [Substring]? { Self.coreFileLimits(of: "\(process.processIdentifier)") }
        // Tenant a is migrated (its key read) before tenant b waits for the lock.
        let deadline = ContinuousClock.now + .seconds(30)
        var lastLimit: [Substring]?
        while process.isRunning, ContinuousClock.now < deadline {
            lastLimit = coreLimit()
            if lastLimit == ["0", "0"] { break }
            usleep(20_000)
        }
        #expect(process.isRunning, "the fleet ended before tenant b's lock was released: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        #expect(lastLimit == ["0", "0"], "core files are not off after the fleet read tenant a's key: \(lastLimit ?? [])")
        close(held)
        released = true
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
    }

    /// The command tree's own features in the app's binary, from the same code as
    /// `migrationkit`: the project file and `MIGRATIONKIT_*` settings, a backup before a
    /// change (encrypted, 0600, restorable), `check`, drift, and a fleet with a key per
    /// tenant.
    @Test func theEncryptedAppGetsProjectSettingsBackupsCheckAndFleetsFromTheSharedTree() throws {
        let scratch = try ScratchDatabase()
        let project = scratch.folder.path
        // Raw keys: key derivation is not what this test is about.
        let key = TestKey.raw()
        _ = try keyFile(key.text, in: scratch)
        try Data("db-path = \"notes.db\"\npassword-file = \"notes.key\"\n".utf8)
            .write(to: URL(fileURLWithPath: project + "/migrationkit.toml"))
        func inProject(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildProcessResult {
            try ChildProcess.run([GRDBExampleAppTests.binary] + arguments, environment: environment, directory: project)
        }

        // Settings from migrationkit.toml: no flag names the database or its key.
        let migrate = try inProject(["migrate"])
        #expect(migrate.status == 0 && migrate.stdout.hasPrefix("Database: ") && migrate.stdout.contains("/notes.db\nApplied 0001_create_notes"),
                "\(migrate.output)")
        let database = project + "/notes.db"
        let shell = try SQLCipherShell.run(database, key: key, "SELECT count(*) FROM grdb_migrations;")
        #expect(shell.stdout == "3\n", "\(shell.output)")
        let config = try inProject(["config"])
        #expect(config.status == 0 && config.stdout.contains("notes.db") && config.stdout.contains("migrationkit.toml"), "\(config.output)")

        // MIGRATIONKIT_* beats the file: status of a database the file does not name.
        var environment = ProcessInfo.processInfo.environment
        environment["MIGRATIONKIT_DB_PATH"] = "other.db"
        let other = try inProject(["status"], environment: environment)
        #expect(other.status == 0 && other.stdout.contains("other.db (does not exist yet"), "\(other.output)")

        // A backup before the rollback: encrypted with the database's key, 0600; restore
        // puts it back (and keeps the replaced database as a backup of its own).
        try SQLCipherShell.run(database, key: key, "INSERT INTO note (body, wordCount) VALUES ('kept row', 2);")
        let rollback = try inProject(["rollback", "--json"])
        #expect(rollback.status == 0, "\(rollback.output)")
        let rolledBack = try JSONSerialization.jsonObject(with: Data(rollback.stdout.utf8)) as? [String: Any]
        let backup = try #require(rolledBack?["backup"] as? String, "\(rollback.stdout)")
        #expect(try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int == 0o600)
        #expect(try header(backup) != Data("SQLite format 3\0".utf8), "the backup is plaintext")
        let inBackup = try SQLCipherShell.run(backup, key: key, "SELECT count(*) FROM grdb_migrations; SELECT body FROM note;")
        #expect(inBackup.stdout == "3\nkept row\n", "\(inBackup.output)")
        let restore = try inProject(["restore", "--from", backup])
        #expect(restore.status == 0 && restore.stdout.contains("The database as it was before the restore: "), "\(restore.output)")
        #expect(try SQLCipherShell.run(database, key: key, "SELECT count(*) FROM grdb_migrations;").stdout == "3\n")

        // check proves the app's Swift steps on scratch databases, and the upgrade of a
        // copy of the real one; drift finds a hand-made index.
        let check = try inProject(["check", "--from-database", "notes.db", "--password-file", "notes.key"])
        #expect(check.status == 0 && check.stdout.contains("ok     upgrade notes.db") && check.stdout.contains("checks passed."), "\(check.output)")
        #expect(try inProject(["diff"]).status == 0)
        try SQLCipherShell.run(database, key: key, "CREATE INDEX by_hand ON note(body);")
        let drift = try inProject(["diff"])
        #expect(drift.status == 3 && drift.stdout.contains("by_hand"), "\(drift.output)")

        // A fleet: each tenant with its own key file, one run, one document.
        try FileManager.default.createDirectory(atPath: project + "/tenants", withIntermediateDirectories: true)
        let tenantKeys = Dictionary(uniqueKeysWithValues: ["acme", "globex", "initech"].map { ($0, TestKey.raw()) })
        for (tenant, tenantKey) in tenantKeys {
            _ = try keyFile(tenantKey.text, in: scratch, named: "tenants/\(tenant).key")
            let made = try inProject(["migrate", "--db-path", "tenants/\(tenant).db", "--password-file", "tenants/\(tenant).key",
                                      "--to", "0002_index_notes_by_date", "--no-backup"])
            #expect(made.status == 0, "\(made.output)")
        }
        let fleet = try inProject(["migrate", "--db-glob", "tenants/*.db", "--password-file", "tenants/{name}.key", "--json"])
        #expect(fleet.status == 0, "\(fleet.output)")
        let document = try JSONSerialization.jsonObject(with: Data(fleet.stdout.utf8)) as? [String: Any]
        let databases = document?["databases"] as? [[String: Any]] ?? []
        #expect(databases.count == 3 && databases.allSatisfy { $0["result"] as? String == "migrated" }, "\(fleet.stdout)")
        for tenant in ["acme", "globex", "initech"] {
            let applied = try SQLCipherShell.run(project + "/tenants/\(tenant).db", key: tenantKeys[tenant]!, "SELECT count(*) FROM grdb_migrations;")
            #expect(applied.stdout == "3\n", "\(tenant): \(applied.output)")
        }
        let verify = try inProject(["verify", "--db-glob", "tenants/*.db", "--password-file", "tenants/{name}.key"])
        #expect(verify.status == 0 && verify.stdout.contains("3 databases in "), "\(verify.output)")
        for output in [migrate, rollback, check, fleet, verify] {
            for secret in [key] + tenantKeys.values { #expect(!output.output.contains(secret.text)) }
        }
    }

    /// An older app's SQLCipher 3 file: found, migrated in its own format, and left in it.
    @Test func anOlderAppsSQLCipher3FileIsMigratedInItsFormat() throws {
        let scratch = try ScratchDatabase()
        let passphrase = "older app key"
        let key = try keyFile(passphrase, in: scratch)
        let made = try SQLCipherShell.run(scratch.path, passphrase: passphrase, "PRAGMA cipher_compatibility = 3;\nCREATE TABLE kept (a);")
        #expect(made.status == 0, "\(made.output)")

        // The older app made its table before any migration.
        let migrate = try notes(["migrate", "--db-path", scratch.path, "--password-file", key, "--accept-existing-tables"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let status = try notes(["status", "--db-path", scratch.path, "--password-file", key])
        #expect(status.stdout.contains("  format:  sqlcipher3\n"), "\(status.output)")
        let asThree = try SQLCipherShell.run(scratch.path, keyPragma: "'older app key'",
                                             "PRAGMA cipher_compatibility = 3;\nSELECT count(*) FROM grdb_migrations;")
        #expect(asThree.stdout == "3\n", "\(asThree.output)")
        let asFour = try SQLCipherShell.run(scratch.path, passphrase: passphrase, "SELECT count(*) FROM sqlite_master;")
        #expect(asFour.status != 0, "the file was rewritten in SQLCipher 4's format: \(asFour.output)")
    }
}
#endif
