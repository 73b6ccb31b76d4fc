import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitSQLCipher

struct SchemaDumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema-dump",
        abstract: "Print the schema as canonical SQL (sorted; equal schemas give identical text).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "file"))
    var outputFile: String?

    func run() throws {
        let reporter = Reporter(output)
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        let snapshot = CLIContext.host.schemaSnapshot
        let dump = try writer.read { db in try snapshot?(db) ?? SchemaDump.canonicalSQL(of: db) }
        if let outputFile {
            try refuseToOverwrite(outputFile, database: writer.path)
            try DurableFile.writePrivate(Array(dump.utf8), to: outputFile, replacing: true)
            reporter.line("Wrote the schema of \(writer.path) to \(outputFile).")
        } else if output.json {
            try reporter.document(["database": writer.path, "schema": dump])
        } else if !output.quiet {
            Console.out(dump.hasSuffix("\n") ? String(dump.dropLast()) : dump)
        }
    }

    /// Regenerating a schema file in place is the normal use, so an existing text file
    /// is replaced. Anything else (the database itself, another database, any binary
    /// file) is refused: one mistyped option must not destroy data.
    private func refuseToOverwrite(_ output: String, database: String) throws {
        guard FileManager.default.fileExists(atPath: output) else { return }
        if DurableFile.sameFile(output, database) {
            throw CLIError(.usage, "--output \(output) is the database itself; give another file for the schema.")
        }
        let handle = FileHandle(forReadingAtPath: output)
        let head = Array((try? handle?.read(upToCount: 4096)) ?? Data())
        try? handle?.close()
        // Text: no NUL, and valid UTF-8 (allowing a character cut by the 4 KiB limit).
        let isText = !head.contains(0) && (0...3).contains { String(validating: head.dropLast($0), as: UTF8.self) != nil }
        if !isText {
            throw CLIError(.usage, "--output \(output) exists and is not a text file (a database?); remove it or give another file.")
        }
    }
}
