import ArgumentParser
import Foundation
@testable import MigrationKit
@testable import MigrationKitCommands
@testable import MigrationKitKeys
import Testing

/// The one table of exit codes (`ExitCodeDecision`): every reason a command refuses,
/// every kind of database error and the core's errors get the code the README's "Exit
/// codes" documents, whichever layer raised them.
@Suite struct ExitCodeDecisionTests {
    private func code(_ error: any Error) -> CLIExitCode { ExitCodeDecision.exitCode(for: error) }
    private func code(_ failure: DatabaseFailure) -> CLIExitCode { ExitCodeDecision.row(for: failure).exitCode }

    @Test func everyReasonACommandGivesHasItsDocumentedCode() {
        let documented: [CLIError.Reason: CLIExitCode] = [
            .missingOption: .usage, .conflictingOptions: .usage, .badOptionValue: .usage, .badSetting: .usage,
            .notAvailableHere: .usage,
            .notConfirmed: .refused, .wouldReplaceStoredKey: .refused, .migrationsDoNotMakeSchema: .refused,
            .wouldLoseData: .refused, .unprovenMigration: .refused, .notAdopted: .refused, .adoptionRefused: .refused,
            .fileExists: .fileError, .unusableFile: .fileError, .fileOperationFailed: .fileError, .backupNotWritten: .fileError,
            .noKeyGiven: .keyUnavailable, .newKeyNotStored: .keyUnavailable,
            .lintErrors: .migrationFailed,
            .damaged: .damaged,
            .unexpectedState: .failure,
        ]
        #expect(Set(documented.keys) == Set(CLIError.Reason.allCases))
        for reason in CLIError.Reason.allCases {
            let error = CLIError(reason, "Some sentence.")
            #expect(code(error) == documented[reason], "\(reason)")
            #expect(error.exitCode == documented[reason], "\(reason)")
        }
    }

    /// What a command reports and ends with although nothing failed to run: the codes
    /// deploy scripts read (`status --exit-code`, `diff`, `check`, `lint`, `verify`).
    @Test func everyVerdictHasItsDocumentedCode() {
        let documented: [CommandVerdict: CLIExitCode] = [
            .migrateWouldRefuse: .refused, .migrationsPending: .pendingMigrations,
            .lintErrors: .migrationFailed, .checksFailed: .migrationFailed,
            .verificationFailed: .verificationFailed, .drift: .verificationFailed,
        ]
        #expect(Set(documented.keys) == Set(CommandVerdict.allCases))
        for verdict in CommandVerdict.allCases {
            #expect(ExitCodeDecision.exitCode(for: verdict) == documented[verdict], "\(verdict)")
            #expect(ExitCodeDecision.ending(with: verdict).rawValue == documented[verdict]?.rawValue, "\(verdict)")
        }
    }

    /// Each kind of database error, as either layer describes it; a failed statement
    /// (`.sqlite`, and the kinds that say no more) by SQLite's result code.
    @Test func everyDatabaseErrorKindHasItsDocumentedCode() {
        let documented: [(DatabaseErrorKind, CLIExitCode)] = [
            (.wrongKey, .wrongKeyOrNotADatabase), (.notEncrypted, .wrongKeyOrNotADatabase),
            (.keyRequired, .wrongKeyOrNotADatabase), (.notADatabase, .wrongKeyOrNotADatabase),
            (.wrongOperation, .wrongKeyOrNotADatabase),
            (.damaged, .damaged), (.failsItsChecks, .verificationFailed),
            (.cannotOpen, .fileError), (.fileSystem, .fileError),
            (.invalidKey, .keyUnavailable),
            (.busy, .locked), (.inUse, .locked),
            (.unsupportedCipherSetting, .usage),
            (.sqlite, .failure), (.interrupted, .failure), (.misuse, .failure),
        ]
        for (kind, expected) in documented {
            // SQLITE_ERROR: a result code that says nothing more than the kind.
            #expect(code(DatabaseFailure(kind: kind, resultCode: .SQLITE_ERROR)) == expected, "\(kind)")
        }
        let byResultCode: [(SQLiteResultCode, CLIExitCode)] = [
            (.SQLITE_BUSY, .locked), (.SQLITE_LOCKED, .locked),
            (.SQLITE_READONLY, .fileError), (.SQLITE_READONLY_DIRECTORY, .fileError),
            (.SQLITE_IOERR, .fileError), (.SQLITE_IOERR_SHORT_READ, .fileError),
            (.SQLITE_FULL, .fileError), (.SQLITE_CANTOPEN, .fileError),
            (.SQLITE_PERM, .fileError),
            (.SQLITE_CORRUPT, .damaged),
            (.SQLITE_NOTADB, .wrongKeyOrNotADatabase),
            (.SQLITE_ERROR, .failure), (.SQLITE_INTERRUPT, .failure), (.SQLITE_CONSTRAINT, .failure),
        ]
        for (resultCode, expected) in byResultCode {
            #expect(code(DatabaseFailure(kind: .sqlite, resultCode: resultCode)) == expected, "\(resultCode)")
            // Every code FailureExplanation explains is a file problem.
            if FailureExplanation.forSQLite(resultCode: resultCode) != nil {
                #expect(expected == .fileError, "\(resultCode)")
            }
        }
        // The core's own database errors go by the same table.
        let unreadable = UnreadableDatabaseError(path: "/nonexistent/db.sqlite", keyed: true, triedFormats: nil)
        #expect(code(unreadable) == code(DatabaseFailure(kind: unreadable.kind, resultCode: .SQLITE_NOTADB)))
    }

