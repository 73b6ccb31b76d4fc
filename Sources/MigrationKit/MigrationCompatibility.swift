/// Whether builds that do not know a step may keep using a database it was applied to:
/// Chromium's `last_compatible_version` (its `sql::MetaTable`), kept per step. A step that
/// only adds (a table, an index, a nullable column old code never reads) leaves the
/// queries and writes of older builds working; one that drops, renames or tightens does
/// not. It is a promise about the app's code, so it is declared (`-- migrate:compatible`
/// in a migration file, `MigrationStep.compatibility` in Swift), never inferred; lint
/// flags a declaration a file's SQL plainly breaks.
public enum MigrationCompatibility: Hashable, Sendable {
    /// Any build that does not know the step may use the database as it is.
    case withOlderBuilds
    /// Only builds that know this earlier step may (`-- migrate:compatible from ID`): the
    /// oldest build the step allows, named by what it knows rather than by a release
    /// number the database could not check.
    case withBuildsKnowing(String)

    /// Whether a build that knows what `knows` says allows may use the database.
    func allows(knowing knows: (String) -> Bool) -> Bool {
        switch self {
        case .withOlderBuilds: return true
        case .withBuildsKnowing(let identifier): return knows(identifier)
        }
    }
}
