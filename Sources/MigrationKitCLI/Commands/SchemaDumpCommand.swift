import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct SchemaDumpCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "schema-dump",
        abstract: "Print the schema as canonical SQL (sorted; equal schemas give identical text).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"))
    var outputFile: String?

    @Flag(name: .customLong("force"), help: "Replace --output if it exists (never a file this command reads).")
    var force = false

    func run() throws {
        let reporter = Reporter(output)
        if let outputFile { try OutputFile(path: outputFile, force: force).check(against: connection.filesRead) }
        // Printed to standard output, the schema is the whole output: no line before it.
        let writer = try CommandSupport.openWriter(connection, access: .inspect, announcing: outputFile != nil, reporter: reporter)
        let snapshot = CLIContext.host.schemaSnapshot
        let dump = try writer.read { db in try snapshot?(db) ?? SchemaDump.canonicalSQL(of: db) }
        if let outputFile {
            try DurableFile.writePrivate(Array(dump.utf8), to: outputFile, replacing: true)
            reporter.line("Wrote the schema of \(writer.path) to \(outputFile).")
            try reporter.document(SchemaDumpDocument(database: writer.path, databaseName: CommandSupport.databaseName, output: outputFile, schema: dump))
        } else if output.json {
            try reporter.document(SchemaDumpDocument(database: writer.path, databaseName: CommandSupport.databaseName, output: nil, schema: dump))
        } else if !output.quiet {
            Console.out(dump.hasSuffix("\n") ? String(dump.dropLast()) : dump)
        }
    }
}

