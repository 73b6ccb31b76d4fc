/// What a build can do with a database a newer build migrated: the one answer `migrate`,
/// `status`, `rollback --newer` and the runners give, decided by `NewerDatabaseJudgement`
/// from the ledger and what each newer step left for older builds
/// (`MigrationDowngradeTable`). Never a wipe: where neither using the database nor
/// stepping back is safe, the answer is a refusal that says why, step by step.
public enum DatabaseCompatibility: Hashable, Sendable {
    /// Nothing is applied that this build does not know.
    case current
    /// Steps this build does not know are applied, and every one of them allows this
    /// build (`MigrationCompatibility`): it uses the database as it is.
    case compatible([NewerMigration])
    /// Some newer steps do not allow this build, and each one that must be undone
    /// carries its down SQL, intact: stepping back (`rollback --newer`) undoes them,
    /// newest first, in one transaction.
    case canStepBack([NewerMigration])
    /// Some newer steps do not allow this build, and at least one of them cannot be
    /// undone here (its `verdict` says why): only the newer build may change the
    /// database; this one may read it.
    case mustRefuse([NewerMigration])

    /// The newer steps, in the order they were applied.
    public var newerMigrations: [NewerMigration] {
        switch self {
        case .current: return []
        case .compatible(let steps), .canStepBack(let steps), .mustRefuse(let steps): return steps
        }
    }

    /// The newer steps that do not allow this build: what `migrate` refuses for.
    public var blocking: [String] {
        newerMigrations.filter { !$0.allowsThisBuild }.map(\.identifier)
    }

    /// The steps a step back undoes, newest first.
    public var undone: [String] {
        newerMigrations.filter { $0.verdict != .allowsThisBuild }.map(\.identifier).reversed()
    }
}

/// One applied step this build does not know, as an older build judges it.
public struct NewerMigration: Hashable, Sendable {
    /// Its ledger identifier.
    public let identifier: String
    /// Its recorded compatibility, or nil when none was recorded.
    public let compatibility: MigrationCompatibility?
    /// Whether its recorded compatibility allows this build: recorded compatible, and for
    /// `from ID`, this build knows ID.
    public let allowsThisBuild: Bool
    /// Whether its down SQL is stored, intact or not.
    public let hasStoredDown: Bool
    /// What this build does with it: kept, undone, or in the way. A step that allows this
    /// build is undone all the same when a step applied before it does not.
    public let verdict: Verdict

    /// What this build does with one newer step.
    public enum Verdict: Hashable, Sendable {
        /// It allows this build, and stays applied.
        case allowsThisBuild
        /// It is undone from its stored down when the database is stepped back.
        case stepsBack
        /// It can be neither kept nor undone here.
        case blocks(Obstacle)
    }

    /// Why a newer step can be neither kept nor undone by this build.
    public enum Obstacle: Hashable, Sendable {
        /// No down SQL was stored: a Swift step's closure, a file with no down section,
        /// or a step applied by GRDB's migrator or a MigrationKit that kept none.
        case noStoredDown
        /// The stored down SQL no longer matches its checksum: edited or cut short.
        case storedDownEdited
        /// A step this build knows was applied after it: undoing it would pull the
        /// ground from under that step.
        case appliedUnder(String)
    }
}

/// The rules that answer `DatabaseCompatibility`, in one place. Pure: the ledger in the
/// order it was written (rowid order, the only order there is for steps this build has no
/// registration of), which identifiers this build knows, and what each newer step left.
///
/// 1. The newer steps are the ledger's identifiers this build does not know.
/// 2. Each allows this build when it was recorded compatible, and, for `from ID`, this
///    build knows ID.
/// 3. If all allow it, the database is used as it is. Otherwise every newer step from the
///    first one that does not allow it onwards is to be undone (a compatible step applied
///    after it stands on it); the ones before stay.
/// 4. Each step to undo needs its stored down, intact, and no step this build knows may
///    have been applied after it; otherwise the database is refused.
package enum NewerDatabaseJudgement {
    package static func judge(ledger: [String], knows: (String) -> Bool,
                              recorded: [String: MigrationDowngradeTable.Entry]) -> DatabaseCompatibility {
        let newer = ledger.enumerated().filter { !knows($0.element) }
        guard !newer.isEmpty else { return .current }
        func allows(_ identifier: String) -> Bool {
            recorded[identifier]?.compatibility?.allows(knowing: knows) ?? false
        }
        guard let firstBlocking = newer.firstIndex(where: { !allows($0.element) }) else {
            return .compatible(newer.map {
                NewerMigration(identifier: $0.element, compatibility: recorded[$0.element]?.compatibility, allowsThisBuild: true,
                               hasStoredDown: recorded[$0.element]?.downSQL != nil, verdict: .allowsThisBuild)
            })
        }
        var refused = false
        let judged = newer.enumerated().map { index, entry -> NewerMigration in
            let (position, identifier) = entry
            let row = recorded[identifier]
            let verdict: NewerMigration.Verdict
            if index < firstBlocking {
                verdict = .allowsThisBuild
            } else if row?.downSQL == nil {
                verdict = .blocks(.noStoredDown)
            } else if row?.storedDownIsIntact != true {
                verdict = .blocks(.storedDownEdited)
            } else if let above = ledger[(position + 1)...].first(where: knows) {
                verdict = .blocks(.appliedUnder(above))
            } else {
                verdict = .stepsBack
            }
            if case .blocks = verdict { refused = true }
            return NewerMigration(identifier: identifier, compatibility: row?.compatibility, allowsThisBuild: allows(identifier),
                                  hasStoredDown: row?.downSQL != nil, verdict: verdict)
        }
        return refused ? .mustRefuse(judged) : .canStepBack(judged)
    }
}
