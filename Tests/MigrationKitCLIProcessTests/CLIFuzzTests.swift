import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A bounded, deterministic fuzz of whole commands: random and mutated migration files
/// go through `lint` and `migrate` (a plaintext scratch database, to spend the time on
/// the files rather than on key derivation). Each run must end with a documented exit
/// code, no trap, at most one one-line error, and a failed migrate must leave the
/// database byte for byte as it was. The in-process fuzzers (SQLTextRobustnessTests,
/// scripts/fuzz.sh) go deeper into the text handling; this checks the whole path down
/// to SQLite and back to the exit code. `MIGRATIONKIT_CLI_FUZZ_SEED` replays another run.
@Suite struct CLIFuzzTests {

    static let seeds: [UInt64] = {
        if let text = ProcessInfo.processInfo.environment["MIGRATIONKIT_CLI_FUZZ_SEED"], let seed = UInt64(text) { return [seed] }
        return [0xC11F_0001]
    }()

    /// Each case runs two processes: 50 in a full run, a dozen in a quick one.
    static let caseCount = TestDepth.count(quick: 12, full: 50)

    /// Files that once broke a command; they stay in every run.
    static let regressions: [[UInt8]] = [
        Array("-- migrate:up\nINSERT INTO authors (name) VALUES ('never closed);\n".utf8),  // two-line error message
        Array("-- migrate:up\nCREATE TRIGGER t AFTER INSERT ON authors BEGIN SELECT 1;\n".utf8),  // "near \"\\n\""
        Array("-- migrate:up\nCREATE TABLE t (a".utf8),
    ]

    static let seedFiles = [
        "-- migrate:up\nCREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');\nINSERT INTO genres (name) VALUES ('a;b'), ('it''s');\n-- migrate:down\nDROP TABLE genres;\n",
        "-- migrate:up\nALTER TABLE authors ADD COLUMN born INTEGER;\nUPDATE authors SET born = 1900 WHERE name LIKE 'A%';\nCREATE INDEX authors_born ON authors(born);\n",
        "-- migrate:up\nCREATE TRIGGER books_log AFTER INSERT ON books BEGIN\n  UPDATE authors SET name = name || '' WHERE id = NEW.authorId;\nEND;\n/* comment */ INSERT INTO authors (name) VALUES (x'41');\n",
        "-- migrate:merging 0001_authors\n-- migrate:up\nCREATE VIEW v AS SELECT a.name, count(b.id) FROM authors a LEFT JOIN books b ON b.authorId = a.id GROUP BY a.id;\n",
    ]

