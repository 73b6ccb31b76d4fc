import ArgumentParser
@testable import MigrationKit
@testable import MigrationKitCommands
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
            case "usage": throw CLIError(.missingOption, "--db-path is required: the database file to work on.")
            case "layer": throw LayerError()
            case "exit": throw ExitCode(CLIExitCode.pendingMigrations.rawValue)
            default: throw OtherError()
            }
        }
    }

    struct LayerError: Error {}
    struct OtherError: Error {}

    /// The probe's words for the one remedy it offers.
    private static let wording = RemedyWording { remedy in
        if case .acceptModified(let identifiers) = remedy { return "accept it with --accept-modified \(identifiers[0])" }
        return nil
    }

    private let runner = CommandLineRunner(root: Probe.self, commandName: "probe", wording: wording) { error, _ in
        error is LayerError ? ErrorPresentation(row: FailureRow(.locked, "locked"), message: "The file is locked.") : nil
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
        let presented = try #require(ErrorPresentation(MigrationKitError.unknownMigration("0042\nforged"), root: Probe.self,
                                                       layer: { _, _ in nil }, wording: Self.wording))
        #expect(presented.exitCode == .usage)
        #expect(presented.kind == "unknownMigration")
        #expect(!presented.message.contains("\n"))
        #expect(presented.message.contains("0042\\nforged"))
        // A remedy is in the command line's words; one it does not offer is left out.
        let edited = MigrationKitError.modifiedMigrations(identifiers: ["0001_a"], files: ["0001_a.sql"])
        let offered = try #require(ErrorPresentation(edited, root: Probe.self, layer: { _, _ in nil }, wording: Self.wording))
        #expect(offered.message.hasSuffix("put the change in a new migration, or accept it with --accept-modified 0001_a."))
        let outOfOrder = MigrationKitError.pendingMigrationsOutOfOrder(pending: ["0002_b"], latestApplied: "0003_c")
        let withheld = try #require(ErrorPresentation(outOfOrder, root: Probe.self, layer: { _, _ in nil }, wording: Self.wording))
        #expect(withheld.exitCode == .refused && withheld.message.hasSuffix("rename it to sort last."))
        // ArgumentParser's own errors are left to ArgumentParser.
        #expect(ErrorPresentation(ValidationError("bad"), root: Probe.self, layer: { _, _ in nil }, wording: Self.wording) == nil)
    }
}
