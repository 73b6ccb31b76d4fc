import ArgumentParser

/// `--json`, `--quiet` and `--verbose`, shared by every command.
public struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON on standard output (field names are stable; see the README).")
    public var json = false

    @Flag(name: [.long, .customShort("q")], help: "Print nothing but errors.")
    public var quiet = false

    @Flag(name: [.long, .customShort("v")], help: "Also print notes on standard error: how the key is protected in memory.")
    public var verbose = false

    public init() {}

    public func validate() throws {
        if json && quiet {
            throw ValidationError("--json and --quiet cannot be combined: --json already prints only the JSON document.")
        }
        if quiet && verbose {
            throw ValidationError("--quiet and --verbose cannot be combined: choose one.")
        }
    }
}
