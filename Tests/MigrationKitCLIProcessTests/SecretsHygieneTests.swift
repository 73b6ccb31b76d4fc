import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// No key, password or key-file content in anything the tool prints (standard output,
// standard error, --json documents, error messages) or in the names of files it
// creates, for every command, on success and on failure. The secrets carry a marker
// and random hex so a leak is unambiguous, and are also looked for in their hex,
// upper-case hex and base64 forms (and raw keys as their 64 hex digits).

/// Distinctive secrets for one test.
struct Secrets {
    let passphrase = "hygiene-pass-\(randomHex(12))"
    let newPassphrase = "hygiene-new-\(randomHex(12))"
    let wrongPassphrase = "hygiene-wrong-\(randomHex(12))"
    /// 32 random bytes, as 64 hex digits.
    let rawKeyHex = randomHex(32)
    let otherRawKeyHex = randomHex(32)

    var rawKeyText: String { "x'\(rawKeyHex)'" }
    var otherRawKeyText: String { "x'\(otherRawKeyHex)'" }

    /// Every form in which any of the secrets could show.
    var forms: [String] {
        var forms: [String] = []
        for text in [passphrase, newPassphrase, wrongPassphrase] {
            let hex = Data(text.utf8).map { String(format: "%02x", $0) }.joined()
            forms += [text, String(text.dropFirst(8)), hex, hex.uppercased(), Data(text.utf8).base64EncodedString()]
        }
        for hex in [rawKeyHex, otherRawKeyHex] {
            let bytes = Data(stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            })
            // Any 24 consecutive digits would be a leak too; these are the two ends.
            forms += [hex, hex.uppercased(), String(hex.prefix(24)), String(hex.suffix(24)), bytes.base64EncodedString()]
        }
        return forms
    }
}

func randomHex(_ bytes: Int) -> String {
    (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}

/// Runs commands and keeps what each printed, to check them all for secrets.
final class Transcript {
    let workspace: Workspace
    private(set) var runs: [(label: String, result: GuardedResult)] = []

    init(_ workspace: Workspace) {
        self.workspace = workspace
    }

    /// Runs `migrationkit arguments…` in the workspace and expects `status`.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = Binary.environment(),
             expect status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> GuardedResult {
        let result = try Guarded.run(arguments, stdin: stdin.map { Data($0.utf8) }, environment: environment,
                                     directory: workspace.root, timeout: 60)
        let label = arguments.prefix(3).joined(separator: " ")
        #expect(result.status == status && !result.timedOut && !result.signaled, "\(label): \(result)", sourceLocation: sourceLocation)
        runs.append((label, result))
        return result
    }

    /// No secret in any output, in any JSON document, or in any file name in the workspace.
    func expectNoLeaks(_ secrets: Secrets, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!runs.isEmpty, sourceLocation: sourceLocation)
        for (label, result) in runs {
            for form in secrets.forms where result.output.contains(form) {
                Issue.record("\(label) printed a secret (\(form.prefix(12))…): \(result)", sourceLocation: sourceLocation)
            }
        }
        let names = try TreeSnapshot(workspace.root).entries.keys
        for name in names {
            for form in secrets.forms where name.contains(form) {
                Issue.record("a file name holds a secret: \(name)", sourceLocation: sourceLocation)
            }
        }
    }
}

