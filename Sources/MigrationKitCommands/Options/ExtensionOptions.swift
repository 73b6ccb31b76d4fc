import ArgumentParser
import MigrationKit

/// `--load-extension PATH[:ENTRY]` (repeatable; `load-extension` in `migrationkit.toml`,
/// `MIGRATIONKIT_LOAD_EXTENSION`): the app's own SQLite extensions, loaded into every
/// connection the command opens — the database, its copies, backups and scratch files —
/// so that what only the app registers (its full-text tokenizer, the functions its
/// triggers and views call, its collations) is there for every check, trigger and copy
/// (`LoadableExtension`). Every command that opens a database takes it.
package struct ExtensionOptions: ParsableArguments {
    @Option(name: .customLong(ProjectSetting.loadExtension.rawValue),
            help: ArgumentHelp("Load the app's SQLite extension into every connection the command opens, for what only the app registers: its full-text tokenizer, the functions its triggers and views call, its collations (repeatable; :ENTRY names the entry point when it is not the one SQLite derives from the file's name). It runs as part of this command: load only a library you trust as you trust the tool.",
                               valueName: "path[:entry]"))
    package var given: [String] = []

    package init() {}

    /// The extensions, in the order given.
    package var extensions: [LoadableExtension] { given.compactMap(LoadableExtension.init(argument:)) }

    package func validate() throws {
        for argument in given where LoadableExtension(argument: argument) == nil {
            throw ValidationError("--load-extension \"\(argument)\" names no library; give its path, as PATH or PATH:ENTRY (e.g. --load-extension /usr/lib/x86_64-linux-gnu/mod_spatialite.so).")
        }
    }
}
