import Foundation
import MigrationKit

/// The checks run after every migrate and rollback, and by `migrationkit verify`.
///
/// Two parts, each replaceable through `MigrationHostIntegration`:
/// - integrity: `PRAGMA quick_check(1)` (every page readable and well-formed; with
///   SQLCipher's per-page HMAC, a tampered or flipped byte shows up here), and on
///   SQLCipher 4.2+ `PRAGMA cipher_integrity_check`;
/// - post-migration: `PRAGMA foreign_key_check` and the required indexes.
public struct SQLCipherMigrationVerifier: Sendable {
    public var requiredIndexes: [RequiredIndexSpec]

    public init(requiredIndexes: [RequiredIndexSpec] = []) {
        self.requiredIndexes = requiredIndexes
    }

    /// Throws the first integrity problem found.
    public func verifyIntegrity(_ db: SQLCipherDatabase) throws {
        if let failure = integrityChecks(db).lazy.compactMap(\.failure).first { throw failure }
    }

    /// Throws the first post-migration problem found.
    public func verifyPostMigration(_ db: SQLCipherDatabase) throws {
        if let failure = postMigrationChecks(db).lazy.compactMap(\.failure).first { throw failure }
    }

    /// Runs both parts and throws the first problem found.
    public func verify(_ db: SQLCipherDatabase) throws {
        try verifyIntegrity(db)
        try verifyPostMigration(db)
    }

    /// Every integrity check, passed or failed. On SQLCipher 4.2+ the page HMACs are
    /// checked first, whatever quick_check then says: `cipher_integrity_check` names the
    /// damaged pages, which quick_check (it reads the b-trees) cannot.
    public func integrityChecks(_ db: SQLCipherDatabase) -> [VerificationCheck] {
        var checks: [VerificationCheck] = []
        if SQLCipherLibrary.hasCipherIntegrityCheck {
            checks.append(cipherIntegrityCheck(db))
        }
        checks.append(quickCheck(db))
        return checks
    }

    /// Every post-migration check, passed or failed.
    public func postMigrationChecks(_ db: SQLCipherDatabase) -> [VerificationCheck] {
        [foreignKeyCheck(db)] + requiredIndexes.map { indexCheck($0, db) }
    }

    private func quickCheck(_ db: SQLCipherDatabase) -> VerificationCheck {
        do {
            var problems: [String] = []
            try db.forEachRow(sql: "PRAGMA quick_check(1)") { row in
                if let text = row[0].string { problems.append(text) }
            }
            let result = problems.joined(separator: "; ")
            guard result == "ok" else {
                return .failed("quick_check", MigrationKitError.quickCheckFailed(result: Self.oneLine(result.isEmpty ? "no answer" : result)))
            }
            return .passed("quick_check", detail: "ok")
        } catch {
            // A page so damaged that SQLite cannot even run the check is a failed check,
            // not an SQLite error for the user to decode.
            return .failed("quick_check", MigrationKitError.quickCheckFailed(result: Self.oneLine(Self.message(of: error))))
        }
    }

    private func cipherIntegrityCheck(_ db: SQLCipherDatabase) -> VerificationCheck {
        do {
            var problems: [String] = []
            try db.forEachRow(sql: "PRAGMA cipher_integrity_check") { row in
                if let text = row[0].string { problems.append(text) }
            }
            guard problems.isEmpty else {
                let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
                return .failed("cipher_integrity_check", MigrationKitError.quickCheckFailed(result: Self.oneLine(shown)))
            }
            return .passed("cipher_integrity_check", detail: "ok")
        } catch {
            return .failed("cipher_integrity_check", MigrationKitError.quickCheckFailed(result: Self.oneLine(Self.message(of: error))))
        }
    }

    private func foreignKeyCheck(_ db: SQLCipherDatabase) -> VerificationCheck {
        do {
            let count = try ForeignKeyDeferral.foreignKeyViolationCount(in: db)
            guard count == 0 else { return .failed("foreign_key_check", MigrationKitError.foreignKeyViolations(count: count)) }
            return .passed("foreign_key_check", detail: "no violations")
        } catch {
            return .failed("foreign_key_check", error)
        }
    }

    private func indexCheck(_ spec: RequiredIndexSpec, _ db: SQLCipherDatabase) -> VerificationCheck {
        let name = "index \(spec)"
        do {
            let found = try db.fetchOne(
                sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE AND name = ? COLLATE NOCASE",
                arguments: [.text(spec.table), .text(spec.index)]) != nil
            guard found else { return .failed(name, MigrationKitError.missingIndex(table: spec.table, index: spec.index)) }
            return .passed(name, detail: "present")
        } catch {
            return .failed(name, error)
        }
    }

    static func message(of error: any Error) -> String {
        (error as? SQLCipherError)?.message ?? String(describing: error)
    }

    /// quick_check answers with several lines for several problems; keep them on one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }
}

/// The outcome of one verification check, for reports and `--json`.
public struct VerificationCheck: Sendable {
    /// "quick_check", "cipher_integrity_check", "foreign_key_check", "index TABLE:INDEX",
    /// or "host integrity"/"host post-migration" for an app's own checks.
    public let name: String
    /// The error when the check failed, nil when it passed.
    public let failure: (any Error & Sendable)?
    /// "ok", "no violations", "present", or the failure's description.
    public let detail: String

    public var passed: Bool { failure == nil }

    public static func passed(_ name: String, detail: String) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: detail)
    }

    public static func failed(_ name: String, _ error: any Error & Sendable) -> VerificationCheck {
        VerificationCheck(name: name, failure: error, detail: String(describing: error))
    }
}

/// Every check of one verification run.
public struct VerificationReport: Sendable {
    public let checks: [VerificationCheck]

    public init(checks: [VerificationCheck]) {
        self.checks = checks
    }

    public var passed: Bool { checks.allSatisfy(\.passed) }
    public var failures: [VerificationCheck] { checks.filter { !$0.passed } }
}
