import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct NewCommand: UsesProjectConnection, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create the next migration file (NNNN_name.sql, with up and down sections), numbered the way the folder already numbers its files.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "What the migration does, e.g. add_genre.")
    package var name: String

    package func validate() throws {
        if MigrationNumbering.slug(name).isEmpty {
            throw ValidationError("The name needs at least one letter or digit, e.g. `add_genre`.")
        }
    }

    /// What a new migration's down section (or `.down.sql` file) holds: a comment saying
    /// what to write, which is no down section (`SQLMigrationFile.down`), so the migration
    /// cannot be rolled back until a statement is written there. An empty section would
    /// be no down either, but reads as one that is there.
    static let downPlaceholder = """
        -- Write the SQL that undoes the up section here, or SELECT 1; if there is nothing to undo.
        -- Until a statement is written here, the migration cannot be rolled back.
        """

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        connection.key.warnIfOnCommandLine(reporter: reporter, in: world)
        if world.layer.hostMigrations(requiredIndexes: []) != nil {
            throw CLIError(.notAvailableHere, "This app's migrations are Swift code, so there is no migrations folder to add a file to.")
        }
        let next = try NextMigrationFile.write(named: name, in: connection.migrations.directory, layout: connection.migrations.givenLayout,
                                                up: "", down: Self.downPlaceholder)
        let identifier = next.identifier
        let created = next.files
        reporter.line("Created \(created.joined(separator: " and "))")
        try reporter.document(NewDocument(identifier: identifier, path: created[0], files: created))
    }
}

/// What `new --json` prints.
struct NewDocument: Encodable {
    package let identifier: String
    /// The file to write the up SQL into.
    package let path: String
    /// Every file created (one, or an .up.sql and a .down.sql).
    package let files: [String]
}
