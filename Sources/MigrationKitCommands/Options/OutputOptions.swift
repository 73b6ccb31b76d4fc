import ArgumentParser

/// `--json`, `--quiet` and `--verbose`, shared by every command.
package struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON on standard output (field names are stable; docs/json-output.md lists them).")
    package var json = false

    @Flag(name: [.long, .customShort("q")], help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: [.long, .customShort("v")], help: "Also print notes on standard error: how the key is protected in memory.")
    var verbose = false

    package init() {}

    package func validate() throws {
        if json && quiet {
            throw ValidationError("--json and --quiet cannot be combined: --json already prints only the JSON document.")
        }
        if quiet && verbose {
            throw ValidationError("--quiet and --verbose cannot be combined: choose one.")
        }
    }
}

/// A command with the output options: once its arguments parse, whether errors are
/// JSON comes from them rather than from a look at the raw arguments.
package protocol PrintsOutput: ParsableCommand {
    var output: OutputOptions { get }
}