@Suite(.tags(.passphrase)) struct SecretsHygieneTests {
    /// A workspace with key files holding the secrets, and the sample migrations.
    private func workspace(_ secrets: Secrets) throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.write("pass.key", secrets.passphrase + "\n", mode: 0o600)
        try workspace.write("new.key", secrets.newPassphrase + "\n", mode: 0o600)
        try workspace.write("wrong.key", secrets.wrongPassphrase + "\n", mode: 0o600)
        try workspace.write("raw.key", secrets.rawKeyText, mode: 0o600)
        try workspace.write("other-raw.key", secrets.otherRawKeyText, mode: 0o600)
        return workspace
    }

    @Test func everyCommandKeepsTheKeyOutOfItsOutputAndFileNames() throws {
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        let log = Transcript(workspace)
        let key = ["--password-file", workspace.path("pass.key")]
        let db = ["--db-path", workspace.database, "--migrations", workspace.migrations] + key

        try log.run(["migrate", "--to", "0001_authors"] + db)
        try log.run(["migrate", "--json"] + db)  // writes a backup
        for json in [[], ["--json"]] {
            try log.run(["status"] + db + json)
            try log.run(["verify"] + db + json)
            try log.run(["schema-dump"] + db + json)
            try log.run(["lint"] + db + json)
            try log.run(["baseline", "--to", "0002_books"] + db + json)
            try log.run(["rollback", "--backup-dir", workspace.path("backups")] + db + json)
            try log.run(["migrate", "--backup-dir", workspace.path("backups")] + db + json)
            try log.run(["check", "--migrations", workspace.migrations, "--from-database", workspace.database] + key + json)
            try log.run(["new", "step\(json.count)"] + db + json)
            try FileManager.default.removeItem(atPath: workspace.migrations + "/0003_step\(json.count).sql")
        }
        try log.run(["schema-dump", "--output", workspace.path("schema.sql")] + db)
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.path("backups")).sorted()
        #expect(!backups.isEmpty)
        try log.run(["restore", "--from", workspace.path("backups/" + backups[0])] + db)
        try log.run(["restore", "--json", "--from", workspace.path("backups/" + backups[0])] + db)

        // The key's own life: export, encrypt with another key, rekey there and back.
        try log.run(["decrypt", "--output", workspace.path("plain.db")] + db)
        try log.run(["decrypt", "--json", "--force", "--output", workspace.path("plain.db")] + db)
        let encryptKey = ["--password-file", workspace.path("new.key")]
        try log.run(["encrypt", "--db-path", workspace.path("plain.db"), "--output", workspace.path("again.db")] + encryptKey)
        try log.run(["encrypt", "--json", "--db-path", workspace.path("plain.db"), "--in-place"] + encryptKey)
        try log.run(["rekey", "--new-password-file", workspace.path("new.key")] + db)
        try log.run(["rekey", "--json", "--new-password-file", workspace.path("pass.key"), "--db-path", workspace.database] + encryptKey)
        // The environment and standard input as key sources.
        try log.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations],
                    environment: Binary.environment(["MIGRATIONKIT_PASSWORD": secrets.passphrase]))
        try log.run(["status", "--json", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-file", "-"],
                    stdin: secrets.passphrase + "\n")
        try log.expectNoLeaks(secrets)
    }

    @Test func failuresKeepTheKeyOutOfTheirMessages() throws {
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        let log = Transcript(workspace)
        let base = ["--db-path", workspace.database, "--migrations", workspace.migrations]
        try log.run(["migrate", "--password-file", workspace.path("pass.key")] + base)
        try workspace.write("writable.key", secrets.passphrase + "\n", mode: 0o666)
        try workspace.write("readable.key", secrets.passphrase + "\n", mode: 0o644)
        try workspace.write("huge.key", secrets.passphrase + String(repeating: "#", count: 5000), mode: 0o600)
        try workspace.write("malformed.key", "x'\(secrets.rawKeyHex.prefix(40))'", mode: 0o600)
        try workspace.write("same.key", secrets.passphrase, mode: 0o600)

        for json in [[], ["--json"]] {
            try log.run(["status", "--password", secrets.wrongPassphrase] + base + json, expect: 4)
            try log.run(["migrate", "--password-file", workspace.path("wrong.key")] + base + json, expect: 4)
            try log.run(["verify", "--db-path", workspace.database, "--password-file", workspace.path("raw.key")] + json, expect: 4)
            try log.run(["status"] + base + json, environment: Binary.environment(["MIGRATIONKIT_PASSWORD": secrets.wrongPassphrase]), expect: 4)
            try log.run(["status", "--password-file", workspace.path("writable.key")] + base + json, expect: 5)
            try log.run(["status", "--password-file", workspace.path("huge.key")] + base + json, expect: 5)
            try log.run(["status", "--password-file", "-"] + base + json, stdin: secrets.passphrase + String(repeating: "#", count: 5000), expect: 5)
            // Used, with warnings that must name the file, not quote it.
            try log.run(["status", "--password-file", workspace.path("readable.key")] + base + json)
            try log.run(["status", "--password-file", workspace.path("malformed.key")] + base + json, expect: 4)
            try log.run(["rekey", "--no-backup", "--password-file", workspace.path("pass.key"), "--new-password-file", workspace.path("same.key")] + base + json, expect: 64)
            try log.run(["rekey", "--no-backup", "--password-file", workspace.path("wrong.key"), "--new-password", secrets.newPassphrase] + base + json, expect: 4)
            try log.run(["decrypt", "--output", workspace.path("out.db"), "--password", secrets.wrongPassphrase] + base + json, expect: 4)
            try log.run(["restore", "--from", workspace.database, "--password", secrets.wrongPassphrase] + base + json, expect: 4)
            try log.run(["check", "--migrations", workspace.migrations, "--from-database", workspace.database, "--password", secrets.wrongPassphrase] + json, expect: 2)
            try log.run(["encrypt", "--in-place", "--password", secrets.newPassphrase] + base + json, expect: 4)
            try log.run(["lint", "--password", secrets.wrongPassphrase] + base + json, expect: 4)
        }
        // Mistyped options: ArgumentParser's own errors must not echo the value.
        try log.run(["status", "--pasword", secrets.passphrase] + base, expect: 64)
        try log.run(["status", "--password", secrets.passphrase, "--password-file", workspace.path("pass.key")] + base, expect: 64)
        try log.run(["key", "generate", "--keychain-service", "s", "--keychain-account", "a", "--password", secrets.passphrase], expect: 64)
        try log.expectNoLeaks(secrets)
        #expect(log.runs.count == 36)
    }

    @Test func rawKeysNeverShowInHexOrAsText() throws {
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        let log = Transcript(workspace)
        let raw = ["--db-path", workspace.database, "--migrations", workspace.migrations, "--password-file", workspace.path("raw.key")]
        try log.run(["migrate"] + raw)
        try log.run(["status", "--json"] + raw)
        try log.run(["verify", "--json"] + raw)
        try log.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-file", workspace.path("other-raw.key")], expect: 4)
        try log.run(["status", "--json", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password", secrets.otherRawKeyText], expect: 4)
        try log.run(["rekey", "--json", "--new-password-file", workspace.path("other-raw.key")] + raw)
        try log.run(["rekey", "--db-path", workspace.database, "--password-file", workspace.path("other-raw.key"), "--new-password-file", workspace.path("pass.key")])
        try log.run(["rekey", "--db-path", workspace.database, "--password-file", workspace.path("pass.key"), "--new-password", secrets.rawKeyText])
        try log.run(["decrypt", "--output", workspace.path("plain.db")] + raw)
        try log.run(["encrypt", "--db-path", workspace.path("plain.db"), "--output", workspace.path("raw-again.db"), "--password-file", workspace.path("other-raw.key")])
        try log.expectNoLeaks(secrets)
    }

    /// `--password` and `--new-password` put the key in the process list; every command
    /// that takes them says so on standard error (also with --json, whose standard
    /// output stays one clean document).
    @Test func passwordFlagsWarnAboutTheProcessList() throws {
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        let log = Transcript(workspace)
        let flag = ["--password", secrets.passphrase]
        let db = ["--db-path", workspace.database, "--migrations", workspace.migrations] + flag
        try log.run(["migrate", "--to", "0001_authors"] + db)
        var results = [
            try log.run(["migrate", "--json"] + db),
            try log.run(["status"] + db),
            try log.run(["verify", "--json"] + db),
            try log.run(["schema-dump"] + db),
            try log.run(["lint"] + db),
            try log.run(["baseline", "--to", "0002_books"] + db),
            try log.run(["rollback", "--json"] + db),
            try log.run(["check", "--migrations", workspace.migrations, "--from-database", workspace.database] + flag),
            try log.run(["decrypt", "--output", workspace.path("plain.db")] + db),
            try log.run(["encrypt", "--db-path", workspace.path("plain.db"), "--output", workspace.path("copy.db")] + flag),
            try log.run(["status", "--password", secrets.wrongPassphrase, "--db-path", workspace.database, "--migrations", workspace.migrations], expect: 4),
        ]
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }
        results.append(try log.run(["restore", "--from", workspace.path(try #require(backups.first))] + db))
        // Commands that end up not using the key: it was on the command line all the same.
        results.append(try log.run(["new", "ignored_key"] + db))
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0003_ignored_key.sql")  // empty: it would stop the rest
        results.append(try log.run(["lint", "--migrations", workspace.migrations] + flag))
        results.append(try log.run(["check", "--migrations", workspace.migrations] + flag))
        results.append(try log.run(["status", "--db-path", workspace.path("not-yet.db"), "--migrations", workspace.migrations] + flag))
        for result in results {
            #expect(result.stderr.contains("warning: --password is visible to other users in the process list (ps)"), "\(result)")
        }
        for result in results where result.stdout.hasPrefix("{") {
            _ = try decodeJSON(result.stdout)
        }
        let rekey = try log.run(["rekey", "--no-backup", "--new-password", secrets.newPassphrase] + db)
        #expect(rekey.stderr.contains("warning: --password is visible"), "\(rekey)")
        #expect(rekey.stderr.contains("warning: --new-password is visible to other users in the process list (ps)"), "\(rekey)")
        let rekeyJSON = try log.run(["rekey", "--no-backup", "--json", "--new-password", secrets.passphrase, "--password-file", workspace.path("new.key"),
                                     "--db-path", workspace.database])
        #expect(rekeyJSON.stderr.contains("warning: --new-password is visible"), "\(rekeyJSON)")
        #expect(!rekeyJSON.stderr.contains("warning: --password is visible"), "the key came from a file: \(rekeyJSON)")
        _ = try decodeJSON(rekeyJSON.stdout)
        // Key files, the environment and standard input give no such warning.
        let quietSources = [
            try log.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations, "--password-file", workspace.path("pass.key")]),
            try log.run(["status", "--db-path", workspace.database, "--migrations", workspace.migrations],
                        environment: Binary.environment(["MIGRATIONKIT_PASSWORD": secrets.passphrase])),
        ]
        for result in quietSources { #expect(result.stderr.isEmpty, "\(result)") }
        try log.expectNoLeaks(secrets)
    }

    @Test(.enabled(if: hasTestKeyring || isCI, "needs the private gnome-keyring that `make test` starts"))
    func keyringCommandsKeepTheKeyOut() throws {
        try #require(hasTestKeyring, "CI=true but the Secret Service is not available: the test keyring failed to start")
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        let log = Transcript(workspace)
        let service = "migrationkit-hygiene-\(UUID().uuidString)"
        let stored = ["--keychain-service", service, "--keychain-account", "stored"]
        let generated = ["--keychain-service", service, "--keychain-account", "generated"]
        defer {
            for account in ["stored", "generated"] {
                _ = try? Guarded.run(["key", "delete", "--keychain-service", service, "--keychain-account", account])
            }
        }
        let base = ["--db-path", workspace.database, "--migrations", workspace.migrations]
        try log.run(["key", "store"] + stored, stdin: secrets.passphrase + "\n")
        try log.run(["key", "store", "--json"] + stored, stdin: secrets.newPassphrase + "\n", expect: 7)
        try log.run(["migrate"] + base + stored)
        try log.run(["status", "--json"] + base + stored)
        try log.run(["key", "generate"] + generated)
        try log.run(["key", "generate", "--json"] + generated, expect: 7)
        try log.run(["rekey", "--json"] + base + stored + ["--new-keychain-service", service, "--new-keychain-account", "generated"])
        try log.run(["status"] + base + stored, expect: 4)
        try log.run(["status"] + base + generated)
        try log.run(["status", "--json", "--keychain-service", service, "--keychain-account", "absent"] + base, expect: 5)
        try log.run(["key", "delete", "--json"] + stored)
        try log.run(["key", "delete"] + stored)
        // The generated key was never printed: read it back from the keyring to look for it.
        let lookup = try Guarded.run(["lookup", "service", service, "account", "generated"], executable: "/usr/bin/secret-tool", timeout: 30)
        let generatedKey = lookup.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(generatedKey.hasPrefix("x'") && generatedKey.count == 67, "\(lookup)")
        let hex = String(generatedKey.dropFirst(2).dropLast())
        for (label, result) in log.runs {
            for form in [hex, hex.uppercased(), String(hex.prefix(24)), String(hex.suffix(24))] where result.output.contains(form) {
                Issue.record("\(label) printed the generated key")
            }
        }
        // The detector itself: `--print` is the one way to show a key, and it is seen.
        let printed = try Guarded.run(["key", "generate", "--print", "--force"] + generated, timeout: 30)
        let shown = try Guarded.run(["lookup", "service", service, "account", "generated"], executable: "/usr/bin/secret-tool", timeout: 30)
        #expect(printed.status == 0 && printed.stdout.contains(String(shown.stdout.dropFirst(2).prefix(64))), "\(printed)")
        #expect(printed.stderr.contains("--print shows the key"), "\(printed)")
        try log.expectNoLeaks(secrets)
    }

    /// Whatever the umask, files the tool creates are its user's alone. With raw keys:
    /// the subject is the files, not a key's derivation.
    @Test(arguments: [0o022, 0o000] as [mode_t])
    func filesTheToolCreatesAreMode0600(_ umask: mode_t) throws {
        let secrets = Secrets()
        let workspace = try workspace(secrets)
        func run(_ arguments: [String]) throws {
            let result = try Guarded.run(arguments, directory: workspace.root, timeout: 60, umask: umask)
            #expect(result.status == 0, "umask \(String(umask, radix: 8)) \(arguments.prefix(2)): \(result)")
        }
        func mode(_ path: String) -> String {
            var info = stat()
            guard stat(path, &info) == 0 else { return "missing" }
            return String(info.st_mode & 0o7777, radix: 8)
        }
        let db = ["--db-path", workspace.database, "--migrations", workspace.migrations, "--password-file", workspace.path("raw.key")]
        try run(["migrate", "--to", "0001_authors"] + db)
        #expect(mode(workspace.database) == "600", "a new database")
        try run(["migrate", "--backup-dir", workspace.path("backups/nested")] + db)
        #expect(mode(workspace.path("backups/nested")) == "700", "the backup folder")
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.path("backups/nested"))
        #expect(backups.count == 1 && backups.allSatisfy { mode(workspace.path("backups/nested/" + $0)) == "600" }, "backups \(backups)")
        try run(["rollback"] + db)
        let besideBackups = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }
        #expect(besideBackups.count == 1 && besideBackups.allSatisfy { mode(workspace.path($0)) == "600" }, "a backup beside the database")
        try run(["decrypt", "--output", workspace.path("plain.db")] + db)
        #expect(mode(workspace.path("plain.db")) == "600", "a decrypted export")
        try run(["schema-dump", "--output", workspace.path("schema.sql")] + db)
        #expect(mode(workspace.path("schema.sql")) == "600", "schema-dump --output")
        try run(["new", "next_step", "--migrations", workspace.migrations])
        let created = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).filter { $0.hasSuffix("_next_step.sql") }
        #expect(created.count == 1 && created.allSatisfy { mode(workspace.migrations + "/" + $0) == "600" }, "new: \(created)")
        try run(["encrypt", "--db-path", workspace.path("plain.db"), "--output", workspace.path("encrypted.db"), "--password-file", workspace.path("other-raw.key")])
        #expect(mode(workspace.path("encrypted.db")) == "600", "encrypt --output")
        try FileManager.default.copyItem(atPath: workspace.path("plain.db"), toPath: workspace.path("in-place.db"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: workspace.path("in-place.db"))
        try run(["encrypt", "--no-backup", "--in-place", "--db-path", workspace.path("in-place.db"), "--password-file", workspace.path("other-raw.key")])
        // docs/security-model.md (at rest): an encrypted database replacing a plaintext
        // one keeps its owner and group and becomes 0600 (a plaintext file readable by
        // all was no secret).
        #expect(mode(workspace.path("in-place.db")) == "600", "encrypt --in-place")
        try run(["rekey", "--no-backup", "--new-password-file", workspace.path("other-raw.key")] + db)
        #expect(mode(workspace.database) == "600", "after rekey")
        try run(["restore", "--no-backup", "--from", workspace.path("encrypted.db"), "--db-path", workspace.database, "--password-file", workspace.path("other-raw.key")])
        #expect(mode(workspace.database) == "600", "after restore")
        // Nothing else the tool made is open to others (temporary files included).
        for (path, entry) in try TreeSnapshot(workspace.root).entries where entry.kind == "file" {
            // (in-place.db was 0644 before it was encrypted in place, and kept its mode.)
            let ours = path.hasPrefix("app.db") || path.hasPrefix("backups/") || ["plain.db", "schema.sql", "encrypted.db"].contains(path)
                || path.hasSuffix("_next_step.sql")
            if ours { #expect(entry.mode & 0o077 == 0, "\(path) is mode \(String(entry.mode, radix: 8))") }
        }
    }
}
