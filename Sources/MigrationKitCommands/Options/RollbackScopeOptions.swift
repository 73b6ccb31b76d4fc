import ArgumentParser
import MigrationKit

/// `rollback --steps N`, `--to ID` or `--newer`, the same on every command line.
struct RollbackScopeOptions: ParsableArguments {
    @Option(name: .customLong("steps"), help: ArgumentHelp("How many migrations to roll back (default 1).", valueName: "n"))
    var steps: Int?

    @Option(name: .customLong("to"), help: ArgumentHelp("Roll back every migration after this one.", valueName: "id"))
    var target: String?

    @Flag(name: .customLong("newer"), help: "Step back from the migrations a newer version applied that are not compatible with this one, with the down SQL it stored in the database.")
    var newer = false

    init() {}

    package func validate() throws {
        if steps != nil && target != nil {
            throw ValidationError("Give --steps or --to, not both.")
        }
        if newer && (steps != nil || target != nil) {
            throw ValidationError("--newer steps back from every newer migration in the way; give it without --steps or --to.")
        }
        if let steps, steps < 0 {
            throw ValidationError("--steps must be zero or more.")
        }
    }

    /// How many of the latest migrations to roll back when no --to is given.
    var latestCount: Int { steps ?? 1 }

    /// What these options select.
    var selection: RollbackSelection {
        if newer { return .newer }
        return target.map { .after($0) } ?? .latest(latestCount)
    }
}
