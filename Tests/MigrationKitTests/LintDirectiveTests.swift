import Foundation
@testable import MigrationKit
import Testing

/// Which findings a `-- migrationkit:nolint…` comment or a project's suppression
/// silences: the statement a comment belongs to, the file it is written in, the files a
/// pattern matches.
@Suite struct LintDirectiveTests {
    private func report(_ up: String, down: String? = "SELECT 1;", suppressions: [LintSuppression] = []) throws -> LintReport {
        MigrationLinter(context: LintFixture.debian12, suppressions: suppressions).report([try LintFixture.file(up: up, down: down)])
    }

    private func described(_ findings: [LintFinding]) -> [String] {
        findings.map { "\($0.line) \($0.rule)" }
    }

    @Test func aCommentAfterCodeOnItsLineIsForThatStatementAndOnALineOfItsOwnForTheOneItSitsInOrPrecedes() throws {
        let result = try report("""
            BEGIN; -- migrationkit:nolint transaction-control
            COMMIT;
            CREATE TABLE t (
                -- migrationkit:nolint unsupported-sql, transaction-control -- STRICT is dropped on old builds by hand
                a INTEGER
            ) STRICT;
            -- migrationkit:nolint pragma-foreign-keys

            PRAGMA foreign_keys = OFF;
            VACUUM;
            """)
        #expect(described(result.findings) == ["3 transaction-control", "11 transaction-control"], "\(result.findings)")
        #expect(result.suppressed.map { "\($0.finding.line) \($0.finding.rule) by \($0.suppressedBy)" } == [
            "2 transaction-control by migrations/0001_test.sql:2",
            "7 unsupported-sql by migrations/0001_test.sql:5",
            "10 pragma-foreign-keys by migrations/0001_test.sql:8",
        ])
    }

    @Test func aStatementCommentWithNoStatementAfterItSilencesNothingAndSaysSo() throws {
        let result = try report("VACUUM;\n-- migrationkit:nolint transaction-control\n", down: "SELECT 1;\n-- migrationkit:nolint-file missing-down")
        #expect(described(result.findings) == ["2 transaction-control", "3 bad-suppression"], "\(result.findings)")
        #expect(result.findings.last?.message.contains("has no statement after it") == true)
        #expect(result.suppressed.isEmpty)
    }

    @Test func aFileCommentCoversOnlyTheFileItIsWrittenIn() throws {
        let file = try SQLMigrationFileParser.parseUpDown(upText: "VACUUM;\n", upPath: "m/1.up.sql",
                                                          downText: "-- migrationkit:nolint-file transaction-control\nCOMMIT;\n", downPath: "m/1.down.sql",
                                                          identifier: "1")
        let result = MigrationLinter(context: LintFixture.debian12).report([file])
        #expect(result.findings.map { "\($0.path):\($0.line) \($0.rule) \($0.inDownSection)" } == ["m/1.up.sql:1 transaction-control false"])
        #expect(result.suppressed.map { "\($0.finding.path):\($0.finding.line) \($0.finding.inDownSection) by \($0.suppressedBy)" }
                == ["m/1.down.sql:2 true by m/1.down.sql:1"])
    }

    @Test func aProjectsSuppressionForAFilePatternWinsOverOneForEveryFile() throws {
        let everywhere = LintSuppression(rules: ["transaction-control"], path: "migrationkit.toml", line: 2)
        let byName = LintSuppression(rules: ["transaction-control"], files: "0001_*.sql", path: "migrationkit.toml", line: 5)
        let result = try report("VACUUM;", suppressions: [everywhere, byName])
        #expect(result.findings.isEmpty)
        #expect(result.suppressed.map(\.suppressedBy) == ["migrationkit.toml:5"])
        #expect(byName.applies(toFile: "/srv/app/migrations/0001_test.sql") && !byName.applies(toFile: "/srv/0001_x/up.sql"))
        let byFolder = LintSuppression(rules: ["missing-down"], files: "2024-*/up.sql", path: "p", line: nil)
        #expect(byFolder.applies(toFile: "db/2024-06-05-131359_x/up.sql") && !byFolder.applies(toFile: "db/2024-06-05-131359_x/down.sql"))
        #expect(byFolder.location == "p" && everywhere.location == "migrationkit.toml:2")
    }

    @Test func aSuppressedFindingEncodesAsTheFindingAndWhatSilencedIt() throws {
        let finding = LintFinding(rule: "syntax-error", severity: .error, path: "p", line: 4, message: "m", fix: "f", inDownSection: true)
        let suppressed = SuppressedLintFinding(finding: finding, suppressedBy: "migrationkit.toml:3")
        let data = try JSONEncoder().encode(suppressed)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["rule", "severity", "path", "line", "message", "fix", "inDownSection", "suppressedBy"])
        #expect(try JSONDecoder().decode(SuppressedLintFinding.self, from: data) == suppressed)
        // A finding written before findings said where they are is up SQL's.
        let older = Data(#"{"rule":"r","severity":"warning","path":"p","line":1,"message":"m","fix":"f"}"#.utf8)
        #expect(try JSONDecoder().decode(LintFinding.self, from: older).inDownSection == false)
        #expect(finding.blocksRollingBack && !finding.blocksMigrating)
        #expect(finding.silencingComment == "-- migrationkit:nolint syntax-error")
    }
}
