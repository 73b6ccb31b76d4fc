/// How the verifier judges foreign-key violations.
package enum ForeignKeyVerification: Sendable {
    /// Every violation fails the check (`verify`, `runPostMigrationChecks`).
    case strict
    /// Violations within these (what the database had before a migration) pass and are
    /// named in the detail; nil passes any (no migration transaction ran, so whatever is
    /// found was there before).
    case tolerating(ForeignKeyViolations?)
    /// The transaction around the checks already compared them (an atomic run).
    case checkedByTransaction
    /// Not checked, and not said to be: the steps ran after the app disabled their
    /// deferred checks (`disablingDeferredForeignKeyChecks()`), to check them itself.
    case skipped
}

/// The outcome of one verification check, for reports and `--json`.
public struct VerificationCheck: Sendable {
    /// "quick_check", "cipher_integrity_check", "foreign_key_check", "index TABLE:INDEX",
    /// or "host integrity"/"host post-migration" for an app's own checks.
    public let name: String
    /// The error when the check failed, nil when it passed.
    public let failure: (any Error & Sendable)?
    /// "ok", "no violations", "present", or the failure's description; for a check
    /// that does not apply, why.
    public let detail: String
    /// False for a check that does not apply to this database (`notApplicable`): it
    /// neither passed nor failed, and says nothing about the file's health.
    public let applies: Bool

    /// Whether the check passed, or does not apply (nothing was found wrong).
    public var passed: Bool { failure == nil }

    /// A check named `name` that passed, with what it found as the detail.
    public static func passed(_ name: String, detail: String) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: detail)
    }

    /// A check named `name` that failed with `error`, whose description is the detail.
    package static func failed(_ name: String, _ error: any Error & Sendable) -> VerificationCheck {
        VerificationCheck(name: name, failure: error, detail: String(describing: error))
    }

    /// A check named `name` that does not apply to this database, for the reason given
    /// (say, `cipher_integrity_check` of a file without page HMACs).
    package static func notApplicable(_ name: String, reason: String) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: reason, applies: false)
    }

    /// A check from its parts; `passed(_:detail:)` and `failed(_:_:)` are shorter.
    package init(name: String, failure: (any Error & Sendable)?, detail: String) {
        self.init(name: name, failure: failure, detail: detail, applies: true)
    }

    private init(name: String, failure: (any Error & Sendable)?, detail: String, applies: Bool) {
        self.name = name
        self.failure = failure
        self.detail = detail
        self.applies = applies
    }
}

/// Every check of one verification run.
public struct VerificationReport: Sendable {
    /// The checks, in the order they ran.
    public let checks: [VerificationCheck]

    /// A report of `checks`.
    package init(checks: [VerificationCheck]) {
        self.checks = checks
    }

    /// Whether every check passed.
    public var passed: Bool { checks.allSatisfy(\.passed) }
    /// The checks that failed, in order.
    public var failures: [VerificationCheck] { checks.filter { !$0.passed } }
}

extension VerificationCheck {
    /// One of the app's own checks (`MigrationHostIntegration`) as a check: a closure
    /// that throws fails it with a `HostVerificationError` naming the part.
    package static func host(_ part: HostVerificationError.Part, _ body: () throws -> Void) -> VerificationCheck {
        let name = "host \(part.rawValue)"
        do {
            try body()
            return .passed(name, detail: "ok")
        } catch {
            return .failed(name, HostVerificationError(part: part, underlying: error))
        }
    }
}

extension VerificationReport {
    /// The first failure, to throw.
    package var firstFailure: (any Error & Sendable)? { checks.lazy.compactMap(\.failure).first }
}
