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

    /// Throws if a page of the file fails its HMAC (SQLCipher 4.2+; nothing to check
    /// on older versions). For a check that must run before a transaction: within
    /// one, `integrityChecks` leaves it out.
    func verifyFileIntegrity(_ db: SQLCipherDatabase) throws {
        guard SQLCipherLibrary.hasCipherIntegrityCheck else { return }
        if let failure = cipherIntegrityCheck(db).failure { throw failure }
    }

    /// Throws the first post-migration problem found.
    public func verifyPostMigration(_ db: SQLCipherDatabase) throws {
        try verifyPostMigration(db, foreignKeys: .strict)
    }

    /// Throws the first post-migration problem found, judging foreign-key violations
    /// as `foreignKeys` says.
    public func verifyPostMigration(_ db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification) throws {
        if let failure = postMigrationChecks(db, foreignKeys: foreignKeys).lazy.compactMap(\.failure).first { throw failure }
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
        // Not inside a transaction: the pragma reads the pages in the file, not the
        // transaction's, and names every page a large transaction has spilled or grown
        // the database by as failing its HMAC. An atomic migrate checks the file before
        // its transaction instead (`verifyFileIntegrity`).
        if SQLCipherLibrary.hasCipherIntegrityCheck && !db.isInsideTransaction {
            checks.append(cipherIntegrityCheck(db))
        }
        checks.append(quickCheck(db))
        return checks
    }

    /// Every post-migration check, passed or failed.
    public func postMigrationChecks(_ db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification = .strict) -> [VerificationCheck] {
        let foreignKeyChecks: [VerificationCheck]
        switch foreignKeys {
        case .checkedByTransaction: foreignKeyChecks = []
        case .strict: foreignKeyChecks = [foreignKeyCheck(db, tolerating: ForeignKeyViolations())]
        case .tolerating(let tolerated): foreignKeyChecks = [foreignKeyCheck(db, tolerating: tolerated)]
        }
        return foreignKeyChecks + requiredIndexes.map { indexCheck($0, db) }
    }

    /// The integrity checks of a verification limited to what a migration changed:
    /// `quick_check` of each of `tables` (with its indexes) on SQLite 3.33+, of the
    /// whole file before. No `cipher_integrity_check`: it can only read the whole file.
    func changedTableIntegrityChecks(_ db: SQLCipherDatabase, tables: [String]) -> [VerificationCheck] {
        guard SQLCipherLibrary.hasTableQuickCheck else { return [quickCheck(db)] }
        return tables.map { quickCheck(db, table: $0) }
    }

    /// - Parameter table: the one table to check (SQLite 3.33+), or nil for all.
    private func quickCheck(_ db: SQLCipherDatabase, table: String? = nil) -> VerificationCheck {
        let name = table.map { "quick_check(\($0))" } ?? "quick_check"
        do {
            var problems: [String] = []
            try db.forEachRow(sql: table.map { "PRAGMA quick_check(\(quoteIdentifier($0)))" } ?? "PRAGMA quick_check(1)") { row in
                if let text = row[0].string { problems.append(text) }
            }
            let result = problems.joined(separator: "; ")
            guard result == "ok" else {
                return .failed(name, MigrationKitError.quickCheckFailed(result: Self.oneLine(result.isEmpty ? "no answer" : result)))
            }
            return .passed(name, detail: "ok")
        } catch {
            // A page so damaged that SQLite cannot even run the check is a failed check,
            // not an SQLite error for the user to decode.
            return .failed(name, MigrationKitError.quickCheckFailed(result: Self.oneLine(Self.message(of: error))))
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

    /// - Parameter tolerated: violations that pass (the database had them before a
    ///   migration); nil tolerates any. Found violations are named in the detail either
    ///   way, table, row ids and parent table, a few groups at most.
    private func foreignKeyCheck(_ db: SQLCipherDatabase, tolerating tolerated: ForeignKeyViolations?) -> VerificationCheck {
        do {
            guard try ForeignKeyDeferral.foreignKeyViolationCount(in: db) > 0 else {
                return .passed("foreign_key_check", detail: "no violations")
            }
            let found = try ForeignKeyDeferral.violations(in: db)
            let rows = "\(found.count) row\(found.count == 1 ? "" : "s") reference\(found.count == 1 ? "s" : "") a missing parent (\(found.summary()))"
            if tolerated.map(found.isWithin) ?? true {
                return .passed("foreign_key_check", detail: rows + ", all there before the migration")
            }
            let error = MigrationKitError.foreignKeyViolations(count: found.count)
            return VerificationCheck(name: "foreign_key_check", failure: error, detail: rows + "; " + Self.orphanAdvice)
        } catch {
            return .failed("foreign_key_check", error)
        }
    }

    /// What to do about rows whose parent is missing.
    static let orphanAdvice = "delete the orphan rows, or restore their parents, in a migration "
        + "(e.g. DELETE FROM child WHERE parentId NOT IN (SELECT id FROM parent))"

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

/// How the verifier judges foreign-key violations.
public enum ForeignKeyVerification: Sendable {
    /// Every violation fails the check (`verify`, `runPostMigrationChecks`).
    case strict
    /// Violations within these (what the database had before a migration) pass and are
    /// named in the detail; nil passes any (no migration transaction ran, so whatever is
    /// found was there before).
    case tolerating(ForeignKeyViolations?)
    /// The transaction around the checks already compared them (an atomic run).
    case checkedByTransaction
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

    public init(name: String, failure: (any Error & Sendable)?, detail: String) {
        self.name = name
        self.failure = failure
        self.detail = detail
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
