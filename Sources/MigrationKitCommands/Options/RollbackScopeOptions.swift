import ArgumentParser

/// `rollback --steps N` or `--to ID`, the same on every command line.
struct RollbackScopeOptions: ParsableArguments {
    @Option(name: .customLong("steps"), help: ArgumentHelp("How many migrations to roll back (default 1).", valueName: "n"))
    var steps: Int?

    @Option(name: .customLong("to"), help: ArgumentHelp("Roll back every migration after this one.", valueName: "id"))
    var target: String?

    init() {}

    package func validate() throws {
        if steps != nil && target != nil {
            throw ValidationError("Give --steps or --to, not both.")
        }
        if let steps, steps < 0 {
            throw ValidationError("--steps must be zero or more.")
        }
    }

    /// How many of the latest migrations to roll back when no --to is given.
    var latestCount: Int { steps ?? 1 }
}
