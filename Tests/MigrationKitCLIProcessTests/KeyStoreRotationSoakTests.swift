import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Key rotations of a fleet whose keys are kept in key files or in a `pass` store (a real
/// gpg key), round after round, each rotation stopped at a random moment by SIGKILL or
/// SIGTERM and run again, and each round begun with a rotation whose two key commands
/// name one entry in words that differ (`cat ./keys/NAME.key` and `cat keys/NAME.key`,
/// `pass  show` with two spaces), which must be refused with every tenant left on its
/// key. An independent reader (the `sqlcipher` shell, `cat`, `pass`) checks every tenant
/// after every run: it opens with a key its store holds or a copy kept beside it, never
/// with none; every line a run printed agrees with what opens the tenant; a run that
/// exited 0 left every tenant on the key of its new entry. The kill moments come from a
/// seed, printed with every failure (`MIGRATIONKIT_SOAK_SEED`); `make soak` runs more
/// tenants and rounds (`MIGRATIONKIT_SOAK_KILLS`).
@Suite struct KeyStoreRotationSoakTests {
    enum Store: String, CaseIterable, Sendable {
        case keyFiles, pass
    }

    @Test(arguments: Store.allCases)
    func rotationsStoppedAtRandomNeverLeaveATenantWithoutAStoredOrKeptKey(_ store: Store) throws {
        let soakKills = ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_KILLS"].flatMap(Int.init)
        let tenants = soakKills == nil ? TestDepth.count(quick: 6, full: 10) : 60
        let rounds = soakKills.map { max(2, $0 / 40) } ?? TestDepth.count(quick: 2, full: 3)
        if store == .pass, let absent = ["pass", "gpg", "gpgconf"].first(where: { !Self.isInstalled($0) }) {
            if isCI { Issue.record("CI=true but \(absent) is not installed") }
            return
        }
        let seed = ProcessInfo.processInfo.environment["MIGRATIONKIT_SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(state: seed)
        let fleet = try StoreFleet(store, count: tenants)
        defer { fleet.close() }
        var full = Duration.zero
        for round in 0..<rounds {
            let context = "\(store), seed \(seed) (MIGRATIONKIT_SOAK_SEED), round \(round)"
            // One entry, two spellings: refused, every tenant on its current entry's key.
            let delay = round == 0 ? nil : fleet.randomDelay(within: full, &generator)
            let oneEntry = try fleet.rotate(fleet.oneEntryOptions, stoppedAfter: delay, &generator, context: context + ", one entry")
            try fleet.check(oneEntry, context: context + ", one entry")
            let refused = try fleet.rotate(fleet.oneEntryOptions, stoppedAfter: nil, &generator, context: context + ", one entry again")
            #expect(refused.status == 64, "\(context): \(refused.output)")
            try fleet.check(refused, context: context + ", one entry again")
            for name in fleet.names {
                #expect(try fleet.opens(name, fleet.key(name, .current)), "\(context): \(name) is not on its current entry's key after the refusal")
                #expect(fleet.keptCopies(name).isEmpty, "\(context): \(name) keeps \(fleet.keptCopies(name)) after the refusal")
            }

            // Two entries: stopped at a random moment, then run again to its end.
            let started = ContinuousClock.now
            let stopped = try fleet.rotate(fleet.twoEntryOptions, stoppedAfter: round == 0 ? nil : fleet.randomDelay(within: full, &generator), &generator,
                                           context: context + ", rotation")
            if round == 0 { full = ContinuousClock.now - started }
            try fleet.check(stopped, context: context + ", rotation")
            let finished = try fleet.rotate(fleet.twoEntryOptions, stoppedAfter: nil, &generator, context: context + ", rotation again")
            try fleet.check(finished, context: context + ", rotation again")
            #expect(finished.status == 0, "\(context): \(finished.output)")
            for name in fleet.names {
                #expect(try fleet.opens(name, fleet.key(name, .next)), "\(context): \(name) is not on its new entry's key after a run that exited 0")
                #expect(fleet.keptCopies(name).isEmpty, "\(context): \(name) keeps \(fleet.keptCopies(name)) after the run")
            }
            // What the operator does next: the new entry becomes the current one.
            try fleet.settle()
            // A line a round: a soak of many rounds shows it is alive (the stall watchdog).
            print("\(context): every tenant checked after every run")
        }
    }

    private static func isInstalled(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }
}

/// One run of a rotation, as the reader saw it end.
private struct RotationRun {
    /// Its exit status, or the signal that ended it.
    let status: Int32
    let signaled: Bool
    let stdout: String
    let stderr: String
    var output: String { stdout + stderr }
    /// Ended by SIGKILL: it printed nothing to judge.
    var killed: Bool { signaled && status == SIGKILL }
}

/// Tenants in `tenants/` whose keys are kept in `keys/NAME.key` and `keys/NAME.next`, or
/// in a `pass` store as `db/NAME` and `db/NAME.next` (gpg-encrypted, git-backed).
private final class StoreFleet: @unchecked Sendable {
    enum Entry { case current, next }

    let store: KeyStoreRotationSoakTests.Store
    let workspace: Workspace
    let names: [String]
    private var environment: [String: String]

    init(_ store: KeyStoreRotationSoakTests.Store, count: Int) throws {
        self.store = store
        workspace = try Workspace()
        names = (0..<count).map { "tenant\($0)" }
        environment = Binary.environment()
        for folder in ["tenants", "keys", "home"] {
            try FileManager.default.createDirectory(atPath: workspace.path(folder), withIntermediateDirectories: true)
        }
        let home = workspace.path("home")
        for (name, value) in ["HOME": home, "GNUPGHOME": home + "/.gnupg", "PASSWORD_STORE_DIR": home + "/.password-store",
                              "GIT_AUTHOR_NAME": "Rotation", "GIT_AUTHOR_EMAIL": "keys@example.com",
                              "GIT_COMMITTER_NAME": "Rotation", "GIT_COMMITTER_EMAIL": "keys@example.com"] {
            environment[name] = value
        }
        if store == .pass {
            let made = try shell("gpg --batch --passphrase '' --quick-gen-key 'Keys <keys@example.com>' default default never 2>/dev/null && pass init keys@example.com >/dev/null && pass git init >/dev/null")
            try #require(made.status == 0, "\(made.output)")
        }
        for name in names {
            let key = TestKey.raw()
            try write(key, name, .current)
            let created = try SQLCipherShell.run(database(name), key: key, "CREATE TABLE seed (x); INSERT INTO seed VALUES ('kept');")
            try #require(created.status == 0, "\(created.output)")
        }
    }

    func close() {
        if store == .pass { _ = try? shell("gpgconf --kill gpg-agent") }
    }

    func database(_ name: String) -> String { workspace.path("tenants/\(name).db") }

    /// `sh -c script` in the workspace, with the store's environment.
    @discardableResult
    func shell(_ script: String, stdin: String? = nil) throws -> ChildProcessResult {
        try ChildProcess.run(["/bin/sh", "-c", script], stdin: stdin.map { Data($0.utf8) }, environment: environment, directory: workspace.root, timeout: 120)
    }

    private func entry(_ name: String, _ entry: Entry) -> String {
        switch (store, entry) {
        case (.keyFiles, .current): return "keys/\(name).key"
        case (.keyFiles, .next): return "keys/\(name).next"
        case (.pass, .current): return "db/\(name)"
        case (.pass, .next): return "db/\(name).next"
        }
    }

    func write(_ key: TestKey, _ name: String, _ which: Entry) throws {
        switch store {
        case .keyFiles: try workspace.write(entry(name, which), key.text + "\n", mode: 0o600)
        case .pass:
            let stored = try shell("pass insert --multiline --force \(entry(name, which)) >/dev/null", stdin: key.text + "\n")
            try #require(stored.status == 0, "\(stored.output)")
        }
    }

    /// The key at the entry, or nil when there is none.
    func key(_ name: String, _ which: Entry) throws -> TestKey? {
        switch store {
        case .keyFiles:
            return (try? String(contentsOfFile: workspace.path(entry(name, which)), encoding: .utf8)).map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
        case .pass:
            let shown = try shell("pass show \(entry(name, which)) 2>/dev/null")
            return shown.status == 0 ? TestKey(text: shown.stdout.trimmingCharacters(in: .newlines)) : nil
        }
    }

    /// The copies of keys a rotation keeps beside the database or a key file.
    func keptCopies(_ name: String) -> [String] {
        [".\(name).db.migrationkit-old-key", ".\(name).db.migrationkit-new-key"].map { "tenants/" + $0 }
            .filter { FileManager.default.fileExists(atPath: workspace.path($0)) }
            + ["keys/.\(name).next.migrationkit-new-key"].filter { FileManager.default.fileExists(atPath: workspace.path($0)) }
    }

    private func keptKeys(_ name: String) -> [TestKey] {
        keptCopies(name).compactMap { try? String(contentsOfFile: workspace.path($0), encoding: .utf8) }.map { TestKey(text: $0.trimmingCharacters(in: .newlines)) }
    }

    func opens(_ name: String, _ key: TestKey?) throws -> Bool {
        guard let key else { return false }
        let read = try SQLCipherShell.run(database(name), key: key, "SELECT x FROM seed;")
        return read.status == 0 && read.stdout == "kept\n"
    }

    /// The rotation's options: the current entry and a new entry of its own.
    var twoEntryOptions: [String] {
        switch store {
        case .keyFiles: return ["--password-file", "keys/{name}.key", "--new-password-file", "keys/{name}.next"]
        case .pass:
            return ["--password-command", "pass show db/{name}", "--new-key-store-command", "pass insert --multiline --force db/{name}.next",
                    "--new-password-command", "pass show db/{name}.next"]
        }
    }

    /// The rotation's options naming the current entry twice, in words that differ.
    var oneEntryOptions: [String] {
        switch store {
        case .keyFiles:
            return ["--password-command", "cat ./keys/{name}.key", "--new-key-store-command", "!umask 077; cat > keys/{name}.key",
                    "--new-password-command", "cat keys/{name}.key"]
        case .pass:
            return ["--password-command", "pass show db/{name}", "--new-key-store-command", "pass insert --multiline --force db/{name}",
                    "--new-password-command", "pass  show db/{name}"]
        }
    }

    func randomDelay(within full: Duration, _ generator: inout SeededGenerator) -> Duration {
        .microseconds(Int64.random(in: 0...max(1, Int64(Double(full.wholeMicroseconds) * 1.2)), using: &generator))
    }

    /// The rotation through the binary, stopped after `delay` (SIGKILL or SIGTERM, at
    /// random), or run to its end.
    func rotate(_ options: [String], stoppedAfter delay: Duration?, _ generator: inout SeededGenerator, context: String) throws -> RotationRun {
        let arguments = [Binary.migrationkit, "rekey", "--db-glob", "tenants/*.db", "--new-key", "generate", "--no-backup", "--jobs", "2",
                         "--key-command-timeout", "30", "--migrations", workspace.migrations] + options
        let process = try ChildProcess(arguments, environment: environment, directory: workspace.root, input: .null,
                                       output: .file(workspace.path("out")), errors: .file(workspace.path("err")))
        if let delay {
            let signal = Bool.random(using: &generator) ? SIGKILL : SIGTERM
            let deadline = ContinuousClock.now + delay
            while process.isRunning, ContinuousClock.now < deadline { usleep(500) }
            process.send(signal)
        }
        process.waitUntilExit(timeout: 300)
        let ended = RotationRun(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                                stdout: (try? String(contentsOfFile: workspace.path("out"), encoding: .utf8)) ?? "",
                                stderr: (try? String(contentsOfFile: workspace.path("err"), encoding: .utf8)) ?? "")
        return ended
    }

    /// Every tenant opens with a key its store holds or a copy kept beside it, and every
    /// line the run printed agrees with what opens it; no key was printed.
    func check(_ run: RotationRun, context: String) throws {
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for name in names {
            let current = try key(name, .current), next = try key(name, .next)
            let onCurrent = try opens(name, current), onNext = try opens(name, next)
            let onKept = try keptKeys(name).contains { try opens(name, $0) }
            let line = lines.first { $0.hasPrefix("tenants/\(name).db ") } ?? ""
            #expect(onCurrent || onNext || onKept, "\(context): \(name) opens with no key stored or kept (\(keptCopies(name))): \(line)")
            for key in [current, next].compactMap({ $0 }) { #expect(!run.output.contains(key.secret), "\(context): a key was printed") }
            guard !run.killed, !line.isEmpty else { continue }
            // DATABASE, TIME (a number and its unit), RESULT.
            let result = line.split(separator: " ").dropFirst(3).joined(separator: " ")
            if result.hasPrefix("rekeyed") || result.hasPrefix("already on the new key") {
                #expect(onNext, "\(context): \(name) is reported done but not on its new entry's key: \(line)")
            } else if result.hasPrefix("failed (exit 64)") || result.hasPrefix("not started") || result.hasPrefix("stopped: as it was") || result.hasPrefix("stopped: on its old key") {
                #expect(onCurrent || (result.contains("on its old key") && onKept), "\(context): \(name) is not on its old key as its line says: \(line)")
            } else if result.hasPrefix("stopped: on its new key") {
                #expect(onNext || onKept, "\(context): \(name) is not on its new key as its line says: \(line)")
            } else if result.hasPrefix("failed (exit 5)") {
                // Its sentence says which key: checked by the invariant above.
            } else {
                Issue.record("\(context): \(name)'s line says neither which key nor done: \(line)")
            }
        }
        if !run.killed, run.status == 0 {
            #expect(!lines.contains { $0.contains("failed") || $0.contains("stopped") }, "\(context): exit 0 with \(run.stdout)")
        }
    }

    /// The new entry becomes the current one for each tenant on it; any other new entry is
    /// dropped.
    func settle() throws {
        for name in names {
            let next = try key(name, .next)
            if try opens(name, next), let next { try write(next, name, .current) }
            switch store {
            case .keyFiles: try? FileManager.default.removeItem(atPath: workspace.path(entry(name, .next)))
            case .pass: try shell("pass rm --force \(entry(name, .next)) >/dev/null 2>&1 || true")
            }
        }
    }
}
