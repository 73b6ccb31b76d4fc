import ArgumentParser
import MigrationKit
import MigrationKitCommands

struct GRDBSchemaDumpCommand: ParsableCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "schema-dump",
        abstract: "Print the schema as canonical SQL (sorted; equal schemas give identical text).")

    @OptionGroup var connection: GRDBConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let reporter = Reporter(output)
        let database = try GRDBDatabaseOpener.open(connection, access: .inspect, reporter: reporter)
        let snapshot = GRDBCLIContext.host.schemaSnapshot
        let dump = try database.writer.read { db in try snapshot?(db) ?? SchemaDump.canonicalSQL(of: db) }
        if output.json {
            try reporter.document(SchemaDumpDocument(database: database.path, output: nil, schema: dump))
        } else if !output.quiet {
            Console.out(dump.hasSuffix("\n") ? String(dump.dropLast()) : dump)
        }
    }
}
