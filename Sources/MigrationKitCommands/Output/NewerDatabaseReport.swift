import MigrationKit

/// The one wording of what this version can do with a database a newer version migrated
/// (`DatabaseCompatibility`), for `migrate`, `status` and `rollback --newer`, and its
/// `--json` form.
struct NewerDatabaseReport {
    let judgement: DatabaseCompatibility

    /// The line `migrate` prints when every newer step allows this version: it goes on.
    var compatibleLine: String? {
        guard case .compatible(let steps) = judgement else { return nil }
        let names = steps.map(\.identifier).joined(separator: ", ")
        return "\(names) \(steps.count == 1 ? "was" : "were") applied by a newer version and \(steps.count == 1 ? "is" : "are") marked compatible with this one: "
            + "\(steps.count == 1 ? "it stays as it is (`status` lists it)" : "they stay as they are (`status` lists them)")."
    }

    /// The lines `migrate` and `rollback --newer` print before they refuse: one for each
    /// newer step that does not allow this version, saying what can be done about it
    /// with the command line `commandName` names. None where no newer step recorded
    /// anything for older versions (a MigrationKit before this feature, or GRDB's own
    /// migrator, applied them): the refusal's own sentence says all there is.
    func refusalLines(commandName: String) -> [String] {
        guard judgement.newerMigrations.contains(where: { $0.hasStoredDown || $0.compatibility != nil }) else { return [] }
        switch judgement {
        case .current, .compatible:
            return []
        case .canStepBack(let steps):
            return steps.filter { !$0.allowsThisBuild }.map {
                "\($0.identifier): applied by a newer version and not compatible with this one; its down SQL is stored in the database: "
                    + "`\(commandName) rollback --newer` steps back (it copies the database aside first and says what it drops)."
            }
        case .mustRefuse(let steps):
            return steps.compactMap { step in
                guard case .blocks(let obstacle) = step.verdict else { return nil }
                return "\(step.identifier): applied by a newer version and not compatible with this one, and \(Self.words(for: obstacle)): "
                    + "only the newer version can change this database; `status`, `schema-dump` and `verify` still read it."
            }
        }
    }

    /// The note `status` prints after a newer step's identifier.
    func statusNote(for identifier: String) -> String {
        guard let step = judgement.newerMigrations.first(where: { $0.identifier == identifier }) else {
            return "applied, but no such migration here: migrated by a newer version"
        }
        switch step.verdict {
        case .allowsThisBuild:
            return "applied by a newer version; compatible with this one, used as it is"
        case .stepsBack where step.allowsThisBuild:
            return "applied by a newer version; compatible with this one, but undone with the newer steps before it when stepping back (`rollback --newer`)"
        case .stepsBack:
            return "applied by a newer version; not compatible with this one; its down SQL is stored: `rollback --newer` undoes it"
        case .blocks(.noStoredDown) where step.compatibility == nil:
            return "applied, but no such migration here: migrated by a newer version"
        case .blocks(let obstacle):
            return "applied by a newer version; \(step.allowsThisBuild ? "compatible with this one, but stepping back would undo it and" : "not compatible with this one, and") \(Self.words(for: obstacle))"
        }
    }

    /// What `status` adds to its summary when newer steps are applied and `migrate` would
    /// not refuse for them, or could step back from them.
    var statusSummary: String? {
        switch judgement {
        case .current, .mustRefuse: return nil
        case .compatible: return "The newer version's migrations are compatible with this one: migrate would use this database as it is."
        case .canStepBack: return "`rollback --newer` can step back from the newer version's migrations."
        }
    }

    private static func words(for obstacle: NewerMigration.Obstacle) -> String {
        switch obstacle {
        case .noStoredDown: return "no down SQL is stored for it"
        case .storedDownEdited: return "its stored down SQL does not match its checksum (edited or cut short)"
        case .appliedUnder(let known): return "\(known), which this version knows, was applied after it"
        }
    }

    /// The `--json` form, or nil when nothing newer is applied.
    var document: Document? {
        let verdict: String
        switch judgement {
        case .current: return nil
        case .compatible: verdict = "compatible"
        case .canStepBack: verdict = "stepBack"
        case .mustRefuse: verdict = "refused"
        }
        return Document(verdict: verdict, steps: judgement.newerMigrations.map { step in
            let obstacle: String?
            switch step.verdict {
            case .blocks(.noStoredDown): obstacle = "noStoredDown"
            case .blocks(.storedDownEdited): obstacle = "storedDownEdited"
            case .blocks(.appliedUnder): obstacle = "appliedUnder"
            default: obstacle = nil
            }
            let kept = if case .allowsThisBuild = step.verdict { true } else { false }
            return Document.Step(identifier: step.identifier, compatible: step.allowsThisBuild, storedDown: step.hasStoredDown,
                                 kept: kept, obstacle: obstacle)
        })
    }

    /// `newer` in `status --json`'s document.
    struct Document: Encodable {
        /// "compatible", "stepBack" or "refused".
        let verdict: String
        let steps: [Step]

        struct Step: Encodable {
            let identifier: String
            /// Whether it allows this version.
            let compatible: Bool
            /// Whether its down SQL is stored.
            let storedDown: Bool
            /// Whether it stays applied (true only when the database is used as it is).
            let kept: Bool
            /// Why it blocks: "noStoredDown", "storedDownEdited", "appliedUnder"; null when it does not.
            @AlwaysPresent var obstacle: String?
        }
    }
}
