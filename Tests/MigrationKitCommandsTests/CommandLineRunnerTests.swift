import ArgumentParser
import MigrationKit
import MigrationKitCommands
import Testing

/// The run around every command, whatever the database layer: each outcome becomes its
/// documented exit code.
@Suite struct CommandLineRunnerTests {
    /// A command line whose one command throws what its argument names.
    struct Probe: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "probe", subcommands: [Throw.self])
    }

    struct Throw: ParsableCommand, PrintsOutput {
        @Argument var what: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            switch what {
            case "nothing": return
            case "refusal": throw MigrationKitError.databaseSuperseded(unknown: ["0009_future"])
            case "verification": throw MigrationKitError.quickCheckFailed(result: "page 3 is damaged")
            case "usage": throw CLIError(.usage, "--db-path is required: the database file to work on.")
            case "layer": throw LayerError()
            case "exit": throw ExitCode(CLIExitCode.pendingMigrations.rawValue)
            default: throw OtherError()
            }
        }
    }

    struct LayerError: Error {}
    struct OtherError: Error {}

    private let runner = CommandLineRunner(root: Probe.self, commandName: "probe") { error in
        error is LayerError ? ErrorPresentation(kind: "locked", message: "The file is locked.", exitCode: .locked) : nil
    }

    @Test(arguments: [
        ("nothing", CLIExitCode.success),
        ("refusal", .refused),
        ("verification", .verificationFailed),
        ("usage", .usage),
        ("layer", .locked),
        ("exit", .pendingMigrations),
        ("other", .failure),
    ])
    func eachOutcomeHasItsExitCode(what: String, expected: CLIExitCode) {
        #expect(runner.run(["throw", what]) == expected.rawValue)
    }

    @Test func argumentsThatDoNotParseAndAGroupWithNoCommandAreUsageErrors() {
        #expect(runner.run(["throw"]) == CLIExitCode.usage.rawValue)
        #expect(runner.run(["throw", "nothing", "--no-such-flag"]) == CLIExitCode.usage.rawValue)
        #expect(runner.run(["throw", "nothing", "--json", "--quiet"]) == CLIExitCode.usage.rawValue)
        #expect(runner.run([]) == CLIExitCode.usage.rawValue)
        #expect(runner.run(["--help"]) == CLIExitCode.success.rawValue)
    }

    @Test func theCoresErrorsAreOneSentenceWithAStableKind() throws {
        let presented = try #require(ErrorPresentation(MigrationKitError.unknownMigration("0042\nforged"), root: Probe.self) { _ in nil })
        #expect(presented.exitCode == .usage)
        #expect(presented.kind == "unknownMigration")
        #expect(!presented.message.contains("\n"))
        #expect(presented.message.contains("0042\\nforged"))
        // A command line without --accept-modified does not suggest it.
        let edited = MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: ["0001_a.sql"])
        let offered = try #require(ErrorPresentation(edited, root: Probe.self) { _ in nil })
        let withheld = try #require(ErrorPresentation(edited, root: Probe.self, layer: { _ in nil }, offersOverrides: false))
        #expect(offered.message.contains("--accept-modified 0001_a") && !withheld.message.contains("--accept-modified"))
        #expect(withheld.exitCode == .refused && withheld.message.hasSuffix("put the change in a new migration."))
        // ArgumentParser's own errors are left to ArgumentParser.
        #expect(ErrorPresentation(ValidationError("bad"), root: Probe.self) { _ in nil } == nil)
    }
}