    /// The `--json` kind of a database error, whichever layer describes it: a lock held
    /// too long is "locked", another kind its own name, a failed statement its
    /// explanation's name or what its code says of the file; and the sentences the
    /// table words for both command lines.
    @Test func everyDatabaseFailureHasItsJSONKindAndSharedSentence() {
        let explained = FailureExplanation.forSQLite(resultCode: .SQLITE_FULL)
        let documented: [(DatabaseFailure, String)] = [
            (DatabaseFailure(kind: .busy, resultCode: .SQLITE_BUSY), "locked"),
            (DatabaseFailure(kind: .inUse, resultCode: .SQLITE_BUSY), "inUse"),
            (DatabaseFailure(kind: .wrongOperation, resultCode: .SQLITE_NOTADB), "wrongOperation"),
            (DatabaseFailure(kind: .failsItsChecks, resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY), "failsItsChecks"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_FULL, explanation: explained), "diskFull"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_FULL), "diskFull"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_READONLY_DIRECTORY), "readOnly"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_CORRUPT), "corrupt"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_LOCKED), "sqlite"),
            (DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_IOERR_SHORT_READ), "sqlite"),
        ]
        for (failure, kind) in documented { #expect(failure.jsonKind == kind, "\(failure.kind) \(failure.resultCode.rawValue)") }

        let full = DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_FULL, explanation: explained)
        #expect(full.sentence(file: "app.db", subject: "app.db") == "app.db: Stopped because the disk is full; free some space (SQLite also needs room for a journal beside the file it writes), then run the command again.")
        #expect(full.sentence(file: nil, subject: "The database")?.hasPrefix("Stopped because the disk is full;") == true)
        let damaged = DatabaseFailure(kind: .sqlite, resultCode: SQLiteResultCode(rawValue: 11 | (1 << 8)))
        #expect(damaged.sentence(file: "app.db", subject: "app.db: The database") == "app.db: The database is damaged (a page cannot be read); run `verify` for details, and restore it from a backup.")
        #expect(DatabaseFailure(kind: .damaged, resultCode: .SQLITE_CORRUPT).sentence(file: "app.db", subject: "app.db") == nil)
        #expect(DatabaseFailure(kind: .sqlite, resultCode: .SQLITE_ERROR).sentence(file: "app.db", subject: "app.db") == nil)
    }

    /// A backup that fails its integrity check is damaged (10), as `migrationkit
    /// restore` says it (SQLCipher's `.damaged` error) and as an app's GRDB commands say it
    /// (their own refusal): one code, one `--json` kind.
    @Test func aDamagedBackupIsTheSameProblemOnBothLayers() {
        let sqlcipher = DatabaseFailure(kind: .damaged, resultCode: .SQLITE_CORRUPT)
        let grdb = CLIError(.damaged, "backup.db: The backup fails its integrity check (no answer); choose another backup.")
        #expect(code(sqlcipher) == .damaged && code(grdb) == .damaged)
        #expect(ErrorPresentation(of: sqlcipher, message: "").jsonBody.kind == ErrorPresentation(of: grdb, message: "").jsonBody.kind)
    }

    @Test func theCoresErrorsHaveTheirDocumentedCodes() {
        let documented: [(MigrationKitError, CLIExitCode)] = [
            (.duplicateIdentifiers(["a"]), .fileError),
            (.identifiersOutOfOrder(expected: "a", actual: "b"), .fileError),
            (.rollbackNotDefined("a"), .refused),
            (.rollbackMustTargetLatestApplied(latestApplied: "b", requested: "a"), .refused),
            (.rollbackStepCountMustBeNonNegative, .usage),
            (.quickCheckFailed(result: "bad"), .verificationFailed),
            (.foreignKeyViolations(count: 1), .verificationFailed),
            (.missingIndex(table: "t", index: "i"), .verificationFailed),
            (.unknownMigration("a"), .usage),
            (.databaseAlreadyMigratedBeyond("a"), .refused),
            (.databaseSuperseded(unknown: ["z"]), .refused),
            (.pendingMigrationsOutOfOrder(pending: ["a"], latestApplied: "b"), .refused),
            (.modifiedMigrations(identifiers: ["a"], files: ["a.sql"]), .refused),
            (.rollbackBeyondApplied(requested: 2, applied: 1), .refused),
            (.partiallyAppliedMerge(step: "m", applied: ["a"], missing: ["b"]), .refused),
        ]
        for (error, expected) in documented { #expect(code(error) == expected, "\(error.name)") }

        struct FailedStatement: Error {}
        let failedStatement = FailedStatement()
        #expect(code(MigrationStepError(identifier: "a", phase: .apply, sourceFile: nil, line: nil, underlying: failedStatement)) == .migrationFailed)
        #expect(code(SQLMigrationFileError(code: SQLMigrationFileError.Code(rawValue: "emptyUp"), path: "a.sql", message: "empty")) == .fileError)
        #expect(code(KeyError(code: .itemNotFound, message: "none")) == .keyUnavailable)
        #expect(code(KeyError(code: .promptCancelled, message: "stopped", signal: 15)) == .terminated)
        #expect(code(KeyError(code: .promptCancelled, message: "stopped", signal: 2)) == .interrupted)
        struct Unknown: Error {}
        #expect(code(Unknown()) == .failure)
    }

    /// The README's "Exit codes" table lists exactly the codes `CLIExitCode` has (which
    /// `--help` lists with their `summary`), in the same order.
    @Test func theReadmeListsEveryExitCode() throws {
        let listed = try Self.readmeExitCodeRows().flatMap(\.codes)
        #expect(listed == CLIExitCode.allCases.map(\.rawValue))
        for code in CLIExitCode.allCases { #expect(!code.summary.isEmpty, "\(code)") }
    }

    /// Each row of the README's "Exit codes" table is a code the one table
    /// (`ExitCodeDecision`) ends a run with, and each code the table ends a run with is
    /// a row: no documented code nothing gives, no code given that is not documented.
    @Test func eachRowOfTheReadmesExitCodesIsACodeTheTableGives() throws {
        let given = Set(ExitCodeDecision.everyExitCode.map(\.rawValue))
        let rows = try Self.readmeExitCodeRows()
        for row in rows {
            for code in row.codes { #expect(code.map(given.contains) == true, "README row \(String(describing: code)) (\(row.meaning.prefix(40))…): no failure ends a run with it") }
        }
        let documented = Set(rows.flatMap(\.codes).compactMap { $0 })
        for code in given.subtracting(documented).sorted() { #expect(Bool(false), "exit code \(code) is given but has no row in the README") }
    }

    /// The rows of the README's "Exit codes" table: the codes of each (`129, 130, 143`)
    /// and its meaning.
    private static func readmeExitCodeRows() throws -> [(codes: [Int32?], meaning: Substring)] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### Exit codes\n").dropFirst().first)
        let rows = section.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(3).prefix { $0.hasPrefix("| ") }
        return rows.map { row in
            let cells = row.split(separator: "|")
            return (cells[0].split(separator: ",").map { Int32($0.trimmingCharacters(in: .whitespaces)) }, cells.count > 1 ? cells[1] : "")
        }
    }
}
