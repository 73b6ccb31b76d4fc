import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The key in memory, seen from outside a running `migrationkit` as another process of
/// the same user would see it: not dumpable (its /proc files belong to root, its memory
/// cannot be opened), no core file, the key's pages locked; and, with `strace`, no
/// plaintext row written to any file during a large data migration.
@Suite(.serialized) struct KeyMemoryTests {
    /// A migration that runs for a long time while the key is held: a counting query
    /// with nothing to write. The test kills the process once it has looked.
    private func slowWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.migration("0001_slow.sql", """
            -- migrate:up
            CREATE TABLE slow (n INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000)
            INSERT INTO slow SELECT count(*) FROM c;
            """)
        return workspace
    }

    /// Starts `command` as nobody when root, so that "the same user" is not root, who
    /// may read anything.
    private func launch(_ command: [String], directory: String) throws -> ChildProcess {
        try Guarded.launch(command, directory: directory, user: .unprivileged)
    }

    private func stop(_ process: ChildProcess) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A field of /proc/PID/status ("VmLck", "Uid"), without its unit.
    private func statusField(_ name: String, of pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    private func lockedKiB(of pid: Int32) -> Int {
        statusField("VmLck", of: pid).flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
    }

    /// What opening /proc/PID/mem prints when tried by the user the child runs as.
    private func readMemory(of pid: Int32) throws -> ChildProcessResult {
        try Guarded.run(["-c", "1", "/proc/\(pid)/mem"], executable: "/usr/bin/head", timeout: 10, user: .unprivileged)
    }

    /// The owner of a process's /proc entries: root's when it is not dumpable.
    private func procOwner(of pid: Int32) -> uid_t? {
        var info = stat()
        return stat("/proc/\(pid)/status", &info) == 0 ? info.st_uid : nil
    }

    @Test func aRunningMigrateCannotBeDumpedOrReadAndHoldsItsKeyLocked() throws {
        try requiringCapability {
            guard memoryLockLimit() ?? 1 > 0 else { throw CapabilityMissing("RLIMIT_MEMLOCK is 0 here: nothing can be locked") }
            let workspace = try slowWorkspace()
            try Guarded.giveToUnprivileged(workspace.root)
            let childUser = Guarded.isRoot ? Guarded.unprivilegedID : getuid()

            // The control: a process of that user that did nothing to protect itself
            // owns its /proc entries, and opening its memory is not refused.
            let plain = try launch(["/bin/sleep", "30"], directory: workspace.root)
            defer { stop(plain) }
            // Until setpriv has exec'd sleep, the process is setpriv, not dumpable between
            // its setuid and the exec: wait for sleep itself rather than a fixed time.
            let started = ContinuousClock.now
            while plain.isRunning, statusField("Name", of: plain.processIdentifier) != "sleep",
                  ContinuousClock.now - started < .seconds(30) { usleep(10_000) }
            #expect(procOwner(of: plain.processIdentifier) == childUser)
            // (Yama's ptrace_scope above 0 refuses it too, and then proves nothing.)
            let yama = (try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if yama == nil || yama == "0" {
                let plainRead = try readMemory(of: plain.processIdentifier)
                #expect(!plainRead.stderr.contains("Permission denied"), "the control's memory could not even be opened: \(plainRead)")
            }
            stop(plain)

            let migrate = try launch([Binary.migrationkit, "migrate", "--no-backup", "--no-lint"] + workspace.options(), directory: workspace.root)
            defer { stop(migrate) }
            let pid = migrate.processIdentifier
            // Wait until the key is read and locked (the slow step runs for minutes).
            let deadline = Date().addingTimeInterval(30)
            while migrate.isRunning, lockedKiB(of: pid) == 0, Date() < deadline { usleep(20_000) }
            #expect(migrate.isRunning, "migrate ended before it could be looked at (status \(migrate.terminationStatus))")
            #expect(lockedKiB(of: pid) > 0, "no page of the running migrate is locked (VmLck \(statusField("VmLck", of: pid) ?? "?"))")
            #expect(statusField("Uid", of: pid)?.hasPrefix("\(childUser)") == true)
            #expect(procOwner(of: pid) == 0, "migrate is dumpable: its /proc entries belong to \(procOwner(of: pid).map(String.init) ?? "?")")
            let read = try readMemory(of: pid)
            #expect(read.status != 0 && read.stderr.contains("Permission denied"), "another process of the same user opened migrate's memory: \(read)")
            let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            #expect(core.map { Array($0.suffix(3).prefix(2)) } == ["0", "0"], "core files are not off: \(core ?? [])")
        }
    }

    @Test func verboseSaysHowTheKeyIsProtectedAndNeverShowsIt() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)

        let verbose = try workspace.runBinary("status", ["--verbose"])
        #expect(verbose.status == 0, "\(verbose)")
        let notes = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("note: memory: ") }
        #expect(notes.contains { $0.contains("core dumps are off") }, "\(verbose.stderr)")
        #expect(notes.contains { $0.contains("the key is locked in RAM") }, "\(verbose.stderr)")
        // SQLCipher's memory security is off by default, as in SQLCipher (4.5.0+).
        let hasSwitch = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4
        #expect(notes.contains { $0.contains(hasSwitch ? "cipher_memory_security is off (the default" : "has no cipher_memory_security switch") }, "\(verbose.stderr)")
        #expect(!verbose.output.contains(workspace.key.secret))
        // Status's own report is unchanged on standard output.
        #expect(verbose.stdout == (try workspace.runBinary("status")).stdout)

        // Asked for by flag, or by the environment (as by the project file).
        for (extra, environment) in [(["--memory-security"], [String: String]()), ([], ["MIGRATIONKIT_MEMORY_SECURITY": "true"])] {
            let on = try workspace.runBinary("status", ["--verbose"] + extra, environment: Binary.environment(environment))
            #expect(on.status == 0, "\(on)")
            #expect(on.stderr.contains(hasSwitch ? "cipher_memory_security is on" : "has no cipher_memory_security switch"), "\(on.stderr)")
        }
        let off = try workspace.runBinary("status", ["--verbose", "--no-memory-security"], environment: Binary.environment(["MIGRATIONKIT_MEMORY_SECURITY": "true"]))
        #expect(off.status == 0, "\(off)")
        #expect(off.stderr.contains(hasSwitch ? "cipher_memory_security is off" : "has no cipher_memory_security switch"), "\(off.stderr)")

        // Without --verbose: no note.
        #expect(!(try workspace.runBinary("status")).stderr.contains("note:"))
        let both = try workspace.runBinary("status", ["--verbose", "--quiet"])
        #expect(both.status == CLIExitCodeValue.usage.rawValue && both.stderr.contains("--quiet and --verbose"), "\(both)")
    }

    /// With memory security asked for and a small RLIMIT_MEMLOCK (an unprivileged user's),
    /// SQLCipher cannot lock its buffers and logs a line per allocation: none of them may
    /// reach the user, who gets the one note --verbose gives.
    @Test func sqlcipherLogLinesNeverReachTheTerminal() throws {
        try requiringCapability {
            let workspace = try Workspace()
            try workspace.writeSampleMigrations()
            #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
            // The shell that lowers the limit runs as nobody, who may not reach the build
            // folder (a fresh clone's is private): a copy of the binary in the workspace.
            let binary = workspace.path("migrationkit")
            try FileManager.default.copyItem(atPath: Binary.migrationkit, toPath: binary)
            try Guarded.giveToUnprivileged(workspace.root)
            let command = [binary, "status", "--memory-security"] + workspace.options()
            let result = try Guarded.run(["-c", "ulimit -l 64 && exec \"$0\" \"$@\""] + command, executable: "/bin/sh",
                                         directory: workspace.root, user: .unprivileged)
            #expect(result.status == 0, "\(result)")
            #expect(!result.stderr.contains("ERROR") && !result.stderr.contains("sqlcipher_mlock") && result.strayErrorOutput.isEmpty, "\(result.stderr)")
        }
    }

    /// Every byte written (write, pwrite64 and their vector forms) by a migration that
    /// rewrites many rows, builds an index and sorts more than fits in SQLite's cache:
    /// none may hold a row's text. The same run on a plaintext database is the control
    /// that shows the trace does see row text when it is written.
    @Test func noPlaintextRowReachesAnyFileDuringALargeDataMigration() throws {
        try requiringCapability {
            guard let strace = ["/usr/bin/strace", "/bin/strace"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw CapabilityMissing("strace is not installed (scripts/install-deps.sh installs it)")
            }
            let rows = 30_000
            let marker = "plaintext-row-marker-"
            func traced(plaintext: Bool) throws -> (result: ChildProcessResult, trace: String) {
                let workspace = try Workspace()
                try workspace.migration("0001_rows.sql", """
                    -- migrate:up
                    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
                    INSERT INTO notes (body) SELECT '\(marker)' || x || printf('%.200c', '.') FROM c;
                    """)
                try workspace.migration("0002_rewrite.sql", """
                    -- migrate:up
                    CREATE TABLE notes_new (id INTEGER PRIMARY KEY, body TEXT NOT NULL, size INTEGER NOT NULL);
                    INSERT INTO notes_new SELECT id, upper(body), length(body) FROM notes ORDER BY body DESC;
                    DROP TABLE notes;
                    ALTER TABLE notes_new RENAME TO notes;
                    CREATE INDEX notes_body ON notes(body);
                    """)
                let keyOptions = plaintext ? ["--plaintext"] : ["--password-file", workspace.keyFile]
                let log = workspace.path("trace.log")
                let result = try Guarded.run(
                    ["-f", "--seccomp-bpf", "-qq", "-e", "trace=write,pwrite64,writev,pwritev,pwritev2", "-s", "1000000", "-o", log,
                     Binary.migrationkit, "migrate", "--no-lint", "--db-path", workspace.database, "--migrations", workspace.migrations] + keyOptions,
                    executable: strace, directory: workspace.root, timeout: 300)
                let trace = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                return (result, trace)
            }
            // Row text, as stored before and after the rewrite (upper case). The SQL text
            // of the migration files is read, never written.
            func holdsRowText(_ text: Substring) -> Bool {
                text.contains(marker) || text.contains(marker.uppercased())
            }

            let control = try traced(plaintext: true)
            #expect(control.result.status == 0, "\(control.result)")
            guard control.trace.contains("pwrite64") else { throw CapabilityMissing("strace recorded no write: \(control.result.stderr)") }
            #expect(holdsRowText(control.trace[...]), "the trace of a plaintext migration shows no row: the check below could not fail")

            let encrypted = try traced(plaintext: false)
            #expect(encrypted.result.status == 0, "\(encrypted.result)")
            #expect(encrypted.trace.contains("pwrite64"))
            let leaks = encrypted.trace.split(separator: "\n").filter(holdsRowText)
            #expect(leaks.isEmpty, "row text written in the clear: \(leaks.prefix(3).map { String($0.prefix(200)) })")
        }
    }
}
