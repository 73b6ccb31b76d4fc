import ArgumentParser
import MigrationKit
import MigrationKitCommands

/// `--collation NAME=BUILTIN` (repeatable), for the commands that copy a database
/// (`encrypt`, `decrypt`, `cipher-upgrade`): a built-in collation stands in for one
/// only the app that made the database registers (`CollationStandIn`), and the command
/// says what the copy's indexes then need.
struct CollationOptions: ParsableArguments {
    /// One `NAME=BUILTIN`.
    struct Choice {
        let name: String
        let standIn: CollationStandIn
    }

    @Option(name: .customLong("collation"),
            help: ArgumentHelp("Let a built-in collation (BINARY, NOCASE or RTRIM) stand in for one only the app that made the database registers, while copying it (repeatable); the copy's indexes ordered by it then need REINDEX in the app.",
                               valueName: "name=builtin"),
            transform: CollationOptions.choice)
    var choices: [Choice] = []

    /// The stand-ins by lower-cased name, as `SQLCipherConfiguration.collationStandIns`
    /// takes them.
    var standIns: [String: CollationStandIn] {
        Dictionary(choices.map { ($0.name.lowercased(), $0.standIn) }, uniquingKeysWith: { _, last in last })
    }

    static func choice(_ text: String) throws -> Choice {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let builtIns = CollationStandIn.allCases.map(\.rawValue).joined(separator: ", ")
        guard parts.count == 2, !parts[0].isEmpty, let standIn = CollationStandIn(rawValue: parts[1].uppercased()) else {
            throw ValidationError("give the app's collation and the built-in one to stand in for it, NAME=BUILTIN with BUILTIN one of \(builtIns) (e.g. --collation unicase=NOCASE).")
        }
        guard !AppCollation.builtIn.contains(parts[0].lowercased()) else {
            throw ValidationError("\(parts[0].uppercased()) is SQLite's own collation; name one only the app registers (e.g. --collation unicase=NOCASE).")
        }
        return Choice(name: parts[0], standIn: standIn)
    }

    /// After a copy: what each stand-in means for the copy's indexes.
    func noteStandIns(to reporter: Reporter) {
        for choice in choices {
            reporter.warning("\(choice.standIn.rawValue) stood in for the collation \(choice.name) while copying: indexes ordered by \(choice.name) follow \(choice.standIn.rawValue)'s order in the copy, so once the app has registered \(choice.name), rebuild them with REINDEX \(choice.name).")
        }
    }
}
