import ArgumentParser

/// `--json` and `--quiet`, shared by every command.
public struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON on standard output (field names are stable; see the README).")
    public var json = false

    @Flag(name: [.long, .customShort("q")], help: "Print nothing but errors.")
    public var quiet = false

    public init() {}

    public func validate() throws {
        if json && quiet {
            throw ValidationError("--json and --quiet cannot be combined: --json already prints only the JSON document.")
        }
    }
}
