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
    /// What only the database's app registers that this check needed and the connection
    /// lacked (`notChecked`): the check, or the part of it named in the detail, could not
    /// run, which says nothing about the file's health either; empty when it ran.
    package let unmetNeeds: [AppExtensionNeed]
    /// False for a check that did not run at all (`notChecked`); true for one that ran,
    /// wholly or for the part it could (`passed(_:detail:notChecking:)`).
    package let ran: Bool

    /// Whether the check passed, or does not apply (nothing was found wrong).
    public var passed: Bool { failure == nil }

    /// A check named `name` that passed, with what it found as the detail.
    public static func passed(_ name: String, detail: String) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: detail)
    }

    /// A check named `name` that failed with `error`, whose description is the detail.
    static func failed(_ name: String, _ error: any Error & Sendable) -> VerificationCheck {
        VerificationCheck(name: name, failure: error, detail: String(describing: error))
    }

    /// A check named `name` that does not apply to this database, for the reason given
    /// (say, `cipher_integrity_check` of a file without page HMACs).
    static func notApplicable(_ name: String, reason: String) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: reason, applies: false)
    }

    /// A check named `name` that could not run because the connection lacks `need`,
    /// which only the database's app registers: not a failure, and not a pass either.
    package static func notChecked(_ name: String, needing need: AppExtensionNeed) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: "not checked: it needs \(need), which this connection does not have",
                          applies: true, unmetNeeds: [need], ran: false)
    }

    /// A check that passed for what it could run and names, in `detail`, what it could
    /// not (`unmetNeeds`): `quick_check` table by table when the check of the whole file
    /// needs an index's tokenizer.
    package static func passed(_ name: String, detail: String, notChecking unmetNeeds: [AppExtensionNeed]) -> VerificationCheck {
        VerificationCheck(name: name, failure: nil, detail: detail, applies: true, unmetNeeds: unmetNeeds)
    }

    /// A check from its parts; `passed(_:detail:)` and `failed(_:_:)` are shorter.
    package init(name: String, failure: (any Error & Sendable)?, detail: String) {
        self.init(name: name, failure: failure, detail: detail, applies: true)
    }

    private init(name: String, failure: (any Error & Sendable)?, detail: String, applies: Bool, unmetNeeds: [AppExtensionNeed] = [],
                 ran: Bool = true) {
        self.name = name
        self.failure = failure
        self.detail = detail
        self.applies = applies
        self.unmetNeeds = unmetNeeds
        self.ran = ran && applies
    }

    /// Whether all of the check ran: false when something only the app registers was
    /// missing for it, or for part of it.
    package var checkedFully: Bool { unmetNeeds.isEmpty }
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

    /// The checks that could not run, or not wholly, for want of what only the
    /// database's app registers; they passed what they ran, and are not failures.
    package var notCheckedFully: [VerificationCheck] { checks.filter { !$0.checkedFully } }

    /// What the app registers that the checks needed, each once, in the order met.
    package var unmetNeeds: [AppExtensionNeed] {
        var seen: Set<AppExtensionNeed> = []
        return checks.flatMap(\.unmetNeeds).filter { seen.insert($0).inserted }
    }
}

extension VerificationCheck {
    /// One of the app's own checks (`MigrationHostIntegration`) as a check: a closure
    /// that throws fails it with a `HostVerificationError` naming the part.
    static func host(_ part: HostVerificationError.Part, _ body: () throws -> Void) -> VerificationCheck {
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
    var firstFailure: (any Error & Sendable)? { checks.lazy.compactMap(\.failure).first }
}