    static let vocabulary = [
        "CREATE", "TABLE", "t", "(", ")", ",", ";", "INSERT", "INTO", "authors", "books", "VALUES", "SELECT", "FROM",
        "DROP", "ALTER", "ADD", "COLUMN", "NOT", "NULL", "DEFAULT", "BEGIN", "END", "COMMIT", "ROLLBACK", "PRAGMA",
        "foreign_keys", "=", "OFF", "ON", "TRIGGER", "AFTER", "UPDATE", "SET", "'", "\"", "`", "[", "]", "x'00'",
        "/*", "*/", "--", "\n", "-- migrate:down\n",
        "VACUUM", "ATTACH", "'x.db'", "AS", "DETACH", "REFERENCES", "PRIMARY KEY", "é", "\u{FEFF}", "?1", ":p",
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50)", "randomblob(100)",
    ]

    /// Bytes SQL text handling cares about; the random-bytes inputs add invalid UTF-8 and
    /// NUL, the mutations keep to text so that more of them reach SQLite.
    static let textBytes: [UInt8] = Array("'\"`[]()-;/*\n \tx0123456789,".utf8)
    static let interestingBytes: [UInt8] = textBytes + [0x00, 0xC3, 0xA9, 0xFF, 0x80, 0xEF, 0xBB, 0xBF]

    static func input(_ index: Int, _ generator: inout SeededGenerator) -> [UInt8] {
        if index < regressions.count { return regressions[index] }
        switch index % 4 {
        case 0:  // mostly valid SQL from tokens
            var text = "-- migrate:up\n"
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                text += (vocabulary.randomElement(using: &generator) ?? "") + (Bool.random(using: &generator) ? " " : "")
            }
            return Array(text.utf8)
        case 1:  // random bytes, weighted toward what SQL text handling cares about
            return Array("-- migrate:up\n".utf8) + (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                Bool.random(using: &generator) ? interestingBytes.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
        default:  // a real migration, mutated
            var bytes = Array((seedFiles.randomElement(using: &generator) ?? "").utf8)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...30, using: &generator)))
                case 1: bytes.insert(contentsOf: (vocabulary.randomElement(using: &generator) ?? "").utf8, at: position)
                case 2: if !bytes.isEmpty { bytes[position] = textBytes.randomElement(using: &generator) ?? 0 }
                default: bytes.removeSubrange(position..<bytes.count)
                }
            }
            return bytes
        }
    }

    @Test func randomAndMutatedMigrationsEndWithADocumentedCode() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let base = workspace.path("base.db")
        let create = try Guarded.run(["migrate", "--plaintext", "--no-backup", "--db-path", base, "--migrations", workspace.migrations])
        #expect(create.status == 0, "\(create)")
        let baseBytes = try #require(workspace.bytes(base))
        let samples = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations)

        for seed in Self.seeds {
            var generator = SeededGenerator(state: seed)
            let inputs = (0..<Self.caseCount).map { Self.input($0, &generator) }
            nonisolated(unsafe) var failures: [String] = []
            nonisolated(unsafe) var statuses: [Int32: Int] = [:]
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
                let (problems, status) = Self.check(inputs[index], index: index, in: workspace, base: baseBytes, samples: samples)
                lock.withLock {
                    failures += problems.map { "seed \(seed) case \(index): \($0)\n  input: \(Array(inputs[index]))" }
                    statuses[status, default: 0] += 1
                }
            }
            for failure in failures.sorted() { Issue.record(Comment(rawValue: failure)) }
            // A fuzz that never gets past loading, or never fails in SQLite, tests little.
            #expect(statuses[2, default: 0] > 0 && statuses[9, default: 0] > 0, "migrate exit codes: \(statuses)")
        }
    }

    /// Runs lint and migrate on one input; returns what went wrong.
    static func check(_ input: [UInt8], index: Int, in workspace: Workspace, base: Data, samples: [String]) -> (problems: [String], migrateStatus: Int32) {
        var problems: [String] = []
        var migrateStatus: Int32 = -1
        do {
            let folder = workspace.path("case-\(index)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            for name in samples { try FileManager.default.copyItem(atPath: workspace.migrations + "/" + name, toPath: folder + "/" + name) }
            try Data(input).write(to: URL(fileURLWithPath: folder + "/0003_fuzz.sql"))
            let database = workspace.path("case-\(index).db")
            try base.write(to: URL(fileURLWithPath: database))

            let lint = try Guarded.run(["lint", "--migrations", folder], timeout: 30)
            problems += judge(lint, "lint", allowed: [0, 2, 9])
            let migrate = try Guarded.run(["migrate", "--plaintext", "--no-backup", "--db-path", database, "--migrations", folder], timeout: 30)
            problems += judge(migrate, "migrate", allowed: [0, 2, 3, 7, 9])
            migrateStatus = migrate.signaled ? -1 : migrate.status
            if migrate.status != 0 {
                if FileManager.default.contents(atPath: database) != base { problems.append("migrate failed but changed the database: \(migrate)") }
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("case-\(index).db") && $0 != "case-\(index).db" }
                if !leftovers.isEmpty { problems.append("migrate failed and left \(leftovers)") }
            }
        } catch {
            problems.append("could not run: \(error)")
        }
        return (problems, migrateStatus)
    }

    static func judge(_ result: GuardedResult, _ command: String, allowed: Set<Int32>) -> [String] {
        var problems: [String] = []
        if result.timedOut { problems.append("\(command) hung: \(result)") }
        if result.signaled { problems.append("\(command) ended on a signal: \(result)") }
        if !allowed.contains(result.status) { problems.append("\(command) exited \(result.status): \(result)") }
        for trap in ["Fatal error", "Unexpected failure", "Stack dump", "Current stack trace", "Error Domain="] where result.output.contains(trap) {
            problems.append("\(command) printed \(trap): \(result)")
        }
        if result.errorLines.count > 1 { problems.append("\(command) printed \(result.errorLines.count) error lines: \(result)") }
        if !result.strayErrorOutput.isEmpty { problems.append("\(command) broke its error over lines: \(result.strayErrorOutput)") }
        if result.status != 0, result.errorLines.count != 1, command == "migrate" { problems.append("\(command) failed without one error line: \(result)") }
        return problems
    }
}
