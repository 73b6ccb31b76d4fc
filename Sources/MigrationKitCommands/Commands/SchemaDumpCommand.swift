import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct SchemaDumpCommand: UsesProjectConnection, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "schema-dump",
        abstract: "Print the schema as canonical SQL (sorted; equal schemas give identical text).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"))
    var outputFile: String?

    @Flag(name: .customLong("force"), help: "Replace --output if it exists (never a file this command reads).")
    var force = false

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        if let outputFile { try OutputFile(path: outputFile, force: force).check(against: connection.filesRead(in: world.surroundings.environment)) }
        // Printed to standard output, the schema is the whole output: no line before it.
        let database = try MigrationSession.open(connection, migrations: try world.layer.hostMigrationsOrNone(), access: .inspect,
                                                announcing: outputFile != nil, reporter: reporter, in: world)
        let dump = try database.schemaDump()
        if let outputFile {
            try DurableFile.writePrivate(Array(dump.utf8), to: outputFile, replacing: true)
            reporter.line("Wrote the schema of \(database.path) to \(outputFile).")
            try reporter.document(SchemaDumpDocument(database: database.path, databaseName: world.databaseName, output: outputFile, schema: dump))
        } else if output.json {
            try reporter.document(SchemaDumpDocument(database: database.path, databaseName: world.databaseName, output: nil, schema: dump))
        } else if !output.quiet {
            reporter.console.out(dump.hasSuffix("\n") ? String(dump.dropLast()) : dump)
        }
    }
}

