import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// Every command under `--json` writes exactly one JSON document holding exactly the
/// fields docs/json-output.md lists for it (null when they have no value): scripts read
/// them by name, and a field that is sometimes missing breaks them only sometimes.
@Suite struct JSONDocumentTests {
    /// The list in docs/json-output.md: command name → top-level fields.
    static func documentedFields() throws -> [String: Set<String>] {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/json-output.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "# JSON output\n").dropFirst().first,
                                   "docs/json-output.md has no \"# JSON output\" heading").components(separatedBy: "\n## ")[0]
        // One item per "- `command`: …" paragraph, continuation lines included.
        var items: [String] = []
        for line in section.components(separatedBy: "\n") {
            if line.hasPrefix("- ") { items.append(String(line.dropFirst(2))) } else if line.hasPrefix("  "), !items.isEmpty { items[items.count - 1] += " " + line }
        }
        var fields: [String: Set<String>] = [:]
        for item in items {
            guard let colon = item.range(of: "`: ") ?? item.range(of: ": ") else { continue }
            let names = backticked(String(item[..<colon.lowerBound]) + "`").filter { !$0.isEmpty }
            let body = withoutParentheses(String(item[colon.upperBound...]))
            let documented = Set(backticked(body))
            for name in names.isEmpty ? [String(item[..<colon.lowerBound])] : names { fields[name] = documented }
        }
        try #require(!fields.isEmpty, "docs/json-output.md lists no command's fields")
        return fields
    }

    private static func backticked(_ text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    private static func withoutParentheses(_ text: String) -> String {
        var depth = 0
        var result = ""
        for character in text {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 } else if depth == 0 { result.append(character) }
        }
        return result
    }

    /// Decodes `result.stdout` as one JSON object and compares its keys with docs/json-output.md.
    private func expectDocumented(_ command: String, _ result: CommandResult, _ fields: [String: Set<String>],
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        guard let expected = fields[command] else {
            Issue.record("docs/json-output.md lists no JSON fields for \(command)", sourceLocation: sourceLocation)
            return
        }
        guard let data = result.stdout.data(using: .utf8),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            Issue.record("\(command) --json did not print one JSON object: \(result.output)", sourceLocation: sourceLocation)
            return
        }
        #expect(Set(object.keys) == expected, "\(command): printed \(object.keys.sorted()), docs/json-output.md lists \(expected.sorted())", sourceLocation: sourceLocation)
    }

    @Test func everyCommandPrintsTheDocumentedFields() throws {
        let fields = try Self.documentedFields()
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        func json(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
            try Tool.run(arguments + ["--json"], stdin: stdin, directory: workspace.root)
        }
        let options = workspace.options()
        expectDocumented("status", try json(["status"] + options), fields)  // before the database exists
        expectDocumented("migrate", try json(["migrate", "--no-backup"] + options), fields)
        expectDocumented("migrate --db-glob", try json(["migrate", "--db-glob", workspace.path("*.db")] + options), fields)
        expectDocumented("status", try json(["status"] + options), fields)
        expectDocumented("verify", try json(["verify"] + options), fields)
        let fleet = try json(["verify", "--db-glob", workspace.path("*.db")] + options)
        expectDocumented("fleet", fleet, fields)
        if let report = ((try? decodeJSON(fleet.stdout))?["databases"] as? [[String: Any]])?.first?["report"] as? [String: Any] {
            #expect(Set(report.keys) == fields["verify"], "a fleet's report is the command's own document: \(report.keys.sorted())")
        } else {
            Issue.record("verify over a fleet printed no report: \(fleet.output)")
        }
        expectDocumented("lint", try json(["lint"] + options), fields)
        expectDocumented("schema-dump", try json(["schema-dump"] + options), fields)
        expectDocumented("schema-dump", try json(["schema-dump", "--output", workspace.path("schema.sql")] + options), fields)
        expectDocumented("rollback", try json(["rollback"] + options), fields)
        expectDocumented("migrate", try json(["migrate"] + options), fields)
        expectDocumented("migrate", try json(["migrate", "--dry-run"] + options), fields)
        expectDocumented("baseline", try json(["baseline", "--to", "0002_books"] + options), fields)
        expectDocumented("optimize", try json(["optimize"] + options), fields)
        try workspace.write("ladder.db", "")
        let ladder = try SQLCipherShell.run(workspace.path("ladder.db"), key: workspace.key, "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL); PRAGMA user_version = 1;")
        #expect(ladder.status == 0, "\(ladder.output)")
        let ladderOptions = ["--db-path", workspace.path("ladder.db"), "--password-file", workspace.keyFile, "--migrations", workspace.migrations]
        expectDocumented("status", try json(["status"] + ladderOptions), fields)
        expectDocumented("adopt", try json(["adopt", "--dry-run"] + ladderOptions), fields)
        expectDocumented("adopt", try json(["adopt"] + ladderOptions), fields)
        expectDocumented("diff", try json(["diff"] + options), fields)
        let wanted = try String(contentsOfFile: workspace.path("schema.sql"), encoding: .utf8) + "CREATE TABLE shelves (id INTEGER PRIMARY KEY);\n"
        try workspace.write("wanted.sql", wanted)
        expectDocumented("diff --to", try json(["diff", "--to", workspace.path("wanted.sql")] + options), fields)
        // On SQLCipher 3 the upgrade is refused, as one error document.
        let upgradable = (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4
        expectDocumented(upgradable ? "cipher-upgrade" : "any failure", try json(["cipher-upgrade", "--dry-run"] + options), fields)
        expectDocumented("check", try json(["check", "--migrations", workspace.migrations]), fields)
        expectDocumented("config", try json(["config"] + options), fields)
        let project = workspace.path("project")
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: false)
        expectDocumented("init", try Tool.run(["init", "--json"], directory: project), fields)
        expectDocumented("new", try json(["new", "third", "--migrations", workspace.migrations]), fields)
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0003_third.sql")
        expectDocumented("decrypt", try json(["decrypt", "--output", workspace.path("plain.db")] + options), fields)
        expectDocumented("encrypt", try json(["encrypt", "--output", workspace.path("again.db"), "--db-path", workspace.path("plain.db"),
                                              "--password-file", workspace.keyFile]), fields)
        try workspace.write("new-key", "another key\n", mode: 0o600)
        expectDocumented("rekey", try json(["rekey", "--new-password-file", workspace.path("new-key")] + options), fields)
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }.sorted()
        let backup = try #require(backups.last)
        expectDocumented("restore", try json(["restore", "--from", workspace.path(backup), "--no-backup", "--db-path", workspace.database,
                                              "--password-file", workspace.keyFile, "--migrations", workspace.migrations]), fields)
        // Failures: a usage error and a wrong key are one document too.
        expectDocumented("any failure", try json(["status", "--no-such-option"]), fields)
        expectDocumented("any failure", try json(["status", "--db-path", workspace.database, "--password", "wrong key", "--migrations", workspace.migrations]), fields)
        expectDocumented("any failure", try json([]), fields)
        if hasTestKeyring {
            let item = ["--keychain-service", "org.migrationkit.tests.json.\(UUID().uuidString)", "--keychain-account", "db"]
            let generated = try json(["key", "generate", "--print"] + item)
            expectDocumented("key generate", generated, fields)
            #expect(try decodeJSON(generated.stdout)["key"] is String)
            expectDocumented("key store", try json(["key", "store", "--force"] + item, stdin: "a stored key\n"), fields)
            expectDocumented("key delete", try json(["key", "delete"] + item), fields)
        } else {
            #expect(!isCI, "CI=true but the Secret Service is not available: the key commands' JSON is untested")
        }
    }
}
