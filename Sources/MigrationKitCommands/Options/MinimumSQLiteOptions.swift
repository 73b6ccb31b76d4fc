import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// `--min-sqlite VERSION`: lint also judges the SQL against an older SQLite, for an app
/// built on SQLCipher 4 that ships to machines with an older SQLCipher (Debian 12's
/// 3.4.1 runs SQLite 3.15.2).
package struct MinimumSQLiteOptions: ParsableArguments {
    @Option(name: .customLong("min-sqlite"),
            help: ArgumentHelp("Also report SQL that this older SQLite cannot run (e.g. 3.15.2, Debian 12's SQLCipher 3.4.1).", valueName: "version"),
            transform: { text in
                guard let version = SQLiteVersion(text) else {
                    throw ValidationError("give a SQLite version like 3.15.2 or 3.35.")
                }
                return version
            })
    package var minimum: SQLiteVersion?

    package init() {}

    package func validate() throws {
        // Against the SQLite of the command line being parsed (`ParsingLayer`).
        if let minimum, let layer = ParsingLayer.current, let linked = SQLiteVersion(layer.library.sqliteVersion), linked < minimum {
            throw ValidationError("--min-sqlite \(minimum) is newer than the linked SQLite \(linked), which is already the floor: migrations run on it here; give an older version or leave the option out.")
        }
    }

    /// `context`, judged against the minimum when one was given.
    package func applied(to context: LintContext) -> LintContext {
        minimum.map { context.judgedAgainst(minimum: $0) } ?? context
    }
}
